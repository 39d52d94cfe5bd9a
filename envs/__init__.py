"""agentgym.envs: the environment families (coding, tool use, ...), one sub-package each."""
