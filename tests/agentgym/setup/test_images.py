"""Image setup: reading the apt sources, family discovery and hashing, and a real family build."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.errors import ConfigError
from agentgym.setup import images
from agentgym.setup.commands import setup_families
from agentgym.setup.engine import SetupFailed
from support.docker import require_docker

DEB822 = """\
Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://mirror.example/debian
Suites: bookworm
Components: main

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 -----END PGP PUBLIC KEY BLOCK-----

Enabled: no
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
"""

ONE_LINE = """\
# deb http://commented.example/ubuntu jammy main
deb [arch=amd64 signed-by=/etc/apt/keyrings/u.gpg] http://archive.example/ubuntu jammy main universe
deb http://archive.example/ubuntu jammy-updates main
deb-src http://archive.example/ubuntu jammy main
"""


def _etc(tmp_path: Path, sources: str = "", listing: str = "") -> str:
    d = tmp_path / "etc/apt/sources.list.d"
    d.mkdir(parents=True)
    if sources:
        (d / "debian.sources").write_text(sources)
    (d / "ignored.list.disabled").write_text("deb http://ignored.example/x stable main\n")
    if listing:
        (tmp_path / "etc/apt/sources.list").write_text(listing)
    return str(tmp_path)


def test_deb822_sources_are_read_and_the_release_archive_picked(tmp_path):
    sources = images.apt_sources(_etc(tmp_path, sources=DEB822))
    assert [(s.uri, s.suite) for s in sources] == [
        ("http://mirror.example/debian", "bookworm"),
        ("http://mirror.example/debian", "bookworm-updates"),
        ("http://mirror.example/debian-security", "bookworm-security"),
    ]
    assert sources[0].components == ("main", "contrib")
    assert sources[0].keyring == "/usr/share/keyrings/debian-archive-keyring.gpg"
    assert sources[2].keyring == ""  # an inline key is not a keyring file
    picked = images.pick_source(sources, "bookworm")
    assert (picked.uri, picked.suite) == ("http://mirror.example/debian", "bookworm")


def test_one_line_sources_list_is_read(tmp_path):
    sources = images.apt_sources(_etc(tmp_path, listing=ONE_LINE))
    assert [(s.uri, s.suite) for s in sources] == [
        ("http://archive.example/ubuntu", "jammy"),
        ("http://archive.example/ubuntu", "jammy-updates"),
    ]
    assert sources[0].keyring == "/etc/apt/keyrings/u.gpg" and sources[0].components == ("main", "universe")
    assert images.pick_source(sources, "").suite == "jammy"  # no codename: the suite without a suffix


def test_no_usable_source_says_what_to_do(tmp_path):
    with pytest.raises(SetupFailed, match="--base-image"):
        images.pick_source(images.apt_sources(_etc(tmp_path)), "bookworm")


def test_this_machine_has_a_release_archive():
    sources = images.apt_sources()
    if not sources:
        pytest.skip("no apt sources on this machine (not Debian/Ubuntu)")
    source = images.pick_source(sources, images._os_release().get("VERSION_CODENAME", ""))
    assert source.uri.startswith(("http", "file:", "ftp")) and "-" not in source.suite


def test_the_base_system_comes_from_mmdebstrap_else_debootstrap(monkeypatch, tmp_path):
    """mmdebstrap first (same packages, half the time); debootstrap when it fails; both failing says why."""
    from agentgym.setup import base_image

    ran: list[list[str]] = []
    fails = {"mmdebstrap"}

    def run_step(cmd, label, log, env=None):
        ran.append(cmd)
        return (1, f"{label} broke") if cmd[0] in fails else (0, "")

    monkeypatch.setattr(base_image, "run_step", run_step)
    monkeypatch.setattr(base_image.shutil, "which", lambda tool, path=None: f"/usr/sbin/{tool}")
    monkeypatch.delenv("AGENTGYM_BOOTSTRAP", raising=False)
    base_image._bootstrap(str(tmp_path / "rootfs"), ("python3", "patch"), lambda line: None)
    assert [cmd[0] for cmd in ran] == ["mmdebstrap", "debootstrap"]
    assert "--mode=root" in ran[0] and "--include=python3,patch" in ran[0] and "--variant=minbase" in ran[1]
    assert ran[0][-2] == ran[1][-2] == str(tmp_path / "rootfs")
    if Path(base_image.MERGED_USR_HOOK).is_dir():  # merges /usr as debootstrap does, without perl
        assert "--hook-dir=" + base_image.MERGED_USR_HOOK in ran[0]

    fails.add("debootstrap")
    with pytest.raises(SetupFailed, match="mmdebstrap broke(.|\n)*debootstrap broke"):
        base_image._bootstrap(str(tmp_path / "rootfs"), ("python3",), lambda line: None)


def test_family_contexts_and_hash_ignore_caches(tmp_path):
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha/Dockerfile").write_text("FROM agentgym/base:latest\n")
    (tmp_path / "alpha/tool.py").write_text("x = 1\n")
    (tmp_path / "beta").mkdir()  # no Dockerfile: not a family image
    assert images.family_contexts([tmp_path]) == {"alpha": tmp_path / "alpha"}
    h = images.context_hash(tmp_path / "alpha", "sha256:base1")
    (tmp_path / "alpha/__pycache__").mkdir()
    (tmp_path / "alpha/__pycache__/tool.cpython-311.pyc").write_bytes(b"\x00")
    assert images.context_hash(tmp_path / "alpha", "sha256:base1") == h
    assert images.context_hash(tmp_path / "alpha", "sha256:base2") != h
    (tmp_path / "alpha/tool.py").write_text("x = 2\n")
    assert images.context_hash(tmp_path / "alpha", "sha256:base1") != h


def test_family_image_builds_without_network_and_is_skipped_when_current(tmp_path):
    require_docker()
    from agentgym.sandbox.docker import docker_client

    client = docker_client()
    family = f"selftest-{tmp_path.name[-8:].lower().replace('_', '-')}"
    ctx = tmp_path / family
    ctx.mkdir()
    # The build succeeds only when the build container has no network interface but lo.
    ctx.joinpath("Dockerfile").write_text(
        'FROM agentgym/base:latest\nRUN test "$(ls /sys/class/net)" = "lo" && echo built > /etc/agentgym-selftest\n'
    )
    lines: list[str] = []
    try:
        assert images.build_family(client, family, ctx, log=lines.append) is True
        image = client.images.get(images.family_image(family))
        assert image.labels[images.CONTEXT_LABEL] == images.context_hash(
            ctx, images.image_id(client, images.BASE_IMAGE)
        )
        assert images.build_family(client, family, ctx, log=lines.append) is False
        assert any("up to date" in line for line in lines)
        ctx.joinpath("Dockerfile").write_text("FROM agentgym/base:latest\nRUN false\n")
        with pytest.raises(SetupFailed, match="docker build"):
            images.build_family(client, family, ctx, log=lines.append)
    finally:
        try:
            client.images.remove(images.family_image(family), force=True)
        except Exception:
            pass


def test_only_names_the_families_whose_images_are_built():
    """``agentgym setup --only coding`` (README command (1)) builds the base and Coding's image:
    no other builder is asked for anything (a None client would fail if one were), and a family
    whose image builds FROM another's brings that one (MiniWoB's pages go on Browser's Chromium)."""
    assert setup_families("") is None
    assert setup_families("coding") == {"coding"}
    assert setup_families("miniwob") == {"miniwob", "browser"}
    only = setup_families("coding")
    assert images.build_package_images(None, only=only) == {}
    assert images.build_page_images(None, only=only) == {}
    assert images.build_api_images(None, only=only) == {}
    assert images.build_swe_images(None, only=only) == {}
    assert images.build_families(None, only=set()) == {}
    with pytest.raises(ConfigError, match=r"no family \['nope'\]; choose from \['bfcl', 'browser', 'coding'"):
        setup_families("coding,nope")
