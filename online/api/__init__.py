"""The online evaluation API, `/api/v1/online-rules/`: `rules` (rules, their outcomes,
monitor, backfills and alerts) and their `serializers`."""
