"""Session state stays with the session that made it, as it does on PostgreSQL.

Through Ashlar many client sessions share few backend connections (the pooled database's pool holds 2), so whatever a
session sets or creates must follow that session and never show in another. Each test runs many concurrent sessions
(asyncio tasks, with psycopg's async connection and with asyncpg), each setting and resetting state in every way a
client can, and each checking after every step that it sees exactly its own state, and the server's defaults for
whatever it never set.
"""

from __future__ import annotations

import asyncio
import dataclasses

import asyncpg
import psycopg
import pytest

from support import HANG_SECONDS, Endpoint, Target, bounded, environment, run

ALL_TARGETS = ["proxy_pooled", "proxy_sharded", "direct"]

#: Concurrent sessions of the settings test.
SESSIONS = 16

#: Rounds of set, check and reset per session.
ROUNDS = 3


@dataclasses.dataclass(frozen=True)
class Setting:
    """A run-time parameter, the values a session may give it, and the SQL forms (mixed-case names) that set it."""

    name: str
    values: tuple[str, ...]
    forms: tuple[str, ...]
    resets: tuple[str, ...]


def _forms(name: str, *extra: str) -> tuple[str, ...]:
    return (f"SET {name} TO '{{v}}'", f"set {name.lower()} = '{{v}}'", f"SET {name.upper()} = '{{v}}'",
            f"select set_config('{name}', '{{v}}', false)", f"SELECT set_config('{name.lower()}', '{{v}}', false)",
            f"SET SESSION {name} = '{{v}}'", *extra)


def _resets(name: str) -> tuple[str, ...]:
    return f"RESET {name}", f"reset {name.lower()}", f"SET {name.upper()} TO DEFAULT", f"set {name} = default"


SETTINGS = (
    Setting("TimeZone", ("Asia/Tokyo", "America/New_York", "Europe/Berlin", "Australia/Adelaide", "Asia/Kolkata"),
            _forms("TimeZone", "SET TIME ZONE '{v}'", "set time zone '{v}'"), _resets("TimeZone")),
    Setting("DateStyle", ("ISO, DMY", "ISO, YMD"), _forms("DateStyle"), _resets("DateStyle")),
    Setting("IntervalStyle", ("iso_8601", "sql_standard", "postgres_verbose"), _forms("IntervalStyle"),
            _resets("IntervalStyle")),
    Setting("search_path", ("public, w{i}_{k}", "pg_catalog, w{i}"),
            ("SET search_path TO {v}", "set Search_Path = {v}", "SET SEARCH_PATH TO {v}",
             "select set_config('search_path', '{v}', false)"), _resets("Search_Path")),
    Setting("application_name", ("w{i}k{k}", "app {i}"), _forms("application_name"), _resets("Application_Name")),
    Setting("work_mem", ("{i1}65kB", "{k1}77kB"), _forms("work_mem"), _resets("Work_Mem")),
    Setting("statement_timeout", ("{i1}7min", "{k1}9s"), _forms("statement_timeout"), _resets("Statement_Timeout")),
    Setting("default_transaction_read_only", ("on",), _forms("default_transaction_read_only"),
            _resets("Default_Transaction_Read_Only")),
    Setting("extra_float_digits", ("0", "3", "-2"), _forms("extra_float_digits"), _resets("extra_float_digits")),
    Setting("lock_timeout", ("{i1}3s",), _forms("lock_timeout"), _resets("Lock_Timeout")),
    Setting("bytea_output", ("escape",), _forms("bytea_output"), _resets("bytea_output")),
    Setting("enable_seqscan", ("off",), _forms("enable_seqscan"), _resets("Enable_SeqScan")),
)

#: Settings PostgreSQL reports with ParameterStatus whenever they change.
REPORTED = ("TimeZone", "DateStyle", "IntervalStyle", "application_name", "is_superuser")


class Session:
    """One client session through either driver: run SQL, read a value, read what ParameterStatus reported."""

    async def execute(self, sql: str) -> None:
        raise NotImplementedError

    async def value(self, sql: str):
        raise NotImplementedError

    def reported(self, name: str) -> str | None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class PsycopgSession(Session):
    def __init__(self, conn: psycopg.AsyncConnection):
        self.conn = conn
        self.notifications: list[tuple[str, str]] = []
        conn.add_notify_handler(lambda n: self.notifications.append((n.channel, n.payload)))

    @classmethod
    async def open(cls, endpoint: Endpoint, **options) -> PsycopgSession:
        return cls(await endpoint.aconnect(conninfo_extra=options))

    async def execute(self, sql: str) -> None:
        await bounded(self.conn.execute(sql), sql)

    async def value(self, sql: str):
        cursor = await bounded(self.conn.execute(sql), sql)
        return (await cursor.fetchone())[0]

    async def values(self, sql: str) -> list:
        cursor = await bounded(self.conn.execute(sql), sql)
        return [row[0] for row in await cursor.fetchall()]

    def reported(self, name: str) -> str | None:
        return self.conn.info.parameter_status(name)

    async def listen(self, channel: str) -> None:
        await self.execute(f"LISTEN {channel}")

    async def close(self) -> None:
        await asyncio.wait_for(self.conn.close(), HANG_SECONDS)


