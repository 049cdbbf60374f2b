# Rising Joker math: par sheet, long proofs and benchmarks (owner: issue 3). Results are committed into docs/math/rising-joker/.
RJ_DOCS := docs/math/rising-joker

.PHONY: parsheet-rising-joker prove-rising-joker test-rising-joker bench-rising-joker

parsheet-rising-joker: venv ## Rising Joker: exact par sheet by full-cycle enumeration (Markdown + JSON + PNG in docs)
	$(RS) math parsheet rising-joker --out-dir $(RJ_DOCS)

test-rising-joker: venv ## Rising Joker: the fast unit tests (also part of test-unit)
	$(PY) -m pytest -q tests/unit/games/rising_joker

prove-rising-joker: parsheet-rising-joker ## Rising Joker long checks: 1e6-stop evaluator/kernel agreement, 1e7-spin Monte Carlo
	$(PY) -c 'from pathlib import Path; from mathtools.rising_joker import prove_agreement; r = prove_agreement(spins=1_000_000, procs=2, seed=20240503, out_dir=Path("$(RJ_DOCS)")); raise SystemExit(1 if r["mismatches"] else 0)'
	$(RS) math simulate rising-joker --spins 10000000 --procs 2 --seed 7 --stake-minor 10 | tee $(RJ_DOCS)/simulation.txt

bench-rising-joker: venv ## Rising Joker: enumeration and Monte Carlo speed against reference loops (writes docs)
	$(PY) -c 'import json; from mathtools.rising_joker import bench; print(json.dumps(bench(quick=False), indent=2, sort_keys=True))' | tee $(RJ_DOCS)/bench.txt
