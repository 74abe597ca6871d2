"""Demo evaluators: a few presets started, edited and submitted, so the library is not empty."""

from __future__ import annotations

from .models import Evaluator, EvaluatorTemplate
from .services import evaluator_create_from_template, evaluator_submit_version

DEMO = [
    ("correctness", None),
    ("equal", "python"),
    ("regex", "javascript"),
    ("no-failed-calls", "python"),
]


def demo_load(*, workspace, user) -> None:
    """Create each demo evaluator once and submit its 1.0.0."""
    for slug, language in DEMO:
        template = EvaluatorTemplate.objects.filter(slug=slug).first()
        if (
            template is None
            or Evaluator.objects.filter(workspace=workspace, template=template).exists()
        ):
            continue
        evaluator = evaluator_create_from_template(
            workspace=workspace, user=user, template=template, language=language
        )
        evaluator_submit_version(
            evaluator=evaluator, user=user, version="1.0.0", change_note="Started from the preset."
        )
