"""Pure rules of the seamless saga: decide(state, message, now) -> Decision, evolve(state, event) -> state."""
