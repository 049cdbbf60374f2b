# reelstream — the two commands a person needs: `make run` and `make test`. Everything else is a helper target.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
RS := $(PY) -m reelstream.cli
# Exported by `reelstream infra up`; services and tests read KAFKA_BOOTSTRAP_SERVERS and DATABASE_URL from it.
ENVFILE := .reelstream/env
WITH_ENV := set -a; [ -f $(ENVFILE) ] && . ./$(ENVFILE); set +a;

.PHONY: help venv infra-up infra-down infra-status topics test test-unit test-integration run platform-up platform-down bench-kafka contract lint format

help:
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

$(VENV)/.installed: pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (Python 3.11 is required)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip==25.3
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

venv: $(VENV)/.installed ## Create the virtualenv with the pinned dependencies

infra-up: venv ## Start local Kafka (KRaft) and PostgreSQL; writes .reelstream/env
	$(RS) infra up

infra-down: venv ## Stop what infra-up started
	$(RS) infra down

infra-status: venv ## Show the local infrastructure
	$(RS) infra status

topics: infra-up ## Create every topic of the contract
	$(WITH_ENV) $(RS) topics create

test: infra-up ## Run the whole test suite against real Kafka and PostgreSQL (the slowest 25 listed at the end)
	$(WITH_ENV) $(PY) -m pytest -q --durations=25 -n 2 --dist loadgroup

test-unit: venv ## Unit tests only (no Kafka, no Postgres)
	$(PY) -m pytest -q tests/unit

lint: venv ## ruff: lint (lines ≤ 120) and the format check, as CI runs them
	$(PY) -m ruff check . && $(PY) -m ruff format --check .

format: venv ## ruff format over the tree
	$(PY) -m ruff format .

contract: venv ## Regenerate the AsyncAPI document and JSON Schemas from the models
	$(RS) contract generate

bench-kafka: topics ## Kafka baselines: raw produce/consume, decode-validate-encode loop, round-trip latency (docs/results/kafka/)
	$(WITH_ENV) $(RS) bench kafka --out $(RESULTS)/kafka/kafka-$(RUN_ID).json
	$(STAMP) $(RESULTS)/kafka/kafka-$(RUN_ID).json

-include mk/*.mk

# The local platform's operators: demo-a on our ledger, demo-b seamless on the reference wallet (`refwallet up` writes
# the file with the wallet's address and a key it makes under .reelstream/).
OPERATORS_FILE := $(CURDIR)/.reelstream/operators.json
WITH_OPERATORS := REELSTREAM_OPERATORS_FILE=$(OPERATORS_FILE)

.PHONY: platform-up platform-down run
platform-up: topics ## Start infra, topics, the reference wallet (demo-b's, seamless) and all services (the monitor and the seamless saga too) in the background (no demo)
	$(WITH_ENV) $(RS) refwallet up
	$(WITH_ENV) $(WITH_OPERATORS) $(RS) services up

platform-down: venv ## Stop the services, the reference wallet and the local infrastructure
	-$(WITH_ENV) $(RS) services down
	-$(WITH_ENV) $(RS) refwallet down
	$(RS) infra down

run: platform-up ## Start everything and play a ~1 minute live demo (one player on demo-b's own wallet); Ctrl-C or the end stops everything
	@echo "live jackpot meters: http://127.0.0.1:$${REELSTREAM_MONITOR_PORT:-8088}/   ops: http://127.0.0.1:$${REELSTREAM_MONITOR_PORT:-8088}/ops"
	@trap '$(MAKE) --no-print-directory platform-down' EXIT; $(WITH_ENV) $(WITH_OPERATORS) $(RS) demo --duration 60
