"""API: /api/v1/evaluators/, their versions, and /api/v1/evaluator-templates/."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import LibraryVersionViewSet, WorkspaceMixin, WorkspaceScopedViewSet, validated

from .. import selectors, services
from ..models import Evaluator
from . import serializers as s


@extend_schema_view(
    list=extend_schema(
        summary=_("List evaluators"),
        description=_(
            "The workspace's evaluators, most recently updated first, each with its latest "
            "version. Filters: `q` (text in the name or description), `kind` (llm or code), "
            "`tag`, `creator` (a username) and `deleted=true` (the deleted ones instead of the "
            "live ones); `sort` is updated, name or created, and a leading - reverses it."
        ),
    ),
    create=extend_schema(
        summary=_("Create an evaluator"),
        description=_(
            "Creates an evaluator with an editable draft: blank from `kind` (llm or code, "
            "with `language` python or javascript for code), from a preset `template` (see "
            "List evaluator templates; `prompt_locale` en or zh-hans picks a judge's prompt, "
            "default the request's language), or with a full `config`. Submit a version to use "
            "it in experiments. 400 names the field: neither kind nor template, no name without "
            "a template, an unknown template, language or prompt_locale, a name already taken, "
            "or a config the kind refuses (named by path, e.g. `config.prompt`)."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluator"),
        description=_(
            "One evaluator with its draft `config`, whether the draft differs from the latest "
            "version (`draft_changed`) and `latest_version`. A deleted evaluator stays readable "
            "(`deleted: true`) because experiments may use its versions."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Edit an evaluator's draft"),
        description=_(
            "Changes the draft and its details: name, description, tags, score_meaning, "
            "default_policy or config. Submitted versions never change; submit a new version "
            "to use the edited draft in experiments. Nothing is saved unless every field is "
            "valid: 400 names each problem (config problems by path), and is also the answer "
            "for a deleted evaluator."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete an evaluator"),
        description=_(
            "Soft delete (204): the evaluator leaves the list (list it with `deleted=true`) "
            "and can be restored; experiments that use its versions keep them."
        ),
    ),
    restore=extend_schema(
        summary=_("Restore a deleted evaluator"),
        description=_(
            "Undoes a delete; restoring a live evaluator changes nothing. 400 when a live "
            "evaluator has taken its name meanwhile: rename that one first."
        ),
    ),
    copy=extend_schema(
        summary=_("Copy an evaluator"),
        description=_(
            "Creates a new evaluator (201) with this one's draft and details, named after it "
            'with "(copy)" (numbered when taken). Versions and test cases are not copied.'
        ),
    ),
    debug=extend_schema(
        summary=_("Run an evaluator on test rows"),
        description=_(
            "Runs the draft, an unsaved `config` or a submitted `version` on 1 to 10 `turns` "
            "and returns one outcome per turn: status, score, verdict, reason, stdout, the "
            "rendered judge request, the raw answer, latency and tokens. Nothing is saved. A "
            "turn is {evaluate_dataset_fields: {name: content}, evaluate_target_output_fields: "
            "{name: content}, ext: {key: text}}, where content is text or a content object; "
            'a flat turn, {"input": "…", "actual_output": "…"}, is nested the same way '
            "(output names to the target's fields). 400 names the turn field or config key at "
            "fault; a row that fails to run is an outcome with status error or timeout, not an "
            "error status."
        ),
    ),
)
class EvaluatorViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Evaluators: the draft is edited with PATCH; versions are submitted under /versions/."""

    serializer_class = s.EvaluatorSerializer
    queryset = Evaluator.objects.all()

    def scoped_queryset(self):
        params = self.request.query_params
        if self.action != "list":
            return Evaluator.objects.filter(workspace=self.request.workspace)
        return selectors.evaluator_list(
            workspace=self.request.workspace,
            search=params.get("q", ""),
            kind=params.get("kind", ""),
            tag=params.get("tag", ""),
            creator=params.get("creator", ""),
            sort=params.get("sort", "updated"),
            deleted=params.get("deleted") in {"1", "true"},
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(n, str, required=False)
            for n in ("q", "kind", "tag", "creator", "sort", "deleted")
        ]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=s.EvaluatorCreateSerializer, responses={201: s.EvaluatorSerializer})
    def create(self, request):
        body = validated(s.EvaluatorCreateSerializer, request)
        evaluator = services.evaluator_create_from_choice(
            workspace=request.workspace, user=request.user, **body
        )
        return Response(s.EvaluatorSerializer(evaluator).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.EvaluatorUpdateSerializer, responses=s.EvaluatorSerializer)
    def partial_update(self, request, id=None):
        evaluator = self.get_object()  # an outsider learns nothing from validation errors
        body = validated(s.EvaluatorUpdateSerializer, request)
        evaluator = services.evaluator_update_draft(evaluator=evaluator, user=request.user, **body)
        return Response(s.EvaluatorSerializer(evaluator).data)

    def destroy(self, request, id=None):
        services.evaluator_delete(evaluator=self.get_object(), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=s.EvaluatorSerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request, id=None):
        evaluator = services.evaluator_restore(evaluator=self.get_object(), user=request.user)
        return Response(s.EvaluatorSerializer(evaluator).data)

    @extend_schema(request=None, responses={201: s.EvaluatorSerializer})
    @action(detail=True, methods=["post"])
    def copy(self, request, id=None):
        evaluator = services.evaluator_copy(evaluator=self.get_object(), user=request.user)
        return Response(s.EvaluatorSerializer(evaluator).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.DebugRequestSerializer, responses=s.DebugResponseSerializer)
    @action(detail=True, methods=["post"])
    def debug(self, request, id=None):
        """Run the draft (or `config`, or `version`) on 1–10 turns; nothing is saved."""
        evaluator = self.get_object()
        body = validated(s.DebugRequestSerializer, request)
        outcomes = services.evaluator_debug(evaluator=evaluator, **body)
        return Response({"results": [o.to_dict() for o in outcomes]})


