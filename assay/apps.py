from django.apps import AppConfig


class AssayConfig(AppConfig):
    name = "assay"
    verbose_name = "Assay platform"
