"""The evaluation sets API, /api/v1/evalsets/: `sets` (with exports and media uploads), their
`items`, `versions` and `imports`, and their `serializers`."""
