"""Admin: evaluators are browsable; versions are strictly read-only."""

from django.contrib import admin

from .models import Evaluator, EvaluatorTemplate, EvaluatorVersion


@admin.register(Evaluator)
class EvaluatorAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "kind", "score_meaning", "updated_at", "deleted_at"]
    list_filter = ["kind", "score_meaning"]
    search_fields = ["name"]


@admin.register(EvaluatorVersion)
class EvaluatorVersionAdmin(admin.ModelAdmin):
    list_display = ["evaluator", "version", "created_by", "created_at"]
    readonly_fields = [f.name for f in EvaluatorVersion._meta.fields]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(EvaluatorTemplate)
class EvaluatorTemplateAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "kind", "score_meaning"]
