"""API images (BFCL): the pinned wheels are hash-checked, the layout extracted safely, the image built once.

The attacks: an index that serves another ``bfcl-eval`` than the pinned one (refused and deleted,
`fetch`, as for page images), a wheel with a path that climbs out of the layout, and a host copy
used before it is complete. The Docker test checks the image `agentgym setup` built: BFCL's classes
and mpmath import there, read-only, with no network, and a second build is skipped.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from agentgym.setup import api_images as api
from agentgym.setup.engine import SetupFailed
from agentgym.setup.page_images import cache_dir, fetch
from support.docker import require_docker


def _wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _bfcl_files(extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    package = "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/"
    files = {
        f"{package}{m}.py": b"from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.long_context import X\n"
        for m in api.API_MODULES
    }
    files.update(
        {
            "bfcl_eval/data/BFCL_v4_multi_turn_base.json": b"{}\n",
            "bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_base.json": b"{}\n",
            "bfcl_eval-2026.3.23.dist-info/METADATA": b"Name: bfcl_eval\nLicense: Apache 2.0\n\nbody",
        }
    )
    files.update({f"bfcl_eval/data/multi_turn_func_doc/{doc}": b"{}\n" for _, doc in api.CLASSES.values()})
    return {**files, **(extra or {})}


def _mpmath(path: Path) -> Path:
    return _wheel(path, {"mpmath/__init__.py": b"", "mpmath-1.3.0.dist-info/LICENSE": b"BSD"})


def test_the_layout_renames_only_the_package_path(tmp_path):
    count = api.extract_bfcl(_wheel(tmp_path / "b.whl", _bfcl_files()), _mpmath(tmp_path / "m.whl"), tmp_path / "out")
    source = (tmp_path / "out/python/bfcl_apis/gorilla_file_system.py").read_text()
    assert source == "from bfcl_apis.long_context import X\n"
    assert (tmp_path / "out/data/possible_answer/BFCL_v4_multi_turn_base.json").is_file()
    assert (tmp_path / "out/python/mpmath/__init__.py").is_file()
    license_text = (tmp_path / "out/LICENSE").read_text()
    assert "Apache License 2.0" in license_text and "BSD" in license_text
    assert count == len(api.API_MODULES) + 2 + len(api.CLASSES) + 1 + 1


def test_a_path_that_climbs_out_is_refused(tmp_path):
    bad = _bfcl_files({"bfcl_eval/data/BFCL_v4_multi_turn_../../evil.json": b"x"})
    with pytest.raises(SetupFailed, match="unsafe path"):
        api.extract_bfcl(_wheel(tmp_path / "b.whl", bad), _mpmath(tmp_path / "m.whl"), tmp_path / "out")


def test_another_file_than_the_pinned_bfcl_is_refused(tmp_path):
    def download(source, dest, log):  # the index serves a different bfcl-eval
        _wheel(dest / source.filename, _bfcl_files())

    with pytest.raises(SetupFailed, match="not the pinned"):
        fetch(api.BFCL, cache=tmp_path, download=download, log=lambda m: None)
    assert not (tmp_path / api.BFCL.filename).exists()


def test_the_host_copy_needs_setup_and_is_complete_or_absent(tmp_path):
    with pytest.raises(SetupFailed, match="agentgym setup"):
        api.bfcl_root(cache=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing half-written
    real = cache_dir()
    if not (real / api.BFCL.filename).exists():
        pytest.fail("run `agentgym setup`: the pinned bfcl-eval wheel is not in the cache")
    root = api.bfcl_root()
    assert (root / ".complete").read_text().split() == [api.BFCL.sha256, api.MPMATH.sha256]
    assert fetch(api.BFCL, cache=real, download=None).name == api.BFCL.filename  # still the pinned file


@pytest.mark.docker
def test_the_image_holds_the_classes_and_is_built_once():
    require_docker(api.BFCL_IMAGE)
    from agentgym.sandbox.docker import DockerSandbox, docker_client

    client = docker_client()
    assert api.build_bfcl_image(client, log=lambda m: None) is False  # up to date: skipped
    probe = (
        "import sys, os; sys.path.append('/opt/bfcl/python'); import mpmath, bfcl_apis.trading_bot; "
        "print(mpmath.__version__, os.access('/opt/bfcl/python/bfcl_apis', os.W_OK))"
    )
    with DockerSandbox(api.BFCL_IMAGE, start_timeout=60) as sandbox:
        result = sandbox.run(["python3", "-c", probe], timeout=30)
    assert result.ok and result.text.split() == ["1.3.0", "False"], result.text
