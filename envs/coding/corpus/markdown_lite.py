"""A small Markdown-to-HTML converter for README snippets and comments.

Supported: ATX headings (# to ######), paragraphs, unordered (-, *) and
ordered (1.) lists, fenced code blocks (```), horizontal rules (---),
and inline **bold**, *italic*, `code` and [links](url). Text is
HTML-escaped; inline markup is not applied inside code.
"""

import re

_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD_RE = re.compile(r"\*\*(.+?)\*\*")
_ITALIC_RE = re.compile(r"\*(.+?)\*")
_ORDERED_RE = re.compile(r"^\d+\.\s+")


def escape(text):
    """Escape the characters that are special in HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_inline(text):
    """Render inline markup in one line of text."""
    pieces = text.split("`")
    out = []
    for index, piece in enumerate(pieces):
        if index % 2 == 1 and index < len(pieces) - 1:
            out.append(f"<code>{escape(piece)}</code>")
            continue
        if index % 2 == 1:
            piece = "`" + piece  # unmatched backtick stays literal
        html = escape(piece)
        html = _LINK_RE.sub(r'<a href="\2">\1</a>', html)
        html = _BOLD_RE.sub(r"<strong>\1</strong>", html)
        html = _ITALIC_RE.sub(r"<em>\1</em>", html)
        out.append(html)
    return "".join(out)


def heading_level(line):
    """Return 1-6 for an ATX heading line ('# Title'), or 0 if it is not one."""
    stripped = line.lstrip("#")
    level = len(line) - len(stripped)
    if 1 <= level <= 6 and (stripped == "" or stripped.startswith(" ")):
        return level
    return 0


def list_item(line):
    """Return ('ul' | 'ol', text) for a list item line, or None."""
    if line.startswith(("- ", "* ")):
        return "ul", line[2:].strip()
    match = _ORDERED_RE.match(line)
    if match:
        return "ol", line[match.end():].strip()
    return None


def to_html(markdown):
    """Convert a Markdown document to an HTML fragment, one block per line."""
    html = []
    paragraph = []
    list_kind = None
    in_code = False
    code_lines = []

    def flush_paragraph():
        if paragraph:
            html.append("<p>" + render_inline(" ".join(paragraph)) + "</p>")
            paragraph.clear()

    def close_list():
        nonlocal list_kind
        if list_kind:
            html.append(f"</{list_kind}>")
            list_kind = None

    for raw in markdown.splitlines():
        line = raw.rstrip()
        if line.startswith("```"):
            if in_code:
                html.append("<pre><code>" + escape("\n".join(code_lines)) + "</code></pre>")
                code_lines = []
            else:
                flush_paragraph()
                close_list()
            in_code = not in_code
            continue
        if in_code:
            code_lines.append(raw)
            continue
        if not line.strip():
            flush_paragraph()
            close_list()
            continue
        level = heading_level(line)
        item = list_item(line)
        if level:
            flush_paragraph()
            close_list()
            html.append(f"<h{level}>{render_inline(line[level:].strip())}</h{level}>")
        elif line.strip() in ("---", "***"):
            flush_paragraph()
            close_list()
            html.append("<hr>")
        elif item:
            flush_paragraph()
            kind, text = item
            if kind != list_kind:
                close_list()
                html.append(f"<{kind}>")
                list_kind = kind
            html.append(f"<li>{render_inline(text)}</li>")
        else:
            close_list()
            paragraph.append(line.strip())
    if in_code:
        html.append("<pre><code>" + escape("\n".join(code_lines)) + "</code></pre>")
    flush_paragraph()
    close_list()
    return "\n".join(html)
