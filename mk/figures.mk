# Figures from result files (issue 43): every bench and proof writes its result file under docs/results/;
# `make figures` renders the README's headline table, docs/figures.md and its charts from them (never by hand).
.PHONY: figures
RESULTS := docs/results
# One file per run, so that docs/figures.md keeps each figure's history: the run's UTC minute names it.
# Fixed once per make run (`:=`), so that the bench's --out and the stamp after it name the same file.
ifndef RUN_ID
RUN_ID := $(shell date -u +%Y-%m-%dT%H%MZ)
endif
STAMP := $(PY) -m reelstream.figures stamp
figures: venv ## Render the README's headline table, docs/figures.md and docs/figures/*.svg from docs/results/
	$(PY) -m reelstream.figures
