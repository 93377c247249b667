"""psycopg 3 through Ashlar, compared with psycopg straight to PostgreSQL.

psycopg sends text or binary parameters (%s lets it choose, %t and %b force text and binary), asks for binary results
with cursor(binary=True), pipelines Bind/Execute groups before one Sync in pipeline mode (and in executemany), and
implements named cursors with DECLARE, a Describe of the cursor's portal, FETCH, MOVE and CLOSE.
"""

import datetime
import decimal
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg.types.string import TextLoader

from support import HANG_SECONDS, Target, assert_rows_placed, run

ALL_TARGETS = ["proxy_sharded", "proxy_pooled", "direct"]

INSERT = "insert into t_order (order_id, user_id, status) values (%s, %s, %s)"
SELECT_WRITTEN = "select order_id, user_id, status from t_order where order_id >= %s order by order_id"


def written(first: int) -> list[tuple[int, int, str]]:
    """Rows for every node of the sharded layout (both parities of user_id and order_id), int8 keys too."""
    return [(first + 0, 1, "NEW"), (first + 1, 1, "PAID"), (first + 2, 2, "SHIPPED"), (first + 3, 2, "né"),
            (first + 4, 11, "a"), (first + 5, 12, ""), (2**33 + first, 9, "int8 key"), (2**33 + first + 1, 10, "int8 key")]


def described(cursor) -> list[tuple[str, int]]:
    return [(column.name, column.type_code) for column in cursor.description or []]


QUERIES = [
    ("select order_id, user_id, status from t_order where user_id = %s and order_id > %s order by order_id", (3, 10)),
    ("select * from t_order where order_id = %b", (42,)),
    ("select * from t_order where order_id = %t", (43,)),
    ("select user_id, count(*), sum(order_id) from t_order_item where user_id = any(%s) group by user_id order by 1",
     ([1, 2, 3],)),
    ("select order_id, status from t_order where status = %t order by order_id", ("Returned ünïcode",)),
    ("select order_id, status from t_order where status = %b order by order_id", ("PAID",)),
    ("select o.order_id, i.order_item_id from t_order o join t_order_item i on o.order_id = i.order_id "
     "and o.user_id = i.user_id where o.user_id = %s order by 1, 2", (6,)),
    ("select * from t_address where address_id > %b order by address_id", (1,)),
    ("select count(*), min(order_id), max(order_id) from t_order", ()),
]


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("binary", [False, True], ids=["text-results", "binary-results"])
@pytest.mark.parametrize("sql, params", QUERIES, ids=[f"q{i}" for i in range(len(QUERIES))])
def test_text_and_binary_parameters_and_results(target: Target, reference, binary, sql, params):
    with target.endpoint.connect() as conn, reference.connect() as ref:
        expected_cursor = ref.cursor(binary=binary)
        expected = expected_cursor.execute(sql, params).fetchall()
        cursor = conn.cursor(binary=binary)
        assert cursor.execute(sql, params).fetchall() == expected
        assert described(cursor) == described(expected_cursor)


@pytest.mark.parametrize("target", ["proxy_sharded", "proxy_pooled"], indirect=True)
def test_a_prepared_statement_read_in_binary_and_in_text_by_turns(target: Target, reference):
    """One server-prepared statement (prepare=True: Bind, Describe of the portal, Execute each time, as libpq's
    PQexecPrepared), its results asked for in binary and in text by turns on one connection: each RowDescription says
    that execution's formats (Ashlar writes again the bytes of the description it wrote last only when the columns,
    result formats and charset are the same: OutputBuffer.rowDescriptionOf)."""
    sql = "select order_id, user_id, status from t_order where user_id = %s and order_id = %s"
    keys = [(5 * 7 % 12 + 1, 5), (8 * 7 % 12 + 1, 8)]  # generated orders 5 and 8 (DriverDatabases), one per data source
    with target.endpoint.connect() as conn, reference.connect() as ref:
        for _ in range(3):
            for binary in (True, False, True, False):
                for params in keys:
                    expected_cursor = ref.cursor(binary=binary)
                    expected = expected_cursor.execute(sql, params, prepare=True).fetchall()
                    assert len(expected) == 1
                    cursor = conn.cursor(binary=binary)
                    assert cursor.execute(sql, params, prepare=True).fetchall() == expected
                    assert described(cursor) == described(expected_cursor)


