"""asyncpg through Ashlar, compared with asyncpg straight to PostgreSQL.

asyncpg speaks only the extended protocol: every statement is a named prepared statement whose Parse leaves the
parameter types unspecified (0), described with Describe + Sync (or Flush, for conn.prepare), then bound with binary
parameters of the types PostgreSQL answered (int8, int4, ...), and it asks for binary results of every type it knows.
"""

import asyncio
import datetime
import decimal
import ipaddress
import uuid

import asyncpg
import pytest

from support import Target, asyncpg_connection, assert_rows_placed, bounded, run

SHARDED_AND_POOLED = ["proxy_sharded", "proxy_pooled", "direct"]

#: ParameterStatus values a client reads at login that must be PostgreSQL's own.
LOGIN_SETTINGS = ("client_encoding", "server_encoding", "DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes",
                  "standard_conforming_strings", "server_version")

INSERT = "insert into t_order(order_id, user_id, status) values ($1, $2, $3)"
SELECT_BY_USER = ("select order_id, user_id, status from t_order where user_id = $1 and order_id >= $2 "
                  "order by order_id")


def written(first: int) -> list[tuple[int, int, str]]:
    """Rows that land on every node of the sharded layout (both parities of user_id and order_id), int8 keys too."""
    return [(first + 0, 1, "NEW"), (first + 1, 1, "PAID"), (first + 2, 2, "SHIPPED"), (first + 3, 2, "né"),
            (first + 4, 7, "x" * 50), (first + 5, 8, ""), (2**33 + first, 9, "int8 key"), (2**33 + first + 1, 10, "int8 key")]


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_login_with_defaults_reports_the_servers_settings(target: Target, reference):
    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            assert await bounded(conn.fetchval("select 1"), "select 1") == 1
            actual = {name: getattr(conn.get_settings(), name, None) for name in LOGIN_SETTINGS}
            expected = {name: getattr(ref.get_settings(), name, None) for name in LOGIN_SETTINGS}
            assert actual == expected
            assert conn.get_server_version() == ref.get_server_version()
    run(body())


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_execute_insert_puts_each_row_where_its_keys_say(target: Target, written_rows):
    rows = written(written_rows)

    async def body():
        async with asyncpg_connection(target.endpoint) as conn:
            for row in rows:
                assert await bounded(conn.execute(INSERT, *row), f"insert {row}") == "INSERT 0 1"
            for user_id in sorted({row[1] for row in rows}):
                found = [tuple(r) for r in await bounded(conn.fetch(SELECT_BY_USER, user_id, written_rows))]
                assert found == sorted(row for row in rows if row[1] == user_id)
    run(body())
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_executemany_insert_puts_each_row_where_its_keys_say(target: Target, written_rows):
    rows = written(written_rows)

    async def body():
        async with asyncpg_connection(target.endpoint) as conn:
            await bounded(conn.executemany(INSERT, rows), "executemany")
            for user_id in sorted({row[1] for row in rows}):
                found = [tuple(r) for r in await bounded(conn.fetch(SELECT_BY_USER, user_id, written_rows))]
                assert found == sorted(row for row in rows if row[1] == user_id)
    run(body())
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_copy_records_to_table_puts_each_row_where_its_keys_say(target: Target, written_rows):
    """copy_records_to_table sends COPY ... FROM STDIN (FORMAT binary): each tuple to its shard, as an INSERT would."""
    rows = written(written_rows)

    async def body():
        async with asyncpg_connection(target.endpoint) as conn:
            result = await bounded(conn.copy_records_to_table("t_order", records=rows, columns=["order_id", "user_id", "status"]),
                                   "copy_records_to_table")
            assert result == f"COPY {len(rows)}"
            for user_id in sorted({row[1] for row in rows}):
                found = [tuple(r) for r in await bounded(conn.fetch(SELECT_BY_USER, user_id, written_rows))]
                assert found == sorted(row for row in rows if row[1] == user_id)
    run(body())
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_executemany_failing_row_rolls_back_the_batch(target: Target, written_rows):
    """executemany is atomic: a duplicate key in the last row leaves none of the batch's rows."""
    rows = written(written_rows)[:4]
    rows.append(rows[0])

    async def body():
        async with asyncpg_connection(target.endpoint) as conn:
            with pytest.raises(asyncpg.UniqueViolationError):
                await bounded(conn.executemany(INSERT, rows), "executemany")
            assert await bounded(conn.fetchval("select count(*) from t_order where order_id >= $1", written_rows)) == 0
            assert await bounded(conn.fetchval("select 1")) == 1
    run(body())


