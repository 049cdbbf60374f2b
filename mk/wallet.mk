# Wallet service (docs/wallet.md): unit tests, integration tests with crash hooks, the benchmark.
.PHONY: test-wallet test-wallet-integration bench-wallet wallet-run

test-wallet: venv ## Wallet core and handler unit tests, incl. the hypothesis property (no Kafka)
	$(PY) -m pytest -q tests/unit/wallet

test-wallet-integration: venv ## Wallet service on the real broker: commands, dead letters, crashes and restarts
	$(WITH_ENV) $(PY) -m pytest -q tests/integration/wallet

bench-wallet: venv ## Wallet commands/s and half-load latency vs the bare Kafka loop; recovery after restart
	$(WITH_ENV) $(RS) bench wallet --out bench-results/wallet.json

wallet-run: venv ## Run the wallet service in the foreground
	$(WITH_ENV) $(RS) services run wallet
