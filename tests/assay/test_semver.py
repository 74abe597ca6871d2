"""Strict SemVer 2.0.0 parsing, precedence (including pre-releases) and next-patch proposals."""

import pytest

from assay.semver import FIRST_VERSION, compare, is_greater, next_patch, parse_semver


def test_parse_full_version():
    assert parse_semver("1.2.3-alpha.10.beta+build.7") == (
        1,
        2,
        3,
        ("alpha", 10, "beta"),
        ("build", "7"),
    )
    assert parse_semver("0.0.1") == (0, 0, 1, (), ())


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        (" 1.0.0", "whitespace"),
        ("1.0", "MAJOR.MINOR.PATCH"),
        ("v1.0.0", "MAJOR.MINOR.PATCH"),
        ("1.0.0.0", "MAJOR.MINOR.PATCH"),
        ("01.0.0", "leading zero"),
        ("1.0.0-01", "pre-release"),
        ("1.0.0-", "pre-release"),
        ("1.0.0-a..b", "pre-release"),
        ("1.0.0+", "build"),
        ("1.0.0-ünicode", "pre-release"),
    ],
)
def test_invalid_versions_say_why(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_semver(text)


def test_non_string_is_rejected():
    with pytest.raises(ValueError, match="string"):
        parse_semver(1)  # type: ignore[arg-type]


def test_precedence_chain_from_the_spec():
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "2.0.0",
        "10.0.0",
    ]
    for lower, higher in zip(chain, chain[1:], strict=False):
        assert is_greater(higher, lower), (higher, lower)
        assert not is_greater(lower, higher), (lower, higher)


def test_numeric_identifiers_compare_numerically_not_lexically():
    assert is_greater("1.0.0-rc.10", "1.0.0-rc.9")
    assert is_greater("0.0.10", "0.0.9")


def test_build_metadata_is_ignored_for_precedence():
    assert compare("1.0.0+a", "1.0.0+b") == 0
    assert not is_greater("1.0.0+zzz", "1.0.0")
    assert not is_greater("1.0.0", "1.0.0")


def test_next_patch():
    assert next_patch(None) == FIRST_VERSION == "1.0.0"
    assert next_patch("0.0.1") == "0.0.2"
    assert next_patch("1.9.9+build.5") == "1.9.10"
    assert next_patch("2.0.0-rc.1") == "2.0.0"
    assert is_greater(next_patch("2.0.0-rc.1"), "2.0.0-rc.1")


def test_next_patch_rejects_garbage():
    with pytest.raises(ValueError):
        next_patch("latest")
