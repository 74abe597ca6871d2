"""The evaluators API, /api/v1/evaluators/ and /api/v1/evaluator-templates/: `library` (evaluators,
their versions and test cases, templates) and their `serializers`."""
