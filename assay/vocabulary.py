"""The words every app shares, defined once: verdicts, result statuses, content types, policy
kinds, score meanings and pairwise outcomes.

Models use the TextChoices, pure code the plain values (`Verdict.PASS == "pass"`), templates the
`vocabulary` context (see `assay.web.context`) and JavaScript the JSON block that
`base.html` renders from it. Importing this module needs no Django set-up.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Verdict(models.TextChoices):
    PASS = "pass", _("pass")
    FAIL = "fail", _("fail")
    UNKNOWN = "unknown", _("unknown")


VERDICTS = tuple(Verdict.values)
# one character per verdict, where a row shows one chip per repetition
VERDICT_MARKS = {Verdict.PASS: "✓", Verdict.FAIL: "✗", Verdict.UNKNOWN: "?"}


class ResultStatus(models.TextChoices):
    """How one evaluator call on one row ended (a skipped row lacked a required input)."""

    SUCCESS = "success", _("success")
    ERROR = "error", _("error")
    TIMEOUT = "timeout", _("timeout")
    SKIPPED = "skipped", _("skipped")


RETRYABLE_STATUSES = (ResultStatus.ERROR, ResultStatus.TIMEOUT)


class PairOutcome(models.TextChoices):
    """What a pairwise judge decided about one pair, in the frame A = baseline, B = candidate
    (unknown: an answer of either order could not be read, or a call failed)."""

    A = "A", _("A better")
    B = "B", _("B better")
    TIE = "tie", _("tie")
    UNKNOWN = "unknown", _("unknown")


class ContentType(models.TextChoices):
    """Coze Loop's content types; a content object is {"content_type": ..., <field>: value}."""

    TEXT = "Text", _("Text")
    IMAGE = "Image", _("Image")
    AUDIO = "Audio", _("Audio")
    MULTIPART = "MultiPart", _("MultiPart")
    CONVERSATION = "Conversation", _("Conversation")


CONTENT_TYPES = tuple(ContentType.values)


def column_label(column: dict) -> str:
    """A column as a select offers it, "input (文本)": its type named in the page's language
    (the code stays in JSON, files and the API)."""
    from django.utils.translation import gettext

    kind = column["content_type"]
    label = dict(ContentType.choices).get(kind, kind)
    return gettext("%(name)s (%(type)s)") % {"name": column["name"], "type": label}


MEDIA_TYPES = (ContentType.IMAGE, ContentType.AUDIO, ContentType.MULTIPART)
# The key of a content object that holds its value.
CONTENT_FIELD = {
    ContentType.TEXT: "text",
    ContentType.IMAGE: "image",
    ContentType.AUDIO: "audio",
    ContentType.MULTIPART: "multi_part",
    ContentType.CONVERSATION: "messages",
}


class ChatRole(models.TextChoices):
    """Who speaks in a Conversation message (the OpenAI chat roles)."""

    SYSTEM = "system", _("system")
    USER = "user", _("user")
    ASSISTANT = "assistant", _("assistant")
    TOOL = "tool", _("tool")


CHAT_ROLES = tuple(ChatRole.values)


class PolicyKind(models.TextChoices):
    THRESHOLD = "threshold", _("threshold")
    ZERO_TOLERANCE = "zero_tolerance", _("zero tolerance")


POLICY_KINDS = tuple(PolicyKind.values)


class ScoreMeaning(models.TextChoices):
    QUALITY = "quality", _("Quality (1.0 is best)")
    RISK = "risk", _("Risk (1.0 means harm detected)")


MEANINGS = tuple(ScoreMeaning.values)


# The usual names a file or an evaluator gives to the fields Assay knows, so an import's map
# step and an experiment's mapping can suggest `input` for a column headed `question` or 问题.
# Keys are Assay's names; each list is compared case-insensitively, spaces and dashes as `_`.
FIELD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "input": ("input", "question", "query", "prompt", "user_input", "问题", "提问", "输入", "问句"),
    "reference_output": (
        "reference_output",
        "reference",
        "expected",
        "expected_output",
        "answer",
        "ground_truth",
        "ideal",
        "target",
        "参考答案",
        "标准答案",
        "期望输出",
        "答案",
        "参考输出",
    ),
    "actual_output": ("actual_output", "output", "response", "completion", "回答", "输出", "回复"),
    "context": (
        "context",
        "contexts",
        "retrieval_context",
        "documents",
        "上下文",
        "背景",
        "参考资料",
    ),
    "tags": ("tags", "tag", "labels", "标签"),
}


def field_synonym(name: str) -> str | None:
    """Assay's name for a header or variable name (`Question` → `input`), or None."""
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    for canonical, names in FIELD_SYNONYMS.items():
        if key in names:
            return canonical
    return None


def _names(choices) -> dict[str, str]:
    return {member.name: member.value for member in choices}


class EventType(models.TextChoices):
    """What Assay tells webhooks about (`notifications.services.event_emit`); the values are
    the `type` of a delivered event, so they never change once shipped."""

    EXPERIMENT_COMPLETED = "experiment.completed", _("Experiment completed")
    EXPERIMENT_FAILED = "experiment.failed", _("Experiment failed")
    EXPERIMENT_CANCELLED = "experiment.cancelled", _("Experiment cancelled")
    GATE_FAILED = "gate.failed", _("CI gate failed")
    SCHEDULE_REGRESSION = "schedule.regression", _("Scheduled run regressed")
    ALERT_FIRED = "alert.fired", _("Alert fired")
    ALERT_RESOLVED = "alert.resolved", _("Alert resolved")
    ANNOTATION_ADJUDICATION_NEEDED = (
        "annotation.adjudication_needed",
        _("Annotation needs adjudication"),
    )
    IMPORT_FINISHED = "import.finished", _("Import finished")
    IMPORT_FAILED = "import.failed", _("Import failed")
    # sent only by "send test event", to the one endpoint asked; never subscribed to
    TEST = "webhook.test", _("Test event")


# what an endpoint may subscribe to (every type but the test event)
SUBSCRIBABLE_EVENTS = tuple(value for value in EventType.values if value != EventType.TEST)


def for_pages() -> dict:
    """The vocabulary as plain lists and name → value maps, for templates and the JSON block
    JavaScript reads (`window.Assay.vocabulary.ContentType.TEXT`)."""
    return {
        "Verdict": _names(Verdict),
        "ResultStatus": _names(ResultStatus),
        "ContentType": _names(ContentType),
        "ChatRole": _names(ChatRole),
        "PolicyKind": _names(PolicyKind),
        "PairOutcome": _names(PairOutcome),
        "verdicts": list(VERDICTS),
        "result_statuses": list(ResultStatus.values),
        "content_types": list(CONTENT_TYPES),
        # lazy: json_script renders each in the page's language
        "content_type_labels": {str(value): label for value, label in ContentType.choices},
        "media_types": [str(t) for t in MEDIA_TYPES],
        "content_fields": {str(k): v for k, v in CONTENT_FIELD.items()},
        "chat_roles": list(CHAT_ROLES),
        "policy_kinds": list(POLICY_KINDS),
        "score_meanings": list(MEANINGS),
    }


# The mark of Assay's own traffic: HTTP targets send it as a W3C baggage entry
# (`baggage: assay.experiment=<run id>`); an app whose OpenTelemetry SDK copies baggage onto its
# spans (the baggage span processor) tags the spans an experiment caused, and online rules
# never score a span that carries it.
EXPERIMENT_MARKER = "assay.experiment"
