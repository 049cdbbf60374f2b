# RNG evidence for a test lab: raw and scaled outputs for external suites (NIST STS, TestU01, dieharder, PractRand).
.PHONY: math-rng-dump

RNG_DUMP_DIR ?= bench-results/rng-dump
RNG_DUMP_SEEDS ?= 64

math-rng-dump: venv ## Raw ChaCha20 words (RNG_DUMP_SEEDS x 65,536 words) and scaled draws with a manifest -> RNG_DUMP_DIR
	$(RS) math rng-dump --out-dir $(RNG_DUMP_DIR) --seeds $(RNG_DUMP_SEEDS)
