from markdown_lite import escape, heading_level, list_item, render_inline, to_html

VISIBLE = ["test_escape", "test_render_inline_emphasis", "test_headings_and_paragraphs"]


def test_escape():
    assert escape('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert escape("plain") == "plain"


def test_render_inline_emphasis():
    assert render_inline("**bold** and *it*") == "<strong>bold</strong> and <em>it</em>"
    assert render_inline("a*b") == "a*b"
    assert render_inline("**x** **y**") == "<strong>x</strong> <strong>y</strong>"


def test_render_inline_code():
    assert render_inline("use `x < y` here") == "use <code>x &lt; y</code> here"
    assert render_inline("`**not bold**`") == "<code>**not bold**</code>"
    assert render_inline("a `b` c `d` e") == "a <code>b</code> c <code>d</code> e"
    assert render_inline("odd ` tick") == "odd ` tick"
    assert render_inline("a `b` c `d") == "a <code>b</code> c `d"


def test_render_inline_links():
    assert render_inline("see [docs](https://x.org/a)") == 'see <a href="https://x.org/a">docs</a>'
    assert render_inline("[a b](u) [c](v)") == '<a href="u">a b</a> <a href="v">c</a>'
    assert render_inline("[broken](has space)") == "[broken](has space)"


def test_heading_level():
    assert heading_level("# Title") == 1
    assert heading_level("###### Six") == 6
    assert heading_level("####### Seven") == 0
    assert heading_level("#hashtag") == 0
    assert heading_level("##") == 2
    assert heading_level("plain") == 0


def test_list_item():
    assert list_item("- apples") == ("ul", "apples")
    assert list_item("* pears ") == ("ul", "pears")
    assert list_item("12. twelfth") == ("ol", "twelfth")
    assert list_item("-no space") is None
    assert list_item("1.no space") is None
    assert list_item("text") is None


def test_headings_and_paragraphs():
    doc = "# Title\n\nFirst line\nsecond line.\n\nNext *para*."
    assert to_html(doc) == "<h1>Title</h1>\n<p>First line second line.</p>\n<p>Next <em>para</em>.</p>"
    assert to_html("## Sub **bold**") == "<h2>Sub <strong>bold</strong></h2>"


def test_lists():
    doc = "- a\n- b\n\n1. one\n2. two"
    assert to_html(doc) == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>"


def test_list_switching_and_paragraph_after():
    doc = "- a\n1. b\ntext"
    assert to_html(doc) == "<ul>\n<li>a</li>\n</ul>\n<ol>\n<li>b</li>\n</ol>\n<p>text</p>"
    assert to_html("intro\n- item") == "<p>intro</p>\n<ul>\n<li>item</li>\n</ul>"


def test_code_blocks():
    doc = "before\n```\nx = 1 < 2\n  **raw**\n```\nafter"
    assert to_html(doc) == "<p>before</p>\n<pre><code>x = 1 &lt; 2\n  **raw**</code></pre>\n<p>after</p>"
    assert to_html("```python\n# not a heading\n") == "<pre><code># not a heading</code></pre>"
    assert to_html("- a\n```\nb\n```") == "<ul>\n<li>a</li>\n</ul>\n<pre><code>b</code></pre>"


def test_horizontal_rule_and_empty():
    assert to_html("a\n---\nb") == "<p>a</p>\n<hr>\n<p>b</p>"
    assert to_html("***") == "<hr>"
    assert to_html("- a\n---") == "<ul>\n<li>a</li>\n</ul>\n<hr>"
    assert to_html("") == ""
    assert to_html("\n\n  \n") == ""


def test_escaping_in_blocks():
    assert to_html("1 < 2 & 3") == "<p>1 &lt; 2 &amp; 3</p>"
    assert to_html("# a > b") == "<h1>a &gt; b</h1>"
