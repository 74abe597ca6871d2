"""Code presets are assembled from a body file and shared parts (# include _part.py); the
source a user sees and the sandbox runs must stay exactly what it was before the parts were
shared. The digests below were taken from the catalogue before any part was shared."""

import hashlib

import pytest

from evaluators.presets import INCLUDE_LINE, assembled_source, load_presets

# The first 32 hex digits of each source's SHA-256.
SOURCE_SHA256 = {
    ("contains-any", "javascript"): "a2909af650988d007021f61e38d42eb8",
    ("contains-any", "python"): "3aa1b8f54bec2466000496ad2e3b6beb",
    ("equal", "javascript"): "e3a94e0be3b52eefb2d707d44fcb2bcf",
    ("equal", "python"): "3c4f1c63d8a9a8eb5b93d2e113ef9671",
    ("fuzzy-similarity", "javascript"): "f33fec7d2acbc09494913c37c682179b",
    ("fuzzy-similarity", "python"): "d7cc74d2560140a89ec21495f0dd195e",
    ("json-schema", "javascript"): "b03356c644cdc9d353625dc6a8e947f0",
    ("json-schema", "python"): "04ed0566bbfdd11fe2d76a7fc5eea70f",
    ("length-bounds", "javascript"): "319994b9712ad89249a519d0347d4f6b",
    ("length-bounds", "python"): "2b2d4702df0459cede581330d28b94e0",
    ("no-credentials-in-arguments", "javascript"): "8ed3b7b1ddcf6251dcb3f122509d06ad",
    ("no-credentials-in-arguments", "python"): "8d25293ca6c4f86ecbfa41f967175553",
    ("no-failed-calls", "javascript"): "640132cc8fdd42164bc80eba7acecea3",
    ("no-failed-calls", "python"): "3604c6bad3e6d97eba5afb80c5808a97",
    ("no-false-success-claim", "javascript"): "239fd3bfbe67eb31f7a47b038f206092",
    ("no-false-success-claim", "python"): "9e7e8669fe3f0754dcb58690a5b9bef1",
    ("no-forbidden-calls", "javascript"): "be2a76cee9855b3a24d8bfce6319b5d4",
    ("no-forbidden-calls", "python"): "21d026cac0179d8bf585fc640d59c0ef",
    ("numeric-closeness", "javascript"): "0356f1ec448959499ec4019a16ebce88",
    ("numeric-closeness", "python"): "0fd8ac1e038a21561f9dbfcc7a32bef2",
    ("regex", "javascript"): "3316d6cd7bbdebecdfef7fe78770a8ab",
    ("regex", "python"): "3b52c06050ae623fffbd8bdf103cdce7",
    ("required-tools-called", "javascript"): "e18997f03c5900e451c04460b37549c9",
    ("required-tools-called", "python"): "b6df359f990c7fe1537cfda2b852fc01",
    ("starts-with", "javascript"): "ea9eb51c92a19bd56870b4b2467a3449",
    ("starts-with", "python"): "c66e1219ebcc05f03dc4c1fd613dc5c3",
    ("valid-json-object", "javascript"): "080169ad8f82b68037a07e27405f5a11",
    ("valid-json-object", "python"): "e18f196fad147af3394a056a101ba7f5",
}


def code_sources() -> dict[tuple[str, str], str]:
    return {
        (preset["slug"], language): config["source"]
        for preset in load_presets()
        if preset["kind"] == "code"
        for language, config in preset["configs"].items()
    }


def test_every_code_preset_source_is_unchanged():
    digests = {
        key: hashlib.sha256(s.encode()).hexdigest()[:32] for key, s in code_sources().items()
    }
    assert digests == SOURCE_SHA256


def test_no_source_a_user_sees_has_an_include_line():
    assert [key for key, source in code_sources().items() if INCLUDE_LINE.search(source)] == []


def test_an_include_line_becomes_its_part_indented_as_the_line(tmp_path):
    (tmp_path / "_inner.py").write_text("x = 1\n\nif x:\n    y = 2\n")
    (tmp_path / "_outer.py").write_text("# include _inner.py\nreturn y\n")
    (tmp_path / "check.py").write_text("def f():\n    # include _outer.py\n\n\nz = 3\n")
    expected = "def f():\n    x = 1\n\n    if x:\n        y = 2\n    return y\n\n\nz = 3\n"
    assert assembled_source(tmp_path / "check.py") == expected


def test_a_part_in_another_language_is_refused(tmp_path):
    (tmp_path / "_part.js").write_text("const x = 1;\n")
    (tmp_path / "check.py").write_text("# include _part.js\n")
    with pytest.raises(ValueError, match="another language"):
        assembled_source(tmp_path / "check.py")
