"""``python -m agentgym``: the same command line as ``agentgym``."""

import sys

from agentgym.cli import main

sys.exit(main())