class EvaluatorChildMixin(WorkspaceMixin):
    """For routes under /evaluators/{evaluator_id}/: the parent, scoped to the workspace."""

    def evaluator(self) -> Evaluator:
        return self.parent(selectors.evaluator_get, "evaluator_id")


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluator's versions"),
        description=_(
            "The submitted versions of one evaluator, highest SemVer first, each with its "
            "frozen config and the result of its test cases. 404 when the evaluator is not in "
            "this workspace."
        ),
    ),
    create=extend_schema(
        summary=_("Submit an evaluator version"),
        description=_(
            "Freezes the current draft as `version` (SemVer, greater than the latest) with an "
            "optional `change_note`, after the kind's checks (for code, a run in the sandbox). "
            "When the evaluator has test cases they run first and the version records their "
            "result in `test_result`, agreeing or not. 400 names the field: a malformed or not "
            "greater version, a deleted evaluator, or draft problems by config path."
        ),
        request=s.VersionSubmitSerializer,
        responses={201: s.VersionSerializer},
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluator version"),
        description=_(
            "One version by its SemVer string (e.g. 1.2.0) with its frozen config and test "
            "result. 404 for a version the evaluator does not have."
        ),
    ),
    diff=extend_schema(
        summary=_("Diff two evaluator versions"),
        description=_(
            "Every difference between two versions that can change results: the score "
            "meaning, the default policy (`default_policy.kind`, `default_policy.threshold`) "
            "and the config, field by field. Each change has its `path`, a plain `label` "
            "(Threshold, System message, Model), `change` (added/removed/changed), `old` and "
            "`new` with their readable `old_text` and `new_text`, and for text a unified "
            "`diff`. `old` and `new` are version strings or `draft` (`new` defaults to the "
            "draft). 404 when either version does not exist."
        ),
    ),
)
class VersionViewSet(EvaluatorChildMixin, LibraryVersionViewSet):
    """Submitted versions of one evaluator (the saved draft, its tests run), and diffs."""

    serializer_class = s.VersionSerializer
    create_serializer_class = s.VersionSubmitSerializer

    def item(self) -> Evaluator:
        return self.evaluator()

    def version_create(self, *, item, user, body):
        return services.evaluator_submit_with_tests(evaluator=item, user=user, **body)

    @extend_schema(
        parameters=[
            OpenApiParameter("old", str, required=True, description="a version or 'draft'"),
            OpenApiParameter("new", str, description="a version or 'draft'"),
        ],
        responses=s.DiffSerializer,
    )
    @action(detail=False, methods=["get"])
    def diff(self, request, evaluator_id=None):
        evaluator = self.evaluator()
        old, new = request.query_params.get("old", ""), request.query_params.get("new", "draft")
        changes = services.version_diff(
            old=selectors.evaluator_snapshot(evaluator=evaluator, ref=old),
            new=selectors.evaluator_snapshot(evaluator=evaluator, ref=new),
        )
        for change in changes:
            change.pop("pairs", None)  # the page's side-by-side rows; `diff` says the same
        return Response({"old": old, "new": new, "changes": changes})


