"""Markets of agents after the Agent Bazaar: a B2C price war and a C2C lemon market of Sybil sellers."""
