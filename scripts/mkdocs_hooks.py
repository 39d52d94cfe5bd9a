"""MkDocs hooks (``mkdocs.yml: hooks``): the reference pages generated from the code at build time.

- ``reference/cli.md``: every ``agentgym`` command's ``--help``, from its argparse parser;
- ``reference/envs.md``: every registered id with its family, tasks per split, tiers, backends and
  action grammar, from the registry and each family's task set;
- ``performance.md``: the marker ``<!-- benchmark-records -->`` is replaced by one table per file in
  ``benchmarks/results/`` (written by ``benchmarks/record.py``), with its machine, load and date.

Generated here rather than written by hand, so these pages cannot drift from the code.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
from pathlib import Path
from typing import Any

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "benchmarks" / "results"
MARKER = "<!-- benchmark-records -->"
CALL = re.compile(r"\b[a-z_]+\((id|[a-z_]+=|[a-z_]+: )")  # click(id: ...), get_order(order_id=...), name(arg=...)


# ---------------------------------------------------------------- the command line
def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.extend(action.choices.items())
    return out


def cli_page() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal's width: fix it
    from agentgym.cli import build_parser

    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "Generated at build time from the `agentgym` command's own parsers (`agentgym COMMAND --help`",
        "prints the same text).",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]

    def walk(prefix: str, sub: argparse.ArgumentParser, depth: int) -> None:
        lines.extend([f"{'#' * depth} `{prefix}`", "", "```text", sub.format_help().rstrip(), "```", ""])
        for name, child in _subcommands(sub):
            walk(f"{prefix} {name}", child, min(depth + 1, 4))

    for name, sub in _subcommands(parser):
        walk(f"agentgym {name}", sub, 2)
    return "\n".join(lines)


# ---------------------------------------------------------------- the registry
def _family_class(entry_point: str) -> Any:
    module, name = entry_point.split(":")
    return getattr(importlib.import_module(module), name)


def envs_page() -> str:
    import warnings

    from agentgym.core import AgentEnv
    from agentgym.registration import ENV_IDS, task_ids

    lines = [
        "# Environment ids",
        "",
        "Generated at build time from the registry (`agentgym.registration`) and each family's task set.",
        "Every id takes the same options (`budget=`, `faults=`, `labels=`, `backend=`, ...; see",
        "[Budgets](../how-to/budgets.md)); `agentgym list` prints this table in a terminal.",
        "",
        "| id | family | tasks per split | tiers | action form | backends | family page |",
        "|---|---|---|---|---|---|---|",
    ]
    grammars = []
    for env_id, entry_point in ENV_IDS.items():
        cls = _family_class(entry_point)
        tasks = cls._taskset()
        counts = ", ".join(f"{split} {len(tasks.ids(split=split)):,}" for split in tasks.splits)
        backends = ", ".join(getattr(cls, "backends", ("docker", "local")))
        page = f"[{cls.family}](families/{cls.family}.md)"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = cls(backend="local")  # the sandbox starts at the first reset only: nothing runs here
            try:
                grammar = env.help_text()
            finally:
                env.close()
        form = "tool calls" if CALL.search(grammar) else "command lines"
        if cls._admissible is not AgentEnv._admissible:  # a family that offers a menu for small policies
            form += " + menu"
        tiers = ", ".join(tasks.all_tiers)
        lines.append(f"| `{env_id}` | {cls.family} | {counts} | {tiers} | {form} | {backends} | {page} |")
        grammars += [f"### `{env_id}`", "", "```text", grammar.strip(), "```", ""]
    lines += [
        "",
        "## One id per task",
        "",
        "Where Gymnasium users expect one id per task, these ids are a family id with one task fixed;",
        "they share the family's code, grammar and options.",
        "",
        "| id | is | with |",
        "|---|---|---|",
    ]
    for env_id, (family_id, fixed) in sorted(task_ids().items()):
        with_ = ", ".join(f"`{k}={v!r}`" for k, v in fixed.items())
        lines.append(f"| `{env_id}` | `{family_id}` | {with_} |")
    lines += [
        "",
        "## Action grammars",
        "",
        "What `help` shows in each family (the first observation holds it too).",
        "",
    ]
    return "\n".join(lines + grammars)


# ---------------------------------------------------------------- benchmark records
def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        out = []
        for key, inner in value.items():
            out.extend(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, bool) or value is None or isinstance(value, int | float | str):
        return [(prefix, value)]
    return [(prefix, json.dumps(value))]


def records_markdown() -> str:
    if not RECORDS.is_dir():
        return "No benchmark records yet: `python benchmarks/record.py NAME -- COMMAND` writes one."
    parts = []
    for path in sorted(RECORDS.glob("*.json")):
        record = json.loads(path.read_text())
        m = record["machine"]
        load = record.get("load_before")
        parts += [
            f"### {record['title']}",
            "",
            f"Measured {record['date']} on {m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB, {m['os']},",
            f"Python {m['python']}; load average {load[0] if load else 'unknown'} at the start;"
            f" {record['wall_s']} s in all. Command:",
            "",
            "```bash",
            record["command"],
            "```",
            "",
            "| figure | value |",
            "|---|---|",
        ]
        parts += [f"| `{key}` | {value} |" for key, value in _flatten(record["result"])]
        parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------- doctests in docstrings
class _DoctestFences(Preprocessor):
    """Fence bare doctest blocks (``>>>`` lines and their output, up to a blank line) as ``pycon``
    code, so that the API pages show them as code rather than reading ``obs["a"][0]`` as a link."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced or not line.startswith(">>>"):
                out.append(line)
                i += 1
                continue
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["", "```pycon", *block, "```", ""]
        return out


class DoctestExtension(Extension):
    def extendMarkdown(self, md: Any) -> None:  # Python-Markdown's name for the hook
        md.preprocessors.register(_DoctestFences(md), "agentgym_doctests", 40)


# ---------------------------------------------------------------- mkdocs events
@event_priority(100)  # before mkdocstrings reads the Markdown settings
def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DoctestExtension())
    return config


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "reference/cli.md", content=cli_page()))
    files.append(File.generated(config, "reference/envs.md", content=envs_page()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, records_markdown())
    return markdown
