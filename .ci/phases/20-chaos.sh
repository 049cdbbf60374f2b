# The combined chaos and fuzz run (issue "No single record stops a service"): 1,000 spins of both games with deposits
# and withdrawals, 5 SIGKILLs of random services, one broker restart, one 10 s PostgreSQL stop, 1,000 hostile records
# over every input topic, then a restart of every service, one normal spin and the audit (0 discrepancies). Then the
# hostile-record campaign's small budget (issue 40): 600 records as each topic's least privileged writer in two
# batches, every consumer probed and every service restarted after each (`make fuzz-long` is the large one).
chaos_run() {
  set -a; . ./.reelstream/env; set +a
  .venv/bin/reelstream chaos --spins 1000 --kills 5 --fuzz 1000 --postgres-stop-s 10 --out .reelstream/ci/chaos
  cat .reelstream/ci/chaos/chaos.md
  # pytest exits 5 when the marker selects nothing: the phase fails then too.
  .venv/bin/python -m pytest -q -p no:cacheprovider -m campaign tests/integration/security/test_hostile_records_campaign.py
}
phase chaos 900 chaos_run
