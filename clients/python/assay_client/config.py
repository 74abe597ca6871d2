"""Where the server URL and the API token come from: arguments, then the environment
(`ASSAY_URL`, `ASSAY_TOKEN`), then the file `assay login` writes (`$ASSAY_CONFIG`, or
`~/.config/assay/config.json`)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .errors import AssayError

ENV_URL = "ASSAY_URL"
ENV_TOKEN = "ASSAY_TOKEN"
ENV_CONFIG = "ASSAY_CONFIG"


def config_path() -> Path:
    """The config file: `$ASSAY_CONFIG`, or `~/.config/assay/config.json`."""
    explicit = os.environ.get(ENV_CONFIG)
    if explicit:
        return Path(explicit).expanduser()
    return Path.home() / ".config" / "assay" / "config.json"


def load_config(path: Path | None = None) -> dict:
    """The saved settings ({} when there is no file)."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AssayError(0, "config", f"Cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise AssayError(
            0, "config", f"{path} is not valid JSON; run `assay login` again"
        ) from None
    return data if isinstance(data, dict) else {}


def save_config(*, url: str, token: str, path: Path | None = None) -> Path:
    """Write the URL and token, readable by the owner only (mode 0600), atomically."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = json.dumps({"url": normalized_url(url), "token": token}, indent=2) + "\n"
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".json")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(body)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    os.chmod(path, 0o600)
    return path


def normalized_url(url: str) -> str:
    """The server's base URL without a trailing slash; it must be http(s)."""
    url = (url or "").strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise AssayError(
            0, "config", f"The Assay URL must start with http:// or https:// ({url!r})"
        )
    return url.removesuffix("/api/v1")


def resolve_credentials(*, url: str | None, token: str | None) -> tuple[str, str]:
    """(url, token) from the arguments, the environment, then the config file.

    The saved token is only used for the saved URL, so a token never travels to a server
    other than the one it was saved for.
    """
    url = url or os.environ.get(ENV_URL)
    token = token or os.environ.get(ENV_TOKEN)
    if not url or not token:
        saved = load_config()
        saved_url = saved.get("url") or None
        if not url:
            url = saved_url
        if not token and saved_url and normalized_url(url or "") == normalized_url(saved_url):
            token = saved.get("token")
    if not url:
        raise AssayError(0, "config", f"No Assay URL: set {ENV_URL} or run `assay login`")
    if not token:
        raise AssayError(
            0, "config", f"No API token for {url}: set {ENV_TOKEN} or run `assay login`"
        )
    return normalized_url(url), token
