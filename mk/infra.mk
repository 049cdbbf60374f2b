# Extra infrastructure targets (the main ones — infra-up/down/status, topics, bench-kafka — are in the Makefile).
.PHONY: infra-fetch topics-list ci

infra-fetch: venv ## Fetch the Kafka jars into ~/.cache/reelstream once (Maven)
	$(RS) infra fetch

topics-list: infra-up ## Show the declared topics as found on the broker
	$(WITH_ENV) $(RS) topics list

ci: ## What CI runs: packages, venv, jars, Kafka + Postgres, topics, tests, teardown
	bash .ci/run
