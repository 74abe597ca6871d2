"""Pages: the evaluator library and editor (`library`), the debug panel's endpoints (`debug`)."""