class AsyncpgSession(Session):
    def __init__(self, conn: asyncpg.Connection):
        self.conn = conn
        self.notifications: list[tuple[str, str]] = []

    @classmethod
    async def open(cls, endpoint: Endpoint, **server_settings) -> AsyncpgSession:
        conn = await asyncio.wait_for(asyncpg.connect(**endpoint.asyncpg_arguments(), timeout=HANG_SECONDS,
                                                      command_timeout=HANG_SECONDS,
                                                      server_settings=server_settings or None), HANG_SECONDS)
        return cls(conn)

    async def execute(self, sql: str) -> None:
        await bounded(self.conn.execute(sql), sql)

    async def value(self, sql: str):
        return await bounded(self.conn.fetchval(sql), sql)

    async def values(self, sql: str) -> list:
        return [row[0] for row in await bounded(self.conn.fetch(sql), sql)]

    def reported(self, name: str) -> str | None:
        return getattr(self.conn.get_settings(), name, None)

    async def listen(self, channel: str) -> None:
        await bounded(self.conn.add_listener(channel, lambda _c, _p, ch, payload: self.notifications.append(
            (ch, payload))), f"LISTEN {channel}")

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.conn.close(), HANG_SECONDS)
        except Exception:
            self.conn.terminate()


DRIVERS = {"psycopg": PsycopgSession, "asyncpg": AsyncpgSession}


async def read_state(session: Session, names, show: bool = True) -> dict[str, str]:
    """The settings as current_setting() gives them in one query, and (with `show`) as SHOW gives each."""
    names = list(names)
    row = await session.value("select array[" + ", ".join(f"current_setting('{name}')" for name in names) + "]")
    result = dict(zip(names, row))
    if show:
        for name in names:
            shown = await session.value(f"SHOW {name}")
            assert shown == result[name], f"SHOW {name} gave {shown!r}, current_setting gave {result[name]!r}"
    return result


def reported_state(session: Session) -> dict[str, str | None]:
    return {name: session.reported(name) for name in REPORTED}


async def server_defaults(driver: str) -> tuple[dict[str, str], dict[str, str | None]]:
    """What a fresh session straight to PostgreSQL sees, with the same driver: the server's defaults."""
    session = await DRIVERS[driver].open(environment().reference)
    try:
        names = [each.name for each in SETTINGS] + ["role", "is_superuser"]
        return await read_state(session, names), reported_state(session)
    finally:
        await session.close()


async def check(session: Session, expected: dict[str, str], step: str, who: str, show: bool = False) -> None:
    actual = await read_state(session, expected, show)
    wrong = [f"{name} is {actual[name]!r}, expected {expected[name]!r}" for name in expected if actual[name] != expected[name]]
    assert not wrong, f"{who} after {step}: " + "; ".join(wrong)
    reported = reported_state(session)
    wrong = [f"{name} reported {reported[name]!r}, SHOW says {actual[name]!r}"
             for name in REPORTED if name in actual and reported[name] != actual[name]]
    assert not wrong, f"{who} after {step}: ParameterStatus: " + "; ".join(wrong)


