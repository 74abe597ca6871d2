"""The online evaluation pages, under /w/<workspace>/online/: `pages` (rules, a rule's
monitor and outcomes, alerts) and their `forms`."""
