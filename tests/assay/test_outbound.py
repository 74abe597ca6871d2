"""ASSAY_OUTBOUND_ALLOW: URLs are checked when saved and every connection's resolved address
is checked when it is made, so a private or loopback host is refused in production."""

import ipaddress

import pytest
from django.test import override_settings

from assay.safety.outbound import OutboundRefused, outbound_policy, resolve_checked, url_problem
from evaluators.services import evaluator_debug
from tests.support.factories import make_llm_evaluator, make_provider

pytestmark = pytest.mark.django_db

TURN = {
    "evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "q"}},
    "evaluate_target_output_fields": {"output": {"content_type": "Text", "text": "a"}},
}


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.5",
        "192.168.1.1",
        "172.16.0.1",
        "169.254.169.254",
        "::1",
        "fc00::1",
        "100.64.0.1",
        "0.0.0.0",
        "::ffff:127.0.0.1",
    ],
)
def test_public_refuses_internal_ranges(address):
    assert not outbound_policy("public").allows_address(ipaddress.ip_address(address))


def test_public_allows_public_addresses_and_listed_ranges():
    policy = outbound_policy("public,10.1.0.0/16,llm.internal")
    assert policy.allows_address(ipaddress.ip_address("93.184.216.34"))
    assert policy.allows_address(ipaddress.ip_address("10.1.2.3"))
    assert not policy.allows_address(ipaddress.ip_address("10.2.0.1"))
    assert policy.allows_host("LLM.internal.")
    assert outbound_policy("*").allows_address(ipaddress.ip_address("127.0.0.1"))


def test_a_bad_policy_names_the_entry():
    with pytest.raises(ValueError, match="not_a host!"):
        outbound_policy("public,not_a host!")


def test_names_are_checked_on_the_address_they_resolve_to():
    with pytest.raises(OutboundRefused, match=r"localhost \(127\.0\.0\.1\)"):
        resolve_checked("localhost", 80, outbound_policy("public"))
    assert resolve_checked("localhost", 80, outbound_policy("public,127.0.0.0/8")) == "127.0.0.1"


def test_saving_a_refused_url_names_the_field(api, workspace):
    with override_settings(ASSAY_OUTBOUND_ALLOW="public"):
        for url in ("http://127.0.0.1:9/v1", "http://localhost:9/v1", "http://[::1]:9/v1"):
            body = {"name": "x", "base_url": url, "default_model": "m"}
            response = api.post("/api/v1/providers/", body, format="json")
            assert response.status_code == 400, url
            error = response.json()["error"]
            assert (
                error["message"].startswith("base_url:")
                and "ASSAY_OUTBOUND_ALLOW" in error["message"]
            )
    assert url_problem("https://api.example.com/v1", outbound_policy("public")) is None


def test_a_judge_call_to_a_refused_address_is_stopped_at_connect_time(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)  # saved while allowed
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    with override_settings(ASSAY_OUTBOUND_ALLOW="public"):
        (outcome,) = evaluator_debug(evaluator=judge, turns=[TURN])
    assert outcome.status == "error"
    assert "not allowed" in outcome.error and "127.0.0.1" in outcome.error
    assert "after" not in outcome.error  # refused once, never retried
    assert llm_server.chat_requests() == []
    with override_settings(ASSAY_OUTBOUND_ALLOW="public,127.0.0.1"):
        (outcome,) = evaluator_debug(evaluator=judge, turns=[TURN])
    assert outcome.status == "success" and len(llm_server.chat_requests()) == 1
