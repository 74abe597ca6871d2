"""The imports API, `/api/v1/imports/`: `runs` (the runs and each importer kind's upload) and
their `serializers`."""
