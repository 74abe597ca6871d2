"""Version diffs show every field that changes results under a plain label, and old versions
open read-only and can be restored into the draft (issue 28)."""

import pytest
from django.urls import reverse

from evaluators import selectors, services
from evaluators.services.versions import field_label, text_pairs

pytestmark = pytest.mark.django_db


def url(name, **kwargs):
    return reverse(f"evaluators:{name}", kwargs={"ws": "acme", **kwargs})


@pytest.fixture
def judge(workspace, user, provider):
    judge = services.evaluator_create(workspace=workspace, user=user, name="Judge", kind="llm")
    model = {"provider_id": str(provider.public_id), "model": "judge-1"}
    config = {**judge.draft_config, "model": {**judge.draft_config["model"], **model}}
    return services.evaluator_update_draft(evaluator=judge, user=user, config=config)


def _two_versions(judge, user):
    """1.0.0, then 1.0.1 with the threshold 0.5 → 0.6, the system prompt, the temperature and
    the score meaning changed."""
    services.evaluator_submit_version(evaluator=judge, user=user, version="1.0.0")
    config = judge.draft_config
    messages = [dict(m) for m in config["messages"]]
    messages[0]["content"] += "\nBe strict about dates."
    services.evaluator_update_draft(
        evaluator=judge,
        user=user,
        score_meaning="risk",
        default_policy={"kind": "threshold", "threshold": 0.6},
        config={**config, "messages": messages, "model": {**config["model"], "temperature": 0.3}},
    )
    services.evaluator_submit_version(evaluator=judge, user=user, version="1.0.1")


def _diff(judge, old, new):
    return services.version_diff(
        old=selectors.evaluator_snapshot(evaluator=judge, ref=old),
        new=selectors.evaluator_snapshot(evaluator=judge, ref=new),
    )


def test_the_diff_shows_policy_threshold_score_meaning_and_the_config(judge, user):
    _two_versions(judge, user)
    changes = {c["label"]: c for c in _diff(judge, "1.0.0", "1.0.1")}
    assert set(changes) == {"Score meaning", "Threshold", "System message", "Temperature"}
    assert (changes["Threshold"]["old"], changes["Threshold"]["new"]) == (0.5, 0.6)
    assert changes["Score meaning"]["new_text"] == "Risk (1.0 means harm detected)"
    pairs = changes["System message"]["pairs"]
    assert ("add", "", "Be strict about dates.") in pairs
    assert not any(left.startswith("@@") or right.startswith("@@") for _k, left, right in pairs)


def test_a_policy_kind_change_is_named(judge, user):
    services.evaluator_submit_version(evaluator=judge, user=user, version="1.0.0")
    services.evaluator_update_draft(
        evaluator=judge, user=user, default_policy={"kind": "zero_tolerance", "threshold": 0.5}
    )
    change = next(c for c in _diff(judge, "1.0.0", "draft") if c["label"] == "Verdict policy")
    assert (change["old_text"], change["new_text"]) == ("threshold", "zero tolerance")


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("messages[0].content", "System message"),
        ("messages[1].content", "User message"),
        ("messages[2].content", "User message 2"),
        ("messages[1].content[0].text", "User message · part 1"),
        ("model.model", "Model"),
        ("model.temperature", "Temperature"),
        ("language", "Code language"),
        ("source", "Code"),
        ("input_variables[1].content_type", "Input variable 2 · type"),
        ("default_policy.threshold", "Threshold"),
    ],
)
def test_paths_read_as_plain_labels(path, label):
    messages = [{"role": "system"}, {"role": "user"}, {"role": "user"}]
    assert field_label(path, messages=messages) == label


def test_text_pairs_mark_gaps_instead_of_hunk_headers():
    old = "\n".join(f"line {n}" for n in range(20))
    new = old.replace("line 10", "line ten")
    rows = text_pairs(old, new)
    assert rows[0] == ("gap", "", "") and rows[-1] == ("gap", "", "")
    assert ("change", "line 10", "line ten") in rows
    assert len(rows) == 2 + 3 + 1 + 3


def test_the_versions_page_shows_the_threshold_change_with_labels(web, judge, user):
    _two_versions(judge, user)
    html = web.get(url("versions", id=judge.public_id) + "?old=1.0.0&new=1.0.1").content.decode()
    assert "Threshold" in html and "<pre>0.5</pre>" in html and "<pre>0.6</pre>" in html
    assert "System message" in html and "Temperature" in html
    assert "messages[0].content" not in html and "@@" not in html
    version_link = url("version", id=judge.public_id, version="1.0.0")
    assert f'href="{version_link}"' in html


def test_an_old_version_opens_read_only_and_restores_into_the_draft(web, judge, user):
    _two_versions(judge, user)
    page = web.get(url("version", id=judge.public_id, version="1.0.0"))
    html = page.content.decode()
    assert page.status_code == 200 and "read-only" in html
    assert "Quality (1.0 is best)" in html and "threshold · 0.5" in html
    assert "System message" in html and 'id="restore-version"' in html
    response = web.post(url("version_restore", id=judge.public_id, version="1.0.0"))
    assert response.status_code == 302
    judge.refresh_from_db()
    first = judge.versions.get(version="1.0.0")
    assert judge.draft_config == first.config and judge.default_policy["threshold"] == 0.5
    assert judge.score_meaning == "quality" and judge.draft_changed
    assert judge.versions.get(version="1.0.1").default_policy["threshold"] == 0.6


def test_a_missing_version_is_404(web, judge):
    assert web.get(url("version", id=judge.public_id, version="9.9.9")).status_code == 404
    assert web.get(url("version", id=judge.public_id, version="nope")).status_code == 404
    assert web.post(url("version_restore", id=judge.public_id, version="9.9.9")).status_code == 404


def test_a_viewer_reads_a_version_but_cannot_restore_it(client, member, judge, user):
    _two_versions(judge, user)
    client.force_login(member("vera", role="viewer"))
    page = client.get(url("version", id=judge.public_id, version="1.0.0"))
    assert page.status_code == 200 and 'id="restore-version"' not in page.content.decode()
    refused = client.post(url("version_restore", id=judge.public_id, version="1.0.0"))
    assert refused.status_code == 403
    judge.refresh_from_db()
    assert judge.default_policy["threshold"] == 0.6


def test_the_api_diff_has_labels_and_the_threshold(api, judge, user):
    _two_versions(judge, user)
    base = f"/api/v1/evaluators/{judge.public_id}/versions/diff/"
    body = api.get(base + "?old=1.0.0&new=1.0.1").json()
    threshold = next(c for c in body["changes"] if c["path"] == "default_policy.threshold")
    assert threshold["label"] == "Threshold" and threshold["new"] == 0.6
    assert all("pairs" not in c for c in body["changes"])
