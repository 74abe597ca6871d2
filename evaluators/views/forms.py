"""Forms for the evaluator pages. The config travels as JSON kept in sync by the editor script."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import ScoreMeaning


class EvaluatorDraftForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    tags = forms.CharField(
        label=_("Tags"), required=False, help_text=_("Comma-separated, e.g. rag, safety")
    )
    score_meaning = forms.ChoiceField(label=_("Score meaning"), choices=ScoreMeaning.choices)
    policy_kind = forms.ChoiceField(
        label=_("Default verdict policy"),
        choices=[("threshold", _("Threshold")), ("zero_tolerance", _("Zero tolerance"))],
    )
    threshold = forms.FloatField(label=_("Threshold"), min_value=0, max_value=1, required=False)
    config_json = forms.CharField(
        label=_("Config (JSON)"),
        widget=forms.Textarea(attrs={"rows": 16, "class": "code", "spellcheck": "false"}),
    )

    def clean_tags(self) -> list[str]:
        return [t.strip() for t in self.cleaned_data["tags"].split(",") if t.strip()]

    def clean_config_json(self) -> dict:
        try:
            value = json.loads(self.cleaned_data["config_json"])
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(
                gettext("Config is not valid JSON: %(exc)s") % {"exc": exc}
            ) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext("Config must be a JSON object."))
        return value

    def service_fields(self) -> dict:
        data = self.cleaned_data
        policy = {"kind": data["policy_kind"]}
        if data["policy_kind"] == "threshold":
            policy["threshold"] = 0.5 if data.get("threshold") is None else data["threshold"]
        return {
            "name": data["name"],
            "description": data["description"],
            "tags": data["tags"],
            "score_meaning": data["score_meaning"],
            "default_policy": policy,
            "config": data["config_json"],
        }

    @classmethod
    def initial_for(cls, evaluator) -> dict:
        policy = evaluator.default_policy or {}
        return {
            "name": evaluator.name,
            "description": evaluator.description,
            "tags": ", ".join(evaluator.tags),
            "score_meaning": evaluator.score_meaning,
            "policy_kind": policy.get("kind", "threshold"),
            "threshold": policy.get("threshold", 0.5),
            "config_json": json.dumps(evaluator.draft_config, indent=2, ensure_ascii=False),
        }


class SubmitVersionForm(forms.Form):
    version = forms.CharField(label=_("Version"), max_length=64)
    change_note = forms.CharField(
        label=_("Change note"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )


class NewEvaluatorForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    source = forms.CharField(widget=forms.HiddenInput)  # "template:<slug>", "llm", "code"
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=[("python", "Python"), ("javascript", "JavaScript")],
    )
    # Each language named in itself, as language switches do.
    prompt_locale = forms.ChoiceField(
        label=_("Prompt language"),
        required=False,
        choices=[("en", "English"), ("zh-hans", "简体中文")],
    )
