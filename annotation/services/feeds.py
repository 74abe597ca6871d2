"""Queues fed by a filter: items added at once from an experiment's results or an online
rule's outcomes that match it, and feeds that follow a rule or an experiment.

A feed remembers where its last sweep stopped (`cursor`: the id of the last outcome or result
it read). A sweep reads the next batch after it, keeps what falls in the feed's sample (a hash
of the item's key: the same item is in or out at every sweep) and adds those items. The
cursor moves with a conditional UPDATE (`WHERE cursor = <the one read>`) in the transaction
that adds the items: a second sweep of the same batch, at the same time or later, finds the
cursor moved and adds nothing, and a sweep that fails moves nothing. Annotation pulls: online
never pushes into a queue (it does not import annotation).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import CharField, Exists, F, OuterRef
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.jobs import each_apart
from experiments.models import Experiment
from experiments.runs.bases import ACTIVE_STATUSES, RunStatus
from online.models import OnlineRule

from ..models import AnnotationQueue, FeedKind, ItemSource, QueueFeed, QueueItem
from ..selectors import filtered
from .queues import queue_items_add

FEED_BATCH = 2000  # outcomes or results one sweep of a feed reads
# Outcomes younger than this wait for the next sweep: an outcome with a lower id may still be
# in a transaction that has not committed, and the cursor must not pass it.
OUTCOME_LAG = timedelta(seconds=60)
FILTER_ADD_MAX = 1000  # items one call adds by a filter (call again for the rest)
FILTER_SCAN_MAX = 20_000  # outcomes one call looks at
MAX_FEEDS = 20  # per queue
FEED_SETTINGS = ("verdicts", "filter", "sampling_rate", "active")


# ----------------------------------------------------------------------------- by a filter


@dataclass(frozen=True)
class Added:
    """What a call adding items by a filter did: items new to the queue, and whether more
    matched than one call adds (calling again adds the next ones)."""

    added: int
    more: bool


def queue_add_results(
    *, queue: AnnotationQueue, experiment: Experiment, verdicts: list[str], filters: dict, rate=1.0
) -> Added:
    """Add the experiment's results the results grid's filters select (and whose verdict is
    one of `verdicts`), in the sample at `rate`, at most `FILTER_ADD_MAX` not yet in the queue.
    Adding the same again adds nothing."""
    results = filtered.results_matching(experiment=experiment, verdicts=verdicts, filters=filters)
    present = QueueItem.objects.filter(
        queue=queue,
        source_kind=ItemSource.EXPERIMENT_RESULT,
        source_ref=Cast(OuterRef("pk"), output_field=CharField()),
    )
    pks = results.filter(~Exists(present)).values_list("pk", flat=True)
    wanted, more = _sampled_pks(pks, ItemSource.EXPERIMENT_RESULT, rate)
    items = filtered.result_items_of(workspace=queue.workspace, experiment=experiment, pks=wanted)
    return Added(queue_items_add(queue=queue, items=items), more)


def _sampled_pks(pks, kind: str, rate: float) -> tuple[list[int], bool]:
    """The first `FILTER_ADD_MAX` of `pks` in the sample, and whether more are."""
    wanted = []
    for pk in pks.iterator(chunk_size=2000):
        if filtered.in_queue_sample(kind, str(pk), rate):
            if len(wanted) == FILTER_ADD_MAX:
                return wanted, True
            wanted.append(pk)
    return wanted, False


def queue_add_outcomes(
    *, queue: AnnotationQueue, rule: OnlineRule, verdicts: list[str], rate=1.0
) -> Added:
    """Add what the rule judged (spans, traces or sessions by its scope) with one of
    `verdicts`, in the sample at `rate`, at most `FILTER_ADD_MAX` new items (looking at
    `FILTER_SCAN_MAX` outcomes). Adding the same again adds nothing."""
    outcomes = filtered.outcomes_matching(rule=rule, verdicts=verdicts)
    present = _present_refs(queue)
    fresh, seen, more = [], set(), False
    for outcome in outcomes[:FILTER_SCAN_MAX].iterator(chunk_size=2000):
        key = filtered.outcome_key(outcome, rule.scope)
        if key in present or key in seen or not filtered.in_queue_sample(*key, rate):
            continue
        if len(seen) == FILTER_ADD_MAX:
            more = True
            break
        seen.add(key)
        fresh.append(outcome)
    items = filtered.outcome_items(rule=rule, outcomes=fresh)
    return Added(queue_items_add(queue=queue, items=items), more)


def _present_refs(queue: AnnotationQueue) -> set[tuple[str, str]]:
    kinds = (ItemSource.SPAN, ItemSource.TRACE, ItemSource.SESSION)
    return set(queue.items.filter(source_kind__in=kinds).values_list("source_kind", "source_ref"))


# ----------------------------------------------------------------------------- feeds


def queue_feed_create(
    *,
    queue: AnnotationQueue,
    user: AbstractBaseUser | None,
    kind: str,
    source: OnlineRule | Experiment | None,
    fields: dict,
) -> QueueFeed:
    """A queue following an online rule or an experiment of its workspace (`source`: None
    stands for an id that is not one); every problem is named by its field."""
    feed = QueueFeed(queue=queue, kind=kind, created_by=user)
    if kind == FeedKind.ONLINE_RULE:
        feed.rule = source
    else:
        feed.experiment = source
    errors = {}
    if source is None:
        errors[_source_field(kind)] = [_("Not one of this workspace's.")]
    if queue.feeds.count() >= MAX_FEEDS:
        errors["kind"] = [_("A queue follows at most 20 sources.")]
    return _feed_save(feed, fields, errors)


def _source_field(kind: str) -> str:
    return "rule" if kind == FeedKind.ONLINE_RULE else "experiment"


def queue_feed_update(*, feed: QueueFeed, fields: dict) -> QueueFeed:
    """Change what a feed takes (verdicts, filter, sampling rate) or pause it; it goes on from
    where it stopped (items added before stay)."""
    return _feed_save(feed, fields, {})


def queue_feed_delete(*, feed: QueueFeed) -> None:
    """Stop following; the items it added stay."""
    feed.delete()


def _feed_save(feed: QueueFeed, fields: dict, errors: dict) -> QueueFeed:
    for name in FEED_SETTINGS:
        if name in fields:
            setattr(feed, name, fields[name])
    errors = errors | _feed_problems(feed)
    if errors:
        raise ValidationError(errors)
    feed.save()
    return feed


def _feed_problems(feed: QueueFeed) -> dict:
    errors = filtered.verdicts_problems(list(feed.verdicts or []))
    if not 0 < feed.sampling_rate <= 1:
        errors["sampling_rate"] = [_("A rate above 0 and at most 1 (100 %).")]
    if feed.kind == FeedKind.ONLINE_RULE and feed.filter:
        errors["filter"] = [_("An online rule's feed takes verdicts, not the grid's filters.")]
    if feed.kind == FeedKind.EXPERIMENT and feed.experiment is not None:
        try:
            filtered.results_matching(experiment=feed.experiment, verdicts=[], filters=feed.filter)
        except ValidationError as exc:
            errors |= exc.message_dict
    return errors


def feeds_sweep(*, now=None) -> int:
    """Sweep every active feed that has more to read; the items they added. A feed that fails
    is logged and left for the next sweep (its cursor did not move)."""
    now = now or timezone.now()
    feeds = QueueFeed.objects.filter(active=True, done=False).values_list("pk", flat=True)
    added = each_apart(feeds, lambda pk: feed_sweep(feed_id=pk, now=now), what="annotation feed")
    return sum(added)


def feed_sweep(*, feed_id: int, now=None) -> int:
    """Read the feed's next batch after its cursor and add the items in its sample; the items
    added (0 when another sweep took the same batch)."""
    feed = QueueFeed.objects.select_related("queue__workspace", "rule", "experiment").get(
        pk=feed_id
    )
    now = now or timezone.now()
    return feed_batch_take(feed=feed, batch=feed_batch_read(feed=feed, now=now), now=now)


@dataclass(frozen=True)
class FeedBatch:
    """What a sweep read after `read_from`: the items in the sample, the cursor after them,
    and whether the source is read to its end for good."""

    read_from: int
    items: list
    cursor: int
    done: bool


def feed_batch_read(*, feed: QueueFeed, now) -> FeedBatch | None:
    """The batch after the feed's cursor (None for a paused or finished feed); read outside
    any transaction, taken by `feed_batch_take`."""
    if not feed.active or feed.done:
        return None
    if feed.kind == FeedKind.ONLINE_RULE:
        return FeedBatch(feed.cursor, *_outcomes_batch(feed, now))
    return FeedBatch(feed.cursor, *_results_batch(feed))


def feed_batch_take(*, feed: QueueFeed, batch: FeedBatch | None, now) -> int:
    """Add a batch's items if the feed's cursor is still where the batch was read from: the
    cursor moves from that value only (a conditional UPDATE), in the transaction adding the
    items, so a batch another sweep took, or one read before the cursor moved on, adds
    nothing and never moves the cursor back. The items added."""
    if batch is None:
        return 0
    with transaction.atomic():
        claimed = QueueFeed.objects.filter(
            pk=feed.pk, cursor=batch.read_from, done=False, active=True
        ).update(cursor=batch.cursor, done=batch.done, swept_at=now)
        if not claimed:
            return 0
        added = queue_items_add(queue=feed.queue, items=batch.items)
        QueueFeed.objects.filter(pk=feed.pk).update(added=F("added") + added)
    return added


def _outcomes_batch(feed: QueueFeed, now) -> tuple[list, int, bool]:
    rule = feed.rule
    outcomes = list(
        filtered.outcomes_matching(rule=rule, verdicts=feed.verdicts).filter(
            pk__gt=feed.cursor, created_at__lte=now - OUTCOME_LAG
        )[:FEED_BATCH]
    )
    cursor = outcomes[-1].pk if outcomes else feed.cursor
    rate = feed.sampling_rate
    kept = [
        o for o in outcomes if filtered.in_queue_sample(*filtered.outcome_key(o, rule.scope), rate)
    ]
    return filtered.outcome_items(rule=rule, outcomes=kept), cursor, False


def _results_batch(feed: QueueFeed) -> tuple[list, int, bool]:
    """An experiment's results once it has finished (a retry rewrites a running one's
    results), read to the end in batches; then the feed is done."""
    experiment = feed.experiment
    if experiment.status in (*ACTIVE_STATUSES, RunStatus.DRAFT):
        return [], feed.cursor, False
    results = filtered.results_matching(
        experiment=experiment, verdicts=feed.verdicts, filters=feed.filter
    )
    pks = list(results.filter(pk__gt=feed.cursor).values_list("pk", flat=True)[:FEED_BATCH])
    kind, rate = ItemSource.EXPERIMENT_RESULT, feed.sampling_rate
    kept = [pk for pk in pks if filtered.in_queue_sample(kind, str(pk), rate)]
    workspace = feed.queue.workspace
    items = filtered.result_items_of(workspace=workspace, experiment=experiment, pks=kept)
    return items, (pks[-1] if pks else feed.cursor), len(pks) < FEED_BATCH
