"""Local infrastructure without Docker: Kafka (KRaft, official jars via Maven) and a private PostgreSQL cluster."""
