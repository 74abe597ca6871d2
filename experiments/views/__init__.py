"""Pages: runs (list, new, detail, progress), results (dashboard, drawer, exports), compare."""
