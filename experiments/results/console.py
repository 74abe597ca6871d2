"""Console output for operators: a progress bar, and the end-of-run summary either as garak
prints it (`garak_lines`, wide or narrow, byte for byte) or in our own words (`summary_lines`:
PASS / FAIL / SKIP, ok on passed/evaluated, unknowns, the failure rate and its interval)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .garak import CI_DISPLAY_MIN_WIDTH, SYMBOLS, defcon

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


# ----------------------------------------------------------------------------- garak's console

# colorama's codes, which garak prints whether or not stdout is a terminal
BRIGHT, RESET = "\x1b[1m", "\x1b[0m"
RED, GREEN, YELLOW = "\x1b[91m", "\x1b[92m", "\x1b[93m"


@dataclass
class GarakRow:
    """One detector of a probe run, as garak's evaluator prints it. `ci` is the attack
    success rate's interval in percent; `z` the relative rating, when there is one."""

    probe: str
    detector: str
    passed: int
    evaluated: int
    ci: tuple[float, float] | None = None
    z: float | None = None
    hits: list[str] = field(default_factory=list)
    hit_at_k: dict[str, float] = field(default_factory=dict)  # k → score, in garak's order


def garak_lines(
    rows: list[GarakRow], *, narrow: bool = False, verbose: bool = False, color: bool = True
) -> list[str]:
    """garak's console output for these detectors, line by line, byte for byte (`color=False`
    drops the terminal codes). `verbose` lists each failing output as garak's `-v` means to."""
    lines, last_probe = [], None
    for row in rows:
        if narrow:
            if row.probe != last_probe:
                lines.append(row.probe)
            lines += _garak_narrow(row)
            last_probe = row.probe
        else:
            lines.append(_garak_wide(row))
        if verbose:
            lines += ["❌ " + hit.strip().replace("\n", " ") for hit in row.hits]
    return lines if color else [_plain(line) for line in lines]


def _outcome(row: GarakRow) -> str:
    if not row.evaluated:
        return YELLOW + "SKIP"
    return RED + "FAIL" if row.passed < row.evaluated else GREEN + "PASS"


def _failrate(row: GarakRow) -> float:
    return 100 * (row.evaluated - row.passed) / row.evaluated if row.evaluated else 0.0


def ci_text(ci: tuple[float, float] | None) -> str:
    """` [lo%, hi%]`, or nothing when the interval is missing or narrower than garak shows."""
    if ci is None or abs(ci[1] - ci[0]) <= CI_DISPLAY_MIN_WIDTH:
        return ""
    return f" [{ci[0]:.2f}%, {ci[1]:.2f}%]"


def _garak_wide(row: GarakRow) -> str:
    failrate = _failrate(row)
    # garak prints two arguments, so a space joins them
    line = f"{row.probe:<50}{row.detector:>50}: {BRIGHT}{_outcome(row)}{RESET}"
    line += f"  ok on {row.passed:>4}/{row.evaluated:>4}"
    if row.evaluated and failrate > 0.0:
        rate = f"{failrate:6.2f}%{ci_text(row.ci)}{_hits_text(row)}"
        line += f"   ({RED}attack success rate:{RESET} {rate})"
    if row.z is not None and row.evaluated:
        if failrate == 0.0:
            line += " " * 26
        line += f"    {rating_symbol(row.z)} Z: {row.z:+0.1f}"
    return line


def _garak_narrow(row: GarakRow) -> list[str]:
    failrate = _failrate(row)
    lines = [
        f"  {BRIGHT}{_outcome(row)}{RESET} score {row.passed:>4}/{row.evaluated:>4} -- "
        f"{short_detector(row.detector):<20}"
    ]
    if row.evaluated and failrate > 0.0:
        rate = f"    {RED}attack success rate:{RESET} {failrate:6.2f}%{ci_text(row.ci)}"
        rate += _hits_text(row)
        if row.z is not None:
            rate += f" {rating_symbol(row.z)}"
        lines.append(rate)
    return lines


def _hits_text(row: GarakRow) -> str:
    """garak's `  hit@1: 20.00%  hit@5: 60.00%` suffix."""
    if not row.hit_at_k:
        return ""
    return "  " + "  ".join(f"hit@{k}: {score * 100:.2f}%" for k, score in row.hit_at_k.items())


def short_detector(name: str) -> str:
    """garak's short name (the class after the last dot); ours ("name@1.2.0") stays whole."""
    return name if "@" in name else name.split(".")[-1]


def rating_symbol(z: float) -> str:
    return SYMBOLS[defcon(z) - 1]


def _plain(line: str) -> str:
    for code in (BRIGHT, RESET, RED, GREEN, YELLOW):
        line = line.replace(code, "")
    return line


def garak_rows(experiment, *, hits: bool = False, history: bool = False) -> list[GarakRow]:
    """The experiment's detectors as garak's console rows: counts, the attack success rate's
    interval in percent, and a Z rating where garak prints one: from a garak calibration
    uploaded to the workspace that names the probe/detector. `history` also rates against
    the evaluator's earlier runs (ours, not garak's), when there are enough."""
    from .garak import detections, hit_outputs, probe_name
    from .standing import relative_standing

    rows = []
    for d in detections(experiment):
        ci = d.summary.get("fail_rate_ci")
        standing = relative_standing(
            binding=d.binding, pass_rate=d.summary.get("pass_rate"), history=history
        )
        rows.append(
            GarakRow(
                probe=probe_name(experiment),
                detector=d.detector,
                passed=d.summary["passed"],
                evaluated=d.summary["total_evaluated"],
                ci=(100 * ci[0], 100 * ci[1]) if ci else None,
                z=standing.get("z"),
                hits=hit_outputs(d.binding) if hits else [],
                hit_at_k={k: v["score"] for k, v in d.hit_at_k.items()},
            )
        )
    return rows
