import pytest

from expression_eval import evaluate, tokenize

VISIBLE = ["test_tokenize", "test_precedence", "test_parentheses"]


def test_tokenize():
    assert tokenize("1 + 2*x") == [1, "+", 2, "*", "x"]
    assert tokenize("3.5/(.5)") == [3.5, "/", "(", 0.5, ")"]
    assert tokenize("  ") == []
    assert tokenize("2.") == [2.0]


def test_tokenize_rejects_unknown_characters():
    with pytest.raises(SyntaxError):
        tokenize("2 & 3")


def test_numbers():
    assert evaluate("42") == 42
    assert evaluate("2.5") == 2.5
    assert evaluate("  7 ") == 7


def test_precedence():
    assert evaluate("2 + 3 * 4") == 14
    assert evaluate("10 - 4 - 3") == 3
    assert evaluate("100 / 10 / 5") == 2
    assert evaluate("2 * 3 + 4 * 5") == 26
    assert evaluate("7 % 4 * 2") == 6
    assert evaluate("1 + 7 % 4") == 4


def test_parentheses():
    assert evaluate("(2 + 3) * 4") == 20
    assert evaluate("2 * (3 + 4) - (1)") == 13
    assert evaluate("((1))") == 1
    assert evaluate("10 - (4 - 3)") == 9


def test_power():
    assert evaluate("2 ^ 10") == 1024
    assert evaluate("2 ^ 3 ^ 2") == 512
    assert evaluate("-2 ^ 2") == -4
    assert evaluate("2 ^ -1") == 0.5
    assert evaluate("3 * 2 ^ 2") == 12


def test_unary_signs():
    assert evaluate("-3") == -3
    assert evaluate("+3") == 3
    assert evaluate("--3") == 3
    assert evaluate("4 - -2") == 6
    assert evaluate("-(2 + 3)") == -5


def test_variables():
    assert evaluate("x * x + y", {"x": 3, "y": 1}) == 10
    assert evaluate("rate_2 * 100", {"rate_2": 0.25}) == 25
    with pytest.raises(NameError, match="'z'"):
        evaluate("z + 1", {"x": 1})


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError, match="in expression"):
        evaluate("1 / 0")
    with pytest.raises(ZeroDivisionError, match="in expression"):
        evaluate("5 % (2 - 2)")
    assert evaluate("0 * 5") == 0
    assert evaluate("5 * 0") == 0
    assert evaluate("6 / 1") == 6
    assert evaluate("0 / 5") == 0


def test_syntax_errors():
    for bad in ["", "1 +", "(1 + 2", "1 2", "* 3", "()", "2 +* 3", "1 + 2)"]:
        with pytest.raises(SyntaxError):
            evaluate(bad)
    with pytest.raises(SyntaxError, match="missing closing"):
        evaluate("(1 + 2")
    with pytest.raises(SyntaxError, match="unexpected token 2"):
        evaluate("1 2")


def test_modulo_and_float_division():
    assert evaluate("7 / 2") == 3.5
    assert evaluate("-7 % 3") == 2
    assert evaluate("7.5 % 2") == 1.5
