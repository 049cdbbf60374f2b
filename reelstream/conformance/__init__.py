"""The conformance kits: language-neutral vectors (docs/contract/conformance) run through any client command, and the
operator-wallet cases (wallet.py) run against an operator's wallet."""
