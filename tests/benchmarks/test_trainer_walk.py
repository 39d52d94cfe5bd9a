"""benchmarks/trainer_walk.py on a small package written for the test: the route, visits and returns it counts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trainer_walk():
    spec = importlib.util.spec_from_file_location("trainer_walk", ROOT / "benchmarks" / "trainer_walk.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["trainer_walk"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


FILES = {
    "main.py": """
from baselines.loop import train
from baselines import helpers

def main():
    train()
    helpers.report()
""",
    "loop.py": """
from baselines.model import Model, make
from baselines.helpers import tidy, label

def train():
    model = Model()
    tidy()
    label()          # the same file as tidy, right after it: one visit
    model.step()     # model.py again, after helpers.py: a return
    m2, _ = make()
    m2.step()        # already read: not read again
""",
    "model.py": """
from baselines.helpers import tidy

class Model:
    def __init__(self):
        self.n = 0

    def step(self):
        return tidy()

def make() -> tuple[Model, int]:
    return Model(), 1
""",
    "helpers.py": """
def tidy():
    return 1

def label():
    return 2

def report():
    return label()
""",
}


def test_route_visits_and_returns(tmp_path: Path, trainer_walk) -> None:
    (tmp_path / "baselines").mkdir()
    for name, text in FILES.items():
        (tmp_path / "baselines" / name).write_text(text)
    r = trainer_walk.walk(tmp_path, None, "baselines.main:main")
    assert [line.strip() for line in r["trail"]] == [
        "baselines/main.py:main",
        "baselines/loop.py:train",
        "baselines/model.py:Model.__init__",
        "<< loop.py",
        "baselines/helpers.py:tidy",
        "<< loop.py",
        "baselines/helpers.py:label",
        "<< loop.py",
        "baselines/model.py:Model.step   << back",
        "<< loop.py",
        "baselines/model.py:make",
        "<< loop.py",
        "<< main.py",
        "baselines/helpers.py:report   << back",
        "<< main.py",
    ]
    assert r["files"] == 4 and r["functions"] == 8
    # main, loop, model, helpers (tidy+label), model again, helpers (report)
    assert r["visits"] == 6 and r["returns"] == 2
    # back to the caller's file after each callee in another file: 5 times to loop.py, 2 to main.py
    assert r["caller_returns"] == 7 and r["all_returns"] == 9
    assert r["returns_per_file"] == {"baselines/model.py": 1, "baselines/helpers.py": 1}


def test_an_unknown_start_is_an_error(tmp_path: Path, trainer_walk) -> None:
    (tmp_path / "baselines").mkdir()
    with pytest.raises(SystemExit, match="no such function"):
        trainer_walk.walk(tmp_path, None, "baselines.main:main")


def test_the_route_of_one_target_is_its_call_chain_and_what_it_calls(tmp_path: Path, trainer_walk) -> None:
    """``--target``: main -> loop.train -> Model.step -> helpers.tidy, and nothing read beside that chain."""
    (tmp_path / "baselines").mkdir()
    for name, text in FILES.items():
        (tmp_path / "baselines" / name).write_text(text)
    r = trainer_walk.walk(tmp_path, None, "baselines.main:main", target="baselines.model:Model.step")
    route = r["target_route"]
    assert route["reached"] and route["route"] == [
        "baselines/main.py:main",
        "baselines/loop.py:train",
        "baselines/model.py:Model.step",
        "baselines/helpers.py:tidy",  # read before, under loop.train, and still part of step's route
    ]
    assert route["files"] == 4 and route["max_reentries"] == 0
    assert trainer_walk.walk(tmp_path, None, "baselines.main:main", target="baselines.model:nothing")[
        "target_route"
    ] == {"target": "baselines.model:nothing", "reached": False}


def test_the_trainer_keeps_its_targets(trainer_walk) -> None:
    """The layout's targets on the real tree: no function over 60 lines on the experiment's path, and
    one PPO update reached from ``main`` through at most 10 files, none re-entered more than twice."""
    r = trainer_walk.walk(ROOT, None, "baselines.budgetmix:main")
    assert r["over_60_lines"] == {}
    route = r["target_route"]
    assert route["reached"] and route["files"] <= 10 and route["max_reentries"] <= 2, route
