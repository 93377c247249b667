"""What the driver suites share: where to connect, where a row must land, and timeouts.

PythonDriversTest (proxy-bootstrap, JUnit) starts one PostgreSQL server and an Ashlar proxy (DriverDatabases.java)
and runs pytest with ASHLAR_* variables that say where they listen. Every test runs against one or more *targets*:

  proxy_sharded  the proxy's sharded logical database (t_order, t_order_item over ds_0/ds_1, t_address broadcast)
  proxy_pooled   the proxy's logical database without rules, one data source whose pool holds 2 connections
  direct         PostgreSQL itself: the reference database, plain tables holding the same rows

A test that fails on `direct` is a wrong test; one that passes on `direct` and fails through the proxy is a proxy bug.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field

import asyncpg
import psycopg
import pytest

#: How long one client operation (connect, a statement, a fetch) may take before the test calls it a hang.
HANG_SECONDS = float(os.environ.get("ASHLAR_HANG_SECONDS", "5"))

#: First order_id of rows the tests write; the fixtures' own rows stay below it.
WRITE_KEYS_FROM = 1_000_000

SHARDED_TABLES = ("t_order", "t_order_item")

TARGETS = ("proxy_sharded", "proxy_pooled", "direct")


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise pytest.UsageError(
            f"{name} is not set: run these suites through PythonDriversTest "
            "(./mvnw -B -pl proxy-bootstrap -am verify -Dtest=PythonDriversTest -Dsurefire.failIfNoSpecifiedTests=false), "
            "or export the variables DriverDatabases.main prints")
    return value


@dataclass(frozen=True)
class Endpoint:
    """One database a client can log in to."""

    host: str
    port: int
    user: str
    password: str
    dbname: str

    def conninfo(self, **extra) -> str:
        return psycopg.conninfo.make_conninfo(host=self.host, port=self.port, user=self.user, password=self.password,
                                              dbname=self.dbname, connect_timeout=int(HANG_SECONDS), **extra)

    def connect(self, **kwargs) -> psycopg.Connection:
        """A psycopg connection (autocommit unless told otherwise)."""
        kwargs.setdefault("autocommit", True)
        options = kwargs.pop("conninfo_extra", {})
        return psycopg.connect(self.conninfo(**options), **kwargs)

    async def aconnect(self, **kwargs) -> psycopg.AsyncConnection:
        kwargs.setdefault("autocommit", True)
        options = kwargs.pop("conninfo_extra", {})
        return await asyncio.wait_for(psycopg.AsyncConnection.connect(self.conninfo(**options), **kwargs), HANG_SECONDS)

    def asyncpg_arguments(self) -> dict:
        return dict(host=self.host, port=self.port, user=self.user, password=self.password, database=self.dbname)


@dataclass(frozen=True)
class Environment:
    proxy_sharded: Endpoint
    proxy_pooled: Endpoint
    reference: Endpoint
    pooled_backend: Endpoint
    shards: dict[str, Endpoint]
    role: str
    pooled_max_pool_size: int
    #: The CA that signed the proxy's certificate, another CA that did not, and a user that may log in over TLS only.
    ssl_rootcert: str
    ssl_other_rootcert: str
    tls_user: str
    tls_password: str

    def backend_databases(self) -> list[Endpoint]:
        """Every database of the backend server that holds rows of the logical tables."""
        return [*self.shards.values(), self.pooled_backend, self.reference]

    def server(self) -> Endpoint:
        """The backend server's maintenance database, for server-wide views (pg_locks)."""
        return Endpoint(self.reference.host, self.reference.port, self.reference.user, self.reference.password, "postgres")


def _environment() -> Environment:
    proxy = (_env("ASHLAR_HOST"), int(_env("ASHLAR_PORT")), _env("ASHLAR_USER"), _env("ASHLAR_PASSWORD"))
    backend = (_env("ASHLAR_PG_HOST"), int(_env("ASHLAR_PG_PORT")), _env("ASHLAR_PG_USER"), _env("ASHLAR_PG_PASSWORD"))
    return Environment(
        proxy_sharded=Endpoint(*proxy, _env("ASHLAR_SHARDED_DB")),
        proxy_pooled=Endpoint(*proxy, _env("ASHLAR_POOLED_DB")),
        reference=Endpoint(*backend, _env("ASHLAR_PG_REFERENCE")),
        pooled_backend=Endpoint(*backend, _env("ASHLAR_PG_POOLED")),
        shards={name: Endpoint(*backend, name) for name in _env("ASHLAR_PG_SHARDS").split(",")},
        role=_env("ASHLAR_ROLE"),
        pooled_max_pool_size=int(_env("ASHLAR_POOLED_MAX_POOL_SIZE")),
        ssl_rootcert=_env("ASHLAR_SSL_ROOTCERT"),
        ssl_other_rootcert=_env("ASHLAR_SSL_OTHER_ROOTCERT"),
        tls_user=_env("ASHLAR_TLS_USER"),
        tls_password=_env("ASHLAR_TLS_PASSWORD"))


