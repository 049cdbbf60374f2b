"""The monitor's pages: faust web views (HTML and JSON) and live pushes (SSE) on the same aiohttp application."""
