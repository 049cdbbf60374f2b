"""Pure audit rules: folds and checks over decoded facts (no Kafka, no Postgres, no clock)."""
