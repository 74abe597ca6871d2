"""API of experiments, by resource: `experiments` (the runs and what is done to them; cancel
and retry-failed from `runs`, shared by every kind of run), `results` (an experiment's results,
grid, corrections and exports), `garak` (garak imports); their words in `schema`."""

from .experiments import ExperimentViewSet
from .garak import GarakImportViewSet

__all__ = ["ExperimentViewSet", "GarakImportViewSet"]
