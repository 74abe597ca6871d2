"""The debug runner and evaluator tests: run a draft (or version) on 1–10 turns, persist nothing.

Turn validation is strict here (a person is typing them): bad turns are a 400 naming the turn
and field, where an experiment would only mark the row skipped.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from assay.vocabulary import CONTENT_FIELD, CONTENT_TYPES, ContentType, Verdict
from evalsets.items.cells import CellError
from evalsets.items.conversation import conversation_content
from evalsets.items.problems import problem_text

from .. import config as config_schema
from ..models import Evaluator, EvaluatorTestCase
from ..runner import RunOutcome, evaluator_run_batch
from ..turns import GROUPS, KEYS, turn_from_flat

MAX_DEBUG_TURNS = 10
MAX_TURN_BYTES = 256 * 1024
TURN_KEYS = KEYS
TURN_SHAPE = "A turn is an object of evaluate_dataset_fields, evaluate_target_output_fields, ext."
CONTENT_KEYS = CONTENT_FIELD


def evaluator_debug(
    *, evaluator: Evaluator, turns: Any, config: dict | None = None, version: str | None = None
) -> list[RunOutcome]:
    """Run the draft, an unsaved config, or a submitted version on 1–10 turns (nested, or
    flat: `{"input": "…", "actual_output": "…"}`)."""
    config, policy, meaning = _target(evaluator, config, version)
    if isinstance(turns, list):  # flat turns ({"input": "…"}) are nested like typed ones
        turns = [turn_from_flat(turn) for turn in turns]
    validate_turns(turns, config)
    return evaluator_run_batch(
        workspace=evaluator.workspace,
        kind=evaluator.kind,
        config=config,
        turns=turns,
        policy=policy,
        score_meaning=meaning,
    )


def _target(evaluator: Evaluator, config: dict | None, version: str | None):
    if version:
        found = evaluator.versions.filter(version=version).first()
        if found is None:
            raise ValidationError({"version": f"No version {version!r}."})
        return found.config, found.default_policy, found.score_meaning
    try:
        checked = config_schema.validate_config(evaluator.kind, config or evaluator.draft_config)
    except config_schema.ConfigError as exc:
        raise ValidationError({f"config.{k}": v for k, v in exc.errors.items()}) from None
    return checked, evaluator.default_policy, evaluator.score_meaning


def validate_turns(turns: Any, config: dict) -> None:
    """Raise ValidationError naming the turn and field of every problem."""
    if not isinstance(turns, list) or not turns:
        raise ValidationError({"turns": "Give between 1 and 10 turns."})
    if len(turns) > MAX_DEBUG_TURNS:
        raise ValidationError({"turns": f"At most {MAX_DEBUG_TURNS} turns, got {len(turns)}."})
    errors: dict[str, list[str]] = {}
    for i, turn in enumerate(turns):
        for path, message in _turn_problems(turn, config):
            errors.setdefault(f"turns[{i}]{path}", []).append(message)
    if errors:
        raise ValidationError(errors)


def _turn_problems(turn: Any, config: dict):
    if not isinstance(turn, dict):
        yield "", TURN_SHAPE
        return
    if len(json.dumps(turn, ensure_ascii=False).encode()) > MAX_TURN_BYTES:
        yield (
            "",
            _("The turn is larger than %(max_turn_bytes)s KB.")
            % {"max_turn_bytes": MAX_TURN_BYTES // 1024},
        )
        return
    for key in sorted(set(turn) - TURN_KEYS):
        yield f".{key}", "Unknown field."
    yield from _ext_problems(turn.get("ext"))
    declared = {v["name"]: v for v in config.get("input_variables") or []}
    fields = {}
    for group in GROUPS:
        value = turn.get(group) or {}
        if not isinstance(value, dict):
            yield f".{group}", _("Must be an object of name → content.")
            continue
        for name, content in value.items():
            fields[name] = content
            yield from _content_problems(f".{group}.{name}", content, declared.get(name))
    for name, variable in declared.items():
        if variable.get("required", True) and name not in fields:
            yield "", f"Required variable {name!r} is missing."


def _ext_problems(ext: Any):
    if ext is None:
        return
    if not isinstance(ext, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in ext.items()
    ):
        yield ".ext", _("ext maps strings to strings.")


def _text_problem(payload) -> tuple[str, str] | None:
    return None if isinstance(payload, str) else (".text", _("Text content needs a string 'text'."))


def _media_problem(payload) -> tuple[str, str] | None:
    if isinstance(payload, dict) and (payload.get("url") or payload.get("uri")):
        return None
    return "", _("content needs a url or an uploaded file's uri.")


def _multipart_problem(payload) -> tuple[str, str] | None:
    if isinstance(payload, list):
        return None
    return ".multi_part", _("MultiPart content needs a list of contents.")


def _conversation_problem(payload) -> tuple[str, str] | None:
    """The evalset's own check of a conversation, so a debug turn and a row agree."""
    try:
        conversation_content(payload)
    except CellError as exc:
        return f".{CONTENT_KEYS[ContentType.CONVERSATION]}", problem_text(exc.problem)
    return None


PAYLOAD_CHECKS = {
    ContentType.TEXT: _text_problem,
    ContentType.IMAGE: _media_problem,
    ContentType.AUDIO: _media_problem,
    ContentType.MULTIPART: _multipart_problem,
    ContentType.CONVERSATION: _conversation_problem,
}


