"""Ingest: the OTLP/HTTP endpoint (`receiver.py`; `otlp.py`: caps, decoding, answers) and the
worker's side, storing a batch's spans (`storing.py`) and keeping per-trace summaries
(`summaries.py`). The span rate is `services/pressure.py`; the tasks are `traces/tasks.py`."""
