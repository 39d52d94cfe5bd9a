import pytest

from semantic_version import bump, compare_versions, parse_version, precedence_key, satisfies_caret

VISIBLE = ["test_parse_plain", "test_compare_basic", "test_bump_parts"]


def test_parse_plain():
    assert parse_version("1.2.3") == (1, 2, 3, (), ())
    assert parse_version("v10.0.7") == (10, 0, 7, (), ())
    assert parse_version(" 0.0.0 ") == (0, 0, 0, (), ())


def test_parse_prerelease_and_build():
    assert parse_version("1.0.0-alpha.1") == (1, 0, 0, ("alpha", "1"), ())
    assert parse_version("1.0.0+build.5") == (1, 0, 0, (), ("build", "5"))
    assert parse_version("2.1.0-rc.2+sha.abc") == (2, 1, 0, ("rc", "2"), ("sha", "abc"))


def test_parse_invalid():
    for bad in ["1.2", "1.2.3.4", "01.2.3", "1.02.3", "a.b.c", "", "1.2.3-", "1.2.3+"]:
        with pytest.raises(ValueError):
            parse_version(bad)


def test_compare_basic():
    assert compare_versions("1.0.0", "2.0.0") == -1
    assert compare_versions("2.0.0", "1.9.9") == 1
    assert compare_versions("1.2.3", "1.2.3") == 0
    assert compare_versions("1.10.0", "1.9.0") == 1
    assert compare_versions("1.2.10", "1.2.9") == 1


def test_prerelease_before_release():
    assert compare_versions("1.0.0-alpha", "1.0.0") == -1
    assert compare_versions("1.0.0", "1.0.0-rc.1") == 1
    assert compare_versions("1.0.0-rc.1", "0.9.9") == 1


def test_prerelease_identifier_order():
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]
    for lower, higher in zip(ordered, ordered[1:]):
        assert compare_versions(lower, higher) == -1
        assert compare_versions(higher, lower) == 1
    assert sorted(reversed(ordered), key=precedence_key) == ordered


def test_build_metadata_ignored():
    assert compare_versions("1.0.0+a", "1.0.0+b") == 0
    assert compare_versions("1.0.0-rc.1+x", "1.0.0-rc.1") == 0


def test_bump_parts():
    assert bump("1.2.3", "major") == "2.0.0"
    assert bump("1.2.3", "minor") == "1.3.0"
    assert bump("1.2.3", "patch") == "1.2.4"
    assert bump("0.9.9", "minor") == "0.10.0"


def test_bump_prerelease_and_errors():
    assert bump("1.2.3-rc.1", "patch") == "1.2.3"
    assert bump("1.2.3-rc.1+b7", "minor") == "1.3.0"
    assert bump("1.2.3+b7", "patch") == "1.2.4"
    with pytest.raises(ValueError):
        bump("1.2.3", "build")


def test_caret_major():
    assert satisfies_caret("1.2.3", "1.2.3")
    assert satisfies_caret("1.9.0", "1.2.3")
    assert satisfies_caret("2.0.0", "1.2.3") is False
    assert satisfies_caret("1.2.2", "1.2.3") is False
    assert not satisfies_caret("0.9.0", "1.0.0")


def test_caret_zero_major():
    assert satisfies_caret("0.2.5", "0.2.3")
    assert not satisfies_caret("0.3.0", "0.2.3")
    assert satisfies_caret("0.1.5", "0.1.0")
    assert not satisfies_caret("0.2.0", "0.1.0")
    assert not satisfies_caret("1.2.3", "0.2.3")
    assert satisfies_caret("0.0.3", "0.0.3")
    assert not satisfies_caret("0.0.4", "0.0.3")
    assert not satisfies_caret("0.1.0", "0.0.3")
    assert not satisfies_caret("1.0.3", "0.0.3")
