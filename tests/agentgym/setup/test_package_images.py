"""Package images (``envs/<family>/<variant>.packages``): discovery and the packages file's format.

The real build (resolve against the base image's dpkg status, download on the host, dpkg -i with
no network, commit) runs in `agentgym setup`; tests/envs/browser/test_browser_chromium.py uses its
result, agentgym/browser-chromium.
"""

from __future__ import annotations

from agentgym.setup import images


def test_packages_files_are_found_and_named_family_dash_variant(tmp_path):
    fam = tmp_path / "browser"
    fam.mkdir()
    (fam / "Dockerfile").write_text("FROM agentgym/base:latest\n")
    (fam / "chromium.packages").write_text(
        "# a comment\nchromium-headless-shell | chromium  # inline\n\nfonts-dejavu-core\n"
    )
    found = images.package_images([tmp_path])
    assert found == {"browser-chromium": fam / "chromium.packages"}
    assert images.read_packages(fam / "chromium.packages") == [
        ("chromium-headless-shell", "chromium"),
        ("fonts-dejavu-core",),
    ]
    assert images.family_image("browser-chromium") == "agentgym/browser-chromium:latest"


def test_the_repository_declares_the_chromium_image():
    assert "browser-chromium" in images.package_images()
