"""Builders for test data that many apps need: evalset versions, code evaluator versions."""

from __future__ import annotations

import uuid

from evalsets import services as evalset_services
from evalsets.items.rows import search_text
from evalsets.models import EvalSetItem
from evaluators import services as evaluator_services

CONTAINS_REFERENCE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    if reference == "ERROR":
        return 1 / 0
    if reference == "UNKNOWN":
        return EvalOutput(score=None, reason="cannot tell")
    ok = reference.lower() in output.lower()
    return EvalOutput(score=1.0 if ok else 0.0, reason="contains" if ok else "missing")
"""

# A code evaluator that hands back, as its reason, the turn it was given.
ECHO_TURN = """import json

def exec_evaluation(turn):
    return EvalOutput(score=1.0, reason=json.dumps(turn, sort_keys=True))
"""

TEXT_COLUMNS = [
    {"name": "input", "content_type": "Text", "required": True, "description": ""},
    {"name": "actual_output", "content_type": "Text", "required": True, "description": ""},
    {"name": "reference_output", "content_type": "Text", "required": True, "description": ""},
]


def text(value: str) -> dict:
    return {"content_type": "Text", "text": value}


def make_evalset_version(
    *,
    workspace,
    user,
    rows: list[dict],
    name: str = "QA",
    columns: list[dict] | None = None,
    version: str = "1.0.0",
    inline: bool = True,
):
    """An evalset whose committed version holds `rows` ({column: text, "tags": [...]}); copied
    at once however many rows (`inline=False`: a large draft commits in the background)."""
    evalset = evalset_services.evalset_create(
        workspace=workspace, user=user, name=name, columns=columns or TEXT_COLUMNS
    )
    items = [
        EvalSetItem(
            evalset=evalset,
            item_id=uuid.uuid4(),
            position=i,
            data={k: text(v) for k, v in row.items() if k != "tags"},
            tags=row.get("tags", []),
            search_text=search_text({k: text(v) for k, v in row.items() if k != "tags"}),
        )
        for i, row in enumerate(rows)
    ]
    EvalSetItem.objects.bulk_create(items, batch_size=2000)
    return evalset_services.version_commit(
        evalset=evalset, user=user, version=version, inline=inline
    )


def make_code_version(
    *,
    workspace,
    user,
    name: str = "Contains",
    source: str = CONTAINS_REFERENCE,
    version: str = "1.0.0",
    timeout_s: float = 5.0,
):
    """A submitted Python code evaluator (variables actual_output, reference_output)."""
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=name, kind="code", language="python"
    )
    config = {**evaluator.draft_config, "source": source, "timeout_s": timeout_s}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version=version
    )


def qa_rows(n: int, *, error_every: int = 0, unknown_every: int = 0) -> list[dict]:
    """n rows where even rows pass and odd rows fail; optional error/unknown rows."""
    rows = []
    for i in range(n):
        reference = "Paris"
        if error_every and i % error_every == error_every - 1:
            reference = "ERROR"
        elif unknown_every and i % unknown_every == unknown_every - 1:
            reference = "UNKNOWN"
        output = "The capital is Paris" if i % 2 == 0 else "The capital is Lyon"
        rows.append(
            {
                "input": f"question {i}",
                "actual_output": output,
                "reference_output": reference,
                "tags": ["even" if i % 2 == 0 else "odd"],
            }
        )
    return rows


def run_inline(
    *, workspace, user, version, evaluator_version=None, name: str = "run", versions=(), **fields
):
    """Create, launch and run an experiment in this process (no worker); return it finished.
    `versions` binds several evaluator versions in order; `fields` go to experiment_create."""
    from experiments import scoring as engine
    from experiments import services

    bound = [evaluator_version] if evaluator_version is not None else list(versions)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": v} for v in bound],
        **fields,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def make_provider(*, workspace, server, api_key: str = "sk-test-assay-0123456789", **fields):
    """A model provider pointing at a local scripted server (JSON mode, quick retries)."""
    from assay import services as platform

    values = {
        "name": "Local",
        "default_model": "judge-model",
        "structured_mode": "json_object",
        "max_retries": 1,
        **fields,
    }
    return platform.provider_create(
        workspace=workspace, base_url=server.base_url, api_key=api_key, **values
    )


def make_llm_evaluator(*, workspace, user, provider, name: str = "Judge"):
    """An LLM-judge evaluator (draft) whose model is `provider`'s default."""
    judge = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=name, kind="llm"
    )
    model = {
        **judge.draft_config["model"],
        "provider_id": str(provider.public_id),
        "model": provider.default_model,
    }
    config = {**judge.draft_config, "model": model}
    return evaluator_services.evaluator_update_draft(evaluator=judge, user=user, config=config)


def make_llm_version(*, workspace, user, provider, name: str = "Judge", version: str = "1.0.0"):
    """A submitted LLM-judge version on `provider`."""
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider, name=name)
    return evaluator_services.evaluator_submit_version(evaluator=judge, user=user, version=version)
