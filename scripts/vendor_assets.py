"""Copy the npm-installed front-end assets we serve into static/vendor/ (git-ignored).

Run after `npm ci`. The list is explicit so nothing unreviewed is served.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "node_modules"
VENDOR = ROOT / "static" / "vendor"

FILES = {
    "htmx.org/dist/htmx.min.js": "htmx.min.js",
    "codemirror/lib/codemirror.js": "codemirror/codemirror.js",
    "codemirror/lib/codemirror.css": "codemirror/codemirror.css",
    "codemirror/mode/python/python.js": "codemirror/mode/python.js",
    "codemirror/mode/javascript/javascript.js": "codemirror/mode/javascript.js",
    "codemirror/addon/edit/matchbrackets.js": "codemirror/addon/matchbrackets.js",
    "codemirror/addon/display/placeholder.js": "codemirror/addon/placeholder.js",
    "swagger-ui-dist/swagger-ui-bundle.js": "swagger-ui/swagger-ui-bundle.js",
    "swagger-ui-dist/swagger-ui.css": "swagger-ui/swagger-ui.css",
}


def main() -> int:
    missing = [src for src in FILES if not (MODULES / src).exists()]
    if missing:
        print("missing npm files (run `npm ci` first): " + ", ".join(missing), file=sys.stderr)
        return 1
    for src, dest in FILES.items():
        target = VENDOR / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MODULES / src, target)
    print(f"copied {len(FILES)} vendor files into static/vendor/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
