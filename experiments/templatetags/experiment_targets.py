"""Template tags of the target panels: the external target's commands (on the new-experiment
form, and on a run waiting for its pushed outputs)."""

from __future__ import annotations

from django import template

from ..selectors.resolving import evalset_version_choices, evaluator_version_choices
from ..selectors.runs import experiment_refs
from ..targets.external_help import TASK, close_command, push_command, ref, run_command

register = template.Library()


@register.simple_tag
def external_refs(workspace) -> dict:
    """Every evalset and evaluator version of the workspace as the client names it, by id: the
    form's script writes the command for the set and evaluators chosen."""
    return {
        "task": TASK,
        "evalsets": {
            str(v.public_id): ref(v.evalset.name, v.version)
            for v in evalset_version_choices(workspace=workspace)
        },
        "evaluators": {
            str(v.public_id): ref(v.evaluator.name, v.version)
            for v in evaluator_version_choices(workspace=workspace)
        },
    }


@register.simple_tag(takes_context=True)
def external_commands(context, experiment) -> dict:
    """This waiting run's id and the commands that feed it (the API's address as the browser
    reached this page)."""
    api = context["request"].build_absolute_uri("/api/v1/")
    refs = experiment_refs(experiment=experiment)
    run_id = str(experiment.public_id)
    return {
        "id": run_id,
        "run": run_command(evalset=refs["evalset"], evaluators=refs["evaluators"]),
        "push": push_command(api=api, experiment_id=run_id, item_id=refs["first_item"]),
        "close": close_command(api=api, experiment_id=run_id),
    }


@register.simple_tag
def scenario_columns(workspace) -> dict:
    """Each evalset version's Text columns by id: the simulated user's column pickers keep to
    the chosen version's."""
    from ..targets.simulated_user.form import text_columns

    return text_columns(workspace=workspace)


@register.simple_tag
def prefixed_fields(form, prefix: str) -> dict:
    """The form's bound fields named ``prefix`` + key, by key: one partial lays out an HTTP
    endpoint's fields for the HTTP target (``http_``) and the simulated user's app
    (``su_app_http_``), another a prompt's for the prompt target and the app (``su_app_``)."""
    return {
        name.removeprefix(prefix): form[name] for name in form.fields if name.startswith(prefix)
    }
