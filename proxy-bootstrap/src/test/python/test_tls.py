"""TLS from psycopg and asyncpg to Ashlar: sslmode=require and verify-full, SCRAM-SHA-256-PLUS channel binding, and a
user that may log in over TLS only.

The proxy's certificate names 127.0.0.1 and is signed by a CA the fixtures made (DriverDatabases, ASHLAR_SSL_ROOTCERT).
These tests run on the proxy's targets only: the reference PostgreSQL of `direct` serves no TLS, which would prove
nothing here (ClientTlsTest, in Java, covers pgjdbc, psql and the openGauss driver).
"""

import dataclasses
import ssl

import asyncpg
import psycopg
import pytest

from support import HANG_SECONDS, Endpoint, Target, asyncpg_connection, environment, run

PROXY_TARGETS = ["proxy_sharded", "proxy_pooled"]


def tls_user(target: Target) -> Endpoint:
    env = environment()
    return dataclasses.replace(target.endpoint, user=env.tls_user, password=env.tls_password)


def verifying_context(cafile: str) -> ssl.SSLContext:
    """What asyncpg's verify-full is: the CA's signature and the host name (an IP address here) checked."""
    context = ssl.create_default_context(cafile=cafile)
    context.check_hostname = True
    return context


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_psycopg_require_and_verify_full(target: Target):
    env = environment()
    for options in ({"sslmode": "require"}, {"sslmode": "verify-full", "sslrootcert": env.ssl_rootcert}):
        with target.endpoint.connect(conninfo_extra=options) as conn:
            assert conn.pgconn.ssl_in_use, options
            assert conn.execute("select count(*) from t_order where order_id <= 3").fetchone() == (3,)


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_psycopg_refuses_a_certificate_another_ca_did_not_sign(target: Target):
    env = environment()
    with pytest.raises(psycopg.OperationalError, match="certificate verify failed"):
        target.endpoint.connect(conninfo_extra={"sslmode": "verify-full", "sslrootcert": env.ssl_other_rootcert})


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_psycopg_channel_binding_required(target: Target):
    """libpq's channel_binding=require accepts SCRAM-SHA-256-PLUS only: the login is bound to the proxy's certificate."""
    env = environment()
    endpoint = tls_user(target)
    with endpoint.connect(conninfo_extra={"sslmode": "verify-full", "sslrootcert": env.ssl_rootcert,
                                          "channel_binding": "require"}) as conn:
        assert conn.pgconn.ssl_in_use
        assert conn.execute("select 40 + 2").fetchone() == (42,)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        dataclasses.replace(endpoint, password="wrong").connect(conninfo_extra={"sslmode": "require",
                                                                               "channel_binding": "require"})


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_psycopg_user_that_requires_tls_is_refused_in_the_clear(target: Target):
    endpoint = tls_user(target)
    with pytest.raises(psycopg.OperationalError, match="no pg_hba.conf entry for host .*no encryption"):
        endpoint.connect(conninfo_extra={"sslmode": "disable"})
    # prefer, the default, logs it in over TLS
    with endpoint.connect() as conn:
        assert conn.pgconn.ssl_in_use


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_asyncpg_require_and_verify_full(target: Target):
    env = environment()

    async def body():
        for tls in ("require", verifying_context(env.ssl_rootcert)):
            async with asyncpg_connection(target.endpoint, ssl=tls) as conn:
                assert await conn.fetchval("select count(*) from t_order where order_id <= 3") == 3
        async with asyncpg_connection(tls_user(target), ssl=verifying_context(env.ssl_rootcert)) as conn:
            assert await conn.fetchval("select 40 + 2") == 42, "SCRAM over TLS"
    run(body())


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_asyncpg_refuses_a_certificate_another_ca_did_not_sign(target: Target):
    env = environment()

    async def body():
        with pytest.raises(ssl.SSLCertVerificationError):
            async with asyncpg_connection(target.endpoint, ssl=verifying_context(env.ssl_other_rootcert)):
                pass
    run(body())


@pytest.mark.parametrize("target", PROXY_TARGETS, indirect=True)
def test_asyncpg_user_that_requires_tls_is_refused_in_the_clear(target: Target):
    async def body():
        with pytest.raises(asyncpg.exceptions.InvalidAuthorizationSpecificationError) as refused:
            async with asyncpg_connection(tls_user(target), ssl="disable"):
                pass
        assert refused.value.sqlstate == "28000"
        assert "no encryption" in str(refused.value)
    run(body(), timeout=4 * HANG_SECONDS)
