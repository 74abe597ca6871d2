"""Admin: evaluators are browsable; versions are strictly read-only."""

from django.contrib import admin

from assay.admin import ReadOnlyAdmin

from .models import Evaluator, EvaluatorTemplate, EvaluatorVersion


@admin.register(Evaluator)
class EvaluatorAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "kind", "score_meaning", "updated_at", "deleted_at"]
    list_filter = ["kind", "score_meaning"]
    search_fields = ["name"]


@admin.register(EvaluatorVersion)
class EvaluatorVersionAdmin(ReadOnlyAdmin):
    list_display = ["evaluator", "version", "created_by", "created_at"]


@admin.register(EvaluatorTemplate)
class EvaluatorTemplateAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "kind", "score_meaning"]
