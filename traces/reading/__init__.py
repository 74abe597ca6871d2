"""What the lists are read with, beside `traces/selectors.py`: keyset pages (`keyset.py`), the
filter checks the API and the pages share (`filters.py`) and the registry of scores other apps
keep for spans and traces (`scores.py`)."""
