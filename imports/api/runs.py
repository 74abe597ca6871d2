"""API: /api/v1/imports/ — importing another tool's files with one of the importer kinds, and
the workspace's imports with their reports."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated

from .. import selectors
from ..kinds import KINDS, ImportProblem
from ..models import ImportRun
from ..services import import_run, uploads_read
from .serializers import ImportRequestSerializer, ImportRunSerializer

IMPORT_DOCS = extend_schema_view(
    list=extend_schema(
        summary=_("List imports from other tools"),
        description=_(
            "The workspace's imports, newest first: the importer, the files' names, "
            "completed or failed (with why), and each one's report."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an import and its report"),
        description=_(
            "One import and its report: each source grader, assertion or column and "
            "what it became (or why not), and the ids of the evalsets, evaluators and experiments "
            "it created."
        ),
    ),
)


@IMPORT_DOCS
class ImportRunViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    serializer_class = ImportRunSerializer
    queryset = ImportRun.objects.all()

    def scoped_queryset(self):
        return selectors.imports_list(workspace=self.request.workspace)


class ImportKindViewSet(WorkspaceScopedViewSet):
    serializer_class = ImportRunSerializer
    queryset = ImportRun.objects.all()
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def scoped_queryset(self):
        return selectors.imports_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_("Import files with an importer"),
        description=_(
            "Uploads another tool's files (multipart, one field per file the importer "
            "takes: openai-evals `definition` and `data`; promptfoo `config` and its test files; "
            "dataset `file`) with `options` as JSON, and imports them all or nothing: 201 with the "
            "import and its report, 200 with the earlier import when the same files were imported "
            "before (or are being imported), 400 naming the file and the place of a problem "
            "(nothing is kept). Files larger than ASSAY_IMPORT_INLINE_BYTES in all (1 MB by "
            "default) are imported by a worker: 202 with the import `queued` and `poll_url` (Get "
            "an import and its report) until its `status` is completed or failed."
        ),
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH)],
        request={"multipart/form-data": ImportRequestSerializer},
        responses={201: ImportRunSerializer, 200: ImportRunSerializer, 202: ImportRunSerializer},
    )
    def create(self, request, kind=None):
        if kind not in KINDS:
            raise Http404
        self.get_queryset()  # a workspace is needed
        body = validated(ImportRequestSerializer, request)
        uploads = {name: f for name, f in request.FILES.items()}
        try:
            run, new = import_run(
                workspace=request.workspace,
                user=request.user,
                kind=kind,
                files=uploads_read(kind=kind, uploads=uploads),
                file_names={name: f.name[:200] for name, f in uploads.items()},
                options=body["options"],
                queue_over=settings.ASSAY_IMPORT_INLINE_BYTES,
            )
        except ImportProblem as problem:
            raise serializers.ValidationError({problem.where: [problem.message]}) from None
        data = ImportRunSerializer(run).data
        if not new:
            return Response(data, status=status.HTTP_200_OK)
        if run.is_active:
            poll = reverse("import-detail", kwargs={"id": run.public_id})
            data["poll_url"] = request.build_absolute_uri(poll)
            return Response(data, status=status.HTTP_202_ACCEPTED)
        return Response(data, status=status.HTTP_201_CREATED)
