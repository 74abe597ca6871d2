"""Print the README's configuration table from `assay.env.VARIABLES` (a test keeps them equal).

python scripts/config_table.py            # print the table
python scripts/config_table.py --write    # replace the table in README.md
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assay.env import VARIABLES  # noqa: E402

HEADER = "| variable | default | meaning |\n| --- | --- | --- |\n"


def table() -> str:
    return HEADER + "".join(
        f"| `{name}` | {default} | {meaning} |\n" for name, default, meaning in VARIABLES
    )


def readme_table(text: str) -> tuple[int, int]:
    """Where the table stands in the README text: (start, end) offsets."""
    start = text.index(HEADER)
    end = start + len(HEADER)
    while text.startswith("| `", end):
        end = text.index("\n", end) + 1
    return start, end


def main() -> int:
    if "--write" not in sys.argv:
        print(table(), end="")
        return 0
    path = ROOT / "README.md"
    text = path.read_text()
    start, end = readme_table(text)
    path.write_text(text[:start] + table() + text[end:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
