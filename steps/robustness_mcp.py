"""Step vocabulary of robustness_mcp (filled in by its issue-17 work)."""
