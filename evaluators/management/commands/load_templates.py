from django.core.management.base import BaseCommand

from evaluators.presets.sync import templates_sync


class Command(BaseCommand):
    help = "Load the preset evaluator templates from evaluators/presets/ (idempotent)."

    def handle(self, *args, **options):
        created, updated = templates_sync()
        self.stdout.write(f"templates: {created} created, {updated} updated")
