"""HTML to a BrowserGym-style accessibility tree, stdlib only.

`parse_page` turns a page into its title, its forms and a flat list of element lines (role, name,
value, indent, and what acting on it needs: a link's href, a control's form and field name).
Interactive elements, headings, table rows, alerts and text blocks each become one line; labels
name their controls. The session gives each line an id and renders ``[id] role 'name' value=...``.
"""

import re
from html import unescape

VOID = {"input", "br", "img", "meta", "link", "hr", "col", "source", "wbr"}
SKIP = {"script", "style", "head", "template", "noscript"}
BLOCK = {
    "p",
    "div",
    "li",
    "section",
    "main",
    "header",
    "footer",
    "nav",
    "ul",
    "ol",
    "table",
    "tbody",
    "thead",
    "form",
    "dl",
    "dt",
    "dd",
    "fieldset",
    "legend",
    "article",
    "aside",
    "blockquote",
    "pre",
    "body",
    "html",
}
CONTROLS = {"a", "button", "input", "textarea", "select"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
TEXT_INPUTS = {
    "text": "textbox",
    "email": "textbox",
    "url": "textbox",
    "password": "textbox",
    "tel": "textbox",
    "date": "textbox",
    "search": "searchbox",
    "number": "spinbutton",
}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent


# One pass of two regexes instead of html.parser's state machine: several times faster on these
# pages (the parse was most of a step). Same tree: tag and attribute names lowercased, character
# references decoded, comments and declarations dropped, an unmatched ``<`` kept as text.
_TOKEN = re.compile(
    r"<!--.*?(?:-->|$)|<[!?][^>]*>?|<(/?)([a-zA-Z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>|([^<]+|<)", re.S
)
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


def _attrs(text):
    out = {}
    for m in _ATTR.finditer(text):
        name = m.group(1).lower()
        if name not in out:  # the first of duplicated attributes wins, as in browsers
            value = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
            out[name] = unescape(value) if value and "&" in value else (value or "")
    return out


def build_tree(markup):
    """The page's element tree (text nodes are strings) and its title and ``label for=`` nodes, in order."""
    root = cur = Node("#root", {}, None)
    named = []
    for m in _TOKEN.finditer(markup):
        tag = m.group(2)
        if tag is None:
            data = m.group(4)
            if data is not None:
                cur.children.append(unescape(data) if "&" in data else data)
            continue
        tag = tag.lower()
        if m.group(1):  # an end tag closes the nearest open element of its name, if any
            node = cur
            while node is not None and node.tag != tag:
                node = node.parent
            if node is not None and node.parent is not None:
                cur = node.parent
            continue
        rest = m.group(3)
        node = Node(tag, _attrs(rest) if rest.strip(" /") else {}, cur)
        cur.children.append(node)
        if tag == "title" or tag == "label" and node.attrs.get("for"):
            named.append(node)
        if tag not in VOID and not rest.endswith("/"):
            cur = node
    return root, named


def _squash(text):
    return " ".join(text.split())


def text_of(node, skip_controls=False):
    parts = []

    def walk(n):
        for c in n.children:
            if isinstance(c, str):
                parts.append(c)
            elif c.tag not in SKIP and not (
                skip_controls and c.tag in ("a", "button", "input", "select", "textarea", "label")
            ):
                walk(c)

    walk(node)
    return _squash(" ".join(parts))


class _Renderer:
    def __init__(self, named):
        self.lines, self.forms, self.buf = [], [], []
        self.title = ""
        self.labels = {}
        for node in named:
            if node.tag == "title":
                self.title = text_of(node)
            else:
                self.labels[node.attrs["for"]] = text_of(node, skip_controls=True)

    def flush(self, indent):
        if not self.buf:
            return
        text = _squash(" ".join(self.buf))
        self.buf = []
        if text:
            self.lines.append({"role": "StaticText", "name": text, "indent": indent})

    def name_of(self, node, fallback=""):
        a = node.attrs
        if a.get("aria-label"):
            return _squash(a["aria-label"])
        if a.get("id") and a["id"] in self.labels:
            return self.labels[a["id"]]
        parent = node.parent
        while parent is not None:
            if parent.tag == "label":
                return text_of(parent, skip_controls=True)
            parent = parent.parent
        return _squash(a.get("placeholder", "") or fallback)

    def walk(self, node, indent, form, only_controls=False):
        for c in node.children:
            if isinstance(c, str):
                if not only_controls:
                    self.buf.append(c)
                continue
            self.element(c, indent, form, only_controls)

    def element(self, el, indent, form, only_controls):
        tag, a = el.tag, el.attrs
        if tag in SKIP or tag == "title":
            return
        if tag == "form":
            self.flush(indent)
            self.forms.append({"action": a.get("action", ""), "method": a.get("method", "get").upper(), "hidden": []})
            self.walk(el, indent, len(self.forms) - 1, only_controls)
            self.flush(indent)
            return
        line = self.control(el, form) if tag in CONTROLS or "data-ag-click" in a else None
        if line is not None:
            if line.get("hidden"):
                return
            self.flush(indent)
            line["indent"] = indent
            if "data-ag" in a:  # the Chromium backend's index of the live element behind this line
                line["dom"] = int(a["data-ag"])
            self.lines.append(line)
            if tag not in CONTROLS:  # a clickable element (MiniWoB's div/span): its name holds its text; the
                self.walk(el, indent + 1, form, True)  # controls and clickables inside get lines of their own
            return
        if only_controls:
            self.walk(el, indent, form, True)
            return
        if tag in HEADINGS:
            self.flush(indent)
            self.lines.append({"role": "heading", "name": text_of(el), "indent": indent})
        elif tag == "tr":
            self.flush(indent)
            cells = [text_of(td, skip_controls=True) for td in el.children if not isinstance(td, str)]
            self.lines.append({"role": "row", "name": " | ".join(c for c in cells if c), "indent": indent})
            self.walk(el, indent + 1, form, True)
        elif a.get("role") == "alert":
            self.flush(indent)
            self.lines.append({"role": "alert", "name": text_of(el), "indent": indent})
        elif tag == "label":
            self.walk(el, indent, form, True)  # its text names the control
        elif tag in BLOCK:
            self.flush(indent)
            self.walk(el, indent, form)
            self.flush(indent)
        else:
            self.walk(el, indent, form)

    def control(self, el, form):
        tag, a = el.tag, el.attrs
        if tag not in CONTROLS:  # an element the page listens to for clicks (MiniWoB's div/span targets)
            return {"role": a.get("role") or "clickable", "name": _squash(a.get("aria-label") or text_of(el))}
        if tag == "a" and "href" in a:
            return {"role": "link", "name": _squash(a.get("aria-label") or text_of(el)), "href": a["href"]}
        if tag == "button":
            return {
                "role": "button",
                "name": _squash(a.get("aria-label") or text_of(el)),
                "form": form,
                "field": a.get("name", ""),
                "submit_value": a.get("value", ""),
                "submit": a.get("type", "submit") == "submit",
            }
        if tag == "input":
            kind = a.get("type", "text").lower()
            if kind == "hidden":
                if form is not None:
                    self.forms[form]["hidden"].append((a.get("name", ""), a.get("value", "")))
                return {"hidden": True}
            if kind in ("submit", "button"):
                return {
                    "role": "button",
                    "name": _squash(a.get("aria-label") or a.get("value", "Submit")),
                    "form": form,
                    "field": a.get("name", ""),
                    "submit_value": a.get("value", ""),
                    "submit": kind == "submit",
                }
            if kind in ("checkbox", "radio"):
                return {
                    "role": kind,
                    "name": self.name_of(el),
                    "form": form,
                    "field": a.get("name", ""),
                    "submit_value": a.get("value", "on"),
                    "checked": "checked" in a,
                }
            return {
                "role": TEXT_INPUTS.get(kind, "textbox"),
                "name": self.name_of(el),
                "form": form,
                "field": a.get("name", ""),
                "value": a.get("value", ""),
            }
        if tag == "textarea":
            raw = "".join(c for c in el.children if isinstance(c, str))
            return {
                "role": "textbox",
                "name": self.name_of(el),
                "form": form,
                "field": a.get("name", ""),
                "value": raw.strip("\n"),
                "multiline": True,
            }
        if tag == "select":
            options, value = [], None
            for opt in el.children:
                if isinstance(opt, str) or opt.tag != "option":
                    continue
                label = text_of(opt)
                options.append([opt.attrs.get("value", label), label])
                if "selected" in opt.attrs:
                    value = options[-1][0]
            if value is None and options:
                value = options[0][0]
            return {
                "role": "combobox",
                "name": self.name_of(el),
                "form": form,
                "field": a.get("name", ""),
                "options": options,
                "value": value if value is not None else "",
            }
        return None


def parse_page(markup):
    """(title, lines, forms) for an HTML page."""
    root, named = build_tree(markup)
    r = _Renderer(named)
    r.walk(root, 0, None)
    r.flush(0)
    return r.title, r.lines, r.forms
