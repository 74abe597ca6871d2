"""The imports pages, under /w/<workspace>/imports/: `pages` (the list, the form, a run's
report) and the upload `forms`."""
