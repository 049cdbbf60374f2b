# Lint and format: ruff's pyflakes, pycodestyle errors and warnings (lines ≤ 120, configured in pyproject.toml) over
# the whole tree, and `ruff format --check` (the tree is kept formatted; run `make format` to fix).
phase lint 120 bash -c '.venv/bin/ruff check . && .venv/bin/ruff format --check .'
