"""Runner: model backends, tool-call parsing, one agent episode (agent.py) and benchmark runs over many."""
