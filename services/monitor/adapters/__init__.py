"""The monitor's adapters: par sheets from docs, record decoding, faust tables, alerts, broker figures, web."""
