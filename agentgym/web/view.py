"""What the agent sees of a page and the actions on one element, for every web family.

Loaded into the step server as ``agentgym.web.view`` (stdlib only). `View` is the base of
Browser-v0's `Session` and MiniWoB-v0's `Episode`: the rendered lines (`axtree.parse_page`) get
ids stable for (path, role, name, occurrence) within the episode, drawn from the episode's
seeded RNG, so ids say nothing about page order and differ across episodes; a window of
`WINDOW` lines is shown (``scroll`` moves it); ``fill``, ``select`` and ``scroll`` check the
element and say why they cannot act, with the same words on every backend. A subclass says what
typing and submitting do to its page (`View.set_value`, `View.submit`).
"""

import random

WINDOW = 50
SCROLL_STEP = 40
TEXT_ROLES = ("textbox", "searchbox", "spinbutton")


class ActError(Exception):
    """An action the page cannot take; ``kind`` becomes the tool_call event's error_kind."""

    def __init__(self, kind, message, mismatch=None):
        super().__init__(message)
        self.kind, self.mismatch = kind, mismatch


class View:
    """The page's lines with their ids, the window shown, the focused element.

    A subclass sets ``url`` and ``title`` and fills ``lines`` through `number`.
    """

    def __init__(self, seed):
        self.id_rng = random.Random(seed)
        self.ids, self.keys = {}, {}  # (path, role, name, occurrence) -> id; id -> the path it was given on
        self.lines, self.offset, self.focus = [], 0, None

    # ------------------------------------------------------------------ ids and what is shown
    def _new_id(self):
        """A fresh id drawn from the episode's seeded RNG (ids say nothing about page order)."""
        top = 9999 if len(self.keys) < 5000 else 10 * len(self.keys)
        while True:
            ident = self.id_rng.randint(1, top)
            if ident not in self.keys:
                return ident

    def number(self, lines, path):
        """Give each line its episode-stable id, keyed by (path, role, name, occurrence)."""
        counts = {}
        for line in lines:
            base = "%s\0%s\0%s" % (path, line["role"], line["name"])
            counts[base] = counts.get(base, 0) + 1
            key = "%s\0%d" % (base, counts[base])
            ident = self.ids.get(key)
            if ident is None:
                ident = self.ids[key] = self._new_id()
                self.keys[ident] = path
            line["id"] = ident
        return lines

    def observe(self):
        out = ["URL: %s" % self.url, "Title: %s" % self.title]
        shown = self.lines[self.offset : self.offset + WINDOW]
        for line in shown:
            out.append(format_line(line))
        if len(self.lines) > len(shown):
            more = ' scroll("down") for more;' if self.offset + WINDOW < len(self.lines) else ""
            up = ' scroll("up") for earlier lines;' if self.offset else ""
            out.append(
                "[lines %d-%d of %d;%s%s]" % (self.offset + 1, self.offset + len(shown), len(self.lines), more, up)
            )
        return "\n".join(out)

    def element(self, ident):
        try:
            ident = int(str(ident).strip().lstrip("[").rstrip("]"))
        except ValueError:
            raise ActError("bad_args", "element ids are numbers, like 12; got %r" % (ident,)) from None
        for line in self.lines:
            if line["id"] == ident:
                return line
        if ident in self.keys:
            raise ActError(
                "stale",
                "element [%d] is not on this page any more (it was on %s); use an id from the "
                "current page" % (ident, self.keys[ident]),
                "stale element id [%d]" % ident,
            )
        raise ActError(
            "not_found",
            "there is no element [%d] on this page; ids are the numbers in brackets" % ident,
            "unknown element id [%d]" % ident,
        )

    def pressed(self, id):
        """The element a ``press`` acts on: the one named, else the one that has focus."""
        if id is None:
            if self.focus is None:
                raise ActError("bad_args", 'no element has focus: press(id, "Enter") names the element')
            id = self.focus
        return self.element(id)

    # ------------------------------------------------------------------ what the page does (a subclass's)
    def set_value(self, line, value):
        """Type into a text box or choose a drop-down option (by value)."""
        raise NotImplementedError

    def submit(self, form, submitter=None):
        """Submit the element's form (``fill(..., enter=True)``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ actions
    def do_fill(self, id, text, enter=False):
        line = self.element(id)
        if line["role"] not in TEXT_ROLES:
            hint = " (use select() for a combobox)" if line["role"] == "combobox" else ""
            raise ActError("not_interactive", "[%d] is a %s, not a text box%s" % (line["id"], line["role"], hint))
        self.set_value(line, str(text)[:4000])
        self.focus = line["id"]
        if enter:
            self.submit(line.get("form"))

    def do_select(self, id, option):
        line = self.element(id)
        if line["role"] != "combobox":
            raise ActError("not_interactive", "[%d] is a %s, not a drop-down (combobox)" % (line["id"], line["role"]))
        want = str(option).strip().lower()
        for value, label in line["options"]:
            if want in (label.lower(), str(value).lower()):
                self.set_value(line, value)
                return
        raise ActError(
            "bad_args",
            "combobox [%d] has no option %r; options: %s"
            % (line["id"], option, ", ".join(repr(lbl) for _, lbl in line["options"])),
        )

    def do_scroll(self, direction="down"):
        step = SCROLL_STEP if direction == "down" else -SCROLL_STEP
        self.offset = max(0, min(self.offset + step, max(0, len(self.lines) - WINDOW)))

    def do_noop(self):
        pass


def quote(text):
    return "'%s'" % str(text).replace("\\", "\\\\").replace("'", "\\'")


def format_line(line):
    """One line as the agent reads it: ``[id] role 'name'`` and the control's state."""
    head = "%s[%d] %s %s" % ("  " * line.get("indent", 0), line["id"], line["role"], quote(line["name"]))
    role = line["role"]
    if role in TEXT_ROLES:
        head += " value=%s" % quote(line["value"])
    elif role in ("checkbox", "radio"):
        head += " checked=%s" % ("true" if line["checked"] else "false")
    elif role == "combobox":
        labels = dict((str(v), lbl) for v, lbl in line["options"])
        head += " value=%s options=[%s]" % (
            quote(labels.get(str(line["value"]), line["value"])),
            ", ".join(quote(lbl) for _, lbl in line["options"]),
        )
    return head
