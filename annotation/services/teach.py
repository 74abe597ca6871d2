"""What gold labels teach: an item where the judge and the gold label disagree becomes a test
case of the evaluator (its test-gated submit then runs it), and a config's gold items become a
version of an evaluation set (the gold label as each row's `human_verdict` and `label`).

Both go through the lower apps' own services (`evaluators.services.testcase_create`,
`evalsets.services`), never their tables."""

from __future__ import annotations

import hashlib
import json

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.vocabulary import CONTENT_TYPES, ContentType
from evalsets.models import EvalSet, EvalSetItem, EvalSetVersion, draft_filter
from evalsets.services import (
    evalset_create,
    evalset_set_columns,
    items_bulk,
    next_version,
    version_commit,
)
from evaluators.models import EvaluatorTestCase
from evaluators.services import testcase_create
from experiments.scoring.turns import result_turn
from online.kind import outcome_turn

from ..models import AnnotationQueue, QueueItem, ScoreConfig
from ..selectors.gold import gold_items, judge_miss_of
from .gold import human_verdict

TEXT = ContentType.TEXT.value
PARTS = ("input", "output", "reference")
HASH_SCHEME = b"assay-gold-rows-1\n"
MAX_EXPORT_ROWS = 5000  # one bulk write of the draft (evalsets' MAX_BULK)


def judge_miss_test_case(
    *, item: QueueItem, config: ScoreConfig, user: AbstractBaseUser
) -> tuple[EvaluatorTestCase, bool]:
    """A test case of the evaluator that judged the item (its result, or the span, trace or
    session an online rule scored): the turn it received and the gold label's verdict as the
    expected one; `(case, created)` (the same item twice gives the case made the first time).
    ValidationError when judge and gold agree, or the spans it judged are gone."""
    miss = judge_miss_of(queue=item.queue, config=config, item=item)
    if miss is None:
        raise ValidationError(
            {"item": [_("The judge and the gold label of this item do not disagree.")]}
        )
    evaluator = miss.version.evaluator
    name = _case_name(item)
    found = evaluator.test_cases.filter(name=name).first()
    if found is not None:
        return found, False
    note = _(
        "From the gold label of annotation queue %(queue)s (%(config)s: %(label)s); "
        "the judge said %(judge)s."
    ) % {
        "queue": item.queue.name,
        "config": config.name,
        "label": json.dumps(miss.gold, ensure_ascii=False),
        "judge": miss.judge or "-",
    }
    turn = _miss_turn(miss)
    case = testcase_create(
        evaluator=evaluator, user=user, name=name, turn=turn, expected_verdict=miss.human, note=note
    )
    return case, True


def _miss_turn(miss) -> dict:
    """The turn the judge received: rebuilt from the result, or from the stored spans."""
    if miss.result is not None:
        return result_turn(result=miss.result)
    turn = outcome_turn(outcome=miss.outcome)
    if turn is None:
        raise ValidationError({"item": [_("The spans this item's judge scored are gone.")]})
    return turn


def _case_name(item: QueueItem) -> str:
    """Names the item by its queue, row and id, so a second click finds the first case."""
    row = item.snapshot.get("row_number")
    where = _("row %(n)s") % {"n": row} if row is not None else item.source_ref[:16]
    return f"{item.queue.name[:70]} · {where} · {item.public_id.hex[:8]}"


# ----------------------------------------------------------------------------- evalset export


def gold_evalset_export(
    *, queue: AnnotationQueue, config: ScoreConfig, user: AbstractBaseUser
) -> tuple[EvalSetVersion, bool]:
    """The version of the set "<queue> · <config> · gold" holding the config's gold items as
    rows: the snapshot's input, output and reference fields as columns, the gold label as the
    row's `label` and, when the config maps it, `human_verdict`. `(version, created)`: the
    same gold items again give the version made the first time."""
    rows, columns = _gold_rows(queue, config)
    digest = _digest(rows, columns)
    name = f"{queue.name[:80]} · {config.name[:25]} · gold"
    with transaction.atomic():
        evalset = _gold_set(queue, name, user)
        found = evalset.versions.filter(content_hash=digest).order_by("created_at").first()
        if found is not None:
            return found, False
        _draft_replace(evalset, rows, columns)
        version = version_commit(
            evalset=evalset,
            user=user,
            version=next_version(evalset),
            note=_("Gold labels of %(queue)s (%(config)s)")
            % {"queue": queue.name, "config": config.name},
            inline=True,
            content_hash=digest,
        )
    return version, True


