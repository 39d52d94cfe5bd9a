"""``python -m agentgym.envs.browser``: replan every task's oracle walk into ``data/plans.json.gz``.

Run it after changing a site or a template; `tests/envs/browser` fails until the stored walks match.
"""

from agentgym.envs.browser.tasks import PLANS, write_plans

print(f"planned {write_plans()} Browser tasks into {PLANS}")
