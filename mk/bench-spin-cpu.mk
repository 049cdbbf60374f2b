# Per-spin CPU of the spin service's Python, no broker: Rising Joker play compiled vs pure Python, decode, encode, ids.
.PHONY: bench-spin-cpu

bench-spin-cpu: venv ## Per-spin CPU micro-benchmark (medians of 5 rounds; the compiled/pure Rising Joker ratio)
	flock /tmp/reelstream-bench.lock $(PY) -m reelstream.bench.spin_cpu
