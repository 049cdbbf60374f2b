# Spin service: unit and integration tests, the 2,000-spin fault run, the end-to-end spin benchmark (docs/spin.md).
.PHONY: test-spin test-spin-integration spin-faults bench-spins bench-null-sagas

test-spin: venv ## Spin core unit tests (no Kafka)
	$(PY) -m pytest -q tests/unit/spin/core tests/unit/spin/adapters tests/unit/spin/test_session_tokens.py

test-spin-integration: infra-up ## Spins through wallet + jackpot + spin on the real broker (CI-sized fault run)
	$(WITH_ENV) $(PY) -m pytest -q tests/integration/spin

spin-faults: infra-up ## The full fault run: 2,000+ spins, every crash hook, SIGKILL of spin and wallet; writes docs/results/spin/spin-faults.json (committed)
	$(WITH_ENV) REELSTREAM_SPIN_FAULT_SPINS=2000 REELSTREAM_SPIN_FAULT_RESULT=docs/results/spin/spin-faults.json \
		$(PY) -m pytest -q tests/integration/spin/test_spin_faults.py
	$(STAMP) docs/results/spin/spin-faults.json

bench-spins: topics ## Settled spins/s, messages per spin, p50/p99 at 50 % load vs the Kafka baselines (docs/results/spin/)
	$(WITH_ENV) $(RS) bench spins --out $(RESULTS)/spin/spins-$(RUN_ID).json
	$(STAMP) $(RESULTS)/spin/spins-$(RUN_ID).json

bench-null-sagas: topics ## The real saga against the null sagas N6 and N3, interleaved: 50 and 250 spins/s x 10,000 spins each (~25 min)
	$(WITH_ENV) $(RS) bench spins --null-sagas --loads 50,250 --load-spins 10000 --out $(RESULTS)/spin/spin-null-sagas-$(RUN_ID).json
	$(STAMP) $(RESULTS)/spin/spin-null-sagas-$(RUN_ID).json

.PHONY: chaos chaos-long
chaos: topics ## The CI-sized chaos and fuzz run: 1,000 spins, 5 kills, a broker restart, a PostgreSQL stop, 1,000 hostile records, audit
	$(WITH_ENV) $(RS) chaos --spins 1000 --kills 5 --fuzz 1000 --out .reelstream/chaos

chaos-long: topics ## The long chaos run: 100,000 spins, 100 kills, 20,000 hostile records; writes docs/results/chaos/ (commit it); restarts THIS checkout's broker: see docs/chaos.md
	$(WITH_ENV) $(RS) chaos --spins 100000 --kills 100 --fuzz 20000 --clients 3 --concurrency 12 --spins-per-s 45 \
		--out docs/results/chaos $(CHAOS_LONG_ARGS)
	$(STAMP) docs/results/chaos/chaos.json
