"""API: /api/v1/experiments/ — create, launch, cancel, retry failed rows, clone, results."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import IgnoreFormatNegotiation, WorkspaceScopedViewSet, validated
from assay.api.schema import EXCEL_PARAMETER
from assay.safety.csvcells import excel_wanted

from . import selectors, services
from . import serializers as s
from .models import Experiment, GarakImport
from .results.exports import FORMATS
from .results.gate import gate_check
from .results.grid import grid_item_ids, grid_rows
from .stats.interval_settings import interval_settings
from .views.results import export_download

RESULT_FILTERS = ("evaluator", "verdict", "status", "tag", "q", "score_min", "score_max")
GRID_FILTERS = (*RESULT_FILTERS, "sort", "item")
API_HEAVY = ("rendered_request", "raw_answer", "stdout")  # reasons come whole
GateQuery = s.GateQuerySerializer


def _baseline(workspace, ref: str, candidate):
    if ref != "latest":
        return selectors.experiment_get(workspace=workspace, public_id=ref)
    found = selectors.baseline_latest(workspace=workspace, candidate=candidate)
    if found is None:
        raise ValidationError(
            {"baseline": gettext("No completed run on this evalset is marked as a baseline.")}
        )
    return found


@extend_schema_view(
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
        summary=_("Cancel an experiment"),
        description=_(
            "Stops a queued or running experiment (202): a queued one is cancelled at once, "
            "running chunks stop between rows, and the run ends cancelled with the results "
            "written so far. 400 for a draft or a finished experiment."
        ),
    ),
    retry_failed=extend_schema(
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
    gate=extend_schema(
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
class ExperimentViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Experiments: created as drafts (or launched at once), run by workers, read while running."""

    serializer_class = s.ExperimentSerializer
    queryset = Experiment.objects.all()

    def scoped_queryset(self):
        if self.action != "list":
            return Experiment.objects.filter(workspace=self.request.workspace).select_related(
                "evalset_version__evalset", "created_by", "cloned_from"
            )
        params = self.request.query_params
        return selectors.experiment_list(
            workspace=self.request.workspace,
            status=params.get("status", ""),
            evalset=params.get("evalset", ""),
        )

    def get_serializer_class(self):
        return s.ExperimentListSerializer if self.action == "list" else s.ExperimentSerializer

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in ("status", "evalset")]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=s.ExperimentCreateSerializer,
        responses={201: s.ExperimentSerializer, 202: s.ExperimentSerializer},
    )
    def create(self, request):
        """A draft (201), or with `launch: true` a launched experiment (202)."""
        body = validated(s.ExperimentCreateSerializer, request)
        data = dict(body)
        experiment = services.experiment_create(
            workspace=request.workspace,
            user=request.user,
            **selectors.experiment_inputs(workspace=request.workspace, data=data),
        )
        code = status.HTTP_202_ACCEPTED if data["launch"] else status.HTTP_201_CREATED
        return Response(s.ExperimentSerializer(experiment).data, status=code)

    @extend_schema(request=None, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def launch(self, request, id=None):
        experiment = services.experiment_launch(experiment=self.get_object())
        return Response(s.ExperimentSerializer(experiment).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, id=None):
        """Running chunks stop between rows; a queued run is cancelled at once."""
        experiment = services.experiment_cancel(experiment=self.get_object())
        return Response(s.ExperimentSerializer(experiment).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: s.RetriedSerializer})
    @action(detail=True, methods=["post"], url_path="retry-failed")
    def retry_failed(self, request, id=None):
        """Run the failed rows (target or evaluator) again; the body says how many of each."""
        experiment = self.get_object()
        counts = services.experiment_retry_failed(experiment=experiment)
        body = {
            "retried": counts.total,
            "target_rows": counts.target_rows,
            "evaluator_rows": counts.evaluator_rows,
            "experiment": s.ExperimentSerializer(experiment).data,
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=s.OutputsPushSerializer, responses={202: s.PushedSerializer})
    @action(detail=True, methods=["post"])
    def outputs(self, request, id=None):
        """Push outputs for an external-target run; the first output of a row wins."""
        experiment = self.get_object()  # an outsider learns nothing from validation errors
        body = validated(s.OutputsPushSerializer, request)
        counts = services.outputs_push(experiment=experiment, outputs=body["outputs"])
        return Response(counts, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def close(self, request, id=None):
        """No more outputs will be pushed: rows without one are scored unknown ("no output")."""
        experiment = services.experiment_close(experiment=self.get_object())
        return Response(s.ExperimentSerializer(experiment).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=s.RescoreSerializer, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def rescore(self, request, id=None):
        """Score this finished run's target outputs again with other evaluator versions; the
        target is not called. The new run records this one as `outputs_from`."""
        experiment = self.get_object()
        body = validated(s.RescoreSerializer, request)
        created = services.experiment_rescore(
            experiment=experiment,
            user=request.user,
            bindings=selectors.bindings_resolved(
                workspace=request.workspace, bindings=body["bindings"]
            ),
            name=body["name"],
            launch=body["launch"],
        )
        code = status.HTTP_202_ACCEPTED if body["launch"] else status.HTTP_201_CREATED
        return Response(s.ExperimentSerializer(created).data, status=code)

    @extend_schema(request=s.BaselineSerializer, responses=s.ExperimentSerializer)
    @action(detail=True, methods=["post"])
    def baseline(self, request, id=None):
        """Mark or unmark this completed run as a baseline for the CI gate."""
        experiment = self.get_object()
        body = validated(s.BaselineSerializer, request)
        experiment = services.experiment_mark_baseline(experiment=experiment, **body)
        return Response(s.ExperimentSerializer(experiment).data)

    @extend_schema(parameters=[GateQuery], responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["get"])
    def gate(self, request):
        """Does the candidate regress against the baseline? `passed`, a row per evaluator and
        a Markdown summary (the CLI's `assay gate` exits 1 when `passed` is false)."""
        query = s.GateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = dict(query.validated_data)
        params.pop("workspace", None)
        candidate = selectors.experiment_get(
            workspace=request.workspace, public_id=params.pop("candidate")
        )
        baseline = _baseline(request.workspace, params.pop("baseline"), candidate)
        result = gate_check(baseline=baseline, candidate=candidate, **params)
        return Response(result.to_dict())

    @extend_schema(request=s.IntervalDefaultsSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["get", "put"], url_path="interval-defaults")
    def interval_defaults(self, request):
        """The workspace's default interval settings for new runs (GET), or new ones (PUT:
        unset keys fall back to garak's defaults). A run's own `interval` overrides them."""
        if request.method == "PUT":
            body = validated(s.IntervalDefaultsSerializer, request)
            settings = services.workspace_interval_defaults_set(
                workspace=request.workspace, interval=body["interval"]
            )
        else:
            settings = interval_settings(request.workspace.interval_defaults)
        return Response({"interval": settings})

    @extend_schema(
        request={"multipart/form-data": s.GarakImportSerializer},
        responses={201: s.GarakReferenceSerializer, 200: s.GarakReferenceSerializer(many=True)},
    )
    @action(
        detail=False,
        methods=["get", "post"],
        url_path="garak-references",
        parser_classes=[MultiPartParser, FormParser],
    )
    def garak_references(self, request):
        """garak's reference files in this workspace (GET), or a new one (POST `file`): a
        calibration (Z ratings for matching probe/detector names) or detector metrics
        (Se/Sp-corrected intervals for those detectors). The newest of each kind is used."""
        if request.method == "GET":
            found = selectors.garak_references(workspace=request.workspace)
            return Response(s.GarakReferenceSerializer(found, many=True).data)
        upload = validated(s.GarakImportSerializer, request)["file"]
        data = services.garak_upload_bytes(upload=upload, limit=services.MAX_REFERENCE_BYTES)
        made = services.garak_reference_upload(
            workspace=request.workspace, name=upload.name, data=data
        )
        return Response(s.GarakReferenceSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.TargetTestSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["post"], url_path="target-test")
    def target_test(self, request):
        """Send one row through a target before creating the experiment: the request (secrets
        named, never shown), the raw response and what was extracted. Nothing is stored."""
        body = validated(s.TargetTestSerializer, request)
        version = selectors.evalset_version_required(
            workspace=request.workspace, public_id=body["evalset_version"]
        )
        tried = services.target_test(
            workspace=request.workspace,
            evalset_version=version,
            target=body["target"],
            item_id=body.get("item_id"),
        )
        return Response(tried)

    @extend_schema(request=s.CloneSerializer, responses={201: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, id=None):
        """A new draft with the same set-up; `versions` swaps evaluator versions."""
        experiment = self.get_object()
        body = validated(s.CloneSerializer, request)
        data = body
        clone = services.experiment_clone(
            experiment=experiment,
            user=request.user,
            name=data.get("name") or None,
            versions=selectors.clone_versions(
                workspace=request.workspace,
                experiment=experiment,
                versions=data.get("versions") or {},
            ),
            evalset_version=selectors.evalset_version_required(
                workspace=request.workspace, public_id=data.get("evalset_version")
            ),
        )
        clone = selectors.experiment_get(workspace=request.workspace, public_id=clone.public_id)
        return Response(s.ExperimentSerializer(clone).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in RESULT_FILTERS],
        responses=s.ResultSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def results(self, request, id=None):
        """Results, paginated, with the results table's filters (see selectors.results_list)."""
        experiment = self.get_object()
        params = request.query_params
        rows = selectors.results_list(
            experiment=experiment, **{n: params.get(n, "") for n in RESULT_FILTERS}
        )
        page = self.paginate_queryset(rows.annotate(item_uid=selectors.ITEM_UID))
        return self.get_paginated_response(s.ResultSerializer(page, many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in GRID_FILTERS],
        responses=s.GridItemSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def items(self, request, id=None):
        """The results grid: one row per item (row order, or `sort`), every evaluator's
        results in it; the results table's filters select rows with a matching result."""
        experiment = self.get_object()
        params = request.query_params
        ids = grid_item_ids(experiment=experiment, **{n: params.get(n, "") for n in GRID_FILTERS})
        page = self.paginate_queryset(ids)
        bindings = list(experiment.bindings.select_related("evaluator_version__evaluator"))
        rows = grid_rows(
            experiment=experiment, bindings=bindings, item_pks=page, heavy=API_HEAVY, usage=True
        )
        return self.get_paginated_response(s.GridItemSerializer(rows, many=True).data)

    @extend_schema(responses=s.ResultDetailSerializer)
    @action(detail=True, methods=["get"], url_path="results/<int:result_id>")
    def result(self, request, id=None, result_id=None):
        """One result (by its integer id inside this experiment) with its exact input."""
        found = selectors.result_get(experiment=self.get_object(), result_id=result_id)
        return Response(s.ResultDetailSerializer(found).data)

    @extend_schema(request=s.CorrectionSerializer, responses=s.ResultDetailSerializer)
    @action(detail=True, methods=["post"], url_path="results/<int:result_id>/correct")
    def correct(self, request, id=None, result_id=None):
        """Override one result's verdict (and optionally score) with a note; "" undoes it."""
        found = selectors.result_get(experiment=self.get_object(), result_id=result_id)
        body = validated(s.CorrectionSerializer, request)
        services.result_correct(result=found, user=request.user, **body)
        return Response(s.ResultDetailSerializer(found).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=[*FORMATS]),
            EXCEL_PARAMETER,
        ],
        responses={(200, "text/csv"): str},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="export",
        content_negotiation_class=IgnoreFormatNegotiation,
    )
    def export(self, request, id=None):
        """Streamed results.csv / results.jsonl, or garak-style report.jsonl / hitlog.jsonl."""
        experiment = self.get_object()
        fmt = request.query_params.get("format", "csv")
        if fmt not in FORMATS:
            raise ValidationError(
                {"format": gettext("Use one of %(formats)s.") % {"formats": ", ".join(FORMATS)}}
            )
        return export_download(experiment, fmt, excel=excel_wanted(request.query_params))


@extend_schema_view(
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
class GarakImportViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """garak imports: POST a report (202, a queued job and the URL to poll), then poll it."""

    serializer_class = s.GarakImportJobSerializer
    queryset = GarakImport.objects.all()
    parser_classes = [MultiPartParser, FormParser]

    def scoped_queryset(self):
        return selectors.garak_imports(workspace=self.request.workspace)

    @extend_schema(
        request={"multipart/form-data": s.GarakScanImportSerializer},
        responses={202: s.GarakImportJobSerializer, 200: s.GarakImportJobSerializer},
    )
    def create(self, request):
        body = validated(s.GarakScanImportSerializer, request)
        job, queued = services.garak_import_create(
            workspace=request.workspace,
            user=request.user,
            upload=body["file"],
            threshold=body.get("threshold"),
            partial=body["partial"],
        )
        data = s.GarakImportJobSerializer(job, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK)
