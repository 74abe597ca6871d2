"""Fixed limits of the sandbox: sizes, caps and the import allow-list.

Every number here is a product limit, not a tuning knob: the host validates results against
them, and the child enforces them before anything crosses the pipe.
"""

from __future__ import annotations

MAX_SOURCE_CHARS = 64 * 1024
MAX_REASON_BYTES = 16 * 1024
MAX_STDOUT_CHARS = 64 * 1024
MAX_ERROR_CHARS = 4 * 1024
MAX_RESULT_BYTES = 256 * 1024
MAX_FRAME_BYTES = 8 * 1024 * 1024
MAX_TURN_JSON_BYTES = 5 * 1024 * 1024

TRUNCATION_MARKER = "\n…[output truncated]"

MAX_REQUEST_BYTES = 512 * 1024 * 1024

# The child writes every result as soon as its turn ends, so the host's per-turn deadline is
# "last result read + timeout + this slack" (the slack absorbs host scheduling delays).
DEADLINE_SLACK_S = 0.1

# Time the child gets before its first turn (read the batch, compile the source).
STARTUP_ALLOWANCE_S = 1.0

# Resource limits applied in every batch child.
MAX_OPEN_FILES = 16
MIN_TIMEOUT_S = 0.05
MAX_TIMEOUT_S = 600.0
MIN_MEMORY_MB = 16
MAX_MEMORY_MB = 16 * 1024

# The only modules a Python evaluator may import. Submodules and module-valued attributes are
# never exposed (statistics.sys would otherwise reach sys.modules).
PYTHON_IMPORTS = (
    "base64",
    "collections",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
    "unicodedata",
)
# Names that would run text as unguarded code or reach attributes by name from a string:
# string.Formatter walks "{0.__class__}"; typing's get_type_hints and ForwardRef eval strings.
HIDDEN_MODULE_ATTRS = {
    "string": frozenset({"Formatter"}),
    "typing": frozenset({"get_type_hints", "ForwardRef"}),
}

LANGUAGES = ("python", "javascript")
STATUSES = ("ok", "error", "timeout", "memory", "refused")
