"""`Client`: Assay's REST API (`/api/v1/`) over httpx, authenticated by an API token."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from . import __version__
from .config import resolve_credentials
from .errors import AssayError, AssayTimeout
from .evalset_files import SEMVER, file_format, next_version
from .gate import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    DEFAULT_MAX_UNKNOWN_RATE,
    DEFAULT_MIN_DECIDED,
    GateResult,
)
from .results import FINISHED, ExperimentResult

PAGE_SIZE = 200
RETRIES = 3
RETRY_STATUSES = {502, 503, 504}
IMPORT_DONE = ("completed", "failed")
MAX_POLL_S = 2.0


class Client:
    """One Assay server, one API token. A token acts inside its own workspace, so no
    workspace needs naming; `workspace` (a slug) only matters for other credentials.

    `url` and `token` default to `ASSAY_URL` / `ASSAY_TOKEN`, then to the file written by
    `assay login`. `transport` is handed to httpx (for instance an `httpx.MockTransport`).
    Use the client as a context manager, or call `close()`, to release its connections.
    """

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        workspace: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ):
        self.url, self.token = resolve_credentials(url=url, token=token)
        self.workspace = workspace
        headers = {
            "Authorization": f"Token {self.token}",
            "Accept": "application/json",
            "User-Agent": f"assay-client/{__version__}",
        }
        if workspace:
            headers["X-Assay-Workspace"] = workspace
        self._http = httpx.Client(
            base_url=f"{self.url}/api/v1/", headers=headers, timeout=timeout, transport=transport
        )
        self._workspace_slug: str | None = workspace

    def __repr__(self) -> str:
        return f"Client(url={self.url!r})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # -- transport -------------------------------------------------------------------------

    def request(self, method: str, path: str, *, retry: bool | None = None, **options) -> Any:
        """Call `path` under /api/v1/ and return the decoded JSON (None for an empty answer).

        An error answer raises `AssayError`. GETs, and calls made with `retry=True`, are tried
        again after a connection error or a 502/503/504.
        """
        response = self._send(
            method, path, retry=method == "GET" if retry is None else retry, **options
        )
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise self._not_assay(response, "answered with something that is not JSON") from None

    def _send(self, method: str, path: str, *, retry: bool, **options) -> httpx.Response:
        attempts = RETRIES if retry else 1
        for attempt in range(attempts):
            try:
                response = self._http.request(method, path, **options)
            except httpx.TransportError as exc:
                error = self._unreachable(exc)
            else:
                if response.is_redirect:
                    raise self._redirected(response)
                if response.status_code < 400:
                    return response
                error = AssayError.from_response(response)
                if response.status_code not in RETRY_STATUSES:
                    raise error
            if attempt + 1 < attempts:
                time.sleep(0.5 * 2**attempt)
        raise error

    def _redirected(self, response: httpx.Response) -> AssayError:
        # The API never redirects: a 3xx comes from something in front of it (a sign-in proxy,
        # http -> https, a wrong path), and following it would send the token there.
        where = response.headers.get("location") or "nowhere"
        return self._not_assay(response, f"redirected to {where}")

    def _not_assay(self, response: httpx.Response, what: str) -> AssayError:
        return AssayError(
            response.status_code,
            "not_assay",
            f"{response.request.url} {what}, not an Assay API "
            f"answer: check that ASSAY_URL ({self.url}) is the address of Assay itself",
        )

    def _unreachable(self, exc: Exception) -> AssayError:
        return AssayError(0, "connection", f"Cannot reach {self.url}: {type(exc).__name__}: {exc}")

    def pages(self, path: str, params: dict | None = None) -> Iterator[dict]:
        """Every entry of a paginated list, page by page (following each page's `next`)."""
        query = {k: v for k, v in (params or {}).items() if v not in (None, "")}
        query.setdefault("page_size", PAGE_SIZE)
        while True:
            page = self.request("GET", path, params=query)
            if isinstance(page, list):
                yield from page
                return
            yield from page.get("results", [])
            following = page.get("next")
            if not following:
                return
            # the same path with the next page's query: `next` may name the host the server
            # sees behind a proxy rather than the one this client reaches
            query = dict(parse_qsl(urlsplit(following).query, keep_blank_values=True))

    # -- workspace -------------------------------------------------------------------------

    def workspace_info(self) -> dict:
        """The workspace this client acts in (a token's own): id, slug, name, role."""
        for workspace in self.pages("workspaces/"):
            if not self.workspace or workspace.get("slug") == self.workspace:
                self._workspace_slug = workspace.get("slug")
                return workspace
        raise AssayError(404, "not_found", "This token sees no workspace.")

    def experiment_url(self, experiment_id: str) -> str | None:
        """The experiment's page in the web app, or None when the workspace is unknown."""
        if self._workspace_slug is None:
            try:
                self.workspace_info()
            except AssayError:
                return None
        return f"{self.url}/w/{self._workspace_slug}/experiments/{experiment_id}/"

    # -- experiments -----------------------------------------------------------------------

    def experiment(self, experiment_id: str) -> dict:
        """One experiment: status, counters, bindings with their `summary`, usage."""
        return self.request("GET", f"experiments/{experiment_id}/")

    def experiments(self, *, status: str | None = None, evalset: str | None = None):
        """Every experiment of the workspace, newest first (an iterator over all pages).

        `evalset` is an evalset or evalset-version id, or a name / "name@version".
        """
        if evalset and not _is_uuid(evalset):
            evalset = self._evalset_filter(evalset)
        return self.pages("experiments/", {"status": status, "evalset": evalset})

    def _evalset_filter(self, ref: str) -> str:
        name, _, version = ref.rpartition("@") if "@" in ref else (ref, "", "")
        found = self.evalset_by_name(name)
        if found is None:
            raise AssayError(404, "not_found", f"No evaluation set is named {name!r}.")
        if not version:
            return found["id"]
        return self.request("GET", f"evalsets/{found['id']}/versions/{version}/")["id"]

    def create_experiment(
        self,
        *,
        name: str,
        evalset_version: str,
        bindings: list[dict],
        target: dict | None = None,
        repetitions: int = 1,
        chunk_size: int | None = None,
        concurrency: int | None = None,
        launch: bool = True,
    ) -> dict:
        """Create an experiment (launched unless `launch=False`) and return its JSON.

        `evalset_version` and each binding's `evaluator_version` take an id or "name@1.2.0".
        """
        body: dict[str, Any] = {
            "name": name,
            "evalset_version": evalset_version,
            "bindings": bindings,
            "repetitions": repetitions,
            "launch": launch,
        }
        optional = {"target": target, "chunk_size": chunk_size, "concurrency": concurrency}
        body.update({k: v for k, v in optional.items() if v is not None})
        return self.request("POST", "experiments/", json=body)

    def push_outputs(self, experiment_id: str, outputs: list[dict]) -> dict:
        """Push outputs of an external-target run (at most 1,000): {accepted, duplicates}.
        The first push of a row wins, so a retried push is harmless."""
        body = {"outputs": outputs}
        return self.request("POST", f"experiments/{experiment_id}/outputs/", json=body, retry=True)

    def close_experiment(self, experiment_id: str) -> dict:
        """No more outputs will come: rows never pushed are scored unknown."""
        return self.request("POST", f"experiments/{experiment_id}/close/")

    def cancel_experiment(self, experiment_id: str) -> dict:
        """Stop a run; the rows it finished are kept."""
        return self.request("POST", f"experiments/{experiment_id}/cancel/")

    def wait(
        self,
        experiment_id: str,
        *,
        timeout: float | None = None,
        on_update: Callable[[dict], None] | None = None,
        poll: float = 0.5,
    ) -> dict:
        """Poll until the run is completed, failed or cancelled and return its JSON;
        `AssayTimeout` after `timeout` seconds (the run goes on on the server)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = poll
        while True:
            experiment = self.experiment(experiment_id)
            if on_update is not None:
                on_update(experiment)
            if experiment["status"] in FINISHED:
                return experiment
            if experiment["status"] == "draft":
                raise AssayError(0, "draft", f"Experiment {experiment_id} was never launched.")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise AssayTimeout(
                    f"Experiment {experiment_id} is still {experiment['status']} after "
                    f"{timeout:g} s; it goes on on the server."
                )
            time.sleep(delay if left is None else min(delay, left))
            delay = min(delay * 1.5, MAX_POLL_S)

    def results(self, experiment_id: str, **filters) -> Iterator[dict]:
        """Every result row of a run (one per row, repetition and evaluator), in row order.

        `filters` are the results table's: evaluator, verdict, status, tag, q, score_min,
        score_max."""
        return self.pages(f"experiments/{experiment_id}/results/", filters)

    def templates(self) -> Iterator[dict]:
        """Every experiment template of the workspace, by name."""
        return self.pages("experiment-templates/")

    def launch_template(self, template: str) -> dict:
        """Launch an experiment from a template (its id or name); the new experiment's JSON."""
        template_id = template if _is_uuid(template) else self._template_id(template)
        launched = self.request("POST", f"experiment-templates/{template_id}/launch/")
        return self.experiment(launched["experiment"]["id"])

    def _template_id(self, name: str) -> str:
        for template in self.templates():
            if template["name"] == name:
                return template["id"]
        raise AssayError(404, "not_found", f"No experiment template is named {name!r}.")

    def run_experiment(self, **options) -> ExperimentResult:
        """Run `task` on every row of an evalset version and score it on the server; see
        `assay_client.runner.run_experiment` for the options."""
        from .runner import run_experiment

        return run_experiment(self, **options)

    def export(self, experiment_id: str, format: str = "jsonl") -> Iterator[bytes]:
        """The results file (`jsonl` or `csv`) as byte chunks, streamed."""
        path = f"experiments/{experiment_id}/export/"
        try:
            with self._http.stream("GET", path, params={"format": format}) as response:
                if response.is_redirect:
                    raise self._redirected(response)
                if response.status_code >= 400:
                    response.read()
                    raise AssayError.from_response(response)
                yield from response.iter_bytes()
        except httpx.TransportError as exc:
            raise self._unreachable(exc) from None

    def gate(
        self,
        baseline: str,
        candidate: str,
        *,
        alpha: float = DEFAULT_ALPHA,
        max_drop: float = DEFAULT_MAX_DROP,
        max_unknown_rate: float | None = DEFAULT_MAX_UNKNOWN_RATE,
        min_decided: int = DEFAULT_MIN_DECIDED,
        record: bool = True,
    ) -> GateResult:
        """Does `candidate` regress against `baseline` (an id, or "latest": the newest
        completed baseline on the candidate's evalset)? It fails on a significant drop of the
        pass rate, a significant rise of the unknown rate, an unknown rate above
        `max_unknown_rate` (None: no cap, as before it had a default), or fewer than
        `min_decided` rows decided. `result.passed`, one row per evaluator, `result.format()`
        (the printable summary) and `to_junit()`.

        With `record` (the default) the server records the decision and tells the
        workspace's `gate.failed` webhooks the first time this check fails; that needs an
        editor's token. `record=False` only reads (a viewer's token may)."""
        params: dict[str, Any] = {
            "baseline": baseline,
            "candidate": candidate,
            "alpha": alpha,
            "max_drop": max_drop,
            "max_unknown_rate": 1.0 if max_unknown_rate is None else max_unknown_rate,
            "min_decided": min_decided,
        }
        if not record:
            return GateResult.from_api(self.request("GET", "experiments/gate/", params=params))
        # the same check posted twice is recorded and announced once: safe to retry
        answer = self.request("POST", "experiments/gate/", json=params, retry=True)
        return GateResult.from_api(answer)

    def mark_baseline(self, experiment_id: str, is_baseline: bool = True) -> dict:
        """Mark (or unmark) a completed run as a baseline for the gate."""
        body = {"is_baseline": bool(is_baseline)}
        return self.request("POST", f"experiments/{experiment_id}/baseline/", json=body)

    # -- traces ----------------------------------------------------------------------------

    def traces_to_evalset(
        self,
        evalset: str,
        *,
        trace_ids: Iterable[str] = (),
        span_ids: Iterable[str] = (),
        session_ids: Iterable[str] = (),
        filters: dict | None = None,
        mapping: dict | None = None,
        row_from: str = "root",
    ) -> dict:
        """Add production traces to a set's draft (`evalset`: a name or an id), selected by
        trace, span or session ids or by the trace list's filters (one of them). `mapping` is
        {column: span field}; without it the server maps by the columns' names. Returns
        {added, skipped_duplicates, empty, rows, mapping}."""
        body = {
            "evalset": self._evalset_id(evalset),
            "trace_ids": list(trace_ids),
            "span_ids": list(span_ids),
            "session_ids": list(session_ids),
            "filters": filters or {},
            "row_from": row_from,
        }
        if mapping:
            body["mapping"] = mapping
        return self.request("POST", "traces/to-evalset/", json=body)

    def _evalset_id(self, ref: str) -> str:
        if _is_uuid(ref):
            return ref
        found = self.evalset_by_name(ref)
        if found is None:
            raise AssayError(404, "not_found", f"No evaluation set is named {ref!r}.")
        return found["id"]

    # -- evaluation sets -------------------------------------------------------------------

    def evalsets(self, *, q: str | None = None) -> Iterator[dict]:
        """Live evaluation sets, newest change first; `q` searches names and descriptions."""
        return self.pages("evalsets/", {"q": q})

    def evalset_by_name(self, name: str) -> dict | None:
        """The live set with exactly this name, or None."""
        return next((s for s in self.evalsets(q=name) if s["name"] == name), None)

    def evalset_items(self, evalset_id: str, *, version: str) -> Iterator[dict]:
        """Items of a committed version: {item_id, position, data: {column: content}, ...}."""
        return self.pages(f"evalsets/{evalset_id}/items/", {"version": version})

    def evalset_rows(self, evalset_id: str, *, version: str) -> list[dict]:
        """Rows as a task sees them: Text columns as strings, other columns as their content
        object, and `_item_id`."""
        return [task_row(item) for item in self.evalset_items(evalset_id, version=version)]

    def evalset_version_from_rows(self, path: str | Path, *, name: str | None = None) -> dict:
        """The version of the set `name` (default: the file's name without its extension)
        that holds exactly the rows of a local CSV or JSONL file: the version the same rows
        made before, or a new one the server commits (the set is created when none has the
        name). Returns the version JSON with `evalset_name` and `created`."""
        path = Path(path)
        fields = {"name": name} if name else {}
        files = {"file": (path.name, path.read_bytes(), "application/octet-stream")}
        # the same rows give the same version, so sending them again after a lost answer is safe
        return self.request("POST", "evalsets/from-rows/", data=fields, files=files, retry=True)

    def push_evalset(
        self,
        path: str | Path,
        name: str,
        version: str | None = None,
        *,
        note: str = "",
        timeout: float | None = 600.0,
    ) -> dict:
        """Import a CSV/JSONL file as the draft of the set `name` (created when no live set
        has that name; an existing set's draft is replaced) and commit it as `version`
        (default: one patch above the highest version, or 1.0.0). Returns the version JSON."""
        path = Path(path)
        if version is not None and not SEMVER.match(version):
            # checked before the import, which replaces the set's draft
            raise AssayError(0, "invalid", f"version: {version!r} is not a version such as 1.2.0")
        file_format(path)
        evalset = self.evalset_by_name(name)
        if evalset is None:
            evalset = self.request("POST", "evalsets/", json={"name": name})
        job = self._import(evalset, path)
        self._wait_import(evalset["id"], job, timeout=timeout)
        version = version or next_version(evalset.get("latest_version"))
        body = {"version": version, "note": note}
        return self.request("POST", f"evalsets/{evalset['id']}/versions/", json=body)

    def _import(self, evalset: dict, path: Path) -> dict:
        # no mapping: the server matches fields to the set's columns by name and synonym
        # (问题 → input, 标签 → tags) and makes the others new columns it names, as its web map
        # step proposes; a file that would fill no column of the set is refused there
        fields = {"format": file_format(path), "replace": "true", "add_columns": "true"}
        with path.open("rb") as handle:
            files = {"file": (path.name, handle, "application/octet-stream")}
            return self.request(
                "POST", f"evalsets/{evalset['id']}/imports/", data=fields, files=files
            )

    def _wait_import(self, evalset_id: str, job: dict, *, timeout: float | None) -> dict:
        deadline = None if timeout is None else time.monotonic() + timeout
        while job["status"] not in IMPORT_DONE:
            if deadline is not None and time.monotonic() > deadline:
                raise AssayTimeout(f"The import {job['id']} is still {job['status']}.")
            time.sleep(0.3)
            job = self.request("GET", f"evalsets/{evalset_id}/imports/{job['id']}/")
        if job["status"] == "failed":
            problems = {
                f"line {e.get('line')}" + (f", {e['column']}" if e.get("column") else ""): [
                    e.get("problem", "")
                ]
                for e in job.get("errors", [])[:20]
            }
            raise AssayError(
                0, "import_failed", job.get("message") or "The import failed.", problems
            )
        return job


def task_row(item: dict) -> dict:
    """An item's data as a task's row: Text as its string, other content as it is."""
    row = {
        column: content.get("text", "") if _is_text(content) else content
        for column, content in (item.get("data") or {}).items()
    }
    row["_item_id"] = item["item_id"]
    return row


def _is_text(content: Any) -> bool:
    return isinstance(content, dict) and content.get("content_type") == "Text"


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True
