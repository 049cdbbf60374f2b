# The three-broker proof, short: a local KRaft cluster of three brokers (ports 29092-29097, its own state dir, so the
# shared single broker of the earlier phases is not touched), two instances of each service, 300 spins with a broker
# and a spin instance SIGKILLed midway, then the audit must report 0 discrepancies; 1 vs 3 broker throughput printed.
# Then the skewed broker, short (`reelstream bench skew`): a cluster whose node 3 runs an hour ahead (libfaketime, from
# the packages phase) and leads the internal command partitions; every wager must end settled or refunded and no
# settlement, refund or claim be refused by age.
# Needs what the earlier phases installed (Java, the Kafka jars, the venv); `make three-brokers` is the full run.
phase three-brokers 600 make --no-print-directory three-brokers-ci