#: (type, value) pairs, sent as binary (%b) or text (%t) parameters.
TYPED_VALUES = [
    ("int2", 12), ("int4", -7), ("int8", 2**62), ("numeric", decimal.Decimal("-1.2300")), ("float8", 0.1),
    ("text", "ü ☃"), ("bytea", b"\x00\x01\xff"), ("bool", True), ("date", datetime.date(1999, 12, 31)),
    ("timestamp", datetime.datetime(2020, 1, 2, 3, 4, 5, 6)),
    ("timestamptz", datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)),
    ("interval", datetime.timedelta(days=1, microseconds=1)), ("uuid", uuid.UUID(int=12345)),
    ("jsonb", Jsonb({"a": [1, None]})), ("int8[]", [1, None, 3]), ("text[]", ["x", None, "y z"]),
]


@pytest.mark.parametrize("target", ["proxy_pooled", "direct"], indirect=True)
@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("type_name, value", TYPED_VALUES, ids=[t for t, _ in TYPED_VALUES])
def test_typed_value_round_trip(target: Target, reference, binary, type_name, value):
    marker = "%b" if binary else "%t"
    sql = f"select {marker}::{type_name} as v, {marker}::{type_name}::text as as_text"
    with target.endpoint.connect() as conn, reference.connect() as ref:
        expected = ref.cursor(binary=binary).execute(sql, (value, value)).fetchall()
        assert conn.cursor(binary=binary).execute(sql, (value, value)).fetchall() == expected


STYLED = "select date '2024-01-31' as d, timestamp '2024-01-31 13:14:15.5' as ts, interval '1 day 02:03:04' as i"


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("setting", ["DateStyle TO 'German'", "DateStyle TO 'SQL, DMY'", "DateStyle TO 'Postgres'",
                                     "IntervalStyle TO 'sql_standard'"])
def test_date_and_interval_styles(target: Target, reference, setting):
    """Any DateStyle and IntervalStyle is relayed, text and binary, as PostgreSQL answers, by a pooled database and a
    sharded one alike (what one data source answers, or several one after another, goes on as they sent it). Binary
    intervals of a merge that sorts them are encoded by the proxy from postgres-style text only, and are refused with
    0A000 under another IntervalStyle."""
    with target.endpoint.connect() as conn, reference.connect() as ref:
        ref.execute(f"set {setting}")
        conn.execute(f"set {setting}")
        for name in ("DateStyle", "IntervalStyle"):
            assert conn.info.parameter_status(name) == ref.info.parameter_status(name)
        text = STYLED.replace(" as", "::text as")
        assert conn.execute(text).fetchall() == ref.execute(text).fetchall()
        assert conn.cursor(binary=True).execute(STYLED).fetchall() == ref.cursor(binary=True).execute(STYLED).fetchall()
        every_shard = "select interval '1 day 02:03:04' as i, order_id from t_order"
        assert sorted(conn.cursor(binary=True).execute(every_shard).fetchall()) == \
            sorted(ref.cursor(binary=True).execute(every_shard).fetchall())
        if target.sharded and setting.startswith("IntervalStyle"):
            # Passed on from every shard, the shards' own binary; sorted by the merge, encoded by the proxy from text.
            with pytest.raises(psycopg.errors.FeatureNotSupported, match="IntervalStyle"):
                conn.cursor(binary=True).execute(every_shard + " order by order_id").fetchall()