READ_QUERIES = [
    ("fetch", "select order_id, user_id, status from t_order where user_id = $1 order by order_id", (3,)),
    ("fetch", "select * from t_order where order_id between $1 and $2 order by order_id desc limit 7", (10, 90)),
    ("fetch", "select o.order_id, i.order_item_id, i.status from t_order o join t_order_item i "
              "on o.order_id = i.order_id and o.user_id = i.user_id where o.user_id = $1 order by 1, 2", (4,)),
    ("fetch", "select user_id, count(*), min(order_id), max(status) from t_order group by user_id order by user_id", ()),
    ("fetch", "select status, count(*) from t_order where user_id in ($1, $2) group by status order by status", (1, 2)),
    ("fetch", "select * from t_address order by address_id", ()),
    ("fetch", "select order_id, status from t_order where status like $1 order by order_id", ("%ü%",)),
    ("fetchrow", "select order_id, user_id, status from t_order where order_id = $1", (42,)),
    ("fetchrow", "select * from t_order_item where order_id = $1 and user_id = $2 order by order_item_id", (77, 12)),
    ("fetchrow", "select order_id from t_order where order_id = $1", (-1,)),
    ("fetchval", "select count(*) from t_order", ()),
    ("fetchval", "select sum(order_id) from t_order_item where user_id = $1", (5,)),
    ("fetchval", "select max(order_id) from t_order where user_id = $1", (2**31 - 1,)),
]


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
@pytest.mark.parametrize("method, sql, args", READ_QUERIES, ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(READ_QUERIES)])
def test_reads_match_postgresql(target: Target, reference, method, sql, args):
    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            expected = await getattr(ref, method)(sql, *args)
            actual = await bounded(getattr(conn, method)(sql, *args), sql)
            assert normalize(actual) == normalize(expected)
    run(body())


#: Reads over every shard whose merge reads some columns (to sort, group, aggregate) and passes others on, of types
#: asyncpg reads in binary and the proxy has no binary encoder for: asyncpg gives one result format code for all
#: columns, which the proxy makes one per column from the statement's description, so that the shards send those
#: columns in their own binary.
MERGED_BINARY_READS = [
    "select order_id, lseg(point(order_id, 1), point(2, 3)) as s, circle(point(order_id, 0), 2) as c,"
    " order_id::bit(16)::varbit as b from t_order order by order_id desc limit 10",
    "select user_id, count(*) as n, lseg(point(user_id, 0), point(0, 0)) as s from t_order"
    " group by user_id order by user_id",
]


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
@pytest.mark.parametrize("sql", MERGED_BINARY_READS, ids=[f"q{i}" for i in range(len(MERGED_BINARY_READS))])
def test_merged_reads_of_types_only_the_shards_write_in_binary(target: Target, reference, sql):
    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            expected = await ref.fetch(sql)
            assert len(expected) > 1
            assert normalize(await bounded(conn.fetch(sql), sql)) == normalize(expected)
            # A prepared statement executed again, and a cursor's fetches, the same.
            statement = await bounded(conn.prepare(sql), sql)
            assert normalize(await bounded(statement.fetch(), sql)) == normalize(expected)
    run(body())


