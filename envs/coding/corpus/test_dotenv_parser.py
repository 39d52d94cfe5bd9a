import pytest

from dotenv_parser import dump_dotenv, parse_dotenv, parse_value

VISIBLE = ["test_simple_pairs", "test_quotes", "test_expansion"]


def test_simple_pairs():
    assert parse_dotenv("A=1\nB=two") == {"A": "1", "B": "two"}
    assert parse_dotenv("") == {}
    assert parse_dotenv("EMPTY=") == {"EMPTY": ""}


def test_whitespace_and_export():
    assert parse_dotenv("  KEY =  value  ") == {"KEY": "value"}
    assert parse_dotenv("export PATH_X=/bin") == {"PATH_X": "/bin"}
    assert parse_dotenv("export   Y=1") == {"Y": "1"}


def test_comments():
    text = "# header\n\nA=1 # trailing\nB=a#b\n   # indented comment\n"
    assert parse_dotenv(text) == {"A": "1", "B": "a#b"}


def test_quotes():
    assert parse_dotenv("A='single # not comment'") == {"A": "single # not comment"}
    assert parse_dotenv('B="double # kept"') == {"B": "double # kept"}
    assert parse_dotenv("C='a\\nb'") == {"C": "a\\nb"}
    assert parse_dotenv('D=""') == {"D": ""}
    assert parse_dotenv("E=''") == {"E": ""}


def test_double_quote_escapes():
    assert parse_dotenv('A="line1\\nline2"') == {"A": "line1\nline2"}
    assert parse_dotenv('B="tab\\there"') == {"B": "tab\there"}
    assert parse_dotenv('C="say \\"hi\\""') == {"C": 'say "hi"'}
    assert parse_dotenv('D="back\\\\slash"') == {"D": "back\\slash"}
    assert parse_dotenv('E="keep \\x"') == {"E": "keep \\x"}
    assert parse_dotenv('F="end\\"') == {"F": "end\\"}


def test_unbalanced_quote_is_literal():
    assert parse_dotenv("A='oops") == {"A": "'oops"}
    assert parse_dotenv("B='") == {"B": "'"}
    assert parse_dotenv('C="') == {"C": '"'}


def test_expansion():
    text = "HOST=localhost\nPORT=5432\nURL=postgres://${HOST}:${PORT}/db"
    assert parse_dotenv(text)["URL"] == "postgres://localhost:5432/db"
    assert parse_dotenv("A=${MISSING}x") == {"A": "x"}
    assert parse_dotenv("A='${B}'\nB=1") == {"A": "${B}", "B": "1"}
    assert parse_dotenv("B=1\nA=\"${B}${B}\"") == {"B": "1", "A": "11"}


def test_later_keys_override():
    assert parse_dotenv("A=1\nA=2") == {"A": "2"}


def test_invalid_lines():
    for text, line in [("JUSTTEXT", 1), ("A=1\n1BAD=2", 2), ("A=1\n\n=3", 3), ("BAD-KEY=1", 1)]:
        with pytest.raises(ValueError, match=f"line {line}:"):
            parse_dotenv(text)


def test_parse_value_directly():
    assert parse_value("  plain  ", {}) == "plain"
    assert parse_value("${X}/bin", {"X": "/usr"}) == "/usr/bin"
    assert parse_value("a # b # c", {}) == "a"


def test_dump_and_round_trip():
    values = {"A": "plain", "B": "has space", "C": 'q"uote', "D": "", "E": "multi\nline", "F": "back\\slash"}
    text = dump_dotenv(values)
    assert text.splitlines()[0] == "A=plain"
    assert text.splitlines()[1] == 'B="has space"'
    assert text.splitlines()[2] == 'C="q\\"uote"'
    assert text.splitlines()[3] == 'D=""'
    assert text.splitlines()[5] == 'F="back\\\\slash"'
    assert parse_dotenv(text) == values
    assert dump_dotenv({"T": "a\tb"}) == 'T="a\\tb"'
