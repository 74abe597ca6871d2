"""Admin: sets and imports are browsable; versions are read-only."""

from django.contrib import admin

from .models import EvalSet, EvalSetImport, EvalSetVersion


@admin.register(EvalSet)
class EvalSetAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "updated_at", "deleted_at"]
    search_fields = ["name"]


@admin.register(EvalSetVersion)
class EvalSetVersionAdmin(admin.ModelAdmin):
    list_display = ["evalset", "version", "item_count", "created_by", "created_at"]
    readonly_fields = [f.name for f in EvalSetVersion._meta.fields]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(EvalSetImport)
class EvalSetImportAdmin(admin.ModelAdmin):
    list_display = ["file_name", "evalset", "status", "rows_done", "rows_total", "created_at"]
    list_filter = ["status", "format"]
