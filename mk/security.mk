# Hostile records through the real broker (issue 40, docs/security.md): the CI-sized campaign is
# tests/integration/security/test_hostile_records_campaign.py (and the chaos phase's --fuzz); these are the long one,
# with its result file, and the campaign's own tests.
.PHONY: fuzz-long test-fuzz

FUZZ_SEED ?= 40

fuzz-long: topics ## 20,000 hostile records over every input topic, every service restarted every 4 batches; writes docs/results/security/fuzz-long.json + .md (commit it)
	$(WITH_ENV) $(RS) fuzz --seed $(FUZZ_SEED) --records 20000 --batch 500 --restart-every 4 \
		--out docs/results/security --name fuzz-long $(FUZZ_LONG_ARGS)

test-fuzz: infra-up ## The fuzzer's unit tests, then the small campaign through the real broker
	$(PY) -m pytest -q tests/unit/reelstream/chaos
	$(WITH_ENV) $(PY) -m pytest -q -m campaign tests/integration/security/test_hostile_records_campaign.py
