"""ToolUse's one grammar rule of its own: ``finish`` carries a text answer.

Everything else of the action grammar (JSON, OpenAI tool-call shape, function-call form,
fences, argument checks) is the shared kit, `agentgym.actions`.
"""

from __future__ import annotations

from agentgym.actions import Call, GrammarError

__all__ = ["finish_answer"]


def finish_answer(call: Call) -> str:
    """The answer of a ``finish`` call; raises `GrammarError` when it is missing or not text."""
    values = list(call.positional) + [v for k, v in call.args.items() if k == "answer"]
    extra = sorted(set(call.args) - {"answer"})
    if extra or len(values) != 1 or not isinstance(values[0], str):
        raise GrammarError('finish takes one text answer: finish("Your refund of $12.50 is on its way.")')
    return values[0]
