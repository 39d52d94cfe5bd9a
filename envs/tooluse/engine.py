"""The ToolUse engine: typed tools over SQLite, a policy-solved expected world, drift, verdict.

Stdlib only (Python 3.11 + sqlite3). It knows no domain: a domain module (``domains/*.py``)
declares its schema, tools, policy solver and drift, and the engine runs them. In the sandbox the
env loads this file and each domain under their own dotted names (``agentgym.envs.tooluse.engine``,
``agentgym.envs.tooluse.domains.<name>``; ``sandbox.load_module``), then calls ``setup``,
``call_tool``, ``drift``, ``oracle_view`` and ``verify`` through ``sandbox.call``, so a tool
step is one round trip, not a process. On the host the same files are loaded under the same
names (`agentgym.envs.tooluse.domains`) to build tasks and plan their reference solutions with
a `Session` of their own.

The database is an SQLite file in the sandbox workspace (``tooluse.db``); the initial state is
kept in memory so the verifier can rebuild the *expected* final state: initial state, plus every
change another actor made (state drift), plus the reference writes the policy allows on that
state. Success is "the live database equals the expected one, table by table".

The tools do not enforce the written policies (refund windows, shipped orders, basic fares):
that judgement is the agent's. They do enforce physical facts (an id exists, a flight has seats).
Every record carries a version that rises on each write (`agentgym.world.records`), so the env
can tell when the agent acts on a record that changed since it last read it.
"""

import ast
import dataclasses
import datetime
import inspect
import json
import math
import operator
import os
import re
import sqlite3
import sys
import time
import warnings

from agentgym.world import records, verdict  # the stateful-world kit: versioned records, the verdict

DB_NAME = "tooluse.db"
MODULE_PREFIX = "agentgym.envs.tooluse.domains."  # a domain NAME is loaded as MODULE_PREFIX + NAME
OP_VERBS = {
    "cancel": ("cancel",),
    "address": ("change", "update", "modify", "redirect", "readdress"),
    "return": ("return", "refund"),
    "modify": ("swap", "exchange", "change", "modify", "replace"),
    "book": ("book", "reserve", "buy", "purchase"),
    "change": ("change", "move", "rebook", "switch", "put"),
    "cancel_booking": ("cancel", "refund"),
}
"""What each intent asks, in verbs: what a final message's refusal or claim of done is about (`agentgym.answers`)."""
MAX_AMOUNT = 10**9  # money beyond this is garbage (1e309 is inf): refused, never converted
TOOL_SECONDS = 2.0  # a tool's database work is interrupted after this long
PROGRESS_OPCODES = 1000  # how often SQLite asks whether the deadline passed (in VM instructions)
MAX_RESULT_CHARS = 256 * 1024  # a tool result is refused above this many characters of JSON


# ---------------------------------------------------------------------------- what a domain declares
class Arg:
    """A tool argument's type, written as the parameter's annotation: ``order_id: Arg("string", "order id")``.

    A parameter with a default is optional. The host turns these into `agentgym.actions.Param`.
    """

    def __init__(self, type, description, enum=()):
        self.type = type
        self.description = description
        self.enum = tuple(enum)


class Tool:
    """A tool: its function (``fn(ctx, **args)``), description and typed parameters, from one definition."""

    def __init__(self, fn, description, writes=False):
        self.fn = fn
        self.name = fn.__name__
        self.description = description
        self.writes = writes
        self.params = [
            (p.name, p.annotation, p.default is inspect.Parameter.empty)
            for p in list(inspect.signature(fn, eval_str=True).parameters.values())[1:]
        ]


Call = tuple
"""A tool call as data, ``(tool, args)``: domains write calls so; the host renders them in the action grammar."""


def tool(description, writes=False):
    """Declare a tool: ``@tool("Cancel an order.", writes=True)`` over ``def cancel_order(c, order_id: Arg(...))``."""
    return lambda fn: Tool(fn, description, writes)