@dataclass(frozen=True)
class Target:
    """What a test connects to, and where the rows it writes must end up."""

    name: str
    endpoint: Endpoint
    env: Environment = field(repr=False)

    @property
    def sharded(self) -> bool:
        return self.name == "proxy_sharded"

    def placement(self, table: str, order_id: int, user_id: int) -> tuple[Endpoint, str]:
        """The backend database and actual table that must hold a row of t_order or t_order_item."""
        if self.sharded:
            return self.env.shards[f"ds_{user_id % 2}"], f"{table}_{order_id % 2}"
        if self.name == "proxy_pooled":
            return self.env.pooled_backend, table
        return self.env.reference, table

    def actual_tables(self, table: str) -> list[tuple[Endpoint, str]]:
        """Every backend table that holds rows of a logical table for this target."""
        if self.sharded:
            return [(shard, f"{table}_{i}") for shard in self.env.shards.values() for i in range(2)]
        return [self.placement(table, 0, 0)]

    def backend(self) -> Endpoint:
        """The one backend database of a pooled or direct target."""
        assert not self.sharded
        return self.placement("t_order", 0, 0)[0]


ENV: Environment | None = None


def environment() -> Environment:
    global ENV
    if ENV is None:
        ENV = _environment()
    return ENV


def make_target(name: str) -> Target:
    env = environment()
    endpoint = {"proxy_sharded": env.proxy_sharded, "proxy_pooled": env.proxy_pooled, "direct": env.reference}[name]
    return Target(name, endpoint, env)


def delete_written_rows(env: Environment) -> None:
    """Deletes the rows tests wrote, straight from every backend table; a lock a hung proxy holds fails it fast."""
    for database in env.backend_databases():
        with database.connect(conninfo_extra={"options": "-c lock_timeout=5s"}) as conn:
            for table in SHARDED_TABLES:
                actual = [table] if database in (env.reference, env.pooled_backend) else [f"{table}_0", f"{table}_1"]
                for each in actual:
                    conn.execute(f"DELETE FROM {each} WHERE order_id >= %s", (WRITE_KEYS_FROM,))


def assert_rows_placed(target: Target, table: str, rows: list[tuple[int, int, str]]) -> None:
    """Each (order_id, user_id, status) row is in exactly the actual table its keys name, and in no other."""
    problems = []
    for order_id, user_id, status in rows:
        home = target.placement(table, order_id, user_id)
        found = []
        for database, actual in target.actual_tables(table):
            with database.connect() as conn:
                for row in conn.execute(f"SELECT order_id, user_id, status FROM {actual} WHERE order_id = %s", (order_id,)):
                    found.append(((database.dbname, actual), row))
        expected = [((home[0].dbname, home[1]), (order_id, user_id, status))]
        if found != expected:
            problems.append(f"row order_id={order_id} user_id={user_id}: expected {expected}, found {found}")
    assert not problems, "rows not where the keys place them:\n" + "\n".join(problems)


def run(coroutine, timeout: float = 4 * HANG_SECONDS):
    """Runs an async test body in a fresh event loop; a body that takes longer than `timeout` fails as a hang."""
    async def body():
        try:
            return await asyncio.wait_for(coroutine, timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"hang: the test did not finish in {timeout} s") from None
    return asyncio.run(body())


@contextlib.asynccontextmanager
async def asyncpg_connection(endpoint: Endpoint, **kwargs):
    """An asyncpg connection with a client-side timeout on connect and on every command."""
    kwargs.setdefault("command_timeout", HANG_SECONDS)
    conn = await asyncio.wait_for(asyncpg.connect(**endpoint.asyncpg_arguments(), timeout=HANG_SECONDS, **kwargs),
                                  HANG_SECONDS)
    try:
        yield conn
    finally:
        try:
            await asyncio.wait_for(conn.close(), HANG_SECONDS)
        except Exception:
            conn.terminate()


async def bounded(awaitable, what: str = "operation"):
    """Awaits with the hang timeout, failing with a message that names what hung."""
    try:
        return await asyncio.wait_for(awaitable, HANG_SECONDS)
    except asyncio.TimeoutError:
        raise AssertionError(f"hang: {what} did not answer in {HANG_SECONDS} s") from None
