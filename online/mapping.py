"""Where an online rule's evaluator variables come from: fields of the scored span, of its
trace, of its session, or a raw attribute. Validated like an experiment's mapping (every
required variable mapped, types agree) before a rule is saved."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from assay.vocabulary import ContentType
from experiments.mapping import variables_problems
from online.models import RuleScope

ATTRIBUTE_PREFIX = "attribute:"
SPAN, TRACE, SESSION = RuleScope.SPAN, RuleScope.TRACE, RuleScope.SESSION
TEXT, CONVERSATION = ContentType.TEXT.value, ContentType.CONVERSATION.value
# source → (content type, the scopes that offer it); in trace scope `span:` is the root span
SOURCES = {
    "span:input": (TEXT, {SPAN, TRACE}),
    "span:output": (TEXT, {SPAN, TRACE}),
    "span:input_messages": (CONVERSATION, {SPAN, TRACE}),
    "span:output_messages": (CONVERSATION, {SPAN, TRACE}),
    "span:name": (TEXT, {SPAN, TRACE}),
    "span:model": (TEXT, {SPAN, TRACE}),
    # the trace's (a session's: its traces') tool spans in order, as JSON
    "trace:trajectory": (TEXT, {TRACE, SESSION}),
    "session:conversation": (CONVERSATION, {SESSION}),  # every turn of the session
    "session:first_input": (TEXT, {SESSION}),  # the first turn's user input
    "session:last_output": (TEXT, {SESSION}),  # the last turn's answer
}


def source_type(source: str) -> str | None:
    """The content type a source fills a variable with (attributes are text)."""
    if source.startswith(ATTRIBUTE_PREFIX) and len(source) > len(ATTRIBUTE_PREFIX):
        return TEXT
    return SOURCES[source][0] if source in SOURCES else None


def sources_for(scope: str) -> list[str]:
    """The sources a rule of that scope offers (attributes besides: `attribute:<key>`)."""
    return [name for name, (_kind, scopes) in SOURCES.items() if scope in scopes]


def mapping_problems(*, variables: list[dict], mapping: Any, scope: str) -> list[str]:
    """Every problem with an online mapping: unknown variables, required ones unmapped,
    unknown sources, sources the scope does not offer, type clashes."""
    return variables_problems(
        variables=variables,
        mapping=mapping,
        source_problems=lambda name, variable, source: _source_problems(
            name, variable["content_type"], source, scope
        ),
    )


def _source_problems(name: str, wanted: str, source: Any, scope: str) -> list[str]:
    kind = source_type(source) if isinstance(source, str) else None
    if kind is None:
        offered = ", ".join([*sources_for(scope), ATTRIBUTE_PREFIX + "<key>"])
        return [_("%(name)r: unknown source %(source)r (one of %(offered)s).") % locals()]
    if not source.startswith(ATTRIBUTE_PREFIX) and scope not in SOURCES[source][1]:
        return [_("%(name)r: a %(scope)s rule has no %(source)r.") % locals()]
    if kind != wanted:
        return [_("%(name)r is %(wanted)s but %(source)s is %(kind)s.") % locals()]
    return []


def suggest_mapping(*, variables: list[dict], scope: str) -> dict:
    """A first mapping by variable name and type: input → the input, output → the output (a
    session's first input and last output), a Conversation → the messages the scope has."""
    by_type = {CONVERSATION: _conversation_source(scope)}
    names = {"input": "span:input", "actual_output": "span:output", "output": "span:output"}
    if scope == SESSION:
        names = {"input": "session:first_input"} | dict.fromkeys(
            ("actual_output", "output"), "session:last_output"
        )
    suggested = {}
    for variable in variables:
        source = names.get(variable["name"]) or by_type.get(variable["content_type"])
        if source and source_type(source) == variable["content_type"]:
            if source.startswith(ATTRIBUTE_PREFIX) or scope in SOURCES[source][1]:
                suggested[variable["name"]] = source
    return suggested


def _conversation_source(scope: str) -> str:
    return "session:conversation" if scope == SESSION else "span:input_messages"