@dataclasses.dataclass
class Scenario:
    """What a template builds from a seed: the world, the request, and what success means.

    ``intents`` are declarative goals the domain's policy solver turns into expected writes;
    ``lookups`` are (call, record keys) pairs a careful agent makes before acting; ``hints``
    feed the menu with strings the request mentions (addresses, search queries, routes). Calls
    are ``(tool, args)`` pairs: the host renders them in the action grammar.
    """

    tables: dict
    today: str
    request: str
    intents: list
    lookups: list
    verify_call: tuple
    hints: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Known:
    """Entities the agent has seen in tool results this episode, for the admissible menu."""

    ids: dict = dataclasses.field(default_factory=dict)

    def add(self, kind, ident, data):
        self.ids.setdefault(kind, {}).setdefault(ident, {}).update(data)

    def of(self, kind):
        return self.ids.get(kind, {})


def domain(name):
    """The loaded domain module ``name`` (see `MODULE_PREFIX`)."""
    return sys.modules[MODULE_PREFIX + name]


_PRIMARY: dict = {}


def primary_keys(dom):
    """Table -> its one primary-key column, read from the domain's SCHEMA (once per domain)."""
    keys = _PRIMARY.get(dom.NAME)
    if keys is None:
        keys = _PRIMARY[dom.NAME] = records.primary_keys(dom.SCHEMA)
    return keys


class ToolError(Exception):
    """A tool refused a call; ``kind`` becomes the tool_call event's error_kind."""

    def __init__(self, kind, message, missing=None):
        super().__init__(message)
        self.kind = kind
        self.missing = missing


# ---------------------------------------------------------------------------- database helpers
def _connect(path):
    db = sqlite3.connect(path, isolation_level="DEFERRED")
    db.row_factory = sqlite3.Row
    if path != ":memory:":  # one process owns the file: take the lock once, keep the journal in memory
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("PRAGMA journal_mode=MEMORY")
        db.execute("PRAGMA synchronous=OFF")
    return db


def _copy(src):
    dst = _connect(":memory:")
    src.backup(dst)
    return dst


def one(db, sql, *params):
    """The first row of a query as a dict, or None."""
    row = db.execute(sql, params).fetchone()
    return dict(row) if row else None


def rows(db, sql, *params):
    """Every row of a query, as dicts."""
    return [dict(r) for r in db.execute(sql, params).fetchall()]


def money(cents):
    return round(cents / 100.0, 2)


def cents(amount):
    value = float(amount)
    if not math.isfinite(value) or abs(value) > MAX_AMOUNT:
        raise ValueError("amount %r is not a finite amount under %d" % (amount, MAX_AMOUNT))
    return int(round(value * 100))


def iso_date(text):
    return datetime.date.fromisoformat(text)


class Ctx:
    """One tool call's view: the db, today, and what the call read and wrote (for events)."""

    def __init__(self, db, today, primary):
        self.db = db
        self.today = today
        self.primary = primary
        self.refs = []
        self.wrote = []
        self.target = None

    def ref(self, table, pk):
        key = records.record_key(table, pk)
        self.refs.append([key, records.version(self.db, key)])

    def update(self, table, pk, fields, target=False):
        key, before, after = records.update(self.db, self.primary, table, pk, fields)
        self.wrote.append([key, before, after])
        if target:
            self.target = key

    def insert(self, table, row, target=False):
        key, before, after = records.insert(self.db, self.primary, table, row)
        self.wrote.append([key, before, after])
        if target:
            self.target = key

    def get(self, table, pk, noun):
        row = one(self.db, "SELECT * FROM %s WHERE %s=?" % (table, self.primary[table]), pk)
        if row is None:
            raise ToolError("not_found", "no %s with id %r" % (noun, pk), missing=records.record_key(table, pk))
        return row


# ---------------------------------------------------------------------------- tools a domain may share
_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
CALC_MAX_BITS = 256  # every intermediate integer stays below 2**256 (about 1e77): bounded time and reply size
CALC_MAX_DIGITS = 15  # round()'s ndigits: round(1, -10**18) would build 10**(10**18)


