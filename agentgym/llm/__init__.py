"""What a language model reads and writes, one implementation for every model path.

Every way a model reaches an env (`agentgym.agents.HFAgent` in process, `agentgym.agents.OpenAIChatAgent`
against an endpoint, the TRL adapter's transcript, the server's MCP tools) offers the same tools and
shows the same view:

- `tools`: the one tool surface (`tool_schemas`: the family's tools, its grammar's verbs, or one
  ``act`` tool), a tool call as the env's action (`call_action`) and back (`action_call`), and the
  tools as one line each for a text prompt (`tool_lines`);
- `view`: the view itself (`ChatView`): the rules and tools once, the task once, then each step's
  result; the menu and the full rules only on request (``help``); replies read back as actions.

Standard library only: the model packages stay with the agents that load a model.
"""

from agentgym.llm.tools import action_call, call_action, tool_lines, tool_schemas
from agentgym.llm.view import ChatView, extract_action, parse_tool_call, result_text, task_text

__all__ = [
    "tool_schemas",
    "call_action",
    "action_call",
    "tool_lines",
    "ChatView",
    "task_text",
    "result_text",
    "extract_action",
    "parse_tool_call",
]
