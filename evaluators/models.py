"""Models of the evaluators app."""