def _content_problems(path: str, content: Any, variable: dict | None):
    if not isinstance(content, dict) or content.get("content_type") not in CONTENT_KEYS:
        yield (
            path,
            _("A content is {content_type: %(content_types)s, …}.")
            % {"content_types": "|".join(CONTENT_TYPES)},
        )
        return
    content_type = content["content_type"]
    if variable and variable["content_type"] != content_type:
        yield path, f"Expected {variable['content_type']} content, got {content_type}."
    problem = PAYLOAD_CHECKS[content_type](content.get(CONTENT_KEYS[content_type]))
    if problem is not None:
        suffix, message = problem
        yield path + suffix, message if suffix else f"{content_type} {message}"


# ----------------------------------------------------------------------------- test cases


def testcase_create(
    *,
    evaluator: Evaluator,
    user: AbstractBaseUser,
    name: str,
    turn: dict,
    expected_verdict: str,
    note: str = "",
) -> EvaluatorTestCase:
    """Keep a debug turn with the verdict the user expects."""
    case = EvaluatorTestCase(evaluator=evaluator, created_by=user)
    _testcase_assign(case, name=name, turn=turn, expected_verdict=expected_verdict, note=note)
    case.save()
    return case


def testcase_update(*, case: EvaluatorTestCase, **fields) -> EvaluatorTestCase:
    """Change a test case; every field is validated before anything is saved."""
    unknown = set(fields) - {"name", "turn", "expected_verdict", "note"}
    if unknown:
        raise ValidationError({k: "Unknown field." for k in sorted(unknown)})
    current = {
        "name": case.name,
        "turn": case.turn,
        "expected_verdict": case.expected_verdict,
        "note": case.note,
    }
    _testcase_assign(case, **{**current, **fields})
    case.save()
    return case


def testcase_delete(*, case: EvaluatorTestCase) -> None:
    case.delete()


def _testcase_assign(case, *, name, turn, expected_verdict, note) -> None:
    errors: dict[str, list[str]] = {}
    if not (name or "").strip():
        errors["name"] = [_("A test case needs a name.")]
    if expected_verdict not in Verdict.values:
        errors["expected_verdict"] = [_("Expected verdict must be pass, fail or unknown.")]
    try:
        validate_turns([turn], case.evaluator.draft_config)
    except ValidationError as exc:
        for key, messages in exc.message_dict.items():
            errors[key.replace("turns[0]", "turn")] = messages
    if errors:
        raise ValidationError(errors)
    case.name, case.turn = name.strip()[:120], turn
    case.expected_verdict, case.note = expected_verdict, (note or "").strip()


def evaluator_run_tests(
    *,
    evaluator: Evaluator,
    config: dict | None = None,
    policy: dict | None = None,
    score_meaning: str | None = None,
) -> dict:
    """Run every test case on the draft (or a given config); report agreement per case."""
    cases = list(evaluator.test_cases.all())
    config = config or evaluator.draft_config
    outcomes = (
        evaluator_run_batch(
            workspace=evaluator.workspace,
            kind=evaluator.kind,
            config=config,
            turns=[c.turn for c in cases],
            policy=policy or evaluator.default_policy,
            score_meaning=score_meaning or evaluator.score_meaning,
        )
        if cases
        else []
    )
    rows = [_case_row(case, outcome) for case, outcome in zip(cases, outcomes, strict=True)]
    agreed = sum(row["agree"] for row in rows)
    return {"total": len(rows), "agreed": agreed, "passed": agreed == len(rows), "cases": rows}


def _case_row(case: EvaluatorTestCase, outcome: RunOutcome) -> dict:
    return {
        "id": str(case.public_id),
        "name": case.name,
        "expected": case.expected_verdict,
        "actual": outcome.verdict,
        "agree": outcome.verdict == case.expected_verdict,
        "status": outcome.status,
        "score": outcome.score,
        "reason": outcome.reason[:2000],
        "error": outcome.error[:2000],
    }


class TestsDisagree(ValidationError):
    """The draft's test cases do not all agree with their expected verdicts, and the person
    submitting has not said to submit anyway."""


def evaluator_submit_with_tests(
    *,
    evaluator: Evaluator,
    user,
    version: str,
    change_note: str = "",
    disagreement_ok: bool = True,
):
    """Submit a version after running its tests; the version records the result either way.
    With `disagreement_ok` False, test cases that disagree stop the submit (TestsDisagree,
    nothing written) so the page can ask first.

    The cheap checks run first, so a bad version string does not cost a test run.
    """
    from ..services import evaluator_submit_precheck, evaluator_submit_version

    evaluator_submit_precheck(evaluator=evaluator, version=version)
    result = evaluator_run_tests(evaluator=evaluator) if evaluator.test_cases.exists() else None
    if result and not result["passed"] and not disagreement_ok:
        raise TestsDisagree(tests_disagree_text(result))
    return evaluator_submit_version(
        evaluator=evaluator, user=user, version=version, change_note=change_note, test_result=result
    )


def tests_disagree_text(result: dict) -> str:
    """ "1 of 2 test cases disagrees with its expected verdict." for a page's warning."""
    wrong = result["total"] - result["agreed"]
    return ngettext(
        "%(wrong)d of %(total)d test cases disagrees with its expected verdict.",
        "%(wrong)d of %(total)d test cases disagree with their expected verdicts.",
        wrong,
    ) % {"wrong": wrong, "total": result["total"]}
