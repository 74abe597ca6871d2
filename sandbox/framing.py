"""Length-prefixed JSON frames on raw file descriptors.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. JSON (never
pickle) because the bytes may come from a compromised child: parsing them must not run code.

orjson parses and writes the common frames (a turn, a result record) several times faster than
the stdlib; wherever its answer could differ from the stdlib's (an integer past 64 bits, a lone
surrogate, NaN, deep nesting), the stdlib decides, so both paths give the same values
(`dumps_fast` names the one exception).
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

import orjson

HEADER = struct.Struct(">I")


class FrameError(Exception):
    """The peer sent something that is not a valid frame (too big, bad JSON, cut short)."""


# One encoder for every frame: json.dumps with options builds a new one per call, which was
# a fifth of a small turn's time in the child (a frame goes out after every turn).
ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def encode(message: Any) -> bytes:
    """Serialise a message as one frame; NaN and Infinity are refused, not emitted."""
    body = ENCODER.encode(message).encode()
    return HEADER.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    """Write every byte to fd (os.write may write less than asked on a pipe)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_frame(fd: int, message: Any) -> None:
    """Encode and write one frame."""
    write_all(fd, encode(message))


def read_exact(fd: int, size: int) -> bytes:
    """Read exactly `size` bytes from a blocking fd; FrameError if the stream ends first."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise FrameError("stream ended inside a frame")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, max_bytes: int) -> Any:
    """Read one frame from a blocking fd; None at a clean end of stream."""
    first = os.read(fd, HEADER.size)
    if not first:
        return None
    header = first + read_exact(fd, HEADER.size - len(first)) if len(first) < 4 else first
    (length,) = HEADER.unpack(header)
    if length > max_bytes:
        raise FrameError(f"frame of {length} bytes exceeds {max_bytes}")
    return decode(read_exact(fd, length))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


# One decoder for every frame: json.loads with options would build a new one per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# orjson reads an integer past 64 bits as a float, the stdlib as an int: a run of 19 digits
# that is not a fraction (after a '.') sends the body to the stdlib, as does a body so large
# that the mapped copy would cost memory. Runs are found by mapping every digit to 0 (much
# faster than a regular expression).
_ZEROS = bytes.maketrans(b"123456789", b"0" * 9)
_LONG_RUN = b"0" * 19
_DOT, _ZERO = ord("."), ord("0")
FAST_DECODE_BYTES = 64 * 1024 * 1024


def _orjson_reads_alike(body: bytes) -> bool:
    if len(body) > FAST_DECODE_BYTES:
        return False
    mapped = body.translate(_ZEROS)
    at = mapped.find(_LONG_RUN)
    while at >= 0:
        if at == 0 or mapped[at - 1] != _DOT:
            return False  # an integer's digits (or a string's: the stdlib reads those alike)
        at += len(_LONG_RUN)
        while at < len(mapped) and mapped[at] == _ZERO:
            at += 1  # the rest of this fraction
        at = mapped.find(_LONG_RUN, at)
    return True


def decode(body: bytes) -> Any:
    """Parse a frame body, rejecting NaN/Infinity tokens and invalid JSON."""
    if _orjson_reads_alike(body):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # NaN, a lone surrogate, too deep, or invalid: the stdlib says which
    try:
        return _DECODER.decode(body.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise FrameError(f"invalid JSON frame: {exc}") from None


# orjson hands these to the stdlib's rules (which refuse them) instead of writing them its way
_PASSTHROUGH = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def dumps_fast(value: Any) -> bytes | None:
    """orjson's bytes for a value the stdlib encoder would write the same way, else None.

    orjson writes NaN as null and refuses keys the stdlib converts: any `null` in its output,
    or any refusal, leaves the value to the stdlib (None). Datetimes, dataclasses and
    subclasses of str, int, dict or list pass through to a refusal; UUIDs and enums alone
    orjson writes where the stdlib refuses them (a turn is built from JSON: it holds neither)."""
    try:
        data = orjson.dumps(value, option=_PASSTHROUGH)
    except orjson.JSONEncodeError:
        return None
    return None if b"null" in data else data


def encode_result(record: list) -> bytes:
    """A {"r": [record]} frame for a record the child has validated (its score is finite or
    None, its duration a clock difference): only its strings can make orjson refuse."""
    try:
        body = b'{"r":[' + orjson.dumps(record) + b"]}"
    except orjson.JSONEncodeError:  # e.g. a lone surrogate in a reason
        return encode({"r": [record]})
    return HEADER.pack(len(body)) + body


class FrameReader:
    """Incremental parser for frames arriving in arbitrary chunks (non-blocking host reads)."""

    def __init__(self, max_bytes: int) -> None:
        self.buffer = bytearray()
        self.max_bytes = max_bytes

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes; return every complete frame now available, in order."""
        self.buffer += data
        frames = []
        while len(self.buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self.buffer)
            if length > self.max_bytes:
                raise FrameError(f"frame of {length} bytes exceeds {self.max_bytes}")
            end = HEADER.size + length
            if len(self.buffer) < end:
                break
            frames.append(decode(bytes(self.buffer[HEADER.size : end])))
            del self.buffer[:end]
        return frames
