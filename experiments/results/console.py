"""Console output for operators: a progress bar and the end-of-run summary, one line per
evaluator in the spirit of garak's console (PASS / FAIL / SKIP, ok on passed/evaluated, the
failure rate with its confidence interval when there is one)."""

from __future__ import annotations

WIDE = 100


def progress_bar(done: int, total: int, *, width: int = 30, rate: float | None = None) -> str:
    """`[#########.....]  45% 4,500/10,000  1,234 rows/s`."""
    fraction = done / total if total else 1.0
    filled = int(round(width * fraction))
    text = f"[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}% {done:,}/{total:,}"
    if rate:
        text += f"  {rate:,.0f} rows/s"
    return text


def summary_lines(rows: list[dict], *, wide: bool = True) -> list[str]:
    """One line (wide) or a small block (narrow) per evaluator.

    Each row: name, passed, fails, nones, fail_rate_ci (lower, upper) or None.
    """
    return [line for row in rows for line in (_wide(row) if wide else _narrow(row))]


def _status(row: dict) -> str:
    evaluated = row["passed"] + row["fails"]
    if evaluated == 0:
        return "SKIP"
    return "PASS" if row["fails"] == 0 else "FAIL"


def _rate(row: dict) -> str:
    evaluated = row["passed"] + row["fails"]
    if not row["fails"] or not evaluated:
        return ""
    text = f"failure rate {100 * row['fails'] / evaluated:6.2f}%"
    ci = row.get("fail_rate_ci")
    if ci:
        text += f" (95% CI {100 * ci[0]:.2f}–{100 * ci[1]:.2f}%)"
    else:
        text += " (n < 30: no interval)"
    return text


def _wide(row: dict) -> list[str]:
    evaluated = row["passed"] + row["fails"]
    unknown = f"  {row['nones']:,} unknown" if row["nones"] else ""
    head = f"{row['name'][:40]:<40} {_status(row):<4}  ok on {row['passed']:>6,}/{evaluated:>6,}"
    return [f"{head}{unknown}  {_rate(row)}".rstrip()]


def _narrow(row: dict) -> list[str]:
    evaluated = row["passed"] + row["fails"]
    lines = [f"{row['name']}", f"  {_status(row)}  ok on {row['passed']:,}/{evaluated:,}"]
    if row["nones"]:
        lines.append(f"  {row['nones']:,} unknown (not counted)")
    if _rate(row):
        lines.append(f"  {_rate(row)}")
    return lines
