"""The web action grammar: one table of typed actions that parses text and writes the help text and
the OpenAI-style tool schemas, built on the shared action kit (`agentgym.actions`).

Browser-v0 takes all of `ACTIONS`; MiniWoB-v0 takes them less what a one-page task has no use for,
so an agent moves between the two unchanged.

Accepted forms (one action per turn)::

    click(12)   fill(12, "desk lamp")   select(14, "Price: low to high")   press(12, "Enter")
    goto("/search?q=lamp")   back()   forward()   reload()   scroll("down")   noop()   finish("$12.34")
    {"tool": "click", "args": {"id": 12}}                      # JSON / OpenAI tool-call shape
    click('12')  select_option('14', 'Sports')  go_back()  send_msg_to_user('...')  scroll(0, 300)  # BrowserGym
    click('12', button='left')  fill('3', 'lamp', True)  go_forward()  <action>click('12')</action>  # BrowserGym
    click [12]   type [12] [desk lamp] [1]   press [Enter]   scroll [down]   go_back   stop [answer]  # WebArena
    help

A reply in prose is read through its one ``<action>`` tag, else through the one call it holds
("I will click(12)."); two actions in one reply are refused, since a turn takes one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentgym import answers
from agentgym.actions import (
    ArgumentError,
    BadArguments,
    Call,
    GrammarError,
    Param,
    ToolSpec,
    calls_in_reply,
    check_args,
    parse_action,
    strip_action_tag,
    tool_schema,
)
from agentgym.core import ActionError, ParsedAction

__all__ = ["BrowserActions", "ACTIONS", "NAVIGATING"]

_ID = Param("id", "integer", "the element's id: the number in brackets on the page, e.g. 12 for [12]")
ACTIONS: tuple[ToolSpec, ...] = (
    ToolSpec("click", "Click a link, button, checkbox or radio button.", (_ID,)),
    ToolSpec(
        "fill",
        "Type text into a text box, replacing what it holds (does not submit).",
        (_ID, Param("text", "string", "the text to type")),
    ),
    ToolSpec(
        "select",
        "Choose an option of a drop-down (combobox) by its label.",
        (_ID, Param("option", "string", "the option's label, as listed in options=[...]")),
    ),
    ToolSpec(
        "press",
        "Press a key in an element; Enter submits the element's form.",
        (_ID, Param("key", "string", "the key, e.g. Enter")),
    ),
    ToolSpec(
        "goto",
        "Open a path on this site, e.g. /search?q=lamp (other sites are not reachable).",
        (Param("path", "string", "a site path starting with /"),),
    ),
    ToolSpec("back", "Go back to the previous page."),
    ToolSpec("forward", "Go forward again to the page you went back from."),
    ToolSpec("reload", "Load the current page again: fresh data, typed values are lost."),
    ToolSpec(
        "scroll",
        "Show the next or previous window of a long page.",
        (Param("direction", "string", "down or up", enum=("down", "up")),),
    ),
    ToolSpec("noop", "Do nothing this turn and look at the current page again."),
    ToolSpec(
        "finish",
        "End the episode with your final answer: the value asked for, 'Done.', or why you cannot. "
        + answers.ANSWER_RULE,
        (
            Param("answer", "string", "your final answer"),
            Param(
                "value",
                "string",
                'optional: the one value asked for, e.g. "$12.34"; then only it is checked',
                required=False,
            ),
            Param(
                "refused",
                "boolean",
                "optional: true when you decline the request (then the answer says why), "
                "false when you do not; then your words are not read for a refusal",
                required=False,
            ),
        ),
    ),
)
NAVIGATING = frozenset({"click", "press", "goto", "back", "forward", "reload"})
"""Actions that load a page: the ones an injected fault (a failed or timed-out load) can hit."""
_ALIASES = {
    "select_option": "select",
    "go_back": "back",
    "go_forward": "forward",
    "send_msg_to_user": "finish",
    "report_infeasible": "finish",
    "stop": "finish",
    "type": "fill",
    "refresh": "reload",
    "hover": "noop",
    "focus": "noop",
    "clear": "fill",
}
_UNSUPPORTED = {
    "new_tab",
    "tab_focus",
    "close_tab",
    "upload_file",
    "mouse_click",
    "drag_and_drop",
    "dblclick",
    "keyboard_press",
    "keyboard_type",
}
_BRACKET = re.compile(r"^([a-z_]+)((?:\s*\[[^\]]*\])*)\s*$")
_BARE = {"go_back", "go_forward", "noop", "back", "forward", "reload", "new_tab", "close_tab"}
_CALL_NAMES = frozenset(s.name for s in ACTIONS) | frozenset(_ALIASES)
"""Names whose call is taken from a reply in prose (`calls_in_reply`)."""


@dataclass(frozen=True)
class BrowserActions:
    """Parses actions and describes them, all from `ACTIONS`."""

    specs: tuple[ToolSpec, ...] = ACTIONS

    def spec(self, name: str) -> ToolSpec | None:
        return next((s for s in self.specs if s.name == name), None)

    def help_text(self) -> str:
        lines = [
            "Act with one browser action per turn, written as a call; ids are the numbers in brackets on the page "
            "([12] link 'Cart' -> click(12)):"
        ]
        for s in self.specs:
            params = ", ".join(f"{p.name}: {p.type}" for p in s.params)
            lines.append(f"  {s.name}({params}) - {s.description}")
        lines.append(
            'Also accepted: JSON {"tool": "click", "args": {"id": 12}}, BrowserGym\'s names (select_option, '
            "go_back, send_msg_to_user, scroll(0, 300)) and WebArena's bracket forms (click [12], "
            "type [12] [text] [1], press [Enter], scroll [down], go_back, stop [answer]). `help` shows this."
        )
        return "\n".join(lines)

    def tools(self) -> list[dict[str, Any]]:
        return [tool_schema(s) for s in self.specs]

    def parse(self, text: str) -> ParsedAction:
        """One action (`BadArguments` when it calls an action with arguments that do not fit it);
        raises `ActionError`, saying what was expected, for text that calls no action.

        Text that is not one action as a whole is read through its ``<action>`` tag, else through
        the one call of a known action it holds, so a valid action is never reinterpreted.
        """
        try:
            return self._parse_one(text)
        except ActionError as exc:
            error = exc
        try:
            inner = strip_action_tag(text)
        except GrammarError as exc:
            raise ActionError(f"{exc}. {self._usage()}") from None
        if inner is not text:
            return self._parse_one(inner)
        calls = calls_in_reply(text, _CALL_NAMES)
        if len(calls) > 1:
            shown = ", ".join(c if len(c) <= 40 else c[:37] + "..." for c in calls[:4])
            raise ActionError(f"the reply holds {len(calls)} actions ({shown}); send one action per turn")
        if calls:
            return self._parse_one(calls[0])
        raise error

    def _parse_one(self, text: str) -> ParsedAction:
        stripped = text.strip()
        if stripped in ("help", "help()"):
            return ParsedAction("help")
        match = _BRACKET.match(stripped)
        if match and (match.group(2) or stripped in _BARE):
            return self._bracket(match.group(1), re.findall(r"\[([^\]]*)\]", match.group(2)))
        try:
            call = parse_action(text)
        except GrammarError as exc:
            raise ActionError(f"{exc}. {self._usage()}") from None
        return self._call(call)

    # ------------------------------------------------------------------ forms
    def _usage(self) -> str:
        return (
            "Actions: "
            + ", ".join(f"{s.name}({', '.join(p.name for p in s.params)})" for s in self.specs)
            + ", or help"
        )

    def _build(self, name: str, args: dict[str, Any], enter: bool = False) -> ParsedAction:
        if enter:
            args = dict(args, enter=True)
        tool = name if name in NAVIGATING or enter else None
        return ParsedAction(name, args, tool=tool)

    def _bad(self, name: str, error: str) -> BadArguments:
        """A call of action ``name`` with arguments that do not fit it: the core's one meaning of bad arguments."""
        return BadArguments(name, tool=self._build(name, {}).tool, error=error)

    def _bracket(self, name: str, parts: list[str]) -> ParsedAction:
        if name in _UNSUPPORTED:
            raise ActionError(f"{name} is not supported here: there is one tab and no history forward. {self._usage()}")
        name = {"go_back": "back", "go_forward": "forward", "stop": "finish", "type": "fill", "hover": "noop"}.get(
            name, name
        )
        if name == "press" and len(parts) == 1:
            return self._build("press", {"id": None, "key": parts[0]})
        if name == "fill":
            if len(parts) not in (2, 3):
                return self._bad(
                    "fill", "type takes an id, the text and an optional Enter flag: type [12] [desk lamp] [1]"
                )
            enter = (parts[2].strip() if len(parts) == 3 else "1") != "0"
            return self._build("fill", {"id": _element_id(parts[0]), "text": parts[1]}, enter)
        spec = self.spec(name)
        if spec is None:
            raise ActionError(f"unknown action {name!r}. {self._usage()}")
        return self._checked(spec, Call(name, {}, tuple(parts)))

    def _call(self, call: Call) -> ParsedAction:
        name = _ALIASES.get(call.name, call.name)
        if call.name in _UNSUPPORTED:
            raise ActionError(f"{call.name} is not supported here. {self._usage()}")
        if name == "noop":
            return self._build("noop", {})
        positional = call.positional
        if call.name == "clear":
            positional, call = positional[:1], Call(call.name, {k: v for k, v in call.args.items() if k == "id"})
            call = Call("fill", dict(call.args, text=""), positional)
        if name == "scroll" and len(positional) == 2 and all(isinstance(v, (int, float)) for v in positional):
            positional = ("down" if positional[1] >= 0 else "up",)  # BrowserGym's scroll(delta_x, delta_y)
        if name == "finish" and call.name == "send_msg_to_user" and "text" in call.args:
            call = Call(call.name, {"answer": call.args["text"]}, positional)
        if call.name == "report_infeasible":  # BrowserGym's report_infeasible(reason): a refusal, said exactly
            args = {("answer" if k == "reason" else k): v for k, v in call.args.items()}
            call = Call(call.name, {"refused": True, **args}, positional)
        if name in _BROWSERGYM_EXTRAS:
            try:
                call = _browsergym_extras(name, call)
            except ArgumentError as exc:
                return self._bad(name, str(exc))
            positional = call.positional
        spec = self.spec(name)
        if spec is None:
            raise ActionError(f"unknown action {call.name!r}. {self._usage()}")
        args = dict(call.args)
        for alias, real in (
            ("bid", "id"),
            ("value", {"fill": "text", "finish": "value"}.get(name, "option")),
            ("url", "path"),
            ("key_comb", "key"),
            ("options", "option"),
        ):
            if alias in args and real not in args:
                args[real] = args.pop(alias)
        return self._checked(spec, Call(name, args, positional))

    def _checked(self, spec: ToolSpec, call: Call) -> ParsedAction:
        positional = list(call.positional)
        args = dict(call.args)
        if spec.params and spec.params[0].name == "id":
            if positional:
                positional[0] = _element_id(positional[0])
            elif "id" in args:
                args["id"] = _element_id(args["id"])
        if spec.name == "scroll" and positional:
            positional[0] = str(positional[0]).strip().lower()
        blank = spec.name == "fill" and "" in (positional[1:2] or [args.get("text")])
        if blank:  # fill(id, "") clears a box; check_args refuses empty strings
            positional, args = positional[:1], {k: v for k, v in args.items() if k != "text"}
            args["text"] = "_"
        try:
            checked = check_args(spec, Call(spec.name, args, tuple(positional)))
        except ArgumentError as exc:
            if spec.name == "finish":  # finish names no tool: a finish the grammar cannot read is malformed
                raise ActionError(str(exc)) from None
            return self._bad(spec.name, str(exc))
        if blank:
            checked["text"] = ""
        return self._build(spec.name, checked)


