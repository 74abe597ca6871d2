"""Admin: sets and imports are browsable; versions are read-only."""

from django.contrib import admin

from assay.admin import ReadOnlyAdmin

from .models import EvalSet, EvalSetImport, EvalSetVersion


@admin.register(EvalSet)
class EvalSetAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "updated_at", "deleted_at"]
    search_fields = ["name"]


@admin.register(EvalSetVersion)
class EvalSetVersionAdmin(ReadOnlyAdmin):
    list_display = ["evalset", "version", "item_count", "created_by", "created_at"]


@admin.register(EvalSetImport)
class EvalSetImportAdmin(admin.ModelAdmin):
    list_display = ["file_name", "evalset", "status", "rows_done", "rows_total", "created_at"]
    list_filter = ["status", "format"]
