"""agentgym.wrappers: composable gymnasium wrappers for interaction-budget experiments."""
