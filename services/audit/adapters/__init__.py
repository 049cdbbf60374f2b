"""Audit I/O: raw topic reading (own consumer, no group), Postgres projection reading, report writing."""
