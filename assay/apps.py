from django.apps import AppConfig


class AssayConfig(AppConfig):
    name = "assay"
    verbose_name = "Assay platform"

    def ready(self) -> None:
        # registers the API token scheme with the OpenAPI generator
        from .api import schema  # noqa: F401