def read_as_printed(connections, *type_names):
    """Text values of these types come back as the server printed them, to be compared byte for byte."""
    for each in connections:
        for type_name in type_names:
            each.adapters.register_loader(type_name, TextLoader)


#: Reads over every shard whose merge orders, adds up or takes the extremes of intervals.
INTERVAL_READS = [
    "select max(interval '1 day 2 hours' * order_id), min(interval '3 hours 1 minute' * (order_id % 5)) from t_order",
    "select order_id, interval '1 day 1 hour' * (order_id % 7) as i from t_order order by i desc, order_id limit 5",
    "select sum(interval '1 day 1 hour' * order_id), avg(interval '1 hour' * order_id) from t_order",
]


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("style", ["sql_standard", "iso_8601", "postgres_verbose"])
@pytest.mark.parametrize("sql", INTERVAL_READS, ids=[f"q{i}" for i in range(len(INTERVAL_READS))])
def test_interval_merges_under_another_interval_style(target: Target, reference, style, sql):
    """Under an IntervalStyle other than postgres, a merge over every shard that reads intervals (which Ashlar reads in
    postgres style only) is finished by PostgreSQL over intermediate results: values, order and printing are
    PostgreSQL's. Before, it failed (iso_8601), or printed a merged sum in postgres style."""
    with target.endpoint.connect() as conn, reference.connect() as ref:
        read_as_printed((conn, ref), "interval")
        for each in (conn, ref):
            each.execute(f"set IntervalStyle to {style}")
        assert conn.execute(sql).fetchall() == ref.execute(sql).fetchall()


#: Dates, timestamps and timestamps with time zone made from the fixture's rows of t_order (over every shard).
DATED = ("select order_id, date '2024-01-01' + (order_id % 97)::int as d,"
         " timestamp '2024-01-01 00:00' + order_id * interval '7 hours 1 second' as ts,"
         " timestamptz '2024-01-01 00:00+00' + order_id * interval '5 hours' as tz from t_order")

#: Reads over every shard under another DateStyle: passed on as the shards print them, or merged by their values.
DATED_READS = [
    f"{DATED} order by order_id",
    f"{DATED} order by d desc, order_id",
    f"{DATED} order by ts limit 5",
    f"{DATED} order by tz desc, order_id limit 5",
    "select min(date '2024-01-01' + (order_id % 97)::int), max(timestamp '2024-01-01' + order_id * interval '7 hours'),"
    " count(distinct date '2024-01-01' + (order_id % 5)::int), count(*) from t_order",
    "select date '2024-01-01' + (order_id % 5)::int as d, count(*) from t_order group by 1 order by 1",
    "select distinct date '2024-01-01' + (order_id % 5)::int as d from t_order order by 1",
]


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("style", ["German", "SQL, DMY", "Postgres, MDY"])
@pytest.mark.parametrize("sql", DATED_READS, ids=[f"q{i}" for i in range(len(DATED_READS))])
def test_reads_over_shards_under_another_date_style(target: Target, reference, style, sql):
    """A DateStyle asked for at login holds for reads over every shard: rows passed on keep the shards' text, and a
    merge that orders, groups or aggregates dates (which Ashlar reads in ISO only) is finished by PostgreSQL over
    intermediate results, in the session's style, so that values and order are PostgreSQL's."""
    login = {"options": f"-c DateStyle={style.replace(' ', '')}"}
    with target.endpoint.connect(conninfo_extra=login) as conn, reference.connect(conninfo_extra=login) as ref:
        read_as_printed((conn, ref), "date", "timestamp", "timestamptz")
        assert conn.info.parameter_status("DateStyle") == ref.info.parameter_status("DateStyle")
        expected = ref.execute(sql).fetchall()
        assert len(expected) > 1 or "count(*)" in sql
        assert conn.execute(sql).fetchall() == expected
        # Binary rows passed on as the shards sent them, one shard's after another's.
        assert sorted(conn.cursor(binary=True).execute(DATED).fetchall()) == \
            sorted(ref.cursor(binary=True).execute(DATED).fetchall())
        if target.sharded:
            # Binary rows of a merge that sorts them are encoded by the proxy from the text it sorted: ISO dates only.
            with pytest.raises(psycopg.errors.FeatureNotSupported, match="DateStyle ISO"):
                conn.cursor(binary=True).execute(f"{DATED} order by order_id").fetchall()
        else:
            assert conn.cursor(binary=True).execute(f"{DATED} order by order_id").fetchall() == \
                ref.cursor(binary=True).execute(f"{DATED} order by order_id").fetchall()


