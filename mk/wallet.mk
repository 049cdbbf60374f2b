# Wallet service (docs/wallet.md): unit tests, integration tests with crash hooks, the benchmark.
.PHONY: test-wallet test-wallet-integration bench-wallet wallet-run

test-wallet: venv ## Wallet core, handler and partition-rebuild unit tests, incl. the hypothesis properties (no Kafka)
	$(PY) -m pytest -q tests/unit/wallet

test-wallet-integration: venv ## Wallet service on the real broker: commands, dead letters, three crash points, snapshot restarts
	$(WITH_ENV) $(PY) -m pytest -q tests/integration/wallet

bench-wallet: venv ## Wallet commands/s vs the bare Kafka loop and a bare faust agent (3 interleaved rounds); latency; restart
	$(WITH_ENV) $(RS) bench wallet --rounds 3 --out $(RESULTS)/wallet/wallet-$(RUN_ID).json
	$(STAMP) $(RESULTS)/wallet/wallet-$(RUN_ID).json

wallet-run: venv ## Run the wallet service in the foreground
	$(WITH_ENV) $(RS) services run wallet