def _gold_rows(queue: AnnotationQueue, config: ScoreConfig) -> tuple[list[dict], list[dict]]:
    found = gold_items(queue=queue, config=config)
    if not found:
        raise ValidationError({"score_config": [_("This score config has no gold labels yet.")]})
    if len(found) > MAX_EXPORT_ROWS:
        raise ValidationError(
            {
                "score_config": [
                    _("At most %(n)s gold items go to a set at once.") % {"n": MAX_EXPORT_ROWS}
                ]
            }
        )
    cells = [_item_cells(item.snapshot) for item, _gold in found]
    types = _column_types(cells)
    rows = [
        {
            "data": {k: _fitted(v, types[k]) for k, v in row.items()},
            "human_verdict": human_verdict(config, gold),
            "label": gold if isinstance(gold, str) else json.dumps(gold, ensure_ascii=False),
            "source": {
                "kind": "annotation_item",
                "queue": str(queue.public_id),
                "item": str(item.public_id),
            },
        }
        for (item, gold), row in zip(found, cells, strict=True)
    ]
    return rows, [{"name": k, "content_type": t} for k, t in types.items()]


def _item_cells(snapshot: dict) -> dict:
    """{column: value} of a snapshot: a part's fields by their names, a plain part (a
    trace's input or output) by the part's name."""
    cells = {}
    for part in PARTS:
        value = snapshot.get(part)
        if isinstance(value, dict) and not _is_content(value):
            cells.update({k: v for k, v in value.items() if v not in (None, "")})
        elif value not in (None, "", [], {}):
            cells[part] = value
    return cells


def _is_content(value) -> bool:
    return isinstance(value, dict) and value.get("content_type") in CONTENT_TYPES


def _column_types(cells: list[dict]) -> dict[str, str]:
    """Each column's content type: the one every item's content has, else Text."""
    types: dict[str, str] = {}
    for row in cells:
        for name, value in row.items():
            found = value["content_type"] if _is_content(value) else TEXT
            types[name] = found if types.get(name, found) == found else TEXT
    return types


def _fitted(value, content_type: str):
    """A cell for a column of `content_type`: the content itself when it fits, else text."""
    if _is_content(value) and value["content_type"] == content_type:
        return value
    if _is_content(value) and value["content_type"] == TEXT:
        return value.get("text", "")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _digest(rows: list[dict], columns: list[dict]) -> str:
    digest = hashlib.sha256(HASH_SCHEME)
    digest.update(json.dumps(columns, sort_keys=True).encode())
    for row in rows:
        kept = {k: row[k] for k in ("data", "human_verdict", "label")}
        digest.update(json.dumps(kept, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def _gold_set(queue: AnnotationQueue, name: str, user) -> EvalSet:
    """The queue's live set of that name, locked (two exports make one version), or a new one."""
    found = (
        EvalSet.objects.select_for_update()
        .filter(workspace=queue.workspace, name=name, deleted_at__isnull=True)
        .first()
    )
    return found or evalset_create(workspace=queue.workspace, user=user, name=name)


def _draft_replace(evalset: EvalSet, rows: list[dict], columns: list[dict]) -> None:
    """The gold rows become the whole draft, under the columns they need (kept ones too)."""
    if evalset.draft_changed and evalset.versions.exists():
        raise ValidationError(
            {
                "evalset": [
                    _(
                        "The draft of %(name)r has changes no version holds; "
                        "commit or undo them first."
                    )
                    % {"name": evalset.name}
                ]
            }
        )
    draft = EvalSetItem.objects.filter(draft_filter(), evalset=evalset)
    old = [str(i) for i in draft.values_list("item_id", flat=True)]
    items_bulk(evalset=evalset, delete=old)
    names = {c["name"] for c in columns}
    kept = [c for c in evalset.columns if c["name"] not in names]
    evalset_set_columns(evalset=evalset, columns=[*kept, *columns])
    creates = [{k: row[k] for k in ("data", "human_verdict", "label")} for row in rows]
    items_bulk(evalset=evalset, create=creates, sources=[row["source"] for row in rows])
