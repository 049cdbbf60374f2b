"""The seamless wallet's protocols behind one port: reelstream's own and the Hub88 operator-wallet shape, their
signatures, the mapping of an operator's refusals to the spin's, and the HTTP client that calls an operator's wallet."""
