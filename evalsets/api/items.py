"""API: /api/v1/evalsets/{evalset_id}/items/: a set's rows, in the draft or a version."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from assay.api.base import validated

from .. import selectors, services
from . import serializers as s
from .nested import EvalSetChild, version_param


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluation set's items"),
        description=_(
            "The rows in order, paginated: the draft by default, or a committed `version`. "
            "Filters: `tag` and `q` (text anywhere in the row). Stored media carry a URL that "
            "members can read them by. 404 for a version the set does not have."
        ),
    ),
    create=extend_schema(
        summary=_("Add or change items"),
        description=_(
            "Two bodies. `{data, tags?, human_verdict?, label?}` adds one row to the draft "
            "(201); `data` is {column: text or content object}. `{create: [...], update: "
            "[{item_id, ...}], delete: [item_id, ...]}` makes up to 5,000 changes in one "
            "all-or-nothing call (200): when any change is invalid nothing is saved, and 400 "
            "names every problem by its path (e.g. `create[2].data.question`)."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an item"),
        description=_(
            "One row of the draft, or of a committed `version`; 404 when it is not there."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Edit an item"),
        description=_(
            "Changes a draft row: `data` (replacing the whole row), tags, human_verdict or "
            "label. Committed versions never change. 400 names the field at fault; 404 when "
            "the row is not in the draft."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete an item"),
        description=_(
            "Removes a row from the draft (204); versions that hold it keep it. 404 when the "
            "row is not in the draft."
        ),
    ),
)
class ItemViewSet(EvalSetChild):
    """Rows of a set: the draft by default, or `?version=` for a committed version."""

    serializer_class = s.ItemSerializer
    lookup_field = "item_id"
    lookup_value_converter = "uuid"

    def _context(self) -> dict:
        return {"request": self.request, "workspace": self.request.workspace}

    @extend_schema(
        parameters=[
            OpenApiParameter("version", str, description="a version, or 'draft' (default)"),
            OpenApiParameter("tag", str),
            OpenApiParameter("q", str, description="text search"),
        ],
        responses=s.ItemSerializer(many=True),
    )
    def list(self, request, evalset_id=None):
        evalset = self.evalset()
        params = request.query_params
        version = version_param(evalset, params)
        rows = selectors.items_list(
            evalset=evalset, version=version, tag=params.get("tag", ""), search=params.get("q", "")
        )
        page = self.paginate_queryset(rows)
        data = s.ItemSerializer(page, many=True, context=self._context()).data
        return self.get_paginated_response(data)

    @extend_schema(
        request=s.ItemsBulkSerializer,
        responses={200: s.ItemsBulkResultSerializer, 201: s.ItemSerializer},
    )
    def create(self, request, evalset_id=None):
        evalset = self.evalset()
        if "data" in request.data:
            serializer = s.ItemWriteSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            item = services.item_create(evalset=evalset, **serializer.validated_data)
            body = s.ItemSerializer(item, context=self._context()).data
            return Response(body, status=status.HTTP_201_CREATED)
        body = validated(s.ItemsBulkSerializer, request)
        result = services.items_bulk(evalset=evalset, **body)
        return Response(s.ItemsBulkResultSerializer(result, context=self._context()).data)

    @extend_schema(parameters=[OpenApiParameter("version", str)])
    def retrieve(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        version = version_param(evalset, request.query_params)
        item = selectors.item_get(evalset=evalset, item_id=item_id, version=version)
        return Response(s.ItemSerializer(item, context=self._context()).data)

    @extend_schema(request=s.ItemWriteSerializer, responses=s.ItemSerializer)
    def partial_update(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        selectors.item_get(evalset=evalset, item_id=item_id)
        body = validated(s.ItemWriteSerializer, request)
        fields = {k: v for k, v in body.items() if k != "item_id"}
        item = services.item_update(evalset=evalset, item_id=item_id, **fields)
        return Response(s.ItemSerializer(item, context=self._context()).data)

    def destroy(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        selectors.item_get(evalset=evalset, item_id=item_id)
        services.item_delete(evalset=evalset, item_id=item_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