@extend_schema_view(
    list=extend_schema(
        summary=_("List evaluator templates"),
        description=_(
            "The preset catalogue, the same in every workspace: each template's kind, inputs, "
            "score meaning, default policy, languages and starter configs. Filter with `kind` "
            "(llm or code). Create an evaluator from one with `template: <slug>`."
        ),
        parameters=[OpenApiParameter("kind", str, required=False)],
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluator template"),
        description=_("One template by its slug; 404 for a slug the catalogue does not have."),
    ),
)
class TemplateViewSet(WorkspaceMixin, viewsets.ReadOnlyModelViewSet):
    """The preset catalogue (the same for every workspace)."""

    serializer_class = s.TemplateSerializer
    lookup_field = "slug"
    lookup_value_converter = "slug"
    workspace_optional = True

    def get_queryset(self):
        return selectors.template_list(kind=self.request.query_params.get("kind", ""))


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluator's test cases"),
        description=_(
            "Test cases are turns with the verdict the evaluator should give. They run on "
            "every submit (the version records the agreement) and with Run an evaluator's "
            "test cases."
        ),
    ),
    create=extend_schema(
        summary=_("Add a test case"),
        description=_(
            "A `name`, a `turn` (the shape the debug run takes), the `expected_verdict` (pass, "
            "fail or unknown) and an optional `note` (201). 400 names the field at fault, such "
            "as a required input variable of the draft that the turn lacks."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a test case"),
        description=_("One test case of the evaluator; 404 when it belongs to another one."),
    ),
    partial_update=extend_schema(
        summary=_("Edit a test case"),
        description=_("Changes the fields given; 400 names the field at fault."),
    ),
    destroy=extend_schema(
        summary=_("Delete a test case"),
        description=_("Deletes the test case (204); versions keep the results they recorded."),
    ),
    run=extend_schema(
        summary=_("Run an evaluator's test cases"),
        description=_(
            "Runs every test case on the current draft and returns `total`, `agreed`, "
            "`passed` (every case agreed) and, per case, the expected and actual verdict, "
            "status, score, reason and error. Nothing is saved."
        ),
    ),
)
class TestCaseViewSet(EvaluatorChildMixin, viewsets.ModelViewSet):
    """An evaluator's test cases (debug turns with the expected verdict) and a run action."""

    serializer_class = s.TestCaseSerializer
    lookup_field = "public_id"
    lookup_url_kwarg = "id"
    lookup_value_converter = "uuid"
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Evaluator.objects.none()
        return self.evaluator().test_cases.all()

    def create(self, request, evaluator_id=None):
        evaluator = self.evaluator()
        body = validated(s.TestCaseSerializer, request)
        case = services.testcase_create(evaluator=evaluator, user=request.user, **body)
        return Response(s.TestCaseSerializer(case).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, evaluator_id=None, id=None):
        case = self.get_object()
        body = validated(s.TestCaseSerializer, request, partial=True)
        case = services.testcase_update(case=case, **body)
        return Response(s.TestCaseSerializer(case).data)

    def perform_destroy(self, instance):
        services.testcase_delete(case=instance)

    @extend_schema(request=None, responses=dict)
    @action(detail=False, methods=["post"])
    def run(self, request, evaluator_id=None):
        """Run every test case on the draft and report agreement."""
        return Response(services.evaluator_run_tests(evaluator=self.evaluator()))
