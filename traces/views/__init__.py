"""Pages: traces, sessions and a trace's page (`traces.py`, `forms.py`; a span drawn as what it
holds: `rendering.py`; the panels other apps add: `panels.py`), trace → evalset
(`to_evalset.py`) and Settings → Ingest keys (`ingest_keys.py`)."""