async def settings_worker(target: Target, driver: str, worker: int, defaults: dict[str, str]) -> None:
    """One session: ROUNDS rounds of rolled-back SETs, SET LOCAL, SETs of its own settings, checks, and resets."""
    who = f"session {worker}"
    session = await DRIVERS[driver].open(target.endpoint)
    try:
        role = environment().role
        expected = dict(defaults)
        await check(session, expected, "login", who, show=True)
        mine = [s for j, s in enumerate(SETTINGS) if (j + worker) % 3 != 0]
        for k in range(ROUNDS):
            def value_of(setting: Setting, offset: int = 0) -> str:
                return setting.values[(worker + k + offset) % len(setting.values)].format(i=worker, k=k, i1=worker + 1,
                                                                                          k1=k + 1)

            rolled_back = mine[k % len(mine)]
            await session.execute("BEGIN")
            await session.execute(rolled_back.forms[k % len(rolled_back.forms)].format(v=value_of(rolled_back, 1)))
            await session.execute("ROLLBACK")
            await check(session, expected, f"a rolled-back SET of {rolled_back.name}", who)

            await session.execute("begin")
            await session.execute(f"SET LOCAL statement_timeout = '{worker + 1}1min'")
            await session.execute("set local TimeZone to 'Pacific/Chatham'")
            local = dict(expected, statement_timeout=f"{worker + 1}1min", TimeZone="Pacific/Chatham")
            await check(session, local, "SET LOCAL", who)
            await session.execute("commit")
            await check(session, expected, "the commit after SET LOCAL", who)

            for j, setting in enumerate(mine):
                value = value_of(setting)
                await session.execute(setting.forms[(worker + k + j) % len(setting.forms)].format(v=value))
                expected[setting.name] = value
            await check(session, expected, f"round {k}'s SETs", who, show=True)
            if k % 2 == 1:
                await session.execute(f"SET ROLE {role}")
                expected.update(role=role, is_superuser="off")
                await check(session, expected, "SET ROLE", who)

            await session.execute("begin")
            await session.execute("select 1")
            await session.execute("commit")
            await asyncio.sleep(0)
            await check(session, expected, f"round {k}'s transaction", who)

            if k % 2 == 0:
                await session.execute("RESET ALL")
            else:
                await session.execute("RESET ROLE")
                for j, setting in enumerate(mine):
                    await session.execute(setting.resets[(worker + j) % len(setting.resets)])
            expected = dict(defaults)
            await check(session, expected, f"round {k}'s resets", who, show=True)
    finally:
        await session.close()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("driver", list(DRIVERS))
def test_concurrent_sessions_see_only_their_own_settings(target: Target, driver):
    async def body():
        defaults, _ = await server_defaults(driver)
        await gather_all([settings_worker(target, driver, worker, defaults) for worker in range(SESSIONS)])
    run(body(), timeout=80)


async def gather_all(coroutines, fail_fast: bool = False) -> None:
    """Runs all; fails with every failure's message (not only the first), so that one report shows the pattern.

    With `fail_fast`, the first failure cancels the sessions still running (for sessions that wait for something).
    """
    tasks = [asyncio.ensure_future(each) for each in coroutines]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION if fail_fast else asyncio.ALL_COMPLETED)
    for each in pending:
        each.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures = [f"{type(each.exception()).__name__}: {each.exception()}" for each in tasks
                if each in done and each.exception() is not None]
    cancelled = f" ({len(pending)} more cancelled after the first failure)" if pending else ""
    assert not failures, f"{len(failures)} of {len(tasks)} sessions failed{cancelled}:\n" + "\n".join(failures)


async def connection_state_session(target: Target, driver: str, worker: int, session_number: int,
                                   limit: asyncio.Semaphore) -> None:
    """One session that makes every kind of state only a connection can hold, checks it, and leaves it behind."""
    who = f"session {worker}.{session_number}"
    key = 7_000 + 10 * worker + session_number
    channel = f"ch_w{worker}_{session_number}"
    async with limit:
        session = await DRIVERS[driver].open(target.endpoint)
        try:
            assert await session.values("select name from pg_prepared_statements where from_sql") == [], \
                f"{who} sees SQL prepared statements it never made"
            assert await session.values("select c.relname::text from pg_class c "
                                        "where c.relnamespace = pg_my_temp_schema()") == [], \
                f"{who} sees temporary tables it never made"
            assert await session.values("select pg_listening_channels()") == [], \
                f"{who} listens to channels it never listened to"
            assert await session.value("select count(*) from pg_locks where locktype = 'advisory' "
                                       "and pid = pg_backend_pid()") == 0, \
                f"{who} holds advisory locks it never took"

            await session.execute(f"PREPARE w{worker}_{session_number} (int) AS SELECT $1 + {worker}")
            await session.execute(f"create temp table tmp_w{worker} (v int)")
            await session.execute(f"insert into tmp_w{worker} values ({worker})")
            await session.listen(channel)
            assert await session.value(f"select pg_advisory_lock({key})::text") == ""
            await session.execute("SET TimeZone = 'Asia/Tokyo'")
            for _ in range(3):
                await session.execute("select 1")
                await asyncio.sleep(0)

            assert await session.value(f"EXECUTE w{worker}_{session_number}(1)") == worker + 1
            # A sharded database keeps SQL PREPARE in the proxy (EXECUTE is routed by its arguments) and lists the
            # session's own in pg_prepared_statements, as the pooled database's backend connection does.
            assert await session.values("select name from pg_prepared_statements where from_sql") == [
                f"w{worker}_{session_number}"], f"{who}: pg_prepared_statements"
            assert await session.values("select c.relname::text from pg_class c "
                                        "where c.relnamespace = pg_my_temp_schema()") == [f"tmp_w{worker}"], \
                f"{who}: its temporary tables"
            assert await session.values(f"select v from tmp_w{worker}") == [worker]
            assert await session.values("select pg_listening_channels()") == [channel]
            await session.execute(f"NOTIFY {channel}, 'hello {worker}'")
            for _ in range(int(HANG_SECONDS * 10)):
                if session.notifications:
                    break
                await session.execute("select 1")
                await asyncio.sleep(0.1)
            assert session.notifications == [(channel, f"hello {worker}")], f"{who}: notifications"
            assert await advisory_holders(key) == 1, f"{who}: advisory lock {key} is not held on the server"
            assert await session.value("show TimeZone") == "Asia/Tokyo"
        finally:
            await session.close()
        for _ in range(int(HANG_SECONDS * 10)):
            if await advisory_holders(key) == 0:
                break
            await asyncio.sleep(0.1)
        assert await advisory_holders(key) == 0, f"{who} closed, but its advisory lock {key} is still held"
        if session_number == 0:
            assert await session_unlocks_key(target, driver, key), f"{who}: a new session cannot take lock {key}"


