"""The `openai` client instrumented by OpenTelemetry's own instrumentation
(`opentelemetry-instrumentation-openai-v2`, the GenAI semantic conventions with the messages on
the span) calling the suite's OpenAI-compatible server, exported by the SDK's OTLP/HTTP
exporter to a live server with a real worker."""

import openai
import pytest
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

from tests.support.llm_server import CLEAN
from traces.models import SpanKind, SpanStatus
from traces.services import ingest_key_issue

from .test_real_clients import provider_for, stored_spans

pytestmark = pytest.mark.integration


@pytest.fixture
def instrumented(monkeypatch, live_server, workspace):
    # the messages go on the span only when asked (they may hold personal data)
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    provider = provider_for(live_server, ingest_key_issue(workspace=workspace, name="v2").key)
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    yield
    instrumentor.uninstrument()
    provider.shutdown()


def test_the_official_openai_instrumentation(
    celery_worker_inproc, live_server, workspace, llm_server, instrumented
):
    client = openai.OpenAI(base_url=llm_server.base_url, api_key="sk-local", max_retries=0)
    client.chat.completions.create(
        model="judge-model",
        messages=[
            {"role": "system", "content": "You judge."},
            {"role": "user", "content": "Is 2 + 2 = 4?"},
        ],
    )
    (row,) = stored_spans(1)
    assert (row.kind, row.model, row.status) == (SpanKind.LLM, "judge-model", SpanStatus.UNSET)
    assert row.tokens_in > 0 and row.tokens_out > 0
    assert row.input_messages["messages"] == [
        {"role": "system", "content": "You judge."},
        {"role": "user", "content": "Is 2 + 2 = 4?"},
    ]
    assert row.output_messages["messages"] == [{"role": "assistant", "content": CLEAN}]
    assert (row.input_text, row.output_text) == ("Is 2 + 2 = 4?", CLEAN)