def normalize(result):
    """Records as (name, value) tuples, so that both the values and the column names are compared."""
    if isinstance(result, list):
        return [normalize(each) for each in result]
    if isinstance(result, asyncpg.Record):
        return list(result.items())
    return result


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_prepared_statement_is_reused(target: Target, reference):
    sql = "select order_id, status from t_order where user_id = $1 order by order_id"

    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            statement = await bounded(conn.prepare(sql), "prepare")
            expected_statement = await ref.prepare(sql)
            assert [t.name for t in statement.get_parameters()] == [t.name for t in expected_statement.get_parameters()]
            assert ([(a.name, a.type.name) for a in statement.get_attributes()]
                    == [(a.name, a.type.name) for a in expected_statement.get_attributes()])
            for rounds in range(2):
                for user_id in range(1, 14):
                    expected = normalize(await expected_statement.fetch(user_id))
                    assert normalize(await bounded(statement.fetch(user_id), f"fetch({user_id})")) == expected
                    assert normalize(await bounded(conn.fetch(sql, user_id), f"conn.fetch({user_id})")) == expected
                    assert await bounded(statement.fetchval(user_id)) == (expected[0][0][1] if expected else None)
    run(body())


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
@pytest.mark.parametrize("sql, error", [
    ("selec 1", asyncpg.PostgresSyntaxError),
    ("select * from no_such_table where id = $1", asyncpg.UndefinedTableError),
    ("select order_id from t_order where no_such_column = $1", asyncpg.UndefinedColumnError),
], ids=["syntax", "undefined-table", "undefined-column"])
def test_error_at_parse_is_raised_promptly_and_the_connection_goes_on(target: Target, reference, sql, error):
    """conn.prepare sends Parse, Describe and Flush, not Sync, and waits: the error must come without a Sync."""
    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            with pytest.raises(error) as expected:
                await ref.prepare(sql)
            with pytest.raises(error) as actual:
                await bounded(conn.prepare(sql), f"prepare({sql!r})")
            assert (actual.value.sqlstate, actual.value.message) == (expected.value.sqlstate, expected.value.message)
            assert await bounded(conn.fetchval("select 1"), "select 1 after the error") == 1
            statement = await bounded(conn.prepare("select count(*) from t_order where user_id = $1"), "prepare")
            assert await bounded(statement.fetchval(3)) == await ref.fetchval(
                "select count(*) from t_order where user_id = $1", 3)
            async with conn.transaction():
                with pytest.raises(error):
                    await bounded(conn.prepare(sql), f"prepare({sql!r}) in a transaction")
            assert await bounded(conn.fetchval("select 2"), "select 2 after the failed transaction") == 2
    run(body())


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_cursor_in_transaction(target: Target, reference):
    sql = "select order_id, user_id, status from t_order where order_id <= $1 order by order_id"

    async def walk(conn):
        result = []
        async with conn.transaction():
            cursor = await bounded(conn.cursor(sql, 100), "cursor")
            result.append(normalize(await bounded(cursor.fetch(7), "fetch(7)")))
            result.append(await bounded(cursor.forward(3), "forward(3)"))
            result.append(normalize(await bounded(cursor.fetchrow(), "fetchrow")))
            result.append(normalize(await bounded(cursor.fetch(1000), "fetch(1000)")))
            result.append(normalize(await bounded(cursor.fetch(5), "fetch past the end")))
            iterated = []
            async for record in conn.cursor(sql, 60, prefetch=9):
                iterated.append(normalize(record))
            result.append(iterated)
        return result

    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            expected = await walk(ref)
            assert len(expected[3]) > 50 and len(expected[5]) > 20, "the test needs more rows"
            assert await walk(conn) == expected
            assert await bounded(conn.fetchval("select 1"), "select 1 after the cursor") == 1
    run(body())