#: Per client_encoding, statuses it can spell whose byte order in it is not their characters' order (WIN1252's œ is
#: 0x9C, below Ä's 0xC4; WIN1251's Ё is 0xA8, below А's 0xC0, but ё, 0xB8, is U+0451, above я; SJIS orders kana and
#: kanji otherwise than Unicode does). EUC_JP: a sharded database refuses it.
ENCODED_WORDS = {
    "LATIN1": ["café", "Ärger", "naïve", "zebra", "Øre", "straße"],
    "WIN1252": ["café €", "œuvre", "Ärger", "naïve", "zebra", "Šnita"],
    "WIN1251": ["Ёлка", "арбуз", "Арбуз", "ёж", "zebra", "яма"],
    "EUC_JP": ["日本", "東京", "ｶﾀｶﾅ", "zebra", "ひらがな", "漢字"],
    "SJIS": ["日本", "東京", "ｶﾀｶﾅ", "zebra", "ひらがな", "表示"],  # 表 is 0x95 0x5C: a backslash byte
}


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("encoding", list(ENCODED_WORDS))
def test_writes_and_reads_in_another_client_encoding(target: Target, reference, written_rows, encoding):
    """A session logged in with another client_encoding writes and reads over every shard as directly: rows stored as
    their characters where their keys say, values sent in both formats, merges that order, group and take the extremes
    of its text in the shards' order (the characters', not the encoding's bytes'), column names and errors in it."""
    words = ENCODED_WORDS[encoding]
    rows = [(written_rows + i, user, word) for i, (user, word) in enumerate(zip([1, 2, 11, 12, 3, 4], words))]
    login = {"client_encoding": encoding}
    if target.sharded and encoding == "EUC_JP":
        # Java's EUC-JP reads some characters otherwise than PostgreSQL (0xA1C1 is U+301C there, U+FF5E here): a
        # sharded session, which routes and merges by what it reads, refuses it, at login and by SET, and stays usable.
        with pytest.raises(psycopg.OperationalError, match='client_encoding "EUC_JP" is not supported'):
            target.endpoint.connect(conninfo_extra=login)
        with target.endpoint.connect() as conn:
            with pytest.raises(psycopg.errors.FeatureNotSupported, match="client_encoding"):
                conn.execute("set client_encoding to 'EUC_JP'")
            assert conn.info.parameter_status("client_encoding") == "UTF8"
            assert conn.execute("select %s::text", (words[0],)).fetchone() == (words[0],)
        return
    with target.endpoint.connect(conninfo_extra=login) as conn, reference.connect(conninfo_extra=login) as ref:
        assert conn.info.parameter_status("client_encoding") == encoding
        conn.cursor().executemany(INSERT, rows[:3])
        conn.cursor(binary=True).executemany("insert into t_order (order_id, user_id, status) values (%b, %b, %b)", rows[3:5])
        conn.execute(f"insert into t_order (order_id, user_id, status) values ({rows[5][0]}, {rows[5][1]}, '{rows[5][2]}')")
        by_status = sorted(rows, key=lambda row: (row[2], row[0]))
        for binary in (False, True):
            read = conn.cursor(binary=binary).execute(
                "select order_id, user_id, status from t_order where order_id >= %s order by status, order_id", (written_rows,))
            assert read.fetchall() == by_status
        assert conn.execute("select min(status), max(status), count(distinct status) from t_order where order_id >= %s",
                            (written_rows,)).fetchone() == (min(words), max(words), len(words))
        assert conn.execute("select status, count(*) from t_order where order_id >= %s group by status order by status desc",
                            (written_rows,)).fetchall() == [(word, 1) for word in sorted(words, reverse=True)]
        # HAVING compares merged groups with a constant not in ASCII: PostgreSQL finishes it over intermediate results.
        having = (f"select status, count(*) from t_order where order_id >= {written_rows} group by status"
                  f" having max(status) >= '{words[1]}' order by status")
        assert conn.execute(having).fetchall() == [(word, 1) for word in sorted(words) if word >= words[1]]
        # An aggregate the merge cannot do, finished by PostgreSQL over intermediate results: every row of t_order
        # crosses, those this encoding cannot spell too (the fixture's "ü"), which the statement does not read.
        assert conn.execute("select string_agg(status, '|' order by order_id) from t_order where order_id >= %s",
                            (written_rows,)).fetchone() == ("|".join(words),)
        for word in (words[0], words[4]):
            assert conn.execute("select order_id from t_order where status = %s and order_id >= %s",
                                (word, written_rows)).fetchall() == [(row[0],) for row in rows if row[2] == word]
        named = f'select count(*) as "{words[1]}" from t_order where order_id >= %s'
        assert conn.execute(named, (written_rows,)).description[0].name == words[1]
        with pytest.raises(psycopg.errors.UndefinedColumn) as through_proxy:
            conn.execute(f'select "{words[2]}" from t_order')
        with pytest.raises(psycopg.errors.UndefinedColumn) as direct:
            ref.execute(f'select "{words[2]}" from t_order')
        assert through_proxy.value.diag.message_primary == direct.value.diag.message_primary
        # Arrays of its text in binary over shards, ordered: encoded by the proxy from the shards' text.
        arrays = f"select order_id, array[status, 'x'] as a from t_order where order_id >= {written_rows} order by order_id"
        if target.sharded and encoding == "SJIS":
            # SJIS's second bytes may read as delimiters (表 ends in a backslash byte): refused, never split wrong.
            with pytest.raises(psycopg.errors.FeatureNotSupported, match="client_encoding SJIS"):
                conn.cursor(binary=True).execute(arrays).fetchall()
        else:
            assert conn.cursor(binary=True).execute(arrays).fetchall() == [(row[0], [row[2], "x"]) for row in rows]
        if encoding != "SJIS":  # psycopg's own parser of text arrays splits SJIS's backslash bytes, directly too
            assert conn.execute(arrays).fetchall() == [(row[0], [row[2], "x"]) for row in rows]
            copied = []
            with conn.cursor().copy(f"copy (select status from t_order where order_id >= {written_rows} order by order_id)"
                                    " to stdout") as copy:
                for row in copy.rows():
                    copied.append(row[0])
            assert copied == words
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_executemany_puts_each_row_where_its_keys_say(target: Target, written_rows, binary):
    rows = written(written_rows)
    with target.endpoint.connect(autocommit=False) as conn:
        cursor = conn.cursor(binary=binary)
        cursor.executemany(INSERT, rows)
        conn.commit()
        assert conn.execute(SELECT_WRITTEN, (written_rows,)).fetchall() == sorted(rows)
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("fmt", ["text", "binary"])
def test_copy_write_row_puts_each_row_where_its_keys_say(target: Target, written_rows, fmt):
    """cursor.copy(...).write_row, in text and in binary (set_types names the columns' types, as binary needs)."""
    rows = written(written_rows)
    options = " (format binary)" if fmt == "binary" else ""
    with target.endpoint.connect(autocommit=False) as conn:
        with conn.cursor().copy(f"copy t_order (order_id, user_id, status) from stdin{options}") as copy:
            if fmt == "binary":
                copy.set_types(["int8", "int4", "varchar"])
            for row in rows:
                copy.write_row(row)
        conn.commit()
        assert conn.execute(SELECT_WRITTEN, (written_rows,)).fetchall() == sorted(rows)
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_multi_row_insert_returns_rows_in_values_order(target: Target, written_rows):
    """One INSERT whose VALUES rows go to several shards returns its rows in VALUES order, as PostgreSQL does:
    ORMs (Django bulk_create, SQLAlchemy insertmanyvalues) give generated keys to their objects by it."""
    rows = written(written_rows)
    values = ", ".join(["(%s, %s, %s)"] * len(rows))
    with target.endpoint.connect() as conn:
        returned = conn.execute(f"insert into t_order (order_id, user_id, status) values {values} returning order_id, user_id",
                                [v for row in rows for v in row]).fetchall()
    assert returned == [(row[0], row[1]) for row in rows]
    assert_rows_placed(target, "t_order", rows)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_executemany_returning(target: Target, written_rows):
    rows = written(written_rows)
    with target.endpoint.connect() as conn:
        cursor = conn.cursor()
        cursor.executemany(INSERT + " returning order_id, user_id", rows, returning=True)
        returned = []
        while True:
            returned.extend(cursor.fetchall())
            if not cursor.nextset():
                break
        assert returned == [row[:2] for row in rows]
    assert_rows_placed(target, "t_order", rows)


