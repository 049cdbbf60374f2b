# Jackpot aggregator: unit and integration tests, the one-partition throughput benchmark.
.PHONY: test-jackpot test-jackpot-integration bench-jackpot jackpot-pools

test-jackpot: venv ## Jackpot core unit tests (no Kafka)
	$(PY) -m pytest -q tests/unit/jackpot

test-jackpot-integration: infra-up ## Jackpot service on the real broker, killed at its dangerous points
	$(WITH_ENV) $(PY) -m pytest -q tests/integration/jackpot

bench-jackpot: topics ## Contributions/s on one network partition vs the bare transform loop (writes docs/results/jackpot/)
	$(WITH_ENV) $(RS) bench jackpot --out $(RESULTS)/jackpot/jackpot-$(RUN_ID).json
	$(STAMP) $(RESULTS)/jackpot/jackpot-$(RUN_ID).json

jackpot-pools: infra-up ## Pool levels, totals, last winners and liability per operator
	$(WITH_ENV) $(RS) jackpot pools

.PHONY: mustdrop-parsheet
mustdrop-parsheet: topics ## Must-drop par sheet vs a platform run (>= 1,000 drops; KS on drop levels; docs/results/jackpot/)
	$(WITH_ENV) nice -n 10 $(PY) -m bench.mustdrop $(RESULTS)/jackpot/mustdrop-$(RUN_ID).json
	$(STAMP) $(RESULTS)/jackpot/mustdrop-$(RUN_ID).json
