"""The reference operator wallet: a real HTTP server with its own PostgreSQL ledger that speaks both seamless protocols,
exactly once by request and transaction id, with seeded fault switches; tests, CI and demos run against it."""
