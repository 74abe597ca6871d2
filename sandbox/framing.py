"""Length-prefixed JSON frames on raw file descriptors.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. JSON (never
pickle) because the bytes may come from a compromised child: parsing them must not run code.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

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


def decode(body: bytes) -> Any:
    """Parse a frame body, rejecting NaN/Infinity tokens and invalid JSON."""
    try:
        return _DECODER.decode(body.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise FrameError(f"invalid JSON frame: {exc}") from None


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