#: (type, value) pairs sent as binary parameters and read back as binary results.
PARAMETERS = [
    ("int2", -32768), ("int4", 2**31 - 1), ("int8", -(2**63)),
    ("numeric", decimal.Decimal("-12345678901234567890.000123456789")), ("numeric", decimal.Decimal("0.00")),
    ("float4", 0.5), ("float8", 1.5e300), ("float8", float("-inf")),
    ("text", "héllo ☃ \\ ' \""), ("varchar", ""), ("bytea", b"\x00\xff\x10\\'"), ("bool", False),
    ("date", datetime.date(2024, 2, 29)), ("timestamp", datetime.datetime(2024, 2, 29, 13, 14, 15, 123456)),
    ("timestamptz", datetime.datetime(2001, 9, 9, 1, 46, 40, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))),
    ("interval", datetime.timedelta(days=-3, seconds=3600, microseconds=5)),
    ("uuid", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
    ("json", '{"a": [1, 2.5, null], "b": "ü"}'), ("jsonb", '{"b": "ü", "a": [1, 2.5, null]}'),
    ("int4[]", [1, None, -3]), ("text[]", ["a", "b c", None, '"q"', ""]), ("int8[]", []),
    ("inet", ipaddress.ip_interface("192.168.0.1/24")), ("inet", ipaddress.ip_address("::1")),
    ("cidr", ipaddress.ip_network("10.0.0.0/8")),
]

#: Server-made values (literals cast to a type), read back as binary results.
LITERALS = [
    "32767::int2", "'NaN'::numeric", "1e-1000::numeric", "'-0'::float8", "'NaN'::float4", "'infinity'::float8",
    "'infinity'::date", "'-infinity'::timestamp", "'2024-06-01 12:00:00.5+02'::timestamptz",
    "'1 year 2 mons -3 days 04:05:06.789'::interval", "'P1Y2M3DT4H5M6S'::interval",
    "'{\"k\": [true, false]}'::jsonb", "'[1, \"two\"]'::json", "'\\x0001ff'::bytea",
    "array[1.5, null, 2]::numeric[]", "'{{1,2},{3,4}}'::int4[]", "array['2024-01-01'::date, null]",
    "'2001:db8::1/64'::inet", "'13:14:15.5'::time", "'t'::bool", "gen_random_uuid() is not null",
    # types the proxy has no binary encoder for: one shard answers, in its own binary
    "'<a>ü</a>'::xml", "12.5::money", "B'10100'::varbit", "'0/16B3748'::pg_lsn", "row(1, 'a', 2.5)",
    "'[(1,2),(3,4)]'::lseg", "'<(1,2),3>'::circle",
]


@pytest.mark.parametrize("target", ["proxy_pooled", "proxy_sharded", "direct"], indirect=True)
@pytest.mark.parametrize("type_name, value", PARAMETERS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(PARAMETERS)])
def test_type_round_trip_as_parameter(target: Target, reference, type_name, value):
    sql = f"select $1::{type_name} as v, pg_typeof($1::{type_name})::text as t, $1::{type_name}::text as as_text"

    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            expected = await ref.fetchrow(sql, value)
            actual = await bounded(conn.fetchrow(sql, value), sql)
            assert repr(list(actual.items())) == repr(list(expected.items()))
    run(body())


@pytest.mark.parametrize("target", ["proxy_pooled", "proxy_sharded", "direct"], indirect=True)
@pytest.mark.parametrize("literal", LITERALS)
def test_type_round_trip_of_server_values(target: Target, reference, literal):
    sql = f"select {literal} as v, ({literal})::text as as_text"

    async def body():
        async with asyncpg_connection(target.endpoint) as conn, asyncpg_connection(reference) as ref:
            expected = await ref.fetchrow(sql)
            actual = await bounded(conn.fetchrow(sql), sql)
            assert repr(list(actual.items())) == repr(list(expected.items()))
    run(body())


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_listener_hears_notify_while_idle(target: Target):
    """asyncpg's listener is called from the connection's reader: the listening connection runs no statement."""

    async def body():
        async with asyncpg_connection(target.endpoint) as listener, asyncpg_connection(target.endpoint) as notifier:
            heard: asyncio.Queue = asyncio.Queue()
            await bounded(listener.add_listener("ashlar_py", lambda _c, _p, channel, payload: heard.put_nowait(
                (channel, payload))), "LISTEN")
            await bounded(notifier.execute("NOTIFY ashlar_py, 'first'"), "NOTIFY")
            await bounded(notifier.execute("select pg_notify('ashlar_py', 'second')"), "pg_notify")
            got = [await bounded(heard.get(), "the first notification"), await bounded(heard.get(), "the second")]
            assert got == [("ashlar_py", "first"), ("ashlar_py", "second")]
            assert await bounded(listener.fetchval("select 1")) == 1
            assert heard.empty()
    run(body())