async def advisory_holders(key: int) -> int:
    """Sessions of the whole server (every database) that hold advisory lock `key`, read straight from PostgreSQL."""
    conn = await environment().server().aconnect()
    async with conn:
        cursor = await conn.execute("select count(*) from pg_locks where locktype = 'advisory' and granted "
                                    "and classid = 0 and objid = %s and objsubid = 1", (key,))
        return (await cursor.fetchone())[0]


async def session_unlocks_key(target: Target, driver: str, key: int) -> bool:
    session = await DRIVERS[driver].open(target.endpoint)
    try:
        taken = await session.value(f"select pg_try_advisory_lock({key})")
        released = await session.value(f"select pg_advisory_unlock({key})")
        return taken and released
    finally:
        await session.close()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("driver", list(DRIVERS))
def test_connection_state_stays_with_its_session(target: Target, driver):
    """PREPARE, temporary tables, LISTEN and advisory locks of a session: its own while it lives, gone after.

    At most as many sessions hold such state at once as the pooled database has connections, so that a proxy that
    keeps a connection for such a session never runs out; the sessions that follow get those connections again.
    """
    async def body():
        limit = asyncio.Semaphore(environment().pooled_max_pool_size)
        async def worker(number: int) -> None:
            for session_number in range(2):
                await connection_state_session(target, driver, number, session_number, limit)
        await gather_all([worker(number) for number in range(8)], fail_fast=True)
    run(body(), timeout=80)


LOGIN_SETTINGS = [
    {"datestyle": "ISO, DMY", "timezone": "Asia/Tokyo", "intervalstyle": "iso_8601", "application_name": "login_a"},
    {"datestyle": "ISO, YMD", "timezone": "America/New_York", "intervalstyle": "sql_standard",
     "application_name": "login_b"},
    {"timezone": "Europe/Berlin", "intervalstyle": "postgres_verbose", "search_path": "pg_catalog, public"},
    {"datestyle": "ISO, DMY", "extra_float_digits": "0", "application_name": "login_d"},
]

SHOWN = {"datestyle": "DateStyle", "timezone": "TimeZone", "intervalstyle": "IntervalStyle"}


async def open_with_login_settings(driver: str, endpoint: Endpoint, settings: dict[str, str]) -> Session:
    if driver == "asyncpg":
        return await AsyncpgSession.open(endpoint, **settings)
    options = " ".join("-c " + f"{name}={value}".replace(" ", "\\ ") for name, value in settings.items())
    return await PsycopgSession.open(endpoint, options=options)


