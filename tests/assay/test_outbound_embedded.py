"""The `public` outbound policy refuses IPv6 forms that embed an IPv4 address (NAT64, 6to4,
IPv4-compatible, IPv4-mapped and -translated) and multicast, which Python's `is_global` passes:
each reaches an internal IPv4 host through a gateway or the host's own stack."""

import ipaddress

import pytest
from django.test import override_settings

from assay.safety.outbound import OutboundRefused, outbound_policy, resolve_checked, url_problem

pytestmark = pytest.mark.django_db

REFUSED = [
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b::808:808",  # NAT64 of a public address: still a gateway's business, refused
    "64:ff9b:1::a9fe:a9fe",  # NAT64 local-use prefix
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "2002:808:808::1",  # 6to4 of a public address
    "::a9fe:a9fe",  # IPv4-compatible
    "::8.8.8.8",
    "::ffff:8.8.8.8",  # IPv4-mapped
    "::ffff:0:a9fe:a9fe",  # IPv4-translated
    "224.0.1.1",  # multicast, global scope
    "239.1.1.1",
    "ff0e::1",
]


@pytest.mark.parametrize("address", REFUSED)
def test_public_refuses_embedded_ipv4_and_multicast(address):
    policy = outbound_policy("public")
    assert not policy.allows_address(ipaddress.ip_address(address))
    with pytest.raises(OutboundRefused, match="not allowed"):
        resolve_checked(address, 80, policy)  # the connect-time check, on the literal address


def test_public_still_allows_public_unicast_and_listed_ranges():
    policy = outbound_policy("public,64:ff9b::/96")
    for address in ("8.8.8.8", "2606:4700::1111", "64:ff9b::a9fe:a9fe"):
        assert policy.allows_address(ipaddress.ip_address(address)), address


def test_saving_a_provider_url_with_an_embedded_address_is_refused(api, workspace):
    with override_settings(ASSAY_OUTBOUND_ALLOW="public"):
        for url in ("http://[64:ff9b::a9fe:a9fe]/v1", "http://[2002:a9fe:a9fe::1]:8080/v1"):
            body = {"name": "x", "base_url": url, "default_model": "m"}
            response = api.post("/api/v1/providers/", body, format="json")
            assert response.status_code == 400, url
            message = response.json()["error"]["message"]
            assert message.startswith("base_url:") and "ASSAY_OUTBOUND_ALLOW" in message
    assert url_problem("http://[64:ff9b::a9fe:a9fe]/", outbound_policy("public")) is not None
