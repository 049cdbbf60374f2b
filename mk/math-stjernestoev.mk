# Stjernestøv math: par sheet, the accumulating simulation proof, the engine/simulator agreement run, tests.
.PHONY: math-stjernestoev-parsheet math-stjernestoev-proof math-stjernestoev-agreement math-stjernestoev-test

SJ_BATCHES ?= 10
SJ_PROCS ?= 2
SJ_AGREEMENT_INPUTS ?= 1000000

math-stjernestoev-parsheet: venv ## Stjernestøv par sheet (Markdown + JSON + PNG) from the committed proof batches
	$(PY) -m reelstream.cli math parsheet stjernestoev

math-stjernestoev-proof: venv ## Append SJ_BATCHES x 1e7-spin proof batches (resumable), then rewrite the par sheet
	$(PY) -m reelstream.mathcli.stjernestoev accumulate --batches $(SJ_BATCHES) --procs $(SJ_PROCS)
	$(PY) -m reelstream.cli math parsheet stjernestoev

math-stjernestoev-agreement: venv ## Engine vs simulator on SJ_AGREEMENT_INPUTS shared inputs -> docs/math/stjernestoev/agreement.json
	$(PY) -m reelstream.mathcli.stjernestoev agreement --inputs $(SJ_AGREEMENT_INPUTS)

math-stjernestoev-test: venv ## Stjernestøv unit tests
	$(PY) -m pytest -q tests/unit/games/stjernestoev
