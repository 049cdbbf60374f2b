# The seamless fault run (docs/seamless.md, "The fault run"): 2,000 spins of both games for demo-b seamless on the
# reference wallet, its answers faulted (5 % timeouts, 5 % lost, 2 % HTTP 500, seeded), every service SIGKILLed
# midway; writes docs/results/seamless/ (commit it), stamped whether it passed or not. CI runs a short one.
.PHONY: seamless-faults
seamless-faults: topics ## The seamless fault run: 2,000 spins on the reference wallet, faulted answers, every service killed midway; writes docs/results/seamless/
	$(WITH_ENV) rc=0; $(PY) -m reelstream.chaos.seamless_faults --spins 2000 --out docs/results/seamless || rc=$$?; \
		$(STAMP) docs/results/seamless/seamless-faults.json; exit $$rc

# Issue 47's latency criterion (docs/seamless.md, "Latency"): ledger and seamless spins side by side at 50 spins/s
# each, the reference wallet at 20 ms a call; writes docs/results/seamless/seamless-latency.* (commit it), stamped
# whether it passed or not. A timing figure: record it on a quiet machine.
.PHONY: bench-seamless
bench-seamless: topics ## Seamless vs ledger p99 in one run at 50 spins/s each, the wallet at 20 ms a call: PASS/FAIL against issue 47's bound; writes docs/results/seamless/
	$(WITH_ENV) rc=0; $(RS) bench seamless --out docs/results/seamless || rc=$$?; \
		$(STAMP) docs/results/seamless/seamless-latency.json; exit $$rc