def pipelined(conn, first: int) -> list:
    """Statements of one pipeline, reads and writes mixed; returns what each gave."""
    rows = written(first)
    with conn.pipeline():
        reads = [conn.execute("select order_id, status from t_order where user_id = %s order by order_id", (user,))
                 for user in (1, 2, 3)]
        writes = [conn.execute(INSERT, row) for row in rows[:4]]
        count = conn.execute("select count(*) from t_order where order_id >= %s", (first,))
        binary = conn.cursor(binary=True).execute("select order_id, user_id from t_order where order_id = any(%s) "
                                                  "order by 1", ([row[0] for row in rows[:4]],))
        address = conn.execute("select address_name from t_address order by address_id")
    return ([r.fetchall() for r in reads] + [w.rowcount for w in writes] + [count.fetchall(), binary.fetchall(),
                                                                            address.fetchall()])


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_pipeline(target: Target, reference, written_rows, autocommit):
    with target.endpoint.connect(autocommit=autocommit) as conn, reference.connect(autocommit=autocommit) as ref:
        expected = pipelined(ref, written_rows)
        ref.rollback()
        ref.execute("delete from t_order where order_id >= %s", (written_rows,))
        ref.commit()
        assert pipelined(conn, written_rows) == expected
        conn.commit()
    assert_rows_placed(target, "t_order", written(written_rows)[:4])


