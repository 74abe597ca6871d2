"""The production static-files storage: whitenoise's compressed manifest, without following
source-map comments (vendored files name .map files that npm's packages ship but we do not
copy; a missing one would fail `collectstatic`, and so the image build)."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


def _without_source_maps(patterns):
    return tuple(
        (glob, tuple(p for p in rules if "sourceMappingURL" not in str(p)))
        for glob, rules in patterns
    )


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    patterns = _without_source_maps(CompressedManifestStaticFilesStorage.patterns)
