import pytest

from text_templates import TemplateError, lookup, render, variables

VISIBLE = ["test_render_simple", "test_render_filters", "test_lookup_nested"]

CONTEXT = {"name": "ada", "user": {"email": "ada@example.org", "tier": None}, "count": 3, "blank": ""}


def test_render_simple():
    assert render("Hello {{ name }}!", CONTEXT) == "Hello ada!"
    assert render("{{name}}{{name}}", CONTEXT) == "adaada"
    assert render("no tags", CONTEXT) == "no tags"
    assert render("", CONTEXT) == ""


def test_render_non_strings():
    assert render("{{ count }} items", CONTEXT) == "3 items"
    assert render("[{{ user.tier }}]", CONTEXT) == "[]"


def test_lookup_nested():
    assert lookup(CONTEXT, "user.email") == "ada@example.org"
    assert lookup(CONTEXT, "count") == 3
    with pytest.raises(TemplateError):
        lookup(CONTEXT, "user.phone")
    with pytest.raises(TemplateError):
        lookup(CONTEXT, "name.first")


def test_render_filters():
    assert render("{{ name | upper }}", CONTEXT) == "ADA"
    assert render("{{ name|title }}", CONTEXT) == "Ada"
    assert render("{{ user.email | upper | lower }}", CONTEXT) == "ada@example.org"
    assert render("<{{ pad | strip }}>", {"pad": "  x "}) == "<x>"


def test_unknown_filter():
    with pytest.raises(TemplateError, match="shout"):
        render("{{ name | shout }}", CONTEXT)


def test_defaults():
    assert render('{{ nickname ? "friend" }}', CONTEXT) == "friend"
    assert render('{{ blank ? "n/a" }}', CONTEXT) == "n/a"
    assert render('{{ user.tier ? "basic" }}', CONTEXT) == "basic"
    assert render('{{ name ? "friend" }}', CONTEXT) == "ada"
    assert render('{{ name | upper ? "friend" }}', CONTEXT) == "ADA"


def test_default_is_not_filtered():
    assert render('{{ missing | upper ? "none" }}', CONTEXT) == "none"


def test_unknown_variable():
    with pytest.raises(TemplateError, match="'nickname'"):
        render("{{ nickname }}", CONTEXT)


def test_escaped_braces():
    assert render("\\{{ name }}", CONTEXT) == "{{ name }}"
    assert render("a \\{{ b {{ name }}", CONTEXT) == "a {{ b ada"


def test_unclosed_tag():
    with pytest.raises(TemplateError, match="position 6"):
        render("Hello {{ name", CONTEXT)
    assert render("a } b }}", CONTEXT) == "a } b }}"


def test_variables():
    template = 'Hi {{ name | upper }}, {{ user.email }} {{ name }} {{ x ? "y" }} \\{{ skipped }}'
    assert variables(template) == ["name", "user.email", "x"]
    assert variables("{{a}}") == ["a"]
    assert variables("none") == []
    assert variables("{{ open") == []
