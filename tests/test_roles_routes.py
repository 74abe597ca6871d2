"""Every write route of every app, page and API, sent by each role of Acme and by an outsider;
and every route a GET reaches, read by a viewer and by an outsider.

The routes come from Django's URL resolver, so a new one is covered without editing this file
(a new URL kwarg fails until `ids_for` can fill it):

- every role below the one a route needs gets 403 (pages: `workspace_view`'s PermissionDenied;
  API: `permission_denied`), a viewer through a session and through a token;
- the lowest role it allows reaches it: anything but 401/403/404 and no 5xx (the empty body
  this test sends may be refused with a 400);
- an outsider (a member of their own workspace only) gets 404, through Acme's URLs and through
  their own workspace's URLs with Acme's ids (the API: with their own token).

A route's write methods: for DRF, its viewset's actions (or its view's handlers) that
`http_method_names` allows; a function view gets POST, PUT, PATCH and DELETE, since
`workspace_view` treats every method but GET and HEAD as a write. A method the allowed role gets
405 for is one the route does not serve; the others may get 405 for it too.

A GET: a viewer gets an answer, an outsider a 404, the same two ways.

Routes outside a workspace are listed in OPEN, and routes needing another role than an editor in
NEEDS, each with its reason. Acme's ids inside request bodies are tests/test_outsiders.py's
(`test_foreign_ids_*`, `test_acmes_rows_and_files_*`), one body at a time.

The world is built once for the module inside a transaction rolled back at its end; each test
runs in a savepoint of it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.core.files.base import ContentFile
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.selectors import SourceItem
from annotation.services import annotation_queue_create, queue_items_add, score_config_create
from annotation.services.feeds import queue_feed_create
from assay import services as platform
from assay.models import Membership, ModelProvider
from evalsets.demo import png_bytes
from evalsets.items.media import media_store
from experiments.models import Experiment, PairwiseResult
from experiments.pairwise import work as pairwise_work
from experiments.pairwise.services import pairwise_run_create
from imports.services import import_run
from notifications.services import endpoint_create, endpoint_test_send
from online.services import online_rule_create, rule_alert_create
from schedules.services import schedule_create, template_from_experiment
from tests.support.acme import Acme, acme_build
from tests.support.factories import make_code_version
from tests.support.llm_server import ScriptedLlmServer
from tests.support.pairwise import make_pairwise_version, pushed_run, qa_version
from traces.ingest.storing import rows_insert
from traces.models import Span
from traces.services import ingest_key_issue

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch", "delete")
VIEWER, EDITOR, OWNER = Membership.Role.VIEWER, Membership.Role.EDITOR, Membership.Role.OWNER
BELOW = {VIEWER: (), EDITOR: (VIEWER,), OWNER: (VIEWER, EDITOR)}

# Routes outside any workspace (by pattern; admin/ by prefix): nothing in them is a member's.
OPEN = {
    "": "the start page: sends a signed-in user to their workspace",
    "healthz": "the health check: reads nothing of a workspace",
    "i18n/setlang/": "the language switch: the session's own setting",
    "accounts/login/": "signing in",
    "accounts/logout/": "signing out",
    "accounts/password/": "changing one's own password (required after a temporary one)",
    "workspaces/new/": "anyone signed in may create a workspace, and owns it",
    "invite/<str:key>/": "an invitation link: its secret key is the permission, for anyone",
    "api/v1/workspaces/": "anyone signed in may create a workspace (POST), and owns it; the "
    "list holds only the caller's",
    "admin/": "Django's admin: staff only, by its own permissions",
    "i18n/js/": "the JavaScript catalogue: translations only",
    "api/v1/": "the API root: links to the routes",
    "api/v1/evaluator-templates/": "the built-in presets: the same for everyone",
    "api/v1/evaluator-templates/<slug:slug>/": "a built-in preset: the same for everyone",
    "api/schema/": "the OpenAPI schema",
    "api/docs/": "the API's documentation page",
    "otlp/v1/traces": "the OTLP receiver: an ingest key is its permission, not a member; "
    "tests/traces/test_ingest_keys.py sends another workspace's key, a revoked one and a token",
}
# Routes that need more than an editor, or less.
MEMBERS = "owners manage members and their roles"
SECRETS = "owners manage secrets: their values go out in HTTP targets' headers"
PROVIDERS = "owners manage model providers: a provider decides where the workspace's key goes"
TOKENS = "every member issues and revokes their own API tokens (a token acts with their role)"
INGEST = "owners manage ingest keys: a key writes spans into the workspace"
WEBHOOKS = "owners manage webhooks: an endpoint decides where the workspace's news goes"
ADJUDICATE = "owners settle reviewers' disagreements (and the members a queue names)"
ASSIGN = "owners say who reviews a queue (a role, or the members it is assigned to)"
NEEDS = {  # URL name → (role, why)
    "settings_members": (OWNER, MEMBERS),
    "settings_member_change": (OWNER, MEMBERS),
    "member-list": (OWNER, MEMBERS),
    "member-detail": (OWNER, MEMBERS),
    "settings_invite": (OWNER, MEMBERS),
    "settings_member_create": (OWNER, MEMBERS),
    "invitation-list": (OWNER, MEMBERS),
    "invitation-detail": (OWNER, MEMBERS),
    "settings_invitation_revoke": (OWNER, MEMBERS),
    "settings_secrets": (OWNER, SECRETS),
    "settings_secret_delete": (OWNER, SECRETS),
    "secret-list": (OWNER, SECRETS),
    "secret-detail": (OWNER, SECRETS),
    "settings_provider_new": (OWNER, PROVIDERS),
    "settings_provider": (OWNER, PROVIDERS),
    "settings_provider_test": (OWNER, PROVIDERS),
    "settings_provider_try": (OWNER, PROVIDERS),
    "settings_provider_delete": (OWNER, PROVIDERS),
    "provider-list": (OWNER, PROVIDERS),
    "provider-detail": (OWNER, PROVIDERS),
    "provider-test-connection": (OWNER, PROVIDERS),
    "workspace-detail": (OWNER, "owners rename their workspace"),
    "settings_tokens": (VIEWER, TOKENS),
    "settings_token_revoke": (VIEWER, TOKENS),
    "token-list": (VIEWER, TOKENS),
    "token-revoke": (VIEWER, TOKENS),
    "ingest-key-list": (OWNER, INGEST),
    "ingest-key-revoke": (OWNER, INGEST),
    "settings_ingest_keys": (OWNER, INGEST),
    "settings_ingest_key_revoke": (OWNER, INGEST),
    "webhook-list": (OWNER, WEBHOOKS),
    "webhook-detail": (OWNER, WEBHOOKS),
    "webhook-rotate-secret": (OWNER, WEBHOOKS),
    "webhook-test": (OWNER, WEBHOOKS),
    "webhook-redeliver": (OWNER, WEBHOOKS),
    "settings_webhooks": (OWNER, WEBHOOKS),
    "settings_webhook": (OWNER, WEBHOOKS),
    "settings_webhook_rotate": (OWNER, WEBHOOKS),
    "settings_webhook_test": (OWNER, WEBHOOKS),
    "settings_webhook_redeliver": (OWNER, WEBHOOKS),
    "settings_webhook_delete": (OWNER, WEBHOOKS),
    "annotation-queue-item-adjudicate": (OWNER, ADJUDICATE),
    "annotation-queue-assignment-list": (OWNER, ASSIGN),
    "annotation:assignment": (OWNER, ASSIGN),
    "annotation:adjudicate": (OWNER, ADJUDICATE),
}
# Pages a viewer may not even read (403), by URL name: (who reads them, why).
READ_NEEDS = {"annotation:adjudicate": (OWNER, ADJUDICATE + ": the page shows every label")}
# API routes that refuse every API token (403) before looking anything up, by URL name.
TOKEN_REFUSED = {"workspace-detail": 403}  # a token acts inside its workspace, never on it
# URL kwargs that name no object of Acme's: an outsider's own workspace takes them too.
NOT_IDS = {"ws", "kind"}  # kind: an importer (imports:create, import-kind-list)
_KWARG = re.compile(r"<(?:\w+:)?(\w+)>")


@dataclass(frozen=True)
class Route:
    name: str
    pattern: str
    method: str

    @property
    def kwargs(self) -> list[str]:
        return _KWARG.findall(self.pattern)

    @property
    def api(self) -> bool:
        return self.pattern.startswith("api/")

    @property
    def needs(self) -> str:
        return NEEDS.get(self.name, (EDITOR, "editors write"))[0]

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.pattern}"


def _walk(patterns, prefix: str = "", namespace: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            name = f"{namespace}{entry.name}" if entry.name else ""
            yield prefix + str(entry.pattern), name, entry.callback


def _methods(callback, wanted: tuple[str, ...]) -> tuple[str, ...]:
    view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if view is None:
        return wanted
    actions = getattr(callback, "actions", None)
    served = actions if actions is not None else [m for m in wanted if hasattr(view, m)]
    return tuple(m for m in wanted if m in served and m in view.http_method_names)


def _open(pattern: str) -> bool:
    return pattern in OPEN or pattern.startswith("admin/")


def routes_taking(wanted: tuple[str, ...]) -> tuple[list[Route], list[str]]:
    """(the workspace's routes taking these methods, the patterns of open ones that do)."""
    found = list(_walk(get_resolver().url_patterns))
    slashed = {(p, id(cb)) for p, _n, cb in found}
    routes, opened = [], []
    for pattern, name, callback in found:
        if (pattern + "/", id(callback)) in slashed:
            continue  # the API router's twin without the trailing slash: the same view
        methods = _methods(callback, wanted)
        if methods and _open(pattern):
            opened.append(pattern)
        elif methods:
            routes.extend(Route(name or pattern, pattern, m) for m in methods)
    return routes, opened


ROUTES, OPENED = routes_taking(WRITES)
READS, OPENED_READS = routes_taking(("get",))


# ----------------------------------------------------------------------------- the world


@dataclass
class World:
    acme: Acme
    run_item: str
    set_version_name: str
    pairwise: str
    pair: int
    media: str
    viewer_token_id: str
    ingest_key_id: str
    trace_id: str
    session_id: str
    online_rule: str
    online_alert: str
    template: str
    schedule: str
    score_config: str
    queue: str
    webhook: str
    webhook_delivery: str
    import_run: str
    queue_item: str
    queue_feed: str
    sessions: dict[str, str]  # role / "outsider" → session cookie
    tokens: dict[str, str]  # "viewer" / "outsider" → API key


# What a URL kwarg names. `id` and `result_id` depend on the route: the longest prefix of its
# name in ID_OF / RESULT_OF decides.
KWARGS = {
    "evaluator_id": "acme.evaluator",
    "evalset_id": "acme.evalset",
    "case_id": "acme.case",
    "item_id": "run_item",
    "item": "run_item",
    "candidate": "acme.experiment",
    "job_id": "acme.job",
    "version_id": "acme.set_version",
    "member_id": "acme.member",
    "invitation_id": "acme.invitation",
    "provider_id": "acme.provider",
    "secret_id": "acme.secret",
    "token_id": "viewer_token_id",
    "path": "media",
    "fmt": "csv",
    "slug": "acme",
    "trace_id": "trace_id",
    "session_id": "session_id",
    "ingest_key_id": "ingest_key_id",
    "webhook_id": "webhook",
    "delivery_id": "webhook_delivery",
    "queue_id": "queue",
    "config_id": "score_config",
    "template_id": "template",
    "schedule_id": "schedule",
    "feed_id": "queue_feed",
    "queue_item_id": "queue_item",
    "rule_id": "online_rule",
    "alert_id": "online_alert",
    "kind": "openai-evals",
}
ID_OF = {
    "evaluators:": "acme.evaluator",
    "evalsets:": "acme.evalset",
    "experiments:import_garak_": "acme.garak_job",
    "experiments:": "acme.experiment",
    "compare:": "acme.experiment",
    "api-compare-item": "acme.experiment",
    "pairwise:": "pairwise",
    "evaluator-test-case-": "acme.case",
    "evaluator-": "acme.evaluator",
    "evalset-import-": "acme.job",
    "evalset-": "acme.evalset",
    "experiment-": "acme.experiment",
    "garak-import-": "acme.garak_job",
    "pairwise-run-": "pairwise",
    "provider-": "acme.provider",
    "secret-": "acme.secret",
    "member-": "acme.member",
    "invitation-": "acme.invitation",
    "token-": "viewer_token_id",
    "ingest-key-": "ingest_key_id",
    "online-rule-alert-": "online_alert",
    "online-rule-": "online_rule",
    "online:": "online_rule",
    "score-config-": "score_config",
    "annotation-queue-item-": "queue_item",
    "annotation-queue-gold-": "queue_item",
    "annotation-queue-feed-": "queue_feed",
    "annotation-queue-": "queue",
    "schedules:from_experiment": "acme.experiment",
    "schedules:": "template",
    "experiment-template-schedule-": "schedule",
    "experiment-template-": "template",
    "webhook-": "webhook",
    "imports:": "import_run",
    "import-": "import_run",
}
# Routes that read ids from the query string as well, by URL name.
QUERY = {
    "evaluators:debug_rows": {"evalset": "acme.evalset"},
    "compare:export": {"baseline": "acme.experiment", "candidates": "acme.experiment"},
    "evaluator-version-diff": {"old": "acme.version"},
    "experiment-gate": {"baseline": "acme.experiment", "candidate": "acme.experiment"},
    "api-compare": {"baseline": "acme.experiment", "candidates": "acme.experiment"},
}
RESULT_OF = {"experiments:": "acme.result", "experiment-": "acme.result", "pairwise": "pair"}
VERSION_OF = {
    "evaluator-": "acme.version",
    "evaluators:": "acme.version",
    "evalset-": "set_version_name",
}


def _value(world: World, spec: str):
    if spec in ("csv", "acme", "openai-evals"):
        return spec
    value = world
    for part in spec.split("."):
        value = getattr(value, part)
    return value


def ids_for(route: Route, world: World, ws: str) -> dict:
    """The route's URL kwargs filled with Acme's objects; a kwarg the world cannot fill fails
    the test, so a new one makes this file name it."""
    filled = {}
    for kwarg in route.kwargs:
        table = {"id": ID_OF, "result_id": RESULT_OF, "version": VERSION_OF}.get(kwarg)
        if kwarg == "ws":
            filled[kwarg] = ws
        elif table is not None:
            prefixes = [p for p in table if route.name.startswith(p)]
            if not prefixes:
                pytest.fail(f"{route} ({route.name}): nothing in the world for <{kwarg}>")
            filled[kwarg] = _value(world, table[max(prefixes, key=len)])
        elif kwarg in KWARGS:
            filled[kwarg] = _value(world, KWARGS[kwarg])
        else:
            pytest.fail(f"{route} ({route.name}): nothing in the world for <{kwarg}>")
    return filled


def url_of(route: Route, world: World, ws: str = "acme") -> str:
    url = "/" + route.pattern
    for kwarg, value in ids_for(route, world, ws).items():
        url = re.sub(rf"<(?:\w+:)?{kwarg}>", str(value), url)
    query = {key: _value(world, spec) for key, spec in QUERY.get(route.name, {}).items()}
    return f"{url}?{urlencode(query)}" if query else url


def _pairwise(*, workspace, user, provider, code) -> tuple[str, int]:
    """A finished pairwise run of two pushed runs, judged on the scripted server."""
    version = qa_version(workspace=workspace, user=user, n=2)
    runs = [
        pushed_run(
            workspace=workspace,
            user=user,
            version=version,
            evaluator_version=code,
            name=f"app {label}",
            answer=lambda item, label=label: f"{label} answer {item.position}",
        )
        for label in "XY"
    ]
    judge = make_pairwise_version(workspace=workspace, user=user, provider=provider)
    run = pairwise_run_create(
        workspace=workspace,
        user=user,
        name="pairwise",
        experiments=runs,
        evaluator_version=judge,
        chunk_size=10,
    )
    pairwise_work.pairwise_run_inline(run_id=run.pk)
    return str(run.public_id), PairwiseResult.objects.filter(run=run).first().pk


def _span(workspace) -> Span:
    """One stored span of Acme's, inserted as the OTLP worker inserts them (on PostgreSQL into
    its day's partition, made first)."""
    now = timezone.now()
    span = Span(
        workspace=workspace,
        trace_id="ab" * 16,
        span_id="cd" * 8,
        name="agent",
        session_id="acme-session",
        start_time=now,
        end_time=now,
        duration_ms=0,
        received_at=now,
    )
    rows_insert([span])
    return span


def _sign_in(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def build_world(server) -> World:
    owner = platform.user_create(username="alice", password="pw-alice-123456")
    workspace = platform.workspace_create(name="Acme", slug="acme", owner=owner)
    acme = acme_build(workspace=workspace, user=owner, server=server)
    accounts = {OWNER: owner}
    for role, name in ((EDITOR, "eddie"), (VIEWER, "vic")):
        accounts[role] = platform.user_create(username=name, password=f"pw-{name}-123456")
        platform.membership_add(workspace=workspace, username=name, role=role)
    outsider = platform.user_create(username="mallory", password="pw-mallory-123456")
    other = platform.workspace_create(name="Other", slug="other", owner=outsider)
    experiment = workspace.experiments.get(public_id=acme.experiment)
    provider = ModelProvider.objects.get(public_id=acme.provider)
    code = make_code_version(workspace=workspace, user=owner, name="Scorer")
    pairwise, pair = _pairwise(workspace=workspace, user=owner, provider=provider, code=code)
    image = ContentFile(png_bytes(1, 1, lambda x, y: (0, 0, 0)), name="a.png")
    media = media_store(workspace=workspace, upload=image)["image"]["uri"]
    viewer_token = platform.token_issue(workspace=workspace, user=accounts[VIEWER], name="v")
    outsider_token = platform.token_issue(workspace=other, user=outsider, name="o")
    ingest_key = ingest_key_issue(workspace=workspace, name="exporter").ingest_key
    trace = _span(workspace)
    sessions = {role: _sign_in(account) for role, account in accounts.items()}
    return World(
        acme=acme,
        run_item=str(experiment.evalset_version.items.order_by("position").first().item_id),
        set_version_name=experiment.evalset_version.version,
        pairwise=pairwise,
        pair=pair,
        media=media,
        viewer_token_id=str(viewer_token.token.public_id),
        ingest_key_id=str(ingest_key.public_id),
        trace_id=trace.trace_id,
        session_id=trace.session_id,
        **_online_rule(workspace, owner, code),
        **_template(experiment, owner),
        **_queue(workspace, owner, acme),
        **_webhook(workspace, owner),
        import_run=_import_run(workspace, owner),
        sessions={**sessions, "outsider": _sign_in(outsider)},
        tokens={VIEWER: viewer_token.key, "outsider": outsider_token.key},
    )


def _import_run(workspace, owner) -> str:
    """An OpenAI Evals import (its definition and data, without samples)."""
    fixtures = Path(__file__).parent / "fixtures" / "openai_evals"
    data = (fixtures / "data.jsonl").read_text().splitlines()[0].split(', "sample"')[0] + "}"
    files = {"definition": (fixtures / "definition.json").read_bytes(), "data": data.encode()}
    run, _ = import_run(workspace=workspace, user=owner, kind="openai-evals", files=files)
    return str(run.public_id)


def _queue(workspace, owner, acme) -> dict[str, str]:
    """A score config, a queue asking for it and one item of the queue (an experiment result)."""
    config = score_config_create(
        workspace=workspace, user=owner, fields={"name": "Correct?", "kind": "boolean"}
    )
    queue = annotation_queue_create(
        workspace=workspace, user=owner, fields={"name": "Review"}, score_configs=[config]
    )
    queue_items_add(queue=queue, items=[SourceItem("experiment_result", str(acme.result), {})])
    experiment = Experiment.objects.get(public_id=acme.experiment)
    feed = queue_feed_create(
        queue=queue, user=owner, kind="experiment", source=experiment, fields={}
    )
    return {
        "score_config": str(config.public_id),
        "queue": str(queue.public_id),
        "queue_item": str(queue.items.get().public_id),
        "queue_feed": str(feed.public_id),
    }


def _webhook(workspace, owner) -> dict[str, str]:
    """A webhook endpoint of Acme's with one delivery in its log (a test event)."""
    endpoint, _secret = endpoint_create(
        workspace=workspace, user=owner, url="http://127.0.0.1:9/hook", events=["alert.fired"]
    )
    delivery = endpoint_test_send(endpoint=endpoint)
    return {"webhook": str(endpoint.public_id), "webhook_delivery": str(delivery.public_id)}


def _template(experiment, owner) -> dict[str, str]:
    """A template saved from Acme's experiment, with one schedule."""
    template = template_from_experiment(experiment=experiment, user=owner, name="Nightly")
    schedule = schedule_create(
        template=template, user=owner, cron="0 2 * * *", timezone="UTC", now=timezone.now()
    )
    return {"template": str(template.public_id), "schedule": str(schedule.public_id)}


def _online_rule(workspace, owner, code) -> dict[str, str]:
    """An online rule and an alert on it."""
    mapping = {"actual_output": "span:output", "reference_output": "attribute:expected"}
    rule = online_rule_create(
        workspace=workspace,
        user=owner,
        fields={"name": "live"},
        evaluators=[{"evaluator_version": code, "mapping": mapping}],
    )
    alert = rule_alert_create(rule=rule, user=owner, fields={"metric": "fail_rate"})
    return {"online_rule": str(rule.public_id), "online_alert": str(alert.public_id)}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    media_root = tmp_path_factory.mktemp("media")
    with ScriptedLlmServer() as server, override_settings(MEDIA_ROOT=media_root):
        with django_db_blocker.unblock(), transaction.atomic():
            yield build_world(server)
            transaction.set_rollback(True)


# ----------------------------------------------------------------------------- requests


def send(route: Route, world: World, *, who: str, ws: str = "acme", token: bool = False):
    """`who` sends the route's method with an empty body: signed in (the API: in workspace
    `ws`, as the pages' scripts do) or, with `token`, with their API token."""
    url = url_of(route, world, ws)
    if route.api:
        client = APIClient()
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[who]}")
        else:
            client.cookies["sessionid"] = world.sessions[who]
            client.credentials(HTTP_X_ASSAY_WORKSPACE=ws)
        return getattr(client, route.method)(url, {}, format="json")
    client = Client()
    client.cookies["sessionid"] = world.sessions[who]
    return getattr(client, route.method)(url, {} if route.method == "post" else "")


def _code(response) -> str:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return ""


def refused(response, route: Route, status: int, served: bool) -> str:
    """'' when `response` is the refusal expected (`status`; 405 also when the method is not
    served), else what went wrong."""
    if response.status_code == 405 and not served:
        return ""
    if response.status_code != status:
        return f"{response.status_code}, not {status}"
    wanted = {403: "permission_denied", 404: "not_found"}[status]
    if route.api and _code(response) != wanted:
        return f"error code {_code(response)!r}, not {wanted!r}"
    return ""


@pytest.mark.parametrize("route", ROUTES, ids=str)
def test_each_role_gets_what_the_route_allows(world, route):
    attempts = [("outsider, Acme's URL", {"who": "outsider"}, 404)]
    if set(route.kwargs) - NOT_IDS or route.name in QUERY:
        own = "outsider, own workspace with Acme's ids"
        attempts.append((own, {"who": "outsider", "ws": "other"}, 404))
        if route.api:  # and with their own token, which acts in their workspace
            token = TOKEN_REFUSED.get(route.name, 404)
            attempts.append((own + " (token)", {"who": "outsider", "token": True}, token))
    for role in BELOW[route.needs]:
        attempts.append((role, {"who": role}, 403))
        if role == VIEWER and route.api:
            attempts.append(("viewer's token", {"who": VIEWER, "token": True}, 403))
    answers = [(label, send(route, world, **how), status) for label, how, status in attempts]
    allowed = send(route, world, who=route.needs)  # last: its write may change the world
    served = allowed.status_code != 405
    problems = [
        f"{label}: {problem}"
        for label, response, status in answers
        if (problem := refused(response, route, status, served))
    ]
    if allowed.status_code in (401, 403, 404) or allowed.status_code >= 500:
        problems.append(f"{route.needs}: {allowed.status_code} {allowed.content[:200]!r}")
    assert not problems, f"{route} ({route.name}): " + "; ".join(problems)


@pytest.mark.parametrize("route", READS, ids=str)
def test_a_viewer_reads_every_route_and_an_outsider_none(world, route):
    """Every page and API route a GET reaches: a viewer gets an answer (a 400 for a query this
    test leaves out), an outsider a 404 through Acme's URLs and their own with Acme's ids. A
    page that takes only POST answers GET with 405, to everyone."""
    reader = READ_NEEDS.get(route.name, (VIEWER,))[0]
    viewer = send(route, world, who=reader)
    problems = []
    if viewer.status_code in (401, 403, 404) or viewer.status_code >= 500:
        problems.append(f"{reader}: {viewer.status_code} {viewer.content[:200]!r}")
    if reader != VIEWER and (refusal := send(route, world, who=VIEWER)).status_code != 403:
        problems.append(f"viewer: {refusal.status_code}, not 403")
    own = "outsider, own workspace with Acme's ids"
    attempts = [("outsider, Acme's URL", {"who": "outsider"})]
    if set(route.kwargs) - NOT_IDS or route.name in QUERY:
        attempts.append((own, {"who": "outsider", "ws": "other"}))
        if route.api:
            attempts.append((own + " (token)", {"who": "outsider", "token": True}))
    served = viewer.status_code != 405
    for label, how in attempts:
        if problem := refused(send(route, world, **how), route, 404, served):
            problems.append(f"{label}: {problem}")
    assert not problems, f"{route} ({route.name}): " + "; ".join(problems)


def test_open_routes_are_the_listed_ones():
    """Every OPEN entry still names a route (a stale one hides nothing)."""
    assert ROUTES and READS, "no routes found"
    opened = OPENED + OPENED_READS
    for listed in OPEN:
        prefix = listed == "admin/"
        assert any(p == listed or (prefix and p.startswith(listed)) for p in opened), listed
    assert all(p in OPEN or p.startswith("admin/") for p in opened)


def test_every_route_name_in_needs_exists():
    names = {r.name for r in ROUTES}
    assert set(NEEDS) <= names, set(NEEDS) - names
    assert set(READ_NEEDS) <= {r.name for r in READS}
