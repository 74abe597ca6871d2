"""The filesystem broker (kombu's `filesystem://`, used when REDIS_URL is unset), made to skip a
message it cannot read instead of dying on it.

kombu's channel moves a message file aside and parses it; a file cut short by an unclean stop
(or any bytes that are not a message) raised out of the worker's consumer and stopped the
worker, while the web kept accepting runs. Here each file is read under the writer's lock (a
file still being written is waited for, not mistaken for garbage), and one that is not a
message is logged, set aside under `<processed folder>/unreadable/` for inspection, and
skipped. `assay.celery` registers this transport under the `filesystem` alias.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from queue import Empty

from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str
from kombu.utils.json import loads

log = logging.getLogger(__name__)

UNREADABLE = "unreadable"


class Channel(filesystem.Channel):
    """kombu's filesystem channel with unreadable messages skipped."""

    def _get(self, queue):
        """The next message of `queue`, skipping (and setting aside) any that cannot be read."""
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            payload = self._take(filename)
            if payload is None:
                continue  # another consumer took it meanwhile
            message = _message(payload)
            if message is None:
                self._set_aside(queue, filename, payload)
                continue
            return message
        raise Empty()

    def _take(self, filename: str) -> bytes | None:
        """Move the file out of the queue folder and read it, waiting for its writer's lock."""
        folder = self.processed_folder if self.store_processed else tempfile.gettempdir()
        try:
            shutil.move(os.path.join(self.data_folder_in, filename), folder)
        except OSError:
            return None  # locked, or removed in the meantime
        path = os.path.join(folder, filename)
        try:
            with open(path, "rb") as file:
                filesystem.lock(file, filesystem.LOCK_EX)  # a writer holds it while writing
                payload = file.read()
                filesystem.unlock(file)
            if not self.store_processed:
                os.remove(path)
        except OSError:
            log.warning("filesystem broker: could not read the message %s; skipped", filename)
            return None
        return payload

    def _set_aside(self, queue: str, filename: str, payload: bytes) -> None:
        folder = os.path.join(self.processed_folder, UNREADABLE)
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, filename), "wb") as file:
                file.write(payload)
        except OSError:
            folder = "(could not be kept)"
        log.error(
            "filesystem broker: skipped an unreadable message in queue %s (%s, %d bytes); "
            "kept in %s",
            queue,
            filename,
            len(payload),
            folder,
        )


class Transport(filesystem.Transport):
    """kombu's filesystem transport with the channel above."""

    Channel = Channel


def _message(payload: bytes) -> dict | None:
    """The message in a file's bytes, or None when they are not one."""
    try:
        message = loads(bytes_to_str(payload))
    except ValueError:  # not UTF-8 (UnicodeDecodeError) or not JSON
        return None
    if not isinstance(message, dict) or not isinstance(message.get("properties"), dict):
        return None
    return message
