import pytest

from ini_parser import IniError, get_bool, get_int, get_list, parse_ini

VISIBLE = ["test_basic_sections", "test_comments_and_blank_lines", "test_get_int"]

SAMPLE = """
; global settings
name = demo

[server]
Host = example.org
port: 8080
debug = yes

# storage
[storage]
paths = /var/a,
    /var/b
"""


def test_basic_sections():
    parsed = parse_ini(SAMPLE)
    assert parsed["DEFAULT"] == {"name": "demo"}
    assert parsed["server"] == {"host": "example.org", "port": "8080", "debug": "yes"}


def test_comments_and_blank_lines():
    parsed = parse_ini("# a\n\n; b\n[s]\n  \nk=v\n")
    assert parsed == {"s": {"k": "v"}}


def test_continuation_lines():
    parsed = parse_ini(SAMPLE)
    assert parsed["storage"]["paths"] == "/var/a,\n/var/b"
    assert parse_ini("[a]\nk = one\n  two\n\tthree") == {"a": {"k": "one\ntwo\nthree"}}


def test_separator_choice():
    parsed = parse_ini("url = http://x:80/\ntime: 12:30\nempty =\n")
    assert parsed["DEFAULT"] == {"url": "http://x:80/", "time": "12:30", "empty": ""}


def test_default_section_name_and_empty_section():
    assert parse_ini("a=1", default_section="root") == {"root": {"a": "1"}}
    assert parse_ini("[empty]\n") == {"empty": {}}
    assert parse_ini("") == {}
    assert parse_ini("[ spaced ]\nk=v") == {"spaced": {"k": "v"}}


def test_later_keys_override():
    assert parse_ini("[s]\nk=1\nK=2") == {"s": {"k": "2"}}


def test_errors_report_line_numbers():
    with pytest.raises(IniError) as info:
        parse_ini("[ok]\nk=v\njust text")
    assert info.value.line_number == 3
    with pytest.raises(IniError) as info:
        parse_ini("[broken\n")
    assert info.value.line_number == 1
    with pytest.raises(IniError):
        parse_ini("[]")
    with pytest.raises(IniError) as info:
        parse_ini("\n = value")
    assert info.value.line_number == 2
    assert "line 2" in str(info.value)


def test_continuation_without_key_is_a_key_line():
    with pytest.raises(IniError):
        parse_ini("[s]\n   orphan")
    assert parse_ini("[s]\n  k = v") == {"s": {"k": "v"}}


def test_get_bool():
    parsed = parse_ini("[f]\na=Yes\nb=off\nc=1\nd=FALSE\ne=maybe")
    assert get_bool(parsed, "f", "a") is True
    assert get_bool(parsed, "f", "b") is False
    assert get_bool(parsed, "f", "c") is True
    assert get_bool(parsed, "f", "D") is False
    assert get_bool(parsed, "f", "missing", default=True) is True
    assert get_bool(parsed, "nope", "a") is None
    with pytest.raises(ValueError):
        get_bool(parsed, "f", "e")


def test_get_int():
    parsed = parse_ini(SAMPLE)
    assert get_int(parsed, "server", "port") == 8080
    assert get_int(parsed, "server", "PORT") == 8080
    assert get_int(parsed, "server", "workers", default=4) == 4
    with pytest.raises(ValueError):
        get_int(parsed, "server", "host")


def test_get_list():
    parsed = parse_ini(SAMPLE + "[x]\ntags = a; b ;; c\n")
    assert get_list(parsed, "storage", "paths") == ["/var/a", "/var/b"]
    assert get_list(parsed, "x", "tags", separator=";") == ["a", "b", "c"]
    assert get_list(parsed, "x", "missing") == []
