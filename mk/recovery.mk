# Recovery as history grows: snapshots on <service>.snapshots (docs/snapshots.md).
.PHONY: test-snapshots bench-recovery bench-recovery-long

test-snapshots: venv ## Snapshot unit tests and property tests (no Kafka)
	$(PY) -m pytest -q tests/unit/shared/test_snapshots.py tests/unit/wallet/test_wallet_snapshot.py tests/unit/wallet/test_wallet_handler_properties.py tests/unit/jackpot/test_jackpot_snapshot.py

bench-recovery: venv ## Ready time, tail folded and RSS with/without a snapshot at 10k and 100k spins; audit vs raw consume (docs/results/recovery/)
	mkdir -p $(RESULTS)/recovery
	$(WITH_ENV) flock /tmp/reelstream-bench.lock $(RS) bench recovery --sizes 10000,100000 --out $(RESULTS)/recovery/recovery-$(RUN_ID).json
	$(STAMP) $(RESULTS)/recovery/recovery-$(RUN_ID).json

bench-recovery-long: venv ## The same up to 1M spins (long: tens of minutes)
	mkdir -p $(RESULTS)/recovery
	$(WITH_ENV) flock /tmp/reelstream-bench.lock nice -n 10 $(RS) bench recovery --sizes 10000,100000,1000000 --out $(RESULTS)/recovery/recovery-long-$(RUN_ID).json
	$(STAMP) $(RESULTS)/recovery/recovery-long-$(RUN_ID).json
