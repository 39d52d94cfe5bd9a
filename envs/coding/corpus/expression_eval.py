"""A safe arithmetic expression evaluator (no eval()).

Grammar, lowest precedence first::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | '/' | '%') factor)*
    factor := ('-' | '+') factor | power
    power  := atom ('^' factor)?
    atom   := NUMBER | NAME | '(' expr ')'

'^' is right-associative and binds tighter than unary minus on its left,
so -2^2 == -4. Names are looked up in a variables dict.
"""

import re

_TOKEN_RE = re.compile(r"\s*(?:(\d+\.\d*|\.\d+|\d+)|([A-Za-z_]\w*)|(.))")


def tokenize(text):
    """Split an expression into numbers, names and single-character operators."""
    tokens = []
    for number, name, op in _TOKEN_RE.findall(text):
        if number:
            tokens.append(float(number) if "." in number else int(number))
        elif name:
            tokens.append(name)
        elif op.strip():
            if op not in "+-*/%^()":
                raise SyntaxError(f"unexpected character {op!r}")
            tokens.append(op)
    return tokens


class _Parser:
    def __init__(self, tokens, variables):
        self.tokens = tokens
        self.pos = 0
        self.variables = variables

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        token = self.peek()
        self.pos += 1
        return token

    def expr(self):
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self):
        value = self.factor()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            right = self.factor()
            if op != "*" and right == 0:
                raise ZeroDivisionError("division by zero in expression")
            value = value * right if op == "*" else value / right if op == "/" else value % right
        return value

    def factor(self):
        if self.peek() in ("-", "+"):
            sign = -1 if self.take() == "-" else 1
            return sign * self.factor()
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return base ** self.factor()
        return base

    def atom(self):
        token = self.take()
        if token == "(":
            value = self.expr()
            if self.take() != ")":
                raise SyntaxError("missing closing parenthesis")
            return value
        if isinstance(token, (int, float)):
            return token
        if isinstance(token, str) and token not in "+-*/%^()":
            if token not in self.variables:
                raise NameError(f"unknown variable {token!r}")
            return self.variables[token]
        raise SyntaxError(f"unexpected token {token!r}")


def evaluate(text, variables=None):
    """Evaluate an arithmetic expression string and return its value."""
    parser = _Parser(tokenize(text), variables or {})
    value = parser.expr()
    if parser.peek() is not None:
        raise SyntaxError(f"unexpected token {parser.peek()!r}")
    return value
