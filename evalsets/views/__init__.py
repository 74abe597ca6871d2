"""The evaluation set pages, under /w/<workspace>/evalsets/: `pages` (the list, a set's draft,
versions and imports, row editing) and their `forms`."""
