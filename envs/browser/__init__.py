"""agentgym/Browser-v0: web tasks on sites served inside the sandbox, seen as accessibility-tree text.

Three seeded WSGI apps over SQLite (a shop, a forum, an admin console), a text browser that calls
them in-process and renders pages into accessibility-tree text, four tiers (lookup, one write, several
writes, a request to refuse), train/test splits plus held-out templates. Success is the final
database state and the answer.
"""

from agentgym.envs.browser.actions import BrowserActions
from agentgym.envs.browser.env import BrowserEnv
from agentgym.envs.browser.tasks import BrowserTasks

__all__ = ["BrowserEnv", "BrowserTasks", "BrowserActions"]