async def login_settings_session(target: Target, driver: str, number: int, defaults: dict[str, str]) -> None:
    """Logs in with settings under lower-case names; SET changes them and they stay changed; RESET gives them back."""
    who = f"session {number}"
    settings = LOGIN_SETTINGS[number]
    at_login = dict(defaults)
    for name, value in settings.items():
        at_login[SHOWN.get(name, name)] = value
    session = await open_with_login_settings(driver, target.endpoint, settings)
    try:
        await check(session, at_login, "login", who, show=True)
        changed = dict(at_login, IntervalStyle="postgres", TimeZone="Europe/Lisbon", DateStyle="ISO, MDY")
        changed["application_name"] = f"changed_{number}"
        await session.execute("SET IntervalStyle = postgres")
        await session.execute("select set_config('TimeZone', 'Europe/Lisbon', false)")
        await session.execute("set datestyle to 'ISO, MDY'")
        await session.execute(f"SET Application_Name = 'changed_{number}'")
        await check(session, changed, "SET", who, show=True)
        for round_number in range(5):
            await session.execute("begin")
            await session.execute("set timezone = 'Asia/Kolkata'")
            await session.execute("rollback")
            await session.execute("select 1")
            await asyncio.sleep(0)
            await check(session, changed, f"round {round_number}", who)
        await session.execute("RESET timezone")
        await check(session, dict(changed, TimeZone=at_login["TimeZone"]), "RESET timezone", who)
        await session.execute("RESET ALL")
        await check(session, at_login, "RESET ALL", who)
    finally:
        await session.close()


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("driver", list(DRIVERS))
def test_login_settings_can_be_changed_and_reset(target: Target, driver):
    async def body():
        defaults, _ = await server_defaults(driver)
        await gather_all([login_settings_session(target, driver, number, defaults)
                          for number in range(len(LOGIN_SETTINGS))])
    run(body())


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_set_config_reports_parameter_status(target: Target):
    with target.endpoint.connect() as conn:
        for zone in ("Asia/Kolkata", "America/Sao_Paulo"):
            conn.execute("select set_config('TimeZone', %s, false)", (zone,))
            assert conn.info.parameter_status("TimeZone") == zone
            assert conn.execute("show timezone").fetchone() == (zone,)
        conn.execute("select set_config('application_name', 'via set_config', false)")
        assert conn.info.parameter_status("application_name") == "via set_config"
        conn.execute("select set_config('IntervalStyle', 'iso_8601', false)")
        assert conn.info.parameter_status("IntervalStyle") == "iso_8601"
        assert conn.execute("select '1 day 2 hours'::interval::text").fetchone() == ("P1DT2H",)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_reset_all_keeps_the_login_encoding_on_every_held_connection(target: Target, written_rows):
    """RESET ALL gives a session the settings of its login, client_encoding LATIN1 here, as on PostgreSQL. A sharded
    session runs it on every connection it holds: one that a cursor WITH HOLD keeps on a shard that is not the default
    data source went back to its own UTF8 there, and sent that shard's rows to a LATIN1 client in UTF-8."""
    row = (written_rows, 1, "né à ü")  # user_id 1: a shard other than the default data source's
    with target.endpoint.connect(conninfo_extra={"client_encoding": "LATIN1"}) as conn:
        conn.execute("insert into t_order (order_id, user_id, status) values (%s, %s, %s)", row)
        conn.execute("declare held cursor with hold for select status from t_order where user_id = 1 and order_id = %s",
                     (written_rows,))
        conn.execute("reset all")
        assert conn.info.parameter_status("client_encoding") == "LATIN1"
        assert conn.execute("fetch all from held").fetchall() == [(row[2],)]
        assert conn.execute("select status from t_order where user_id = 1 and order_id = %s",
                            (written_rows,)).fetchall() == [(row[2],)]
        conn.execute("close held")


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_client_encoding_changes_as_on_postgresql(target: Target, reference):
    """psycopg follows SET client_encoding (it decodes with the encoding ParameterStatus names).

    A pooled database relays the client's bytes and the backend converts them; a sharded one gives the session's
    client_encoding to every connection it uses, so the backends convert there too, and reads its text (statements,
    routing values, merged rows) and writes its own (messages, column names) in it: the same values and
    ParameterStatus as directly.
    """
    def walk(conn) -> list:
        seen = []
        for encoding in ("LATIN1", "WIN1252", "UTF8"):
            conn.execute(f"SET client_encoding TO '{encoding}'")
            seen.append(conn.info.parameter_status("client_encoding"))
            seen.append(conn.execute("select 'é' || %s, length(%s), show_me from (select current_setting("
                                     "'client_encoding') as show_me) s", ("ü", "çà")).fetchone())
            counted = conn.execute("select count(*) as \"Zähler\" from t_order where status <> %s", ("né",))
            seen.append((counted.description[0].name, counted.fetchone()))
        # A SET that its statement's failure rolls back: the session stays in the encoding it had, and says so.
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("SET client_encoding TO 'WIN1251'; SELECT 1/0")
        seen.append(conn.info.parameter_status("client_encoding"))
        seen.append(conn.execute("select 'é' || %s, current_setting('client_encoding')", ("ж",)).fetchone())
        conn.execute("RESET client_encoding")
        seen.append(conn.info.parameter_status("client_encoding"))
        return seen

    with reference.connect() as ref:
        expected = walk(ref)
    with target.endpoint.connect() as conn:
        assert walk(conn) == expected
