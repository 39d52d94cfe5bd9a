"""The expected-state verdict of a stateful world: the state the task asks for, and the right words.

Success needs both: the live world equals the expected one (initial state, plus what other actors
changed, plus the writes the task's rules allow: the family computes it), and the final answer
says what it must (`agentgym.answers.check_final`: the value asked for and no other, a refusal
and nothing else, or no refusal). ``evidence`` names the records a refusal must rest on, with the
versions they have now; the env grounds the refusal in what the agent saw (`agentgym.world.env`).

Stdlib only: loaded inside the sandbox under this name (``agentgym.world.verdict``).
"""

from agentgym import answers


def world_verdict(
    state_ok,
    answer,
    value=None,
    *,
    refusal,
    expected=None,
    kind=None,
    evidence=None,
    refused=None,
    actions=None,
    **detail,
):
    """The verdict as a dict: ``success``, ``state_ok``, ``answer_ok``, ``refusal`` (a refusal was
    the right answer), ``expected_answer``, ``evidence`` (record key -> version now; empty unless a
    refusal is expected) and the family's ``detail``. ``refused`` is the agent's structured flag
    (``finish(..., refused=true)``); ``actions`` the verbs of what the task asks (the text is read
    about them: `agentgym.answers`)."""
    answer_ok = answers.check_final(
        answer, value, refusal=refusal, expected=expected, kind=kind, refused=refused, actions=actions
    )
    return {
        "success": bool(state_ok and answer_ok),
        "state_ok": bool(state_ok),
        "answer_ok": answer_ok,
        "refusal": bool(refusal),
        "expected_answer": expected,
        "evidence": dict(evidence or {}) if refusal else {},
        **detail,
    }
