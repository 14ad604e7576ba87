"""Runner: tool-call parsing, model backends, episodes (exports owned by the runner lead)."""
