"""The API pages' words for experiments and garak imports (summaries and descriptions),
kept apart from the views so that each view module reads as code."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view

from .. import serializers as s

EXPERIMENT_DOCS = extend_schema_view(
    list=extend_schema(
        summary=_("List experiments"),
        description=_(
            "The workspace's experiments, newest first, with status, progress and counts. "
            "Filters: `status` (draft, queued, running, completed, failed or cancelled) and "
            '`evalset` (an evalset or evalset version id, or "name" or "name@version"). '
            "400 names a filter that cannot match anything."
        ),
    ),
    create=extend_schema(
        summary=_("Create an experiment"),
        description=_(
            "Creates a draft (201), or with `launch: true` creates and launches it in one "
            'call (202). The body names the `evalset_version` (an id or "name@version"), an '
            "optional `target` ({kind: none, prompt, http, external or rescore, ...}: what "
            "produces the outputs) and `bindings`: the evaluator versions that score each row, "
            "each {evaluator_version, mapping?, policy?, ext?}, where `mapping` sends the "
            "evaluator's variables to `column:<name>` or `target:actual_output` (suggested by "
            "name when left out). `repetitions` runs every row several times; `interval` "
            "overrides the workspace's interval settings. Nothing is created unless all of it "
            "is valid: 400 names each problem by path (e.g. `bindings[0].mapping`)."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an experiment"),
        description=_(
            "One experiment with its target (secrets never shown), its bindings with each "
            "evaluator's pass rate and interval, result counts, progress with throughput and "
            "ETA, and chunk counts. Poll it while the run goes on."
        ),
    ),
    launch=extend_schema(
        summary=_("Launch an experiment"),
        description=_(
            "Queues a draft for the workers (202): its rows are split into chunks, which run "
            "and write results as they go. 400 when the experiment is not a draft."
        ),
    ),
    cancel=extend_schema(
        responses={202: s.ExperimentSerializer},
        summary=_("Cancel an experiment"),
        description=_(
            "Stops a queued or running experiment (202): a queued one is cancelled at once, "
            "running chunks stop between rows, and the run ends cancelled with the results "
            "written so far. 400 for a draft or a finished experiment."
        ),
    ),
    retry_failed=extend_schema(
        responses={202: s.RetriedSerializer},
        summary=_("Retry failed rows"),
        description=_(
            "Runs the failed rows again, into the same experiment (202): the rows whose target "
            "call failed (an error or a timeout) are called again — only those, with the same "
            "Idempotency-Key — and then scored; the rows whose evaluator errored or timed out "
            "(or never wrote a result) are scored again. `retried` says how many rows, "
            "`target_rows` and `evaluator_rows` how many of each. 400 while the run is not "
            "finished, or when there is nothing to retry."
        ),
    ),
    outputs=extend_schema(
        summary=_("Push target outputs"),
        description=_(
            "For an experiment with an external target: up to 1,000 `outputs` per call, each "
            "{item_id, repeat?, actual_output, trajectory?, latency_ms?, tokens_in?, "
            "tokens_out?, cost?, error?}. Evaluators score the rows as their outputs arrive; "
            "the first output of a row wins (`accepted` counts new ones, `duplicates` the "
            "rest). 400 names the entry at fault, and is the answer when the experiment's "
            "target computes its own outputs or the run is not queued or running."
        ),
    ),
    close=extend_schema(
        summary=_("Close an external run"),
        description=_(
            "Says that no more outputs will be pushed (202): rows without one are scored "
            'unknown ("no output") and the run completes once its evaluators finish. 400 '
            "when the experiment does not take pushed outputs or is not queued or running."
        ),
    ),
    rescore=extend_schema(
        summary=_("Re-score an experiment"),
        description=_(
            "Creates a new experiment that scores this finished run's target outputs with "
            "other evaluator versions (`bindings`, as for Create an experiment) without "
            "calling the target again; it records this run as `outputs_from` and compares "
            "paired with it. Launched at once (202) unless `launch: false` (201). 400 names "
            "the problem: a run not finished or without target outputs, or a binding at fault."
        ),
    ),
    baseline=extend_schema(
        summary=_("Mark a run as a baseline"),
        description=_(
            "Marks (`is_baseline: true`) or unmarks this run as a baseline for the CI gate; "
            "`baseline=latest` in Check the CI gate takes the newest marked run on the "
            "candidate's evalset. 400 when marking a run that has not completed."
        ),
    ),
    gate_decisions=extend_schema(
        summary=_("List a run's recorded gate checks"),
        description=_(
            "The CI gate's checks recorded with this run as the candidate (Record the CI "
            "gate), newest first, at most 100: the baseline, the options, `passed` and the "
            "reasons, when and by whom each was last posted, and when its failure was announced."
        ),
    ),
    gate=[
        extend_schema(
            methods=["GET"],
            summary=_("Check the CI gate"),
            description=_(
                "Decides whether `candidate` regresses against `baseline` (an experiment id, or "
                "`latest`). For each evaluator both runs have, the paired pass/fail flips go to a "
                "one-sided McNemar test at `alpha` (default 0.05): it fails when the drop is "
                "significant and its interval lies beyond `max_drop` (default 0); when the "
                "decided→unknown flips significantly outnumber the unknown→decided ones (the same "
                "test); when the candidate's unknown rate is above `max_unknown_rate` (default "
                "0.5); or when fewer than `min_decided` rows (default 30) were decided on both "
                "sides. It also fails when no evaluator ran in both runs. Answers `passed`, a row "
                "per evaluator with its reasons, the options used and a Markdown summary; the "
                "CLI's `assay gate` exits 1 when `passed` is false. "
                "400 names the parameter: a run that has not completed, runs on different "
                "evalsets, no marked baseline for `latest`, or an option out of range."
            ),
        ),
        extend_schema(
            methods=["POST"],
            summary=_("Record the CI gate"),
            description=_(
                "Decides the gate as Check the CI gate does, from the same options (in the "
                "body, or the query string), and records the decision: one record per "
                "candidate, baseline and options, updated when the same check is posted again "
                "(`recorded`: `decided_at`, `failure_announced_at`). The first time a check "
                "fails, the workspace's webhooks subscribed to `gate.failed` are told; posting "
                "it again tells nobody twice. Editors and owners; a viewer's token may only "
                "check (GET). The CLI's `assay gate` posts unless given `--no-record`."
            ),
        ),
    ],
    interval_defaults=[
        extend_schema(
            methods=["GET"],
            summary=_("Get the default interval settings"),
            description=_(
                "The workspace's defaults for the intervals new runs report: method "
                "(bootstrap or none), iterations, confidence, min_sample, exact_garak and seed. "
                "A run's own `interval` overrides them."
            ),
        ),
        extend_schema(
            methods=["PUT"],
            summary=_("Set the default interval settings"),
            description=_(
                "Replaces the workspace's defaults with `interval`; keys left out fall back to "
                "garak's defaults. Runs already created keep their settings. 400 names the "
                "key at fault."
            ),
        ),
    ],
    garak_references=[
        extend_schema(
            methods=["GET"],
            summary=_("List garak reference files"),
            description=_(
                "The garak reference files uploaded to this workspace: calibrations and "
                "detector metrics, with their entry counts. The newest of each kind is used."
            ),
        ),
        extend_schema(
            methods=["POST"],
            summary=_("Upload a garak reference file"),
            description=_(
                "Uploads a garak calibration (Z-score ratings for probe and detector names) or "
                "detector metrics file (sensitivity and specificity, for corrected intervals) "
                "as multipart `file`, JSON of at most 16 MB (201). 400 when the file is not "
                "JSON or not a garak reference file."
            ),
        ),
    ],
    target_test=extend_schema(
        summary=_("Test a target on one row"),
        description=_(
            "Sends one row of `evalset_version` (the `item_id` given, else the first row) "
            "through `target`, the same object as in Create an experiment, and answers the "
            "request as sent (secrets by name, never their value), the raw response, the "
            "extracted `actual_output` and trajectory, status, error, latency, tokens and "
            "cost. Nothing is stored. 400 names the field: an invalid target, a kind that "
            "sends no request (none, external, rescore), or a row not in the version."
        ),
    ),
    clone=extend_schema(
        summary=_("Clone an experiment"),
        description=_(
            "Creates a new draft with this experiment's set-up (201): an optional `name` "
            '(default: the name with "(clone)"), `versions` {evaluator id: version string} '
            "to swap evaluator versions, and `evalset_version` to run on another version. "
            "400 names the evaluator that is not in the experiment or has no such version."
        ),
    ),
    results=extend_schema(
        summary=_("List an experiment's results"),
        description=_(
            "One row per item, evaluator and repetition, in row order, paginated; readable "
            "while the run goes on. Filters: `evaluator` (an evaluator, evaluator version or "
            "binding id), `verdict` (pass, fail or unknown: the corrected verdict where there "
            "is one), `status` (success, error, timeout or skipped), `tag`, `q` (text in the "
            "reason or error), `score_min` and `score_max`. 400 names a filter that cannot "
            "match."
        ),
    ),
    items=extend_schema(
        summary=_("List an experiment's results by item"),
        description=_(
            "The results grid: one row per item of the evalset version, with its row number, "
            "tags, data, the target's output and every evaluator's results on it, paginated. "
            "The filters of List an experiment's results select the rows that have a "
            "matching result; `q` also searches the row's cells, and `item` picks one row by "
            "its id. `sort` is row order by default, or score:<binding>, -score:<binding> or "
            "verdict:<binding> (fails first). 400 names a filter that cannot match."
        ),
    ),
    result=extend_schema(
        summary=_("Get a result"),
        description=_(
            "One result by its `id` in this experiment, with the exact input the evaluator "
            "received, its stdout, the rendered judge request and the raw answer. 404 when "
            "the id is not this experiment's."
        ),
    ),
    correct=extend_schema(
        summary=_("Correct a result"),
        description=_(
            "Overrides a result's `verdict` (pass, fail or unknown) and optionally its "
            "`score` in [0, 1], with a `note` saying why; the original verdict and score stay "
            "beside the correction, and the run's pass rates count the corrected verdict. An "
            "empty verdict removes the correction. 400 names the field: an unknown verdict, "
            "a missing note, or a score outside [0, 1]."
        ),
    ),
    export=extend_schema(
        summary=_("Export an experiment's results"),
        description=_(
            "Downloads every result, streamed: `format=csv` (default) or `jsonl`, or garak's "
            "`report` (report.jsonl) or `hitlog` (hitlog.jsonl). 400 for another format."
        ),
    ),
)


GARAK_IMPORT_DOCS = extend_schema_view(
    list=extend_schema(
        summary=_("List garak imports"),
        description=_(
            "The workspace's garak imports, newest first: status (queued, running, completed "
            "or failed), probes done of the report's probes, the experiments made so far, "
            "and the reason of a failed one."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a garak import"),
        description=_(
            "One garak import, to poll after Import a garak scan: `status`, `probes_done` of "
            "`probes_total` and `percent`, `experiments` (each probe's run, with its own "
            "status), `notes` (how the threshold was read; a partial run's note) and "
            "`message` (why a failed import stopped)."
        ),
    ),
    create=extend_schema(
        summary=_("Import a garak scan"),
        description=_(
            "Uploads a garak report.jsonl (multipart `file`, at most "
            "ASSAY_GARAK_MAX_REPORT_BYTES, 64 MB by default) and checks it in the request; "
            "a worker then imports it probe by probe: for each probe a new version of the "
            "probe's evalset (rows keyed by their prompt, so scans pair by prompt), an "
            "evaluator per detector and a launched experiment scoring garak's own detector "
            "results. Answers 202 with the import job and `poll_url` (Get a garak import). "
            "The threshold and confidence level are garak's, read from its eval entries; "
            "`threshold` (optional) must reproduce garak's counts. The same run imported "
            "before, or being imported, answers 200 with a job naming its experiments "
            "(`already`) or the import under way, and makes nothing. 400 names the problem, "
            "and nothing is stored: a file too large; more probes "
            "(ASSAY_GARAK_MAX_PROBES, 50), scored attempts or outputs than one import takes, "
            "or a probe with more than 20 detectors; a line that is not JSON, nested too "
            "deeply, not an object, or not a garak attempt or eval entry (by line number); "
            "no scored attempts; counts no threshold reproduces; or a report cut before its "
            "`completion` entry (`partial=true` imports what it holds, marked partial)."
        ),
    ),
)