async def apipelined(conn, first: int) -> list:
    rows = written(first)
    async with conn.pipeline():
        reads = [await conn.execute("select order_id, status from t_order where user_id = %s order by order_id",
                                    (user,)) for user in (4, 5)]
        writes = [await conn.execute(INSERT, row) for row in rows[4:]]
        count = await conn.execute("select count(*), sum(user_id) from t_order where order_id >= %s", (first,))
    return [await r.fetchall() for r in reads] + [w.rowcount for w in writes] + [await count.fetchall()]


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_async_pipeline(target: Target, reference, written_rows, autocommit):
    async def body():
        ref = await reference.aconnect(autocommit=autocommit)
        conn = await target.endpoint.aconnect(autocommit=autocommit)
        async with ref, conn:
            expected = await apipelined(ref, written_rows)
            await ref.rollback()
            await ref.execute("delete from t_order where order_id >= %s", (written_rows,))
            await ref.commit()
            assert await apipelined(conn, written_rows) == expected
            await conn.commit()
    run(body())
    assert_rows_placed(target, "t_order", written(written_rows)[4:])


class Outcomes:
    """What the client saw, in order: each error as (class, SQLSTATE), wherever psycopg raised it.

    psycopg raises a pipeline's error from whichever call reads its result first (an execute, sync, or the end of the
    pipeline block), which depends on timing; so every call is tried on its own and only the errors' order counts.
    psycopg's own PipelineAborted (a statement it did not send after an error) comes or not with the same timing, so
    it is left out.
    """

    def __init__(self):
        self.seen = []

    def error(self, e: psycopg.Error) -> None:
        if isinstance(e, psycopg.errors.PipelineAborted):
            return
        if not self.seen or self.seen[-1] != (type(e).__name__, e.sqlstate):
            self.seen.append((type(e).__name__, e.sqlstate))

    def attempt(self, call):
        try:
            return call()
        except psycopg.Error as e:
            self.error(e)
            return None

    async def aattempt(self, awaitable):
        try:
            return await awaitable
        except psycopg.Error as e:
            self.error(e)
            return None


