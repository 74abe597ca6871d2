"""Malformed garak reports through the real HTTP paths, the API and the page: each is a 400
naming its line, and nothing is left behind (no evalset, evaluator, experiment, import job or
stored file). The bad line is the fourth, after a setup, an init and a good attempt."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/experiments/import-garak/"
PAGE = "/w/acme/experiments/import-garak/"
SETUP = {"entry_type": "start_run setup", "transient.run_id": "run-bad", "run.seed": 1}
GOOD = {
    "entry_type": "attempt", "uuid": "a-1", "seq": 0, "status": 2, "probe_classname": "p.P",
    "prompt": "hi", "outputs": ["out"], "detector_results": {"d.D": [0.0]},
}  # fmt: skip
DEEP = 100_000


def attempt(**changes) -> str:
    entry = {**GOOD, "uuid": "a-2", "seq": 1, **changes}
    return json.dumps({k: v for k, v in entry.items() if v is not MISSING})


MISSING = object()
EVAL = {"entry_type": "eval", "probe": "p.P", "detector": "d.D"}
SHAPES = {
    "detector results as a list": attempt(detector_results=[[0.5]]),
    "scores as strings": attempt(detector_results={"d.D": ["0.5"]}),
    "a score that is not finite": attempt(detector_results={"d.D": [float("nan")]}),
    "100,000-deep nesting": "[" * DEEP + "]" * DEEP,
    "100,000-deep prompt": attempt(prompt=MISSING)[:-1] + ', "prompt": ' + "[" * DEEP + "]" * DEEP
    + "}",
    "missing probe_classname": attempt(probe_classname=MISSING),
    "list probe_classname": attempt(probe_classname=["p.P"]),
    "a probe name of 5,000 characters": attempt(probe_classname="p." + "P" * 5000),
    "a detector name of 5,000 characters": attempt(detector_results={"d." + "D" * 5000: [0.1]}),
    "a line that is a list": json.dumps(["entry_type", "attempt"]),
    "an eval entry with string counts": json.dumps(
        {**EVAL, "passed": "1", "total_evaluated": "1", "total_processed": "1"}
    ),
    "an eval entry with negative counts": json.dumps(
        {**EVAL, "passed": -1, "total_evaluated": 1, "total_processed": 1}
    ),
    "outputs as a dict": attempt(outputs={"text": "out"}),
    "an output that is a number": attempt(outputs=[7]),
    "seq as a float": attempt(seq=1.5),
    "seq as a string": attempt(seq="1"),
    "a JSON number": "42",
    "null": "null",
    "a JSON string": '"attempt"',
    "not JSON": "{'entry_type': 'attempt'}",
    "prompt turns that are text": attempt(prompt={"turns": "hi"}),
}  # fmt: skip


def report(bad: str) -> bytes:
    lines = [
        json.dumps(SETUP),
        json.dumps({"entry_type": "init", "garak_version": "0.17.1", "run": "run-bad"}),
        json.dumps(GOOD),
        bad,
        json.dumps({"entry_type": "completion", "run": "run-bad"}),
    ]
    return "\n".join(lines).encode()


def nothing_made(media) -> None:
    from evalsets.models import EvalSet
    from evaluators.models import Evaluator
    from experiments.models import Experiment, GarakImport

    assert not EvalSet.objects.exists() and not Evaluator.objects.exists()
    assert not Experiment.objects.exists() and not GarakImport.objects.exists()
    assert not [p for p in media.rglob("*") if p.is_file()]  # no stored upload either


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.mark.parametrize("bad", SHAPES.values(), ids=SHAPES.keys())
def test_a_malformed_line_is_a_400_naming_it_through_the_api(api, media, bad):
    sent = {"file": SimpleUploadedFile("bad.report.jsonl", report(bad))}
    response = api.post(IMPORT, sent, format="multipart")
    assert response.status_code == 400, response.content[:500]
    (message,) = response.json()["error"]["details"]["file"]
    assert message.startswith("Line 4 "), message
    nothing_made(media)


@pytest.mark.parametrize("bad", SHAPES.values(), ids=SHAPES.keys())
def test_a_malformed_line_is_a_400_naming_it_on_the_page(web, media, bad):
    sent = {"file": SimpleUploadedFile("bad.report.jsonl", report(bad))}
    response = web.post(PAGE, sent)
    assert response.status_code == 400, response.content[:500]
    assert "Line 4 " in response.content.decode()
    nothing_made(media)


def test_a_line_separator_inside_an_output_is_text_not_a_new_line(api, media):
    """JSON strings may hold U+2028 and U+0085 as they are: the line numbers stay garak's."""
    odd = attempt(outputs=["one\u2028two\x85three"])
    data = report(odd).replace(b"\\u2028", "\u2028".encode()).replace(b"\\u0085", "\x85".encode())
    assert "\u2028".encode() in data
    bad = data + b"\n" + b"not json"
    response = api.post(IMPORT, {"file": SimpleUploadedFile("r.jsonl", bad)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["file"] == ["Line 6 is not JSON."]
    good = api.post(IMPORT, {"file": SimpleUploadedFile("r.jsonl", data)}, format="multipart")
    assert good.status_code == 202, good.content[:500]
