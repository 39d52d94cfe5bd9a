"""The SWE image: pinned archives hash-checked, extracted safely, host trees complete or absent, built once.

The attacks: an index that serves another archive than the pinned one (refused and deleted), an
archive whose paths climb out (``..``), are absolute, or are links (refused whole, nothing
written), and a host tree read before setup made it (a `SetupFailed` that says what to run). The
Docker test checks the image `agentgym setup --only swe` built: a second setup skips it, and
every library's tree is there, read-only, license included.
"""

from __future__ import annotations

import dataclasses
import io
import tarfile
from pathlib import Path

import pytest

from agentgym.envs.swe.libraries import LIBRARIES, Library
from agentgym.setup import swe_images as swe
from agentgym.setup.engine import SetupFailed
from agentgym.setup.page_images import fetch, sha256_of
from support.docker import require_docker


def _sdist(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tf.addfile(info)
    return path


def _lib(sha256: str = "0" * 64) -> Library:
    return Library(
        name="tinylib",
        version="1.0",
        filename="tinylib-1.0.tar.gz",
        sha256=sha256,
        license="MIT",
        packages=("tinylib",),
        keep=("tinylib", "tests", "pyproject.toml", "LICENSE"),
        tests=("tests",),
        license_files=("LICENSE",),
        drop=("tests/test_needs_hypothesis.py",),
    )


GOOD = {
    "tinylib-1.0/tinylib/__init__.py": b"X = 1\n",
    "tinylib-1.0/tinylib/__pycache__/x.cpython-311.pyc": b"stale",
    "tinylib-1.0/tests/test_x.py": b"def test_x(): pass\n",
    "tinylib-1.0/tests/test_needs_hypothesis.py": b"import hypothesis\n",
    "tinylib-1.0/pyproject.toml": b"[tool.pytest.ini_options]\n",
    "tinylib-1.0/LICENSE": b"MIT\n",
    "tinylib-1.0/docs/big.html": b"<html>" * 1000,
}


def test_what_a_library_keeps_is_extracted_and_nothing_else(tmp_path):
    archive = _sdist(tmp_path / "tinylib-1.0.tar.gz", GOOD)
    count = swe.extract_library(_lib(), archive, tmp_path / "out")
    files = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert files == ["LICENSE", "pyproject.toml", "tests/test_x.py", "tinylib/__init__.py"] and count == 4


@pytest.mark.parametrize(
    "bad",
    [
        {"tinylib-1.0/tinylib/../../evil.py": b"x"},
        {"/etc/evil.py": b"x"},
        {"other-1.0/tinylib/x.py": b"x"},  # outside the archive's own folder
    ],
)
def test_unsafe_archive_paths_are_refused_whole(tmp_path, bad):
    archive = _sdist(tmp_path / "tinylib-1.0.tar.gz", {**GOOD, **bad})
    with pytest.raises(SetupFailed, match="tinylib-1.0.tar.gz"):
        swe.extract_library(_lib(), archive, tmp_path / "out")
    assert not (tmp_path / "evil.py").exists()


def test_a_link_where_files_are_kept_is_refused_and_elsewhere_never_written(tmp_path):
    archive = _sdist(tmp_path / "tinylib-1.0.tar.gz", GOOD, links={"tinylib-1.0/tinylib/passwd": "/etc/passwd"})
    with pytest.raises(SetupFailed, match="a link or device"):
        swe.extract_library(_lib(), archive, tmp_path / "out")
    archive = _sdist(tmp_path / "tinylib-1.0.tar.gz", GOOD, links={"tinylib-1.0/docs/README.md": "../README.md"})
    swe.extract_library(_lib(), archive, tmp_path / "docs-link")  # pyparsing's sdist has one such
    assert not (tmp_path / "docs-link" / "docs").exists()


def test_another_archive_than_the_pinned_one_is_refused_and_deleted(tmp_path):
    def download(source, dest, log):  # the index serves a different tinylib-1.0.tar.gz
        _sdist(dest / source.filename, {**GOOD, "tinylib-1.0/tinylib/evil.py": b"import os\n"})

    with pytest.raises(SetupFailed, match="not the pinned"):
        fetch(_lib(), cache=tmp_path, download=download, log=lambda m: None)
    assert not (tmp_path / "tinylib-1.0.tar.gz").exists()


def test_the_host_tree_needs_setup_then_is_complete_and_reused(tmp_path):
    with pytest.raises(SetupFailed, match=r"agentgym setup --only swe"):
        swe.library_tree(_lib(), cache=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing half-written
    archive = _sdist(tmp_path / "tinylib-1.0.tar.gz", GOOD)
    lib = _lib(sha256_of(archive))
    tree = swe.library_tree(lib, cache=tmp_path)
    assert tree == tmp_path / "swe" / "tinylib" and (tree / "tinylib/__init__.py").read_text() == "X = 1\n"
    assert (tree / ".complete").read_text().startswith(f"tinylib==1.0 {lib.sha256} ")
    changed = dataclasses.replace(lib, drop=("tests/test_x.py",))  # another pin of the same archive
    assert not (swe.library_tree(changed, cache=tmp_path) / "tests/test_x.py").exists()
    (tree / "tinylib/__init__.py").write_text("X = 2\n")
    assert swe.library_tree(changed, cache=tmp_path) == tree  # complete: not extracted again
    assert (tree / "tinylib/__init__.py").read_text() == "X = 2\n"
    assert [p.name for p in (tmp_path / "swe").iterdir()] == ["tinylib"]  # no temporary folder left


@pytest.mark.docker
def test_setup_only_swe_is_idempotent_and_the_image_holds_every_tree():
    require_docker(swe.SWE_IMAGE)
    from agentgym.sandbox.docker import DockerSandbox, docker_client

    logged: list[str] = []
    assert swe.build_swe_images(docker_client(), only={"swe"}, log=logged.append) == {swe.SWE_IMAGE: False}
    assert any("up to date" in line for line in logged)
    probe = "; ".join(
        f"test -f {lib.root}/{lib.license_files[0]} && test ! -w {lib.root}/{lib.tests[0]} && echo {lib.name}"
        for lib in LIBRARIES
    )
    with DockerSandbox(swe.SWE_IMAGE, start_timeout=60) as sandbox:
        result = sandbox.run(probe, timeout=30)
    assert result.text.split() == [lib.name for lib in LIBRARIES], result.text