def _round(value, ndigits=None):
    if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > CALC_MAX_DIGITS):
        raise ValueError("round() takes ndigits between -%d and %d" % (CALC_MAX_DIGITS, CALC_MAX_DIGITS))
    return round(value, ndigits)


_FUNCS = {"round": _round, "min": min, "max": max, "abs": abs}


def _bounded(value):
    """A calculator value inside the bounds, or ValueError: ints under 2**256, floats finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("the result is not a number")
    if isinstance(value, int) and value.bit_length() > CALC_MAX_BITS:
        raise ValueError("a value exceeds 2**%d" % CALC_MAX_BITS)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("the result is not finite")
    return value


def _calc(node):
    if isinstance(node, ast.Expression):
        return _calc(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return _bounded(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _calc(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _calc(node.left), _calc(node.right)
        if isinstance(node.op, ast.Pow):
            if abs(right) > 64:
                raise ValueError("exponent too large")
            if isinstance(left, int) and isinstance(right, int) and left.bit_length() * right > CALC_MAX_BITS:
                raise ValueError("the power exceeds 2**%d" % CALC_MAX_BITS)
        return _bounded(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        return _bounded(_FUNCS[node.func.id](*[_calc(a) for a in node.args]))
    raise ValueError("unsupported expression element %s" % type(node).__name__)


def calculate(c, expression: Arg("string", "arithmetic")):
    """Arithmetic for the agent (declare it with the domain's own example: ``tool("Evaluate ...")(calculate)``)."""
    if len(expression) > 200:
        raise ToolError("bad_args", "expression is longer than 200 characters")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(re.sub(r"(?<=\d),(?=\d{3}\b)", "", expression.replace("$", "")), mode="eval")
        value = _calc(tree)
    except (SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError, MemoryError) as exc:
        raise ToolError("bad_args", "cannot evaluate %r: %s" % (expression, exc)) from None
    return {"expression": expression, "result": round(value, 6) if isinstance(value, float) else value}


def find_user_by_email(c, email: Arg("string", "email address")):
    row = one(c.db, "SELECT user_id, name FROM users WHERE lower(email)=lower(?)", email.strip())
    if row is None:
        raise ToolError("not_found", "no customer with email %r" % email)
    c.ref("users", row["user_id"])
    return row


def payment_methods(c, user_id):
    """A customer's payment methods as a tool shows them (a balance only where one is kept)."""
    out = []
    for pm in rows(c.db, "SELECT * FROM payment_methods WHERE user_id=? ORDER BY pm_id", user_id):
        c.ref("payment_methods", pm["pm_id"])
        item = {"payment_method_id": pm["pm_id"], "kind": pm["kind"], "label": pm["label"]}
        if pm["balance_cents"] is not None:
            item["balance"] = money(pm["balance_cents"])
        out.append(item)
    return out


def refund_to_method(c, pm_id, amount_cents):
    """Credit a refund to a payment method that keeps a balance (a gift card, a certificate)."""
    pm = c.get("payment_methods", pm_id, "payment method")
    if pm["balance_cents"] is not None:
        c.update("payment_methods", pm_id, {"balance_cents": pm["balance_cents"] + amount_cents})


# ---------------------------------------------------------------------------- a session
class Session:
    """One task's database, its expected world and the drift so far, for one domain.

    ``path``: the live database's file, or ``":memory:"`` (the host plans solutions that way).
    """

    def __init__(self, domain_name, tables, today, intents, path=":memory:"):
        self.domain = domain(domain_name)
        self.primary = primary_keys(self.domain)
        self.tools = {t.name: t.fn for t in self.domain.TOOLS}
        initial = _connect(":memory:")  # built in memory, then copied to the file in one go
        initial.executescript("BEGIN;" + self.domain.SCHEMA + records.VERSIONS_SCHEMA + "COMMIT;")
        records.seed(initial, tables)
        initial.commit()
        self.db = _connect(path)
        initial.backup(self.db)
        self.path = path
        self.initial = initial
        self.today = iso_date(today)
        self.intents = intents
        self.drifts = []
        self._expected = None
        self.expected()  # solve the policy now, so tool steps never pay for it

    def close(self):
        self.db.close()
        self.initial.close()

    def record(self, db, key):
        """One record (with the rows that belong to it, such as an order's lines),
        for comparing live against expected."""
        table, _, pk = key.partition(":")
        row = records.row(db, self.primary, key)
        rec = [row] if row else []
        for part in getattr(self.domain, "RECORD_PARTS", {}).get(table, ()):
            rec += sorted(
                tuple(r) for r in db.execute("SELECT * FROM %s WHERE %s=?" % (part, self.primary[table]), (pk,))
            )
        return rec

    def expected(self):
        """The expected final world: initial state + drift + the writes the policy allows. Cached per drift."""
        cache = self._expected
        if cache is not None and cache["drifts"] == len(self.drifts):
            return cache
        world = _copy(self.initial)
        for table, pk, fields in self.drifts:
            records.update(world, self.primary, table, pk, fields)
        steps, refusal, reasons, answer = [], False, [], None
        for it in self.intents:
            ok, why, writes, target, value = self.domain.solve(world, self.today, it)
            if not ok:
                reasons.append(why)
                refusal = refusal or it.get("if_forbidden", "refuse") == "refuse"
                steps.append({"intent": it, "allowed": False, "reason": why, "writes": [], "target": target})
                continue
            ctx = Ctx(world, self.today, self.primary)
            for name, args in writes:
                self.tools[name](ctx, **args)
            if it.get("answer") and value is not None:
                answer = (answer or 0) + value
            steps.append(
                {
                    "intent": it,
                    "allowed": True,
                    "reason": "",
                    "writes": [[t, a] for t, a in writes],
                    "target": ctx.target or target,
                }
            )
        cache = {
            "drifts": len(self.drifts),
            "world": world,
            "steps": steps,
            "refusal": refusal,
            "reasons": reasons,
            "answer_cents": answer,
        }
        self._expected = cache
        return cache

    def progress(self):
        """Per intent: None when the policy forbids it, else whether its record is as expected."""
        exp = self.expected()
        out = []
        for step in exp["steps"]:
            if not step["allowed"]:
                out.append(None)
            else:
                out.append(self.record(self.db, step["target"]) == self.record(exp["world"], step["target"]))
        return out

    def call_tool(self, name, args, check=()):
        """Run one tool on the live database; the reply carries what it read and wrote (for events).

        ``check``: records the agent wrote; for each one this call read, ``checks`` says whether it is
        now as the task requires (what a re-read verifies).
        """
        fn = self.tools.get(name)
        if fn is None:
            return {"ok": False, "error_kind": "unknown_tool", "error": "no tool named %r" % name}
        db = self.db
        ctx = Ctx(db, self.today, self.primary)
        deadline = time.monotonic() + TOOL_SECONDS
        db.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_OPCODES)
        try:
            result = fn(ctx, **args)
            size = len(json.dumps(result))
            if size > MAX_RESULT_CHARS:
                raise ToolError(
                    "too_large",
                    "the result has %d characters, over the limit of %d: narrow the call" % (size, MAX_RESULT_CHARS),
                )
            db.commit()
        except ToolError as exc:
            db.rollback()
            return {"ok": False, "error_kind": exc.kind, "error": str(exc), "missing": exc.missing}
        except sqlite3.OperationalError as exc:
            db.rollback()
            if time.monotonic() > deadline:
                return {
                    "ok": False,
                    "error_kind": "timeout",
                    "error": "%s ran past %.0f s and was stopped" % (name, TOOL_SECONDS),
                }
            return {"ok": False, "error_kind": "bad_args", "error": "%s: %s" % (name, exc)}
        except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError, sqlite3.Error) as exc:
            # odd arguments (a lone surrogate, an integer SQLite cannot hold, an infinite amount) are the caller's error
            db.rollback()
            return {"ok": False, "error_kind": "bad_args", "error": "%s: %s: %s" % (name, type(exc).__name__, exc)}
        finally:
            db.set_progress_handler(None, 0)
        reply = {"ok": True, "result": result, "refs": ctx.refs, "wrote": ctx.wrote, "target": ctx.target}
        read = {key for key, _ in ctx.refs}
        if any(key in read for key in check):
            world = self.expected()["world"]
            reply["checks"] = {key: self.record(db, key) == self.record(world, key) for key in check if key in read}
        if ctx.wrote:  # the oracle's view changes only on writes and drift: ship it now, saving a round trip
            reply["progress"] = self.progress()
            reply["view"] = self.oracle_view()
        return reply

    def drift(self, pick, protect):
        """Another actor changes one task-relevant record the agent has not written; returns what changed."""
        protect = set(protect)
        candidates = [
            c for c in self.domain.drifts(self.db, self.intents) if records.record_key(c[0], c[1]) not in protect
        ]
        if not candidates:
            return None
        table, pk, fields, what = candidates[pick % len(candidates)]
        key = records.update(self.db, self.primary, table, pk, fields)[0]
        self.db.commit()
        self.drifts.append((table, pk, fields))
        return {"what": what, "key": key, "view": self.oracle_view()}

    def oracle_view(self):
        """What a perfect agent would still do: versions of records, writes left, refusal, answer."""
        exp = self.expected()
        progress = self.progress()
        versions = {r[0]: r[1] for r in self.db.execute("SELECT key, version FROM _versions")}
        writes = []
        for step, done in zip(exp["steps"], progress):
            if step["allowed"]:
                for name, args in step["writes"]:
                    writes.append({"tool": name, "args": args, "target": step["target"], "done": bool(done)})
        return {
            "versions": versions,
            "writes": writes,
            "refusal": exp["refusal"],
            "reasons": exp["reasons"],
            "answer": None if exp["answer_cents"] is None else "%.2f" % money(exp["answer_cents"]),
        }

    def verify(self, answer=None, value=None, refused=None):
        """Success: the database equals the expected one, and the final answer says what it must
        (`agentgym.world.verdict`: one amount and no other, or a refusal and nothing else, read about
        the intents' verbs; ``refused``: the agent's structured refusal flag, if it gave one)."""
        exp = self.expected()
        evidence = {}  # a refusal rests on the records that forbid the request, as they are now
        for step in exp["steps"]:
            if not step["allowed"] and step["intent"].get("if_forbidden", "refuse") == "refuse" and step["target"]:
                evidence[step["target"]] = records.version(self.db, step["target"])
        want = None if exp["answer_cents"] is None else "$%.2f" % money(exp["answer_cents"])
        actions = tuple(dict.fromkeys(v for it in self.intents for v in OP_VERBS[it["op"]]))
        return verdict.world_verdict(
            records.dump(self.db) == records.dump(exp["world"]),
            answer,
            value,
            refusal=exp["refusal"],
            expected=want,
            kind="amount",
            evidence=evidence,
            refused=refused,
            actions=actions,
        )


# ---------------------------------------------------------------------------- entry points (the sandbox's session)
_session = None


def setup(domain, tables, today, intents):
    """Create the task's database in the workspace from seed rows; forget the previous episode."""
    global _session
    if _session is not None:
        _session.close()
        _session = None
    path = os.path.join(globals().get("WORKSPACE") or os.getcwd(), DB_NAME)
    for suffix in ("", "-journal"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    _session = Session(domain, tables, today, intents, path)
    return {"rows": {table: len(table_rows) for table, table_rows in tables.items()}, "view": _session.oracle_view()}


def call_tool(name, args, check=()):
    return _session.call_tool(name, args, check)


def drift(pick, protect):
    return _session.drift(pick, protect)


def oracle_view():
    return _session.oracle_view()


def verify(answer=None, value=None, refused=None):
    return _session.verify(answer, value, refused)
