# Projector and ops: the Postgres projection of every event topic (see docs/projection.md, docs/ops.md).
.PHONY: projector-run projector-rebuild projector-status test-projector bench-projector

projector-run: topics ## Run the projector in the foreground
	$(WITH_ENV) $(RS) projector run

projector-rebuild: topics ## Rebuild the projection into a fresh schema and switch to it atomically
	$(WITH_ENV) $(RS) projector rebuild

projector-status: venv ## Live schema, positions, lag and row counts of the projection
	$(WITH_ENV) $(RS) projector status

test-projector: infra-up ## Projector and ops tests (unit + integration against the local Kafka and Postgres)
	$(WITH_ENV) $(PY) -m pytest -q tests/unit/projector tests/integration/projector

bench-projector: topics ## Projector live rows/s and rebuild events/s vs executemany and COPY (writes docs/results/projector/)
	$(WITH_ENV) $(RS) bench projector --out $(RESULTS)/projector/projector-$(RUN_ID).json
	$(STAMP) $(RESULTS)/projector/projector-$(RUN_ID).json

.PHONY: bench-projector-long
bench-projector-long: topics ## Projector bench on a 4x longer log (12,000 spins, 1 round; writes docs/results/projector/)
	$(WITH_ENV) $(RS) bench projector --spins 12000 --rounds 1 --out $(RESULTS)/projector/projector-12000-$(RUN_ID).json
	$(STAMP) $(RESULTS)/projector/projector-12000-$(RUN_ID).json
