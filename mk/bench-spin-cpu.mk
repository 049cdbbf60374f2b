# Per-spin CPU of the spin service's Python, no broker: Rising Joker play compiled vs pure Python, decode, encode, ids.
.PHONY: bench-spin-cpu

bench-spin-cpu: venv ## Per-spin CPU micro-benchmark (medians of 5 rounds; the compiled/pure Rising Joker ratio)
	flock /tmp/reelstream-bench.lock $(PY) -m bench.spin_cpu

# A settled spin's logic CPU per service, no broker: the spin's, the wallet's and the jackpot's deciders fed each other's records.
.PHONY: bench-saga-cpu

bench-saga-cpu: venv ## Logic CPU per settled spin by service (medians of 5 rounds of 2,000 spins; docs/spin.md)
	flock /tmp/reelstream-bench.lock $(PY) -m bench.saga_cpu $(if $(OUT),--out $(OUT))

# The same against a base commit (default dda066f, before the seam): alternated runs of each commit's own harness.
.PHONY: bench-saga-cpu-pairs

bench-saga-cpu-pairs: venv ## Logic CPU per settled spin against BASE (alternated PAIRS, medians, the ratio; OUT=FILE)
	flock /tmp/reelstream-bench.lock $(PY) -m bench.cpu_pairs $(if $(BASE),--base $(BASE)) $(if $(PAIRS),--pairs $(PAIRS)) $(if $(OUT),--out $(OUT))
