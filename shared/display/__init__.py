"""How amounts and times read for people and for scripts: one definition for the CLI and the audit's report."""
