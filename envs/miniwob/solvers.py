"""Scripted solvers for MiniWoB++ pages, and the menu a random policy picks from.

A solver reads what the agent is shown (the page's instruction and its element lines, as the
sandbox sends them: role, name, value, ids) and returns the next action in Browser-v0's grammar; it
never reads the page's hidden state, so it solves only what a careful text agent could. Solvers are
state-aware (each action is chosen from the current page, with a little memory for what the page
does not show, like guess-number's bounds), so a fault that drops or hides an action is recovered
by choosing again. `SOLVERS` lists them; `env.reference_action()` is the solver of the task's page
("" for a page without one). `benchmarks/envs.py` and docs/miniwob.md report their success rates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["SOLVERS", "MIN_TURNS", "min_turns", "next_action", "menu", "candidates"]

Reply = dict[str, Any]
Line = dict[str, Any]
Solver = Callable[[Reply, dict[str, Any]], str]


def _match(pattern: str, text: str) -> re.Match[str]:
    """`re.match` on text whose shape the task fixes; ValueError (the page is not as expected) if not."""
    m = re.match(pattern, text)
    if m is None:
        raise ValueError(f"{text[:80]!r} does not match {pattern!r}")
    return m


def _search(pattern: str, text: str) -> re.Match[str]:
    """`re.search` on text whose shape the task fixes; ValueError (the page is not as expected) if not."""
    m = re.search(pattern, text)
    if m is None:
        raise ValueError(f"{pattern!r} not found in {text[:80]!r}")
    return m


def _found(line: Line | None, what: str) -> Line:
    """A line `find` must find; ValueError (the page is not as expected) if it is missing."""
    if line is None:
        raise ValueError(f"no {what} on the page")
    return line


def _ordinal(text: str) -> int:
    """3 for '3rd' (1-based)."""
    return int(_match(r"(\d+)(?:st|nd|rd|th)", text).group(1))


# ---------------------------------------------------------------------------- reading the page
def _q(text: str) -> str:
    return json.dumps(str(text), ensure_ascii=False)


def quoted(text: str) -> list[str]:
    """The double-quoted strings of an instruction, in order."""
    return re.findall(r'"([^"]*)"', text)


def find(
    reply: Reply,
    role: str | tuple[str, ...] | None = None,
    name: str | None = None,
    *,
    exact: bool = True,
    nth: int = 0,
) -> Line | None:
    """The ``nth`` line with this role (or roles) and name (case-insensitive; ``exact=False``: contains)."""
    roles = (role,) if isinstance(role, str) else role
    hits = []
    for line in reply.get("lines", []):
        if roles and line["role"] not in roles:
            continue
        if name is not None:
            have, want = line["name"].strip().lower(), name.strip().lower()
            if (have != want) if exact else (want not in have):
                continue
        hits.append(line)
    return hits[nth] if len(hits) > nth else None


def boxes(reply: Reply) -> list[Line]:
    return [ln for ln in reply.get("lines", []) if ln["role"] in ("textbox", "searchbox", "spinbutton")]


def click(line: Line | None) -> str:
    return f"click({line['id']})" if line else ""


def fill(line: Line | None, text: str) -> str:
    return f"fill({line['id']}, {_q(text)})" if line else ""


def _button(reply: Reply, *names: str) -> Line | None:
    for name in names:
        line = find(reply, ("button", "link", "clickable"), name)
        if line:
            return line
    return None


def _submit(reply: Reply) -> str:
    return click(_button(reply, "Submit", "submit", "Login", "Search", "OK"))


def _fill_then(reply: Reply, wanted: Sequence[tuple[Line | None, str]], then: str) -> str:
    """Fill each box that does not yet hold its text, then the final action."""
    for line, text in wanted:
        if line is not None and line.get("value") != text:
            return fill(line, text)
    return then


def _statics(reply: Reply) -> list[str]:
    return [ln["name"] for ln in reply.get("lines", []) if ln["role"] == "StaticText"]


# ---------------------------------------------------------------------------- the solvers
def click_named(reply: Reply, memory: dict[str, Any]) -> str:
    """click-button, click-link, click-dialog-2, unicode-test: the element the instruction quotes."""
    name = quoted(reply["utterance"])[0]
    exact = [ln for ln in reply["lines"] if ln["role"] in ("button", "link", "clickable") and ln["name"] == name]
    line = exact[0] if exact else find(reply, ("button", "link", "clickable"), name)  # "Ok" is not "ok"
    if line is None and name.lower() == "x":  # a dialog's close button, drawn as an x
        line = find(reply, "button", "Close")
    return click(line)


def click_dialog(reply: Reply, memory: dict[str, Any]) -> str:
    return click(_button(reply, "Close", "x", "×"))


def click_test(reply: Reply, memory: dict[str, Any]) -> str:
    """click-test, click-test-2, click-test-transfer: 'Click button ONE.' / 'Click the button.'"""
    m = re.search(r"Click button (\w+)\.", reply["utterance"])
    return click(find(reply, "button", m.group(1)) if m else find(reply, "button"))


def _done(memory: dict[str, Any], name: str, target: str | None = None) -> bool:
    """Whether the agent already did this (the page shows no trace of some actions)."""
    return any(n == name and (target is None or t == target) for n, t, _ in memory.get("history", []))


def click_button_sequence(reply: Reply, memory: dict[str, Any]) -> str:
    return click(find(reply, "button", "TWO" if _done(memory, "click", "ONE") else "ONE"))


def click_checkboxes(reply: Reply, memory: dict[str, Any]) -> str:
    """click-checkboxes(-large, -transfer): tick exactly the named boxes, then Submit."""
    m = re.search(r"Select (.*?) and click Submit", reply["utterance"])
    wanted = set() if not m or m.group(1).strip() == "nothing" else {w.strip() for w in m.group(1).split(",")}
    for line in reply["lines"]:
        if line["role"] == "checkbox" and (line["name"].strip() in wanted) != line["checked"]:
            return click(line)
    return _submit(reply)


def click_option(reply: Reply, memory: dict[str, Any]) -> str:
    m = re.search(r"Select (.*?) and click Submit", reply["utterance"])
    line = find(reply, "radio", m.group(1)) if m else None
    if line and not line["checked"]:
        return click(line)
    return _submit(reply)


def choose_list(reply: Reply, memory: dict[str, Any]) -> str:
    m = re.search(r"Select (.*?) from the list", reply["utterance"])
    box = find(reply, "combobox")
    if m and box and str(box["value"]) != m.group(1):
        return f"select({box['id']}, {_q(m.group(1))})"
    return _submit(reply)


def enter_text(reply: Reply, memory: dict[str, Any]) -> str:
    """enter-text, enter-text-dynamic, enter-text-2 (upper case)."""
    text = quoted(reply["utterance"])[0]
    if "upper case" in reply["utterance"]:
        text = text.upper()
    elif "lower case" in reply["utterance"]:
        text = text.lower()
    return _fill_then(reply, [(boxes(reply)[0], text)], _submit(reply))


def enter_password(reply: Reply, memory: dict[str, Any]) -> str:
    text = quoted(reply["utterance"])[0]
    return _fill_then(reply, [(b, text) for b in boxes(reply)], _submit(reply))


def login_user(reply: Reply, memory: dict[str, Any]) -> str:
    """login-user and login-user-popup (a popup may cover the form: dismiss it first)."""
    popup = find(reply, "button", "Cancel")
    if popup:
        return click(popup)
    user, password = quoted(reply["utterance"])[:2]
    return _fill_then(
        reply,
        [(find(reply, ("textbox",), "Username"), user), (find(reply, ("textbox",), "Password"), password)],
        click(_button(reply, "Login", "OK")),
    )


def find_word(reply: Reply, memory: dict[str, Any]) -> str:
    m = re.search(r"Find the (\w+) word", reply["utterance"])
    text = max(_statics(reply), key=len)
    words = text.split()
    word = words[_ordinal(m.group(1)) - 1].strip(".,;:!?") if m else ""
    return _fill_then(reply, [(boxes(reply)[0], word)], _submit(reply))


def simple_arithmetic(reply: Reply, memory: dict[str, Any]) -> str:
    problem = next(s for s in _statics(reply) if s.endswith("="))
    a, op, b = _match(r"\s*(-?\d+)\s*([-+x*/])\s*(-?\d+)", problem).groups()
    x, y = int(a), int(b)
    value = {"+": x + y, "-": x - y, "x": x * y, "*": x * y, "/": x // y if y else 0}[op]
    return _fill_then(reply, [(boxes(reply)[0], str(value))], _submit(reply))


def simple_algebra(reply: Reply, memory: dict[str, Any]) -> str:
    eq = next(s for s in _statics(reply) if "=" in s and "x" in s and s.strip() != "x =")
    m = re.match(r"\s*x\s*([-+])\s*(\d+)\s*=\s*(-?\d+)", eq)
    if m:
        op, b, c = m.groups()
        value = int(c) - int(b) if op == "+" else int(c) + int(b)
    else:
        b, op, c = _match(r"\s*(-?\d+)\s*([-+])\s*x\s*=\s*(-?\d+)", eq).groups()
        value = int(c) - int(b) if op == "+" else int(b) - int(c)
    return _fill_then(reply, [(boxes(reply)[0], str(value))], _submit(reply))


def read_table(reply: Reply, memory: dict[str, Any]) -> str:
    m = _search(r"Enter the value of (.*?) into", reply["utterance"])
    value = next(
        (
            r["name"].split(" | ", 1)[1]
            for r in reply["lines"]
            if r["role"] == "row" and r["name"].split(" | ")[0] == m.group(1)
        ),
        "",
    )
    return _fill_then(reply, [(boxes(reply)[0], value)], _submit(reply))


def copy_paste(reply: Reply, memory: dict[str, Any]) -> str:
    """copy-paste: the text area's text into the text box (the agent reads it, so no clipboard)."""
    target = next(b for b in boxes(reply) if not b.get("multiline"))
    source = next(b for b in boxes(reply) if b.get("multiline"))
    return _fill_then(reply, [(target, source["value"])], _submit(reply))


