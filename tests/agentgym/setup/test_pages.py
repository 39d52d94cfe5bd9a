"""Page images: the pinned distribution is hash-checked, its pages extracted safely, the image built once.

The attacks: an index that serves another file than the pinned one (refused, and the file deleted
so the next setup fetches again), a wheel with a path that climbs out of the build context, and
pages committed to this repository instead of fetched. The Docker test checks the image
`agentgym setup` built: the pages are there, read-only, from the pinned wheel, and a second build
is skipped.
"""

from __future__ import annotations

import hashlib
import subprocess
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from agentgym.setup import page_images as pages
from agentgym.setup.engine import SetupFailed
from support.docker import require_docker

ROOT = Path(__file__).resolve().parents[3]


def fake_wheel(path: Path, extra: dict[str, bytes] | None = None) -> Path:
    files = {
        "miniwob/html/core/core.js": b"var core = {};",
        "miniwob/html/miniwob/click-test.html": b"<html></html>",
        "miniwob/envs/env.py": b"# not a page",
        "miniwob-1.1.0.dist-info/licenses/LICENSE": b"The MIT License",
        **(extra or {}),
    }
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def pinned_to(wheel: Path) -> pages.PageSource:
    return replace(pages.MINIWOB, sha256=hashlib.sha256(wheel.read_bytes()).hexdigest())


def test_a_file_with_another_hash_is_refused_and_deleted(tmp_path):
    served = fake_wheel(tmp_path / "served.whl")
    cache = tmp_path / "cache"

    def download(source, dest, log):  # the index answers with a different file than the pinned one
        dest.joinpath(source.filename).write_bytes(served.read_bytes() + b"tampered")

    with pytest.raises(SetupFailed, match="not the pinned"):
        pages.fetch(pinned_to(served), cache=cache, download=download, log=lambda m: None)
    assert not (cache / pages.MINIWOB.filename).exists()


def test_the_pinned_file_is_downloaded_once_and_checked_every_time(tmp_path):
    served = fake_wheel(tmp_path / "served.whl")
    source, calls = pinned_to(served), []

    def download(source, dest, log):
        calls.append(dest)
        dest.joinpath(source.filename).write_bytes(served.read_bytes())

    first = pages.fetch(source, cache=tmp_path, download=download, log=lambda m: None)
    assert pages.fetch(source, cache=tmp_path, download=download, log=lambda m: None) == first and len(calls) == 1
    first.write_bytes(b"changed on disk")
    with pytest.raises(SetupFailed, match="not the pinned"):
        pages.fetch(source, cache=tmp_path, download=download, log=lambda m: None)


def test_only_the_pages_and_the_license_are_extracted(tmp_path):
    wheel = fake_wheel(tmp_path / "w.whl")
    assert pages.extract_pages(pages.MINIWOB, wheel, tmp_path / "ctx") == 2
    assert (tmp_path / "ctx/html/core/core.js").read_bytes() == b"var core = {};"
    assert not (tmp_path / "ctx/html/envs").exists() and b"MIT" in (tmp_path / "ctx/LICENSE").read_bytes()


def test_a_path_that_climbs_out_is_refused(tmp_path):
    wheel = fake_wheel(tmp_path / "w.whl", {"miniwob/html/../../../../tmp/evil": b"x"})
    with pytest.raises(SetupFailed, match="unsafe path"):
        pages.extract_pages(pages.MINIWOB, wheel, tmp_path / "ctx")


def test_the_digest_follows_the_wheel_and_the_base_image():
    d = pages.page_image_digest(pages.MINIWOB, "sha256:a")
    assert d != pages.page_image_digest(pages.MINIWOB, "sha256:b")
    assert d != pages.page_image_digest(replace(pages.MINIWOB, sha256="0" * 64), "sha256:a")


def test_no_page_is_committed():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert not [p for p in tracked.splitlines() if p.endswith(("core/core.js", "click-button.html"))]


@pytest.mark.docker
def test_setup_built_the_image_from_the_pinned_wheel_and_skips_it_when_current():
    require_docker(pages.MINIWOB.image)
    from agentgym.sandbox.docker import DockerSandbox, docker_client

    client = docker_client()
    image = client.images.get(pages.MINIWOB.image)
    assert pages.MINIWOB.sha256 in image.labels["org.agentgym.source"]
    lines: list[str] = []
    assert pages.build_page_image(client, pages.MINIWOB, log=lines.append) is False
    assert any("up to date" in line for line in lines)
    with DockerSandbox(pages.MINIWOB.image, start_timeout=60) as sandbox:
        probe = (
            "import os; p = '/opt/miniwob/html/miniwob/click-button.html'; print(os.path.getsize(p) > 0); "
            "print(len(os.listdir('/opt/miniwob/html/miniwob')))\n"
            "try:\n    open(p, 'a')\nexcept OSError:\n    print('read-only')"
        )
        result = sandbox.run(["python3", "-c", probe], timeout=30)
    assert result.text.split() == ["True", "130", "read-only"], result.text
