"""The aiohttp sessions of assay.safety.outbound_aio (judges, HTTP targets): the policy holds on
every address dialled — an IP-literal host (which never reaches aiohttp's resolver) in the
connector, a name in the resolver — TLS peers are verified, and a provider's answer is read no
further than its cap, with a declared length or chunked."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl

import aiohttp
import pytest
from aiohttp import web

from assay.safety.outbound import OutboundRefused, outbound_policy, refused_in, ssl_context
from assay.safety.outbound_aio import GuardedResolver, client_session
from evaluators.llm.client import ProviderTooLarge, read_capped

CHUNK = b"x" * 65536
SEEN = web.AppKey("seen", list)


async def _answer(request: web.Request) -> web.StreamResponse:
    request.app[SEEN].append(request.path)
    if request.path == "/chunked":  # no Content-Length: only the streamed count stops it
        response = web.StreamResponse()
        response.enable_chunked_encoding()
        await response.prepare(request)
        for _ in range(64):  # 4 MiB offered
            await response.write(CHUNK)
        await response.write_eof()
        return response
    return web.Response(body=b"ok" if request.path == "/" else CHUNK * 4)


async def _call(policy: str, url_of, path: str = "/"):
    """(what came back or was raised, the paths the app saw) for GET `path`."""
    app = web.Application()
    app[SEEN] = []
    app.router.add_get("/{tail:.*}", _answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    session = client_session(outbound_policy(policy), limit=4, ssl_context=ssl_context())
    try:
        async with session.get(url_of(port) + path) as response:
            outcome = await read_capped(response, 100_000)
    except Exception as exc:  # what the test looks at
        outcome = exc
    finally:
        await session.close()
        await runner.cleanup()
    return outcome, app[SEEN]


def call(policy: str, url_of, path: str = "/"):
    return asyncio.run(_call(policy, url_of, path))


def literal(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def by_name(port: int) -> str:
    return f"http://localhost:{port}"


def test_an_ip_literal_internal_address_is_refused_by_the_connector():
    outcome, seen = call("public", literal)
    assert isinstance(refused_in(outcome), OutboundRefused), outcome
    assert "127.0.0.1" in str(outcome) and "ASSAY_OUTBOUND_ALLOW" in str(outcome)
    assert seen == []  # never connected
    assert call("public,127.0.0.1", literal) == (b"ok", ["/"])


def test_a_name_resolving_to_an_internal_address_is_refused_through_the_session():
    outcome, seen = call("public", by_name)
    assert isinstance(refused_in(outcome), OutboundRefused), outcome
    assert "localhost (127.0.0.1)" in str(outcome) or "localhost (::1)" in str(outcome)
    assert seen == []
    assert call("public,localhost", by_name) == (b"ok", ["/"])  # a listed name is allowed


def test_the_resolver_checks_every_address_a_name_resolves_to():
    async def resolve(policy: str):
        resolver = GuardedResolver(outbound_policy(policy))
        try:
            return await resolver.resolve("localhost", 80)
        finally:
            await resolver.close()

    with pytest.raises(OutboundRefused, match=r"localhost \("):
        asyncio.run(resolve("public"))
    allowed = asyncio.run(resolve("public,127.0.0.0/8,::1"))
    assert {result["host"] for result in allowed} <= {"127.0.0.1", "::1"}


@pytest.mark.parametrize("path", ["/declared", "/chunked"])
def test_a_provider_answer_past_its_cap_is_cut(path):
    outcome, seen = call("*", literal, path)
    assert isinstance(outcome, ProviderTooLarge), outcome
    assert str(outcome) == "the provider's answer is larger than 100,000 bytes"
    assert seen == [path]


def _self_signed(tmp_path) -> ssl.SSLContext:
    """A server context with a certificate for 127.0.0.1 that no trust store knows."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    return context


def test_an_https_peer_whose_certificate_no_one_trusts_is_refused(tmp_path):
    async def fetch():
        app = web.Application()
        app[SEEN] = []
        app.router.add_get("/", _answer)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=_self_signed(tmp_path))
        await site.start()
        port = runner.addresses[0][1]
        session = client_session(outbound_policy("*"), limit=1, ssl_context=ssl_context())
        try:
            async with session.get(f"https://127.0.0.1:{port}/") as response:
                return await response.read()
        except aiohttp.ClientError as exc:
            return exc
        finally:
            await session.close()
            await runner.cleanup()

    outcome = asyncio.run(fetch())
    assert isinstance(outcome, aiohttp.ClientConnectorCertificateError), outcome
    assert "certificate verify failed" in str(outcome)
