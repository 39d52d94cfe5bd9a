"""Versioned records: SQLite rows that each carry a version, raised by every write.

A record is a row named by its key, ``"<table>:<primary key>"``. Every write through this module
raises the record's version in the ``_versions`` table, so a family can tell when an agent acts
on a record that changed since it last read it (another actor's drift, a stale page), ground a
refusal in the version the agent saw, and compare the live world with the expected one
(`dump`: every business table, ``_``-prefixed bookkeeping tables left out).

Stdlib only: loaded inside the sandbox under this name (``agentgym.world.records``) before the
family's own code, and imported as is on the host.
"""

import sqlite3

VERSIONS_SCHEMA = "CREATE TABLE _versions(key TEXT PRIMARY KEY, version INTEGER NOT NULL);"


def record_key(table, pk):
    """The name of one record: ``"orders:O1001"``."""
    return "%s:%s" % (table, pk)


def version(db, key):
    """The record's version: 0 until its first write."""
    row = db.execute("SELECT version FROM _versions WHERE key=?", (key,)).fetchone()
    return row[0] if row else 0


def bump(db, key):
    """Raise the record's version by one; returns ``(before, after)``."""
    before = version(db, key)
    db.execute(
        "INSERT INTO _versions(key, version) VALUES(?, 1) ON CONFLICT(key) DO UPDATE SET version=version+1", (key,)
    )
    return before, before + 1


def update(db, primary, table, pk, fields):
    """Set ``fields`` of one record (``primary``: table -> its key column); returns ``(key, before, after)``."""
    cols = ", ".join("%s=?" % c for c in fields)
    db.execute("UPDATE %s SET %s WHERE %s=?" % (table, cols, primary[table]), (*fields.values(), pk))
    key = record_key(table, pk)
    return (key, *bump(db, key))


def insert(db, primary, table, row):
    """Add one record; returns ``(key, before, after)``."""
    db.execute(
        "INSERT INTO %s(%s) VALUES(%s)" % (table, ", ".join(row), ", ".join("?" * len(row))), tuple(row.values())
    )
    key = record_key(table, row[primary[table]])
    return (key, *bump(db, key))


def delete(db, primary, table, pk):
    """Remove one record (its version still rises: a reader of the old row is now stale)."""
    db.execute("DELETE FROM %s WHERE %s=?" % (table, primary[table]), (pk,))
    key = record_key(table, pk)
    return (key, *bump(db, key))


def seed(db, tables):
    """Insert a task's initial rows (``{table: [row dict, ...]}``) in their order, one statement per
    run of rows with the same columns."""
    for table, rows in tables.items():
        runs = []
        for r in rows:
            if not runs or runs[-1][0] != tuple(r):
                runs.append((tuple(r), []))
            runs[-1][1].append(tuple(r.values()))
        for cols, values in runs:
            db.executemany(
                "INSERT INTO %s(%s) VALUES(%s)" % (table, ", ".join(cols), ", ".join("?" * len(cols))), values
            )


def row(db, primary, key):
    """The record's row as a tuple, or None when there is none."""
    table, _, pk = key.partition(":")
    found = db.execute("SELECT * FROM %s WHERE %s=?" % (table, primary[table]), (pk,)).fetchone()
    return tuple(found) if found else None


def dump(db):
    """Every business table as sorted rows: what an expected-state verdict compares."""
    out = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
        if not name.startswith("_"):
            out[name] = sorted(tuple(r) for r in db.execute("SELECT * FROM %s" % name))
    return out


def primary_keys(schema):
    """Table -> its one primary-key column, read from ``schema`` (tables with a composite key have none)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        keys = {}
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            pk = [r[1] for r in db.execute("PRAGMA table_info(%s)" % table) if r[5]]
            if len(pk) == 1:
                keys[table] = pk[0]
        return keys
    finally:
        db.close()
