"""Layout guard: no top-level package may shadow a standard-library module."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def top_level_packages() -> list[str]:
    return sorted(
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() or (p.suffix == ".py" and p.is_file())
    )


def test_no_top_level_package_shadows_the_standard_library():
    names = [Path(n).stem for n in top_level_packages()]
    assert "assay" in names and "sandbox" in names
    shadowing = sorted(set(names) & set(sys.stdlib_module_names))
    assert shadowing == [], f"these shadow standard-library modules: {shadowing}"


def test_the_guard_would_catch_platform():
    # The design's "platform" package is exactly the mistake this guards against.
    assert "platform" in sys.stdlib_module_names
