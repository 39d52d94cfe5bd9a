"""The libraries SWE-v0 injects bugs into: pinned, permissively licensed, pure Python, tests shipped.

Each `Library` pins one release on the package index by its archive's file name and sha256 (a
source distribution, or a wheel where the tests ship in it), says which paths of that archive form
the agent's workspace (the package, its tests, the test configuration and the license; never docs,
examples or large data, because the workspace is a 256 MB tmpfs the agent shares) and how its
suite is run. `agentgym setup --only swe` fetches and checks every archive and lays the trees out
read-only under ``/opt/swe/<name>/`` in the ``agentgym/swe`` image (`agentgym.setup.swe_images`);
which of their tests are usable is recorded per library in ``data/baseline/<name>.json``
(`agentgym.envs.swe.baseline`).

This module is data (it imports only `agentgym.errors`): the setup, the in-sandbox runner's
configuration and the task generator all read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentgym.errors import ConfigError

__all__ = [
    "Library",
    "TestDependency",
    "LIBRARIES",
    "library",
    "IMAGE_ROOT",
    "TYPING_EXTENSIONS",
    "FREEZEGUN",
    "DATEUTIL",
]

IMAGE_ROOT = "/opt/swe"
"""Where the image holds one read-only tree per library (``/opt/swe/<name>``)."""

_PERMISSIVE = frozenset({"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "PSF-2.0"})


@dataclass(frozen=True)
class TestDependency:
    """A pure-Python wheel a library's tests import that the base image lacks: unpacked under
    ``/opt/swe/_deps``, which the runner appends to ``sys.path`` (after the workspace, so the
    library's own copy always wins when a dependency needs it back, as freezegun needs dateutil)."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    version: str
    filename: str
    sha256: str
    license: str


TYPING_EXTENSIONS = TestDependency(
    "typing_extensions",
    "4.16.0",
    "typing_extensions-4.16.0-py3-none-any.whl",
    "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8",
    "PSF-2.0",
)
"""pydash imports it at run time."""
FREEZEGUN = TestDependency(
    "freezegun",
    "1.5.5",
    "freezegun-1.5.5-py3-none-any.whl",
    "cd557f4a75cf074e84bc374249b9dd491eaeacd61376b9eb3c423282211619d2",
    "Apache-2.0",
)
"""humanize's time tests freeze the clock with it."""
DATEUTIL = TestDependency(
    "python-dateutil",
    "2.9.0.post0",
    "python_dateutil-2.9.0.post0-py2.py3-none-any.whl",
    "a8b2bc7bffae282281c8140a97d3aa9c14da0b136dfe83f850eea9a5f7470427",
    "Apache-2.0 OR BSD-3-Clause",
)
"""freezegun imports it."""
SIX = TestDependency(
    "six",
    "1.17.0",
    "six-1.17.0-py2.py3-none-any.whl",
    "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274",
    "MIT",
)
"""python-dateutil 2.9 imports it."""


@dataclass(frozen=True)
class Library:
    """One pinned library: where it comes from, what of it the workspace holds, how its suite runs."""

    name: str
    """Its name on the package index (also the folder name under ``/opt/swe``)."""
    version: str
    filename: str
    """The archive's file name on the index: ``.tar.gz`` (an sdist) or ``.whl``."""
    sha256: str
    """The archive's sha256; setup refuses any other file."""
    license: str
    """SPDX identifier; only permissive licenses (`_PERMISSIVE`) are accepted."""
    packages: tuple[str, ...]
    """The top-level import names the library provides (dropped from a forked runner's
    ``sys.modules`` before a run, so the workspace's copy is the one imported)."""
    keep: tuple[str, ...]
    """Paths inside the archive (below its top folder, for an sdist) that form the workspace."""
    tests: tuple[str, ...]
    """The suite: test files and folders relative to the workspace root, as given to pytest."""
    license_files: tuple[str, ...]
    """The license texts among `keep` (they stay in the tree, and the image, beside the code)."""
    drop: tuple[str, ...] = ()
    """Paths under `keep` left out: test modules that need a package neither the image nor the
    library has (hypothesis, freezegun), so they could only ever fail to import."""
    pytest_args: tuple[str, ...] = ()
    """Extra pytest arguments the suite needs here (``-o addopts=`` where the library's own
    configuration asks for coverage plugins this image does not have)."""
    python_path: tuple[str, ...] = ()
    """Folders relative to the workspace root put before it on ``sys.path`` (``src`` layouts)."""
    deps: tuple[TestDependency, ...] = ()

    def __post_init__(self) -> None:
        if self.license not in _PERMISSIVE:
            raise ConfigError(f"{self.name}: license {self.license!r} is not one of {sorted(_PERMISSIVE)}")
        if not self.filename.endswith((".tar.gz", ".whl")):
            raise ConfigError(f"{self.name}: {self.filename!r} is neither an sdist (.tar.gz) nor a wheel")

    @property
    def is_wheel(self) -> bool:
        return self.filename.endswith(".whl")

    @property
    def root(self) -> str:
        """The library's read-only tree in the image."""
        return f"{IMAGE_ROOT}/{self.name}"

    @property
    def source_roots(self) -> tuple[str, ...]:
        """The kept paths that are the library's own code: its packages' folders (or modules)."""
        return tuple(p for p in self.keep if p.rsplit("/", 1)[-1].removesuffix(".py") in self.packages)

    def is_source(self, path: str) -> bool:
        """Whether ``path`` (relative to the workspace root) is library code rather than a test:
        under a source root, and neither a test module, a ``conftest.py`` nor inside a ``tests``
        folder (toolz keeps its tests inside the package). Bugs go into source files only; the
        verdict restores everything else from the pristine tree."""
        parts = path.split("/")
        if not any(path == root or path.startswith(root + "/") for root in self.source_roots):
            return False
        name = parts[-1]
        if {"tests", "test"} & set(parts[:-1]) or name == "conftest.py":
            return False
        return name.endswith(".py") and not name.startswith("test_") and not name.endswith("_test.py")

    @property
    def top(self) -> str:
        """The folder an sdist's paths start with (empty for a wheel)."""
        return "" if self.is_wheel else self.filename[: -len(".tar.gz")]


LIBRARIES: tuple[Library, ...] = (
    Library(
        name="boltons",
        version="26.2.0",
        filename="boltons-26.2.0.tar.gz",
        sha256="d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
        license="BSD-3-Clause",
        packages=("boltons",),
        keep=("boltons", "tests", "pyproject.toml", "tox.ini", "LICENSE", "README.md"),
        tests=("tests",),
        license_files=("LICENSE",),
    ),
    Library(
        name="cachetools",
        version="8.0.2",
        filename="cachetools-8.0.2.tar.gz",
        sha256="30ac523adfc118b51d2b2e7bad8a0ddb31370dfe2700c7f10ca224f36ccf81e0",
        license="MIT",
        packages=("cachetools",),
        keep=("src/cachetools", "tests", "pyproject.toml", "setup.cfg", "tox.ini", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
        python_path=("src",),
    ),
    Library(
        name="humanize",
        version="4.17.0",
        filename="humanize-4.17.0.tar.gz",
        sha256="1d6a36c453dbfbb3f0b34601d2e0b4ce5d48d780305cd45714843f0068fde6ac",
        license="MIT",
        packages=("humanize",),
        keep=("src/humanize", "tests", "pyproject.toml", "tox.ini", "LICENCE", "README.md"),
        tests=("tests",),
        license_files=("LICENCE",),
        drop=("tests/test_benchmarks.py",),  # pytest-benchmark's fixture
        python_path=("src",),
        deps=(FREEZEGUN, DATEUTIL, SIX),
    ),
    Library(
        name="idna",
        version="3.21",
        filename="idna-3.21.tar.gz",
        sha256="13c8b14853c5c336eaab526f3390817e9c8fcd8fa175abdd1a7480a5c94f99cb",
        license="BSD-3-Clause",
        packages=("idna",),
        keep=("idna", "tests", "pyproject.toml", "LICENSE.md", "README.md"),
        tests=("tests",),
        license_files=("LICENSE.md",),
        drop=("tests/test_idna_properties.py",),  # hypothesis
    ),
    Library(
        name="inflection",
        version="0.5.1",
        filename="inflection-0.5.1.tar.gz",
        sha256="1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
        license="MIT",
        packages=("inflection",),
        keep=("inflection", "test_inflection.py", "setup.cfg", "LICENSE", "README.rst"),
        tests=("test_inflection.py",),
        license_files=("LICENSE",),
    ),
    Library(
        name="isodate",
        version="0.7.2",
        filename="isodate-0.7.2.tar.gz",
        sha256="4cd1aa0f43ca76f4a6c6c0292a85f40b35ec2e43e315b59f06e6d32171a953e6",
        license="BSD-3-Clause",
        packages=("isodate",),
        keep=("src/isodate", "tests", "pyproject.toml", "setup.cfg", "tox.ini", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
        python_path=("src",),
    ),
    Library(
        name="jsonpointer",
        version="3.12",
        filename="jsonpointer-3.12.tar.gz",
        sha256="7a3dcc11b64053eaa9c549e85e413f8d40a075215f793a331bed9182a14251ae",
        license="BSD-3-Clause",
        packages=("jsonpointer",),
        keep=("jsonpointer.py", "tests.py", "bin", "doc", "pyproject.toml", "setup.cfg", "LICENSE.txt", "README.md"),
        tests=("tests.py",),
        license_files=("LICENSE.txt",),
    ),
    Library(
        name="more-itertools",
        version="11.2.1",
        filename="more_itertools-11.2.1.tar.gz",
        sha256="cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63",
        license="MIT",
        packages=("more_itertools",),
        keep=("more_itertools", "tests", "pyproject.toml", "setup.cfg", "tox.ini", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
    ),
    Library(
        name="parse",
        version="1.22.4",
        filename="parse-1.22.4.tar.gz",
        sha256="706d458feed5a81b02768d3156e8070baf6cee7d150a3a3c0cd43101a875c3b5",
        license="MIT",
        packages=("parse",),
        keep=("parse", "tests", "pyproject.toml", "setup.cfg", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
        pytest_args=("-o", "addopts="),  # its addopts ask for pytest-cov
    ),
    Library(
        name="pydash",
        version="8.1.0",
        filename="pydash-8.1.0.tar.gz",
        sha256="30914c3e9d377ea2cd0d3c0a4f252889b08392f730a5eb4d117e5b598cdf1d52",
        license="MIT",
        packages=("pydash",),
        keep=("src/pydash", "tests", "pyproject.toml", "setup.cfg", "tox.ini", "LICENSE.rst", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE.rst",),
        drop=("tests/pytest_mypy_testing", "tests/build"),  # the pytest-mypy-testing plugin's cases, a CI leftover
        pytest_args=("-o", "addopts="),  # its addopts ask for pytest-cov
        python_path=("src",),
        deps=(TYPING_EXTENSIONS,),
    ),
    Library(
        name="pyparsing",
        version="3.3.3",
        filename="pyparsing-3.3.3.tar.gz",
        sha256="928ae7e20211f3b6f3915a72f06a0cfd29ab9d24279dd6346b6b1a7146397d36",
        license="MIT",
        packages=("pyparsing",),
        # the examples folder: test_unit.py imports grammars from it
        keep=("pyparsing", "tests", "examples", "pyproject.toml", "tox.ini", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
        # railroad-diagrams (test_diagram), matplotlib (test_matplotlib_cases), not tests (the rest)
        drop=(
            "tests/test_diagram.py",
            "tests/test_matplotlib_cases.py",
            "tests/diag_embed.html",
            "tests/diag_no_embed.html",
            "tests/mypy-ignore-cases",
            "tests/perf_pyparsing.py",
        ),
        # randomised stress tests, run once per packrat mode: 75 of the suite's 100 s in the sandbox
        pytest_args=("-k", "not testNestedExpressionRandom and not test_make_compressed_re_random"),
    ),
    Library(
        name="semver",
        version="3.1.2",
        filename="semver-3.1.2.tar.gz",
        sha256="bea193552413194252d33ff26ce0962b76669bd1c6fb17e8e203ac37f072feaf",
        license="BSD-3-Clause",
        packages=("semver",),
        keep=(
            "src/semver",
            "tests",
            ".pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
            "LICENSE.txt",
            "README.rst",
        ),
        tests=("tests",),
        license_files=("LICENSE.txt",),
        pytest_args=("-o", "addopts="),  # its addopts ask for pytest-cov
        python_path=("src",),
    ),
    Library(
        name="sqlparse",
        version="0.6.1",
        filename="sqlparse-0.6.1.tar.gz",
        sha256="ca722573f848ff2d30e40ea30f53a104b7dea7635ea9285891263eb2c58fb6e7",
        license="BSD-3-Clause",
        packages=("sqlparse",),
        keep=("sqlparse", "tests", "pyproject.toml", "LICENSE", "README.md"),
        tests=("tests",),
        license_files=("LICENSE",),
    ),
    Library(
        name="tomlkit",
        version="0.15.3",
        filename="tomlkit-0.15.3.tar.gz",
        sha256="b3c3020ec1a4bd469d12e31fb4da938e7f6ba758cdbec3fd9047db63120eaf81",
        license="MIT",
        packages=("tomlkit",),
        keep=("tomlkit", "tests", "pyproject.toml", "LICENSE", "README.md"),
        tests=("tests",),
        license_files=("LICENSE",),
    ),
    Library(
        name="toolz",
        version="1.2.0",
        filename="toolz-1.2.0.tar.gz",
        sha256="9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
        license="BSD-3-Clause",
        packages=("toolz", "tlz"),
        keep=("toolz", "tlz", "pyproject.toml", "setup.cfg", "LICENSE.txt", "README.rst"),
        tests=("toolz",),
        license_files=("LICENSE.txt",),
    ),
    Library(
        name="webcolors",
        version="25.10.0",
        filename="webcolors-25.10.0.tar.gz",
        sha256="62abae86504f66d0f6364c2a8520de4a0c47b80c03fc3a5f1815fedbef7c19bf",
        license="BSD-3-Clause",
        packages=("webcolors",),
        keep=("src/webcolors", "tests", "pyproject.toml", "LICENSE", "README.rst"),
        tests=("tests",),
        license_files=("LICENSE",),
        python_path=("src",),
    ),
)
"""Every pinned library, by name. Whether each is used, and which of its tests, is the baseline's
verdict (``data/baseline/<name>.json``), not this list's."""

_BY_NAME = {lib.name: lib for lib in LIBRARIES}


def library(name: str) -> Library:
    """The pinned library called ``name``; `ConfigError` naming the choices otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ConfigError(f"no SWE-v0 library {name!r}; choose from {sorted(_BY_NAME)}") from None
