"""The seamless saga: a seamless operator's rounds as calls to its own wallet, decided by a pure core and made by an
outbox adapter (docs/seamless.md)."""
