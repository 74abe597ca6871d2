"""The traces list's "Add to evalset" dialog and the rows' links back on the set's page; the
spans are sent by the OpenTelemetry SDK's exporter (see test_to_evalset.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from assay.models import Membership, Workspace
from evalsets.services import evalset_create

from .test_to_evalset import COLUMNS, draft, send_turns

pytestmark = pytest.mark.integration

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def traces(celery_worker_inproc, live_server, workspace):
    return send_turns(live_server, workspace)


@pytest.fixture
def evalset(workspace, user):
    return evalset_create(workspace=workspace, user=user, name="from prod", columns=COLUMNS)


def post(web, body: dict, ws: str = "acme", **headers):
    return web.post(f"/w/{ws}/traces/to-evalset/", body, **headers)


def test_the_list_offers_the_dialog_with_the_mapping_by_column_names(traces, web, evalset):
    page = web.get("/w/acme/traces/").content.decode()
    assert 'id="open-to-evalset"' in page and 'id="trace-selection"' in page
    assert f'<option value="{evalset.public_id}" selected>from prod</option>' in page
    assert '<option value="input" selected>' in page.split('id="map-question"')[1][:400]
    conversation = page.split('id="map-conversation"')[1].split("</select>")[0]
    assert '<option value="messages" selected>' in conversation
    assert 'value="input"' not in conversation  # a Text field cannot fill a Conversation


def test_a_viewer_sees_no_dialog(traces, client, member, evalset):
    client.force_login(member("vic", Membership.Role.VIEWER))
    assert 'id="open-to-evalset"' not in client.get("/w/acme/traces/").content.decode()
    body = {"evalset": str(evalset.public_id), "trace_id": traces, "map-question": "input"}
    assert post(client, body).status_code == 403
    assert draft(evalset) == []


def test_selected_traces_are_added_and_the_dialog_reports_it(traces, web, evalset):
    body = {
        "evalset": str(evalset.public_id),
        "scope": "selected",
        "trace_id": traces,
        "row_from": "root",
        "map-question": "input",
        "map-reference_output": "output",
        "map-trajectory": "",
    }
    answer = post(web, body, **HTMX).content.decode()
    assert "3 rows added, 1 duplicate skipped." in answer
    assert f'href="/w/acme/evalsets/{evalset.public_id}/"' in answer
    rows = draft(evalset)
    assert [set(r.data) for r in rows] == [{"question", "reference_output"}] * 3
    page = web.get(f"/w/acme/evalsets/{evalset.public_id}/").content.decode()
    first = rows[0].source
    assert f'href="/w/acme/traces/{first["trace_id"]}/#span-{first["span_id"]}"' in page


def test_all_matching_the_filter_and_sessions(traces, web, evalset):
    body = {"evalset": str(evalset.public_id), "scope": "filter", "query": "session=s-2"}
    answer = post(web, {**body, "map-question": "input"}, **HTMX).content.decode()
    assert "1 row added, 0 duplicates skipped." in answer
    assert draft(evalset)[0].data["question"]["text"] == "Status of order 77?"
    body = {"evalset": str(evalset.public_id), "scope": "sessions", "trace_id": traces[:1]}
    post(web, {**body, "map-conversation": "messages"}, **HTMX)
    session_row = draft(evalset)[1]
    assert session_row.source["session_id"] == "s-1"
    assert len(session_row.data["conversation"]["messages"]) == 5
    page = web.get(f"/w/acme/evalsets/{evalset.public_id}/").content.decode()
    assert 'href="/w/acme/traces/?session=s-1"' in page


def test_problems_are_shown_and_nothing_is_saved(traces, web, evalset):
    body = {"evalset": str(evalset.public_id), "scope": "selected", "trace_id": traces}
    answer = post(web, {**body, "map-conversation": "input"}, **HTMX).content.decode()
    assert 'id="to-evalset-problems"' in answer and "holds Conversation" in answer
    answer = post(web, {**body, "trace_id": []}, **HTMX).content.decode()
    assert "Select traces in the list first." in answer
    assert draft(evalset) == []
    # without htmx: back to the list, the problem as a message
    answer = post(web, {**body, "map-question": "nope"}, follow=True)
    assert "is not a span field" in answer.content.decode()


def test_the_mapping_of_a_chosen_set(traces, web, workspace, user):
    other = evalset_create(
        workspace=workspace,
        user=user,
        name="chats",
        columns=[{"name": "messages", "content_type": "Conversation"}],
    )
    answer = web.get(f"/w/acme/traces/to-evalset/mapping/?evalset={other.public_id}")
    assert '<option value="messages" selected>' in answer.content.decode()


def test_outsiders(traces, evalset, outsider):
    client = Client()
    client.force_login(outsider)
    body = {"evalset": str(evalset.public_id), "trace_id": traces, "map-question": "input"}
    assert post(client, body, ws="acme").status_code == 404
    mapping = f"/w/acme/traces/to-evalset/mapping/?evalset={evalset.public_id}"
    assert client.get(mapping).status_code == 404
    # their own workspace: Acme's set is not there, Acme's traces select nothing
    answer = post(client, body, ws="other", **HTMX).content.decode()
    assert "Choose an evaluation set." in answer
    other = Workspace.objects.get(slug="other")
    theirs = evalset_create(workspace=other, user=outsider, name="theirs", columns=COLUMNS)
    body["evalset"] = str(theirs.public_id)
    assert "Nothing selected" in post(client, body, ws="other", **HTMX).content.decode()
    own = client.get(f"/w/other/traces/to-evalset/mapping/?evalset={evalset.public_id}")
    assert "map-question" not in own.content.decode()
    assert draft(evalset) == [] and draft(theirs) == []


def test_the_dialog_for_one_trace(traces, rf, workspace, user, evalset):
    """A trace's page may draw the dialog for that trace alone (`trace_id=`)."""
    from django.template import Context, Template

    from assay.selectors import membership_get

    request = rf.get("/")
    request.user, request.workspace = user, workspace
    request.membership = membership_get(workspace=workspace, user=user)
    template = Template("{% load traces_to_evalset %}{% to_evalset_dialog trace_id=t %}")
    html = template.render(Context({"request": request, "t": traces[2]}))
    assert f'<input type="hidden" name="trace_id" value="{traces[2]}">' in html
    assert "This trace" in html and "The traces selected in the list" not in html
