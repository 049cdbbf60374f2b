# Audit, reports and game recall (docs/audit.md). Runs against the platform in .reelstream/env.
.PHONY: audit audit-test reports

audit: ## Audit every event from the earliest offsets; writes .reelstream/audit/ (where the ops page looks) and exits non-zero on any discrepancy
	$(WITH_ENV) $(RS) audit

audit-test: venv ## Audit unit tests, then the integration tests (need `make infra-up`)
	$(PY) -m pytest -q tests/unit/audit
	$(WITH_ENV) $(PY) -m pytest -q tests/integration/audit

reports: ## GGR, liability and reconciliation reports as CSV under reports/
	mkdir -p reports
	$(WITH_ENV) $(RS) reports ggr --format csv --out reports/ggr.csv
	$(WITH_ENV) $(RS) reports liability --format csv --out reports/liability.csv
	$(WITH_ENV) $(RS) reports reconciliation --format csv --out reports/reconciliation.csv