# BrowserGym's optional arguments: name -> ((argument, position, the values that mean what this
# site does, why others do not), ...). Accepted values are dropped; others are refused.
_BROWSERGYM_EXTRAS: dict[str, tuple[tuple[str, int, tuple[Any, ...], str], ...]] = {
    "click": (
        ("button", 1, ("left",), "only the left button does something here (no context menus or new tabs)"),
        ("modifiers", 2, ([], ()), "modifier keys do nothing here (one tab, no selection)"),
    ),
    # typing with the autocomplete menu shown leaves the same text in the box: these sites have no such menus
    "fill": (("enable_autocomplete_menu", 2, (True, False), "enable_autocomplete_menu is True or False"),),
}


def _browsergym_extras(name: str, call: Call) -> Call:
    """Drop BrowserGym's extra arguments whose value means what this site does; refuse the rest."""
    extras = _BROWSERGYM_EXTRAS[name]
    args = dict(call.args)
    for arg, position, accepted, why in extras:
        if arg in args:
            value = args.pop(arg)
        elif len(call.positional) > position:
            value = call.positional[position]
        else:
            continue
        if value not in accepted:
            raise ArgumentError(f"{name}: {arg}={_short(value)} is not supported: {why}")
    first = extras[0][1]  # the extras' positions follow one another
    positional = call.positional[:first] + call.positional[first + len(extras) :]
    return Call(call.name, args, positional)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _element_id(value: Any) -> Any:
    """12, "12", "[12]" and BrowserGym's "a12" style all name element 12; anything else is left to fail the check."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*\[?\s*[a-zA-Z]?(\d{1,6})\s*\]?\s*", value)
        if m:
            return int(m.group(1))
    return value
