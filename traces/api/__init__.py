"""API: ingest keys, traces, spans and sessions (`traces.py`, `serializers.py`) and
trace → evalset (`to_evalset.py`)."""
