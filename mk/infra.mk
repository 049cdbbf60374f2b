# Extra infrastructure targets (the main ones — infra-up/down/status, topics, bench-kafka — are in the Makefile).
.PHONY: infra-fetch topics-list ci

infra-fetch: venv ## Fetch the Kafka jars into ~/.cache/reelstream once (Maven)
	$(RS) infra fetch

topics-list: infra-up ## Show the declared topics as found on the broker
	$(WITH_ENV) $(RS) topics list

ci: ## What CI runs: packages, venv, jars, Kafka + Postgres, topics, tests, teardown
	bash .ci/run

.PHONY: three-brokers three-brokers-ci skewed-broker
three-brokers: venv ## 1 vs 3 local brokers (own ports 29092+, own state dir): throughput side by side, then 2,000 spins with a broker and a spin instance killed midway, audited (docs/results/brokers/, committed)
	flock /tmp/reelstream-bench.lock $(RS) bench brokers --spins 2000 --throughput-spins 1000 --out $(RESULTS)/brokers/three-brokers-$(RUN_ID).json
	$(STAMP) $(RESULTS)/brokers/three-brokers-$(RUN_ID).json

three-brokers-ci: venv ## The short CI variant of three-brokers (300 spins), then of skewed-broker (12 players, 2 spins each)
	$(RS) bench brokers --spins 300 --throughput-spins 200 --out .reelstream/ci/three-brokers.json
	$(RS) bench skew --per-partition 1 --spins-per-player 2 --out .reelstream/ci/skewed-broker.json

skewed-broker: venv ## One of three local brokers an hour ahead (libfaketime; ports 29392+, own state dir) leading the internal command partitions: every wager settled or refunded, nothing closing refused by age (docs/results/brokers/, committed)
	flock /tmp/reelstream-bench.lock $(RS) bench skew --out $(RESULTS)/brokers/skewed-broker-$(RUN_ID).json
	$(STAMP) $(RESULTS)/brokers/skewed-broker-$(RUN_ID).json