def aborted_pipeline(conn, first: int, failing: str) -> list:
    """An error mid-pipeline, more statements after it, a Sync, more statements, then a rollback: what the client saw."""
    rows = written(first)
    outcomes = Outcomes()
    try:
        with conn.pipeline() as pipeline:
            outcomes.attempt(lambda: conn.execute(INSERT, rows[0]))
            outcomes.attempt(lambda: conn.execute(failing))
            outcomes.attempt(lambda: conn.execute(INSERT, rows[1]))
            outcomes.attempt(pipeline.sync)
            outcomes.attempt(lambda: conn.execute(INSERT, rows[2]))
            outcomes.attempt(lambda: conn.execute("select count(*) from t_order where order_id >= %s", (first,)))
    except psycopg.Error as e:
        outcomes.error(e)
    outcomes.seen.append(("status", conn.info.transaction_status.name))
    conn.rollback()
    outcomes.seen.append(("after rollback", conn.execute(
        "select order_id from t_order where order_id >= %s order by 1", (first,)).fetchall()))
    return outcomes.seen


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_aborted_pipeline(target: Target, reference, written_rows, autocommit):
    failing = "select * from no_such_table"
    with reference.connect(autocommit=autocommit) as ref:
        expected = aborted_pipeline(ref, written_rows, failing)
    assert expected[0] == ("UndefinedTable", "42P01")
    with reference.connect() as ref:
        ref.execute("delete from t_order where order_id >= %s", (written_rows,))
    with target.endpoint.connect(autocommit=autocommit) as conn:
        assert aborted_pipeline(conn, written_rows, failing) == expected
        assert conn.execute("select 1").fetchone() == (1,)


async def aaborted_pipeline(conn, first: int, failing: str) -> list:
    rows = written(first)
    outcomes = Outcomes()
    try:
        async with conn.pipeline() as pipeline:
            await outcomes.aattempt(conn.execute(INSERT, rows[0]))
            await outcomes.aattempt(conn.execute(failing))
            await outcomes.aattempt(conn.execute(INSERT, rows[1]))
            await outcomes.aattempt(pipeline.sync())
            await outcomes.aattempt(conn.execute(INSERT, rows[2]))
            await outcomes.aattempt(conn.execute("select count(*) from t_order where order_id >= %s", (first,)))
    except psycopg.Error as e:
        outcomes.error(e)
    outcomes.seen.append(("status", conn.info.transaction_status.name))
    await conn.rollback()
    cursor = await conn.execute("select order_id from t_order where order_id >= %s order by 1", (first,))
    outcomes.seen.append(("after rollback", await cursor.fetchall()))
    return outcomes.seen


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_async_aborted_pipeline(target: Target, reference, written_rows, autocommit):
    failing = "select 1 / (select count(*) - count(*) from t_address)"

    async def body():
        async with await reference.aconnect(autocommit=autocommit) as ref:
            expected = await aaborted_pipeline(ref, written_rows, failing)
        assert expected[0] == ("DivisionByZero", "22012")
        async with await reference.aconnect() as ref:
            await ref.execute("delete from t_order where order_id >= %s", (written_rows,))
        async with await target.endpoint.aconnect(autocommit=autocommit) as conn:
            assert await aaborted_pipeline(conn, written_rows, failing) == expected
            assert await (await conn.execute("select 1")).fetchone() == (1,)
    run(body())


