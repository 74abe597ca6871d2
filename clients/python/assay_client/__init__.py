"""Python client for Assay's REST API, and the `assay` command line.

from assay_client import Client

client = Client()  # ASSAY_URL / ASSAY_TOKEN, or the file `assay login` wrote
result = client.run_experiment(
    evalset="QA@1.0.0", evaluators=["Contains@1.0.0"], task=lambda row: answer(row["input"])
)
"""

__version__ = "0.1.0"

from .client import Client  # noqa: E402
from .errors import AssayError, AssayTimeout  # noqa: E402
from .gate import GateResult  # noqa: E402
from .results import EvaluatorResult, ExperimentResult  # noqa: E402

__all__ = [
    "AssayError",
    "AssayTimeout",
    "Client",
    "EvaluatorResult",
    "ExperimentResult",
    "GateResult",
    "__version__",
]
