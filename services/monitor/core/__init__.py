"""Pure computations of the monitor: facts read from events, windows, folds, RTP statistics, the sequential test."""
