"""`{% to_evalset_dialog %}`: the traces list's "Add to evalset" button and dialog, with the
sets to choose from (so the list's view needs no change to offer it)."""

from django import template

from ..views.to_evalset import dialog_context

register = template.Library()


@register.inclusion_tag("traces/_to_evalset.html", takes_context=True)
def to_evalset_dialog(context, trace_id: str = "") -> dict:
    """On the list, the selection is the rows' boxes (or the filter); given `trace_id` (a
    trace's page: `{% to_evalset_dialog trace_id=trace_id %}`), it is that trace."""
    request = context["request"]
    membership = getattr(request, "membership", None)
    can_edit = bool(membership and membership.can_edit)
    extra = dialog_context(request.workspace) if can_edit else {}
    return {
        "request": request,
        "workspace": request.workspace,
        "can_edit": can_edit,
        "one_trace": trace_id,
        "query": request.GET.urlencode(),
        "csrf_token": context.get("csrf_token"),
        **extra,
    }
