"""The audit: an independent reconstruction of every cent, pool level and spin from the raw topics."""