USER_TYPES = ("drop type if exists py_pair; drop domain if exists py_code; drop type if exists py_mood; "
              "create type py_mood as enum ('sad', 'ok', 'happy'); create domain py_code as text check (value <> ''); "
              "create type py_pair as (a bigint, b text, m py_mood)")


@pytest.mark.parametrize("target", SHARDED_AND_POOLED, indirect=True)
def test_user_types_are_introspected_and_read(target: Target, written_rows):
    """asyncpg looks up every type it has no codec for with one introspection query (pg_type joined to pg_class and
    pg_attribute for composites' fields) by the OIDs the RowDescription gave, and refuses the statement when it finds
    none. Through a sharded database the OIDs described and the catalogs that query reads must agree, whichever shard
    answers: enum, enum array and domain columns failed so (the catalog database numbered its copies apart). asyncpg
    also checks the field types a binary composite names against those it looked up: one shard's answer, relayed as
    it sent it, names them as clients are told."""
    first = written_rows

    async def body():
        async with asyncpg_connection(target.endpoint) as conn:
            await bounded(conn.execute(USER_TYPES), "create the types")
            for row in [(first, 1, "NEW"), (first + 1, 2, "PAID")]:
                await bounded(conn.execute(INSERT, *row), "insert")
            one_shard = ("select o.order_id, 'happy'::py_mood as m, array['sad', 'ok']::py_mood[] as ms,"
                         " row(o.order_id, o.status, 'ok')::py_pair as p, o.status::py_code as d,"
                         " array[row(1, 'x', 'sad')::py_pair] as ps"
                         " from t_order o where o.user_id = $1 and o.order_id = $2")
            for user_id, order_id, status in [(1, first, "NEW"), (2, first + 1, "PAID")]:
                row = await bounded(conn.fetchrow(one_shard, user_id, order_id), one_shard)
                assert (row["order_id"], row["m"], row["ms"], tuple(row["p"]), row["d"], [tuple(p) for p in row["ps"]]) == \
                    (order_id, "happy", ["sad", "ok"], (order_id, status, "ok"), status, [(1, "x", "sad")])
            with_parameters = ("select $3::py_mood[] as ms, $4::py_pair as p, $5::py_mood as m"
                               " from t_order o where o.user_id = $1 and o.order_id = $2")
            for user_id, order_id in [(1, first), (2, first + 1)]:
                row = await bounded(conn.fetchrow(with_parameters, user_id, order_id, ["ok", None, "sad"],
                                                  (7, "seven", "happy"), "ok"), with_parameters)
                assert (row["ms"], tuple(row["p"]), row["m"]) == (["ok", None, "sad"], (7, "seven", "happy"), "ok")
            every_shard = ("select o.order_id, 'ok'::py_mood as m, array['happy']::py_mood[] as ms, o.status::py_code as d,"
                           " row(o.order_id, o.status, 'sad')::py_pair as p from t_order o where o.order_id in ($1, $2)"
                           " order by o.order_id")
            rows = await bounded(conn.fetch(every_shard, first, first + 1), every_shard)
            assert [tuple(r)[:4] + (tuple(r["p"]),) for r in rows] == [
                (first, "ok", ["happy"], "NEW", (first, "NEW", "sad")),
                (first + 1, "ok", ["happy"], "PAID", (first + 1, "PAID", "sad"))]
            introspected = await bounded(conn.fetchval(
                "select typname from pg_catalog.pg_type t join pg_catalog.pg_class c on c.reltype = t.oid"
                " where t.oid = $1", (await conn.prepare(one_shard)).get_attributes()[3].type.oid), "the composite")
            assert introspected == "py_pair"
    run(body())
