"""The watchable demo: several concurrent game clients play both games against the running platform."""
