"""The conformance kit: language-neutral vectors (docs/contract/conformance) run through any client command."""
