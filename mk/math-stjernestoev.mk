# Stjernestøv math: par sheet, the accumulating simulation proof, the engine/simulator agreement run, tests.
.PHONY: math-stjernestoev-parsheet math-stjernestoev-proof math-stjernestoev-proof-status math-stjernestoev-proof-record math-stjernestoev-agreement math-stjernestoev-test

SJ_PROOF_BATCHES ?= 100
SJ_PROOF_MODEL ?= stjernestoev-v3
SJ_PROCS ?= 2
SJ_AGREEMENT_INPUTS ?= 1000000

math-stjernestoev-parsheet: venv ## Stjernestøv par sheet (Markdown + JSON + PNG) from the committed proof batches
	$(PY) -m reelstream.cli math parsheet stjernestoev --out-dir docs/math/stjernestoev

math-stjernestoev-proof: venv ## Proof: SJ_PROOF_BATCHES x 1e7 fresh spins (resumable, logged in proof-attempts.jsonl), then the par sheet
	nice -n 10 $(PY) -m mathtools.stjernestoev prove --model-version $(SJ_PROOF_MODEL) --target-batches $(SJ_PROOF_BATCHES) --procs $(SJ_PROCS)
	$(PY) -m reelstream.cli math parsheet stjernestoev --model-version $(SJ_PROOF_MODEL) --out-dir docs/math/stjernestoev/$(SJ_PROOF_MODEL)

math-stjernestoev-proof-status: venv ## Where an unfinished proof stands; SJ_RECORD=1 logs it as an interim entry
	$(PY) -m mathtools.stjernestoev proof-status --model-version $(SJ_PROOF_MODEL) --target-batches $(SJ_PROOF_BATCHES) $(if $(SJ_RECORD),--record)

math-stjernestoev-proof-record: venv ## docs/math/proof-record.md from the criterion, tuning-seeds.json and the attempt log
	$(PY) -m mathtools.stjernestoev proof-record

math-stjernestoev-agreement: venv ## Engine vs simulator on SJ_AGREEMENT_INPUTS shared inputs -> docs/math/stjernestoev/agreement.json
	$(PY) -m mathtools.stjernestoev agreement --inputs $(SJ_AGREEMENT_INPUTS)

math-stjernestoev-test: venv ## Stjernestøv unit tests
	$(PY) -m pytest -q tests/unit/games/stjernestoev