CURSOR_QUERIES = {
    "t_order": ("select order_id, user_id, status from t_order where order_id < %s order by order_id", (100,)),
    "join": ("select i.order_item_id, o.status from t_order o join t_order_item i on o.order_id = i.order_id "
             "and o.user_id = i.user_id where o.user_id = %s order by 1", (5,)),
}


def walk_named_cursor(conn, kind: str, sql: str, params) -> list:
    """Reads a named (server-side) cursor piece by piece; returns every piece and the cursor's description."""
    seen = []
    if kind == "withhold":
        cursor = conn.cursor(name="c_hold", withhold=True)
        cursor.execute(sql, params)
        seen.append(described(cursor))
        seen.append(cursor.fetchmany(5))
        seen.append(conn.execute("select count(*) from t_address").fetchall())
        seen.append(cursor.fetchone())
        seen.append(cursor.fetchmany(10))
        seen.append(cursor.fetchall())
        cursor.close()
        return seen
    with conn.transaction():
        if kind == "scrollable":
            cursor = conn.cursor(name="c_scroll", scrollable=True)
            cursor.execute(sql, params)
            seen.append(described(cursor))
            seen.append(cursor.fetchmany(3))
            cursor.scroll(10, mode="absolute")
            seen.append(cursor.fetchone())
            cursor.scroll(-5)
            seen.append(cursor.fetchmany(4))
            cursor.scroll(0, mode="absolute")
            seen.append(cursor.fetchone())
            cursor.scroll(3)
            seen.append(cursor.fetchall())
            cursor.scroll(-2)
            seen.append(cursor.fetchall())
        else:
            cursor = conn.cursor(name="c", binary=(kind == "binary"))
            cursor.itersize = 7
            cursor.execute(sql, params)
            seen.append(described(cursor))
            seen.append(cursor.fetchmany(5))
            seen.append(cursor.fetchone())
            seen.append(list(cursor))
        cursor.close()
    return seen


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
@pytest.mark.parametrize("kind", ["plain", "binary", "withhold", "scrollable"])
@pytest.mark.parametrize("query", list(CURSOR_QUERIES))
def test_named_cursor(target: Target, reference, kind, query):
    sql, params = CURSOR_QUERIES[query]
    with reference.connect() as ref:
        expected = walk_named_cursor(ref, kind, sql, params)
    assert sum(len(piece) for piece in expected if isinstance(piece, list)) > 10, "the test needs more rows"
    with target.endpoint.connect() as conn:
        assert walk_named_cursor(conn, kind, sql, params) == expected
        assert conn.execute("select 1").fetchone() == (1,)
        assert conn.execute("select count(*) from pg_cursors").fetchone() == (0,)


@pytest.mark.parametrize("target", ALL_TARGETS, indirect=True)
def test_notifies_generator_hears_notify_while_idle(target: Target):
    """psycopg's notifies() waits on the socket: the listening connection runs no statement meanwhile."""
    with target.endpoint.connect(autocommit=True) as listener, target.endpoint.connect(autocommit=True) as notifier:
        listener.execute("LISTEN ashlar_psycopg")
        notifier.execute("NOTIFY ashlar_psycopg, 'while idle'")
        got = [(n.channel, n.payload) for n in listener.notifies(timeout=HANG_SECONDS, stop_after=1)]
        assert got == [("ashlar_psycopg", "while idle")]
        assert listener.execute("select 1").fetchone() == (1,)
