"""Admin for platform objects. Secrets show no value; tokens show only their prefix."""

from django.contrib import admin

from .models import ApiToken, Membership, ModelProvider, Secret, Workspace


class ReadOnlyAdmin(admin.ModelAdmin):
    """For immutable rows (submitted versions): browsable, never added, changed or deleted."""

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    inlines = [MembershipInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "user", "workspace", "created_at", "revoked_at"]
    exclude = ["key_hash"]
    readonly_fields = ["prefix", "user", "workspace", "created_at", "last_used_at"]


@admin.register(Secret)
class SecretAdmin(admin.ModelAdmin):
    list_display = ["public_id", "workspace", "updated_at"]
    exclude = ["ciphertext"]
    readonly_fields = ["workspace", "hint"]


@admin.register(ModelProvider)
class ModelProviderAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "base_url", "default_model"]
    exclude = ["api_key"]
