"""The promotion domain: Order stock of one item under Poisson demand (a template domain)."""