def focus_text(reply: Reply, memory: dict[str, Any]) -> str:
    m = re.search(r"the (\w+) input", reply["utterance"])
    index = _ordinal(m.group(1)) - 1 if m else 0
    return click(boxes(reply)[index])


def guess_number(reply: Reply, memory: dict[str, Any]) -> str:
    """Binary search over 0-9 with the page's feedback ('higher than 4', 'lower than 7')."""
    lo, hi = memory.setdefault("lo", 0), memory.setdefault("hi", 9)
    for text in _statics(reply):
        m = re.search(r"(higher|lower) than (-?\d+)", text)
        if m:
            n = int(m.group(2))
            lo, hi = (max(lo, n + 1), hi) if m.group(1) == "higher" else (lo, min(hi, n - 1))
    memory["lo"], memory["hi"] = lo, hi
    guess = str((lo + hi) // 2)
    box = boxes(reply)[0]
    if box.get("value") != guess:
        return fill(box, guess)
    return _submit(reply)


def click_tab(reply: Reply, memory: dict[str, Any]) -> str:
    m = _search(r"Click on Tab #(\d+)", reply["utterance"])
    return click(find(reply, "link", f"Tab #{m.group(1)}"))


def click_tab_2(reply: Reply, memory: dict[str, Any]) -> str:
    """click-tab-2 (-easy, -medium, -hard): open tabs in turn until the quoted word shows, then click it."""
    word = quoted(reply["utterance"])[0]
    target = find(reply, ("clickable", "link"), word)
    if target and not re.fullmatch(r"(Tab #)?\d+", target["name"]):
        return click(target)
    tabs = [ln for ln in reply["lines"] if ln["role"] == "link" and re.fullmatch(r"(Tab #)?\d+", ln["name"])]
    for tab in tabs:
        if not _done(memory, "click", tab["name"]):
            return click(tab)
    return click(tabs[0]) if tabs else ""


def _after(reply: Reply, line: Line) -> list[Line]:
    """The lines nested under ``line`` (deeper indent, right after it)."""
    lines = reply["lines"]
    i = next(k for k, ln in enumerate(lines) if ln["id"] == line["id"])
    out = []
    for ln in lines[i + 1 :]:
        if ln.get("indent", 0) <= line.get("indent", 0):
            break
        out.append(ln)
    return out


def email_inbox(reply: Reply, memory: dict[str, Any]) -> str:
    """email-inbox (-delete, -forward, -important, -noscroll, -reply, -star-reply): star, trash, forward, reply."""
    utt = reply["utterance"]
    sender = _search(r"email by (.+?) and", utt).group(1)
    if "star icon" in utt or "trash icon" in utt:
        icon = "star" if "star icon" in utt else "trash"
        row = next(ln for ln in reply["lines"] if ln["role"] == "clickable" and ln["name"].startswith(sender + " "))
        return click(next(ln for ln in _after(reply, row) if ln["name"] == icon))
    forward = "forward that email to" in utt
    send = find(reply, "clickable", "send-forward" if forward else "send-reply")
    if send:  # the form is open
        if forward:
            to = _search(r"forward that email to (.+?)\.$", utt).group(1)
            return _fill_then(reply, [(find(reply, "textbox", "to:"), to)], click(send))
        body = next(b for b in boxes(reply) if b["name"] != "to:")
        return _fill_then(reply, [(body, quoted(utt)[0])], click(send))
    button = find(reply, "clickable", "Forward" if forward else "Reply")
    if button:
        return click(button)
    return click(next(ln for ln in reply["lines"] if ln["role"] == "clickable" and ln["name"].startswith(sender + " ")))


def _posts(reply: Reply) -> list[tuple[str, list[Line]]]:
    """social-media's posts as (author handle, the post's clickables)."""
    posts: list[tuple[str, list[Line]]] = []
    for line in reply["lines"]:
        if line["role"] == "StaticText":
            m = re.search(r"(@\w+)( \d+\w+ ago)?$", line["name"])
            if m and (not posts or posts[-1][1]):
                posts.append((m.group(1), []))
        elif line["role"] == "clickable" and posts:
            posts[-1][1].append(line)
    return posts


_SOCIAL = {"reply": "reply", "retweet": "retweet", "like": "like", "share": "share"}


def _post_action(post: list[Line], button: str) -> str:
    """Click the post's button, opening its 'more' menu first when the button is in it."""
    key = button.lower()
    for line in post:
        if line["name"].lower() == _SOCIAL.get(key, "") or line["name"].lower().startswith(key):
            return click(line)
    return click(next(ln for ln in post if ln["name"] == "more"))


def social_media(reply: Reply, memory: dict[str, Any]) -> str:
    m = _search(r'For the user (@\w+), click on the "(.+?)" button', reply["utterance"])
    user, button = m.groups()
    post = next(clicks for handle, clicks in _posts(reply) if handle == user)
    return _post_action(post, button)


def social_media_many(reply: Reply, memory: dict[str, Any]) -> str:
    """social-media-all ('on all posts by @x') and -some ('on 2 posts by @x'), then Submit."""
    m = _search(r'Click the "(.+?)" button on (all|\d+) posts? by (@\w+)', reply["utterance"])
    button, count, user = m.groups()
    targets = [
        next(ln for ln in clicks if ln["name"].lower().split()[0] == button.lower())
        for handle, clicks in _posts(reply)
        if handle == user
    ]
    active = [t for t in targets if "active" in t["name"].split()]  # a clicked button shows as 'like active'
    need = len(targets) if count == "all" else int(count)
    if len(active) < need:
        return click(next(t for t in targets if t not in active))
    return _submit(reply)


def navigate_tree(reply: Reply, memory: dict[str, Any]) -> str:
    """Open folders (their hit areas) until the named file or folder shows, then click it."""
    name = quoted(reply["utterance"])[0]
    target = find(reply, "clickable", name)
    if target:
        return click(target)
    closed = [ln for ln in reply["lines"] if "expandable-hitarea" in ln["name"]]
    return click(closed[0]) if closed else ""


def search_engine(reply: Reply, memory: dict[str, Any]) -> str:
    """Search, then page through the results (three a page) to the nth and click it."""
    term = quoted(reply["utterance"])[0]
    n = _ordinal(_search(r"click the (\w+) search result", reply["utterance"]).group(1))
    box = boxes(reply)[0]
    if box.get("value") != term:
        return fill(box, term)
    pager = [ln for ln in reply["lines"] if ln["role"] == "link" and re.fullmatch(r"\d+|<|>", ln["name"])]
    if not pager or not _done(memory, "click", "Search"):
        return click(find(reply, "button", "Search"))
    page = 1
    for name, target, _ in memory.get("history", []):
        if name == "click" and target == "Search":
            page = 1
        elif name == "click" and target and re.fullmatch(r"\d+", target):
            page = int(target)
        elif name == "click" and target in ("<", ">"):
            page += 1 if target == ">" else -1
    want = (n - 1) // 3 + 1
    if page == want:
        results = [ln for ln in reply["lines"] if ln["role"] == "link" and ln not in pager]
        return click(results[(n - 1) % 3])
    link = find(reply, "link", str(want)) or find(reply, "link", ">" if want > page else "<")
    return click(link)


def book_flight(reply: Reply, memory: dict[str, Any]) -> str:
    """Search (picking each city from the autocomplete list), then book the cheapest or shortest flight."""
    m = _search(r"Book the (\w+) one-way flight from: (.+?) to: (.+?) on (\d+/\d+/\d+)\.", reply["utterance"])
    which, origin, destination, date = m.groups()
    books = [ln for ln in reply["lines"] if ln["role"] == "button" and ln["name"].startswith("Book flight for $")]
    if books:
        flights, duration = [], None
        for line in reply["lines"]:
            if line["role"] == "StaticText" and re.fullmatch(r"\d+h \d+m", line["name"]):
                h, mins = map(int, re.findall(r"\d+", line["name"]))
                duration = h * 60 + mins
            elif line in books:
                flights.append((duration, float(line["name"].split("$")[1].replace(",", "")), line))
        key = (lambda f: f[1]) if which == "cheapest" else (lambda f: f[0])
        return click(min(flights, key=key)[2])
    texts = boxes(reply)
    for label, place in (("From:", origin), ("To:", destination)):
        box = _found(find(reply, "textbox", label), f"{label} box")
        value = box.get("value") or ""
        if place in value and value.endswith(")"):
            continue  # chosen from the list
        pick = next(
            (
                ln
                for ln in reply["lines"]
                if ln["role"] == "clickable"
                and ln["name"].endswith(")")
                and (ln["name"].startswith(place + " (") or ln["name"].endswith("(" + place + ")"))
            ),
            None,
        )
        return click(pick) if pick and value == place else fill(box, place)
    when = next(b for b in texts if b["name"] not in ("From:", "To:"))
    return _fill_then(reply, [(when, date)], click(find(reply, "button", "Search")))


def text_transform(reply: Reply, memory: dict[str, Any]) -> str:
    """The letters, each drawn skewed in its own span, typed without the gaps between them."""
    text = next(t for t in _statics(reply)).replace(" ", "")
    return _fill_then(reply, [(boxes(reply)[0], text)], _submit(reply))


def enter_date(reply: Reply, memory: dict[str, Any]) -> str:
    """A date box takes the date as YYYY-MM-DD (what a browser's date box holds)."""
    mm, dd, yyyy = _search(r"(\d\d)/(\d\d)/(\d{4})", reply["utterance"]).groups()
    return _fill_then(reply, [(boxes(reply)[0], f"{yyyy}-{mm}-{dd}")], _submit(reply))


def enter_time(reply: Reply, memory: dict[str, Any]) -> str:
    """A time box takes HH:MM on the 24-hour clock."""
    h, mins, half = _search(r"(\d+):(\d\d) (AM|PM)", reply["utterance"]).groups()
    hour = int(h) % 12 + (12 if half == "PM" else 0)
    return _fill_then(reply, [(boxes(reply)[0], f"{hour:02d}:{mins}")], _submit(reply))


def click_collapsible(reply: Reply, memory: dict[str, Any]) -> str:
    """Open the section (its header), then Submit."""
    if not _done(memory, "click", next(ln["name"] for ln in reply["lines"] if ln["role"] == "tab")):
        return click(next(ln for ln in reply["lines"] if ln["role"] == "tab"))
    return _submit(reply)


def click_collapsible_2(reply: Reply, memory: dict[str, Any]) -> str:
    """Open sections in turn until the quoted link shows, then click it."""
    word = quoted(reply["utterance"])[0]
    target = find(reply, ("link", "clickable"), word)
    if target:
        return click(target)
    for tab in (ln for ln in reply["lines"] if ln["role"] == "tab"):
        if not _done(memory, "click", tab["name"]):
            return click(tab)
    return ""


def click_widget(reply: Reply, memory: dict[str, Any]) -> str:
    kind = quoted(reply["utterance"])[0]
    for line in reply["lines"]:
        role = line["role"]
        if (
            kind == "textarea"
            and line.get("multiline")
            or kind == "text"
            and role == "textbox"
            and not line.get("multiline")
            or kind == role
        ):
            return click(line)
    return ""


def copy_paste_2(reply: Reply, memory: dict[str, Any]) -> str:
    n = _ordinal(_search(r"from the (\w+) text area", reply["utterance"]).group(1))
    areas = [b for b in boxes(reply) if b.get("multiline")]
    target = next(b for b in boxes(reply) if not b.get("multiline"))
    return _fill_then(reply, [(target, areas[n - 1]["value"])], _submit(reply))


def form_sequence_2(reply: Reply, memory: dict[str, Any]) -> str:
    m = _search(
        r'Check the (\w+) radio button and enter the number "(-?\d+)" into the (\w+) textbox', reply["utterance"]
    )
    radios = [ln for ln in reply["lines"] if ln["role"] == "radio"]
    radio = radios[_ordinal(m.group(1)) - 1]
    if not radio["checked"]:
        return click(radio)
    return _fill_then(reply, [(boxes(reply)[_ordinal(m.group(3)) - 1], m.group(2))], _submit(reply))


def form_sequence_3(reply: Reply, memory: dict[str, Any]) -> str:
    m = _search(r'Choose (.+?) from the dropdown, then click the button labeled "(.+?)"', reply["utterance"])
    box = _found(find(reply, "combobox"), "dropdown")
    if str(box["value"]) != m.group(1):
        return f"select({box['id']}, {_q(m.group(1))})"
    return click(find(reply, "button", m.group(2)))


def movie_search(reply: Reply, memory: dict[str, Any]) -> str:
    """multi-layouts, multi-orderings: each box under (or beside) its label: genre, director, year."""
    genre, director, year = _search(
        r"Search for (.+?) movies directed by (.+?) from year (\d+)", reply["utterance"]
    ).groups()
    wanted = {"genre": genre, "director": director, "year": year, "date": year}
    lines = [
        ln
        for ln in reply["lines"]
        if ln["role"] in ("StaticText", "row", "textbox") and ln["name"] not in ("Movie Search",)
    ]
    first_box = next(i for i, ln in enumerate(lines) if ln["role"] == "textbox")
    after = first_box == 0  # a layout with each label under its box
    plan = []
    for i, line in enumerate(lines):
        if line["role"] != "textbox":
            continue
        near = lines[i + 1] if after and i + 1 < len(lines) else lines[i - 1] if i else None
        label = (line["name"] or (near["name"] if near and near["role"] != "textbox" else "")).lower()
        key = next((k for k in wanted if k in label), None)
        if key:
            plan.append((line, wanted[key]))
    return _fill_then(reply, plan, click(_button(reply, "Submit", "Search", "Go!")))


def read_table_2(reply: Reply, memory: dict[str, Any]) -> str:
    table = dict(r["name"].split(" | ", 1) for r in reply["lines"] if r["role"] == "row" and " | " in r["name"])
    plan = [(b, table.get(b["name"].rstrip(":"), "")) for b in boxes(reply)]
    return _fill_then(reply, plan, _submit(reply))


def use_autocomplete(reply: Reply, memory: dict[str, Any]) -> str:
    """Type the start, pick a suggestion that ends right, Submit."""
    parts = quoted(reply["utterance"])
    start, end = parts[0], (parts[1] if len(parts) > 1 else "")
    box = boxes(reply)[0]
    value = box.get("value") or ""
    if value.startswith(start) and value.endswith(end) and value != start:
        return _submit(reply)
    pick = next(
        (
            ln
            for ln in reply["lines"]
            if ln["role"] == "clickable" and ln["name"].startswith(start) and ln["name"].endswith(end) and ln is not box
        ),
        None,
    )
    return click(pick) if pick and value == start else fill(box, start)


SOLVERS: dict[str, Solver] = {
    "click-button": click_named,
    "click-link": click_named,
    "click-dialog-2": click_named,
    "unicode-test": click_named,
    "click-dialog": click_dialog,
    "click-test": click_test,
    "click-test-2": click_test,
    "click-test-transfer": click_test,
    "click-button-sequence": click_button_sequence,
    "click-checkboxes": click_checkboxes,
    "click-checkboxes-large": click_checkboxes,
    "click-checkboxes-transfer": click_checkboxes,
    "click-option": click_option,
    "choose-list": choose_list,
    "enter-text": enter_text,
    "enter-text-2": enter_text,
    "enter-text-dynamic": enter_text,
    "enter-password": enter_password,
    "login-user": login_user,
    "login-user-popup": login_user,
    "find-word": find_word,
    "simple-arithmetic": simple_arithmetic,
    "simple-algebra": simple_algebra,
    "read-table": read_table,
    "copy-paste": copy_paste,
    "focus-text": focus_text,
    "focus-text-2": focus_text,
    "guess-number": guess_number,
    "click-tab": click_tab,
    "click-tab-2": click_tab_2,
    "click-tab-2-easy": click_tab_2,
    "click-tab-2-medium": click_tab_2,
    "click-tab-2-hard": click_tab_2,
    "email-inbox": email_inbox,
    "email-inbox-delete": email_inbox,
    "email-inbox-forward": email_inbox,
    "email-inbox-important": email_inbox,
    "email-inbox-noscroll": email_inbox,
    "email-inbox-reply": email_inbox,
    "email-inbox-star-reply": email_inbox,
    "social-media": social_media,
    "social-media-all": social_media_many,
    "social-media-some": social_media_many,
    "navigate-tree": navigate_tree,
    "search-engine": search_engine,
    "book-flight": book_flight,
    "book-flight-nodelay": book_flight,
    "text-transform": text_transform,
    "enter-date": enter_date,
    "enter-time": enter_time,
    "click-collapsible": click_collapsible,
    "click-collapsible-nodelay": click_collapsible,
    "click-collapsible-2": click_collapsible_2,
    "click-collapsible-2-nodelay": click_collapsible_2,
    "click-widget": click_widget,
    "copy-paste-2": copy_paste_2,
    "form-sequence-2": form_sequence_2,
    "form-sequence-3": form_sequence_3,
    "multi-layouts": movie_search,
    "multi-orderings": movie_search,
    "read-table-2": read_table_2,
    "use-autocomplete": use_autocomplete,
    "use-autocomplete-nodelay": use_autocomplete,
}
"""Page -> its scripted solver."""

MIN_TURNS: dict[str, int] = {
    "book-flight": 7,
    "book-flight-nodelay": 7,
    "choose-list": 2,
    "click-button-sequence": 2,
    "click-checkboxes": 3,
    "click-checkboxes-large": 9,
    "click-checkboxes-transfer": 2,
    "click-collapsible": 2,
    "click-collapsible-2": 3,
    "click-collapsible-2-nodelay": 3,
    "click-collapsible-nodelay": 2,
    "click-option": 2,
    "click-tab-2": 3,
    "click-tab-2-hard": 3,
    "click-tab-2-medium": 2,
    "copy-paste": 2,
    "copy-paste-2": 2,
    "email-inbox-forward": 4,
    "email-inbox-reply": 4,
    "email-inbox-star-reply": 2,
    "enter-date": 2,
    "enter-password": 3,
    "enter-text": 2,
    "enter-text-2": 2,
    "enter-text-dynamic": 2,
    "enter-time": 2,
    "find-word": 2,
    "form-sequence-2": 3,
    "form-sequence-3": 2,
    "guess-number": 6,
    "login-user": 3,
    "login-user-popup": 3,
    "multi-layouts": 4,
    "multi-orderings": 4,
    "read-table": 2,
    "read-table-2": 3,
    "search-engine": 4,
    "simple-algebra": 2,
    "simple-arithmetic": 2,
    "social-media": 2,
    "social-media-all": 4,
    "social-media-some": 3,
    "text-transform": 2,
    "use-autocomplete": 3,
    "use-autocomplete-nodelay": 3,
}
"""The turns a page's task takes its solver, where more than one: the median over 20 test seeds
(benchmarks/miniwob.py). A task's ``min_turns``; the problem a seed draws may take more or fewer
(guess-number's search, an e-mail task that stars rather than replies)."""


def min_turns(page: str) -> int:
    return MIN_TURNS.get(page, 1)


def next_action(page: str, reply: Reply, memory: dict[str, Any]) -> str:
    """The solver's next action for the page as ``reply`` shows it ("" without a solver or a plan)."""
    solver = SOLVERS.get(page)
    if solver is None or not reply:
        return ""
    try:
        return solver(reply, memory)
    except (StopIteration, AttributeError, IndexError, KeyError, ValueError):  # the page is not as expected
        return ""


def menu(reply: Reply) -> list[str]:
    """What a random policy picks from: click every clickable line; fill each box with a word the
    instruction quotes or a number; choose each option of each drop-down."""
    words = quoted(reply.get("utterance", ""))[:3] or ["yes"]
    out = []
    for line in reply.get("lines", []):
        role = line["role"]
        if role in ("button", "link", "checkbox", "radio", "clickable"):
            out.append(click(line))
        elif role in ("textbox", "searchbox", "spinbutton"):
            out += [fill(line, w) for w in words]
        elif role == "combobox":
            out += [f"select({line['id']}, {_q(label)})" for _, label in line.get("options", [])[:6]]
    return out


_WORDS = re.compile(r"[^\s\"]+")
_PLAIN = frozenset(
    "a an and as at by click enter find for from in into is it of on or select the then this that to type "
    "with your you hit submit button box field text email user".split()
)
"""Instruction words never offered as a text to type (the task's verbs and glue, not its values)."""


def _stated(utterance: str) -> list[str]:
    """Texts the instruction states: its quoted strings, then its other words (values, names, dates)
    without trailing punctuation, less `_PLAIN`; at most eight."""
    words = [w.strip(".,;:!?()'") for w in _WORDS.findall(re.sub(r'"[^"]*"', " ", utterance))]
    out = list(quoted(utterance)) + [w for w in words if len(w) > 1 and w.lower() not in _PLAIN]
    return list(dict.fromkeys(t for t in out if t))[:8]


def candidates(reply: Reply) -> list[str]:
    """The no-oracle menu's candidates (``menu="no-oracle"``), built from the page alone: a click on
    every element a click can reach (boxes too); each box filled with each text the instruction
    states (its quoted strings, then its other words: names, values, dates, as written); each
    option of each drop-down. The solver is never asked, so a text the task needs worked out (a
    sum, a copied paragraph, a word read off the page, a date in another format) is not offered."""
    texts = _stated(reply.get("utterance", "")) or ["yes"]
    out = []
    for line in reply.get("lines", []):
        role = line["role"]
        if line.get("options"):
            out += [f"select({line['id']}, {_q(label)})" for _, label in line["options"][:12]]
        elif role in ("textbox", "searchbox", "spinbutton", "combobox"):
            out.append(click(line))
            out += [fill(line, t) for t in texts]
        elif role != "StaticText":
            out.append(click(line))
    return out
