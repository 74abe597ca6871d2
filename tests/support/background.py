"""A local HTTP server in a background thread, as a context manager: what the scripted test
servers (the LLM provider, the team's application) share."""

from __future__ import annotations

import threading
from typing import Any


class BackgroundServer:
    """Subclasses set `self._server` factory through `_make_server(port)`."""

    _server: Any = None

    def _make_server(self, port: int):
        raise NotImplementedError

    def start(self, port: int = 0):
        """Bind (an ephemeral port by default) and serve in a background thread."""
        self._server = self._make_server(port)
        # A short poll interval keeps shutdown (once per test) fast.
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]
