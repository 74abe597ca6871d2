"""Spreadsheet-safe CSV cells: a cell that a spreadsheet would run as a formula gets a `'`.

Exports call `csv_safe` on every text cell; the evalset import calls `csv_restore`, so an
exported set imports back exactly (a text that itself starts with `'` before a formula
character is escaped once more, which makes the pair exact inverses).
"""

from __future__ import annotations

from django.http import StreamingHttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _needs_quote(text: str) -> bool:
    while text[:1] == "'":
        text = text[1:]
    return text.startswith(FORMULA_STARTS)


def csv_safe(cell):
    """The cell as written to a CSV export (non-text values unchanged)."""
    if isinstance(cell, str) and cell and _needs_quote(cell):
        return "'" + cell
    return cell


def csv_restore(cell: str) -> str:
    """The inverse of `csv_safe`, for cells read back from a CSV file."""
    if cell[:1] == "'" and _needs_quote(cell[1:]):
        return cell[1:]
    return cell


def csv_safe_row(row):
    """`csv_safe` on every cell of a list or dict row."""
    if isinstance(row, dict):
        return {key: csv_safe(value) for key, value in row.items()}
    return [csv_safe(value) for value in row]


# A UTF-8 byte order mark: Excel opens a CSV without one in the system's code page (GBK on
# Chinese Windows) and garbles every non-ASCII cell; with it, Excel reads UTF-8. Exports add it
# only on request (`excel=1`), so the default file stays what scripts already read.
EXCEL_BOM = "\ufeff"


def excel_wanted(params) -> bool:
    """Whether a request's query (`excel=1` / `true`) asks for the Excel flavour of a CSV."""
    return str(params.get("excel", "")).lower() in ("1", "true", "yes")


def for_excel(chunks):
    """The chunks (text or UTF-8 bytes) of a CSV export with the byte order mark first."""
    first = True
    for chunk in chunks:
        if first:
            first = False
            chunk = (EXCEL_BOM.encode() if isinstance(chunk, bytes) else EXCEL_BOM) + chunk
        yield chunk
    if first:
        yield EXCEL_BOM


def buffer_drain(buffer) -> str:
    """What a streamed CSV's writer put in `buffer` (a StringIO) since the last drain, the
    buffer emptied for the next rows. The evalset, results and pairs exports stream by it."""
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def download_response(
    stream, *, name: str, content_type: str, excel: bool = False
) -> StreamingHttpResponse:
    """A streamed download of `stream` saved as `name`. `excel` (a CSV only) starts it with a
    byte order mark so Excel reads UTF-8 and saves it as `<name>-excel.csv`; without it the
    file stays byte for byte what scripts read. Evalset and experiment exports are sent by it."""
    if excel and name.endswith(".csv"):
        stream, name = for_excel(stream), name.removesuffix(".csv") + "-excel.csv"
    response = StreamingHttpResponse(stream, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
