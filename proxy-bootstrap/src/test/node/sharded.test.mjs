// node-postgres (pg) and postgres.js against Ashlar's sharded and pooled databases, each compared with the same
// program against one PostgreSQL database holding the same rows (the reference). Run by NodeDriversTest, which
// starts the fixtures and passes where they listen in ASHLAR_* variables (DriverDatabases.environment()).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import postgres from 'postgres';

const env = process.env;
const SHARDED = env.ASHLAR_SHARDED_DB;
const POOLED = env.ASHLAR_POOLED_DB;
const REFERENCE = env.ASHLAR_PG_REFERENCE;
const TIMEOUT = { timeout: 30_000 };

const proxy = (database) => ({ host: env.ASHLAR_HOST, port: Number(env.ASHLAR_PORT), user: env.ASHLAR_USER,
  password: env.ASHLAR_PASSWORD, database });
const direct = (database) => ({ host: env.ASHLAR_PG_HOST, port: Number(env.ASHLAR_PG_PORT), user: env.ASHLAR_PG_USER,
  password: env.ASHLAR_PG_PASSWORD, database });

async function connect(config) {
  const client = new pg.Client(config);
  await client.connect();
  return client;
}

/** What `run` gives on the reference, then through the proxy's database. */
async function both(database, run) {
  const results = [];
  for (const config of [direct(REFERENCE), proxy(database)]) {
    const client = await connect(config);
    try {
      results.push(await run(client));
    } finally {
      await client.end();
    }
  }
  return results;
}

const NOTE = "CREATE OR REPLACE FUNCTION ashlar_note(x bigint) RETURNS bigint LANGUAGE plpgsql AS"
  + " $$ BEGIN RAISE NOTICE 'row %', x; RETURN x; END $$";

before(async () => {
  for (const database of [...env.ASHLAR_PG_SHARDS.split(','), REFERENCE]) {
    const client = await connect(direct(database));
    try {
      await client.query(NOTE);
    } finally {
      await client.end();
    }
  }
});

// order_id IN (1, 3) reads t_order_1 on each data source: one unit per data source, whose tag comes after its rows.
const MULTI = 'SELECT count(*) FROM t_order; SELECT order_id, status FROM t_order WHERE order_id IN (1, 3) ORDER BY order_id;'
  + ' SELECT max(order_id) FROM t_order WHERE order_id > 100; SELECT order_id FROM t_order ORDER BY order_id LIMIT 2';

for (const database of [SHARDED, POOLED]) {
  test(`pg: a query string of several statements gives one result each, with its command and row count (${database})`, TIMEOUT, async () => {
    const [expected, actual] = await both(database, async (client) =>
      (await client.query(MULTI)).map((result) => ({ command: result.command, rowCount: result.rowCount, rows: result.rows })));
    assert.equal(expected.length, 4);
    assert.deepEqual(actual, expected);
  });

  test(`postgres.js: the same query string through sql.unsafe (${database})`, TIMEOUT, async () => {
    const results = [];
    for (const config of [direct(REFERENCE), proxy(database)]) {
      const sql = postgres({ ...config, username: config.user, max: 1, onnotice: () => {} });
      try {
        results.push((await sql.unsafe(MULTI)).map((result) => ({ command: result.command, count: result.count, rows: [...result] })));
      } finally {
        await sql.end();
      }
    }
    assert.deepEqual(results[1], results[0]);
  });
}

test('pg: NOTICEs a function raises row by row on every shard reach the client', TIMEOUT, async () => {
  const [expected, actual] = await both(SHARDED, async (client) => {
    const notices = [];
    client.on('notice', (notice) => notices.push(notice.message));
    await client.query('SELECT sum(ashlar_note(order_id)) FROM t_order WHERE order_id <= 40');
    await client.query('SELECT ashlar_note(order_id) FROM t_order ORDER BY order_id');
    return notices.sort();
  });
  assert.ok(expected.length > 100, `the reference raised ${expected.length}`);
  assert.deepEqual(actual, expected);
});

test('pg: notifications of the session\'s own statements arrive with their answers', TIMEOUT, async () => {
  const [expected, actual] = await both(SHARDED, async (client) => {
    const heard = [];
    client.on('notification', (message) => heard.push(`${message.channel}:${message.payload}`));
    const seen = [];
    await client.query("LISTEN ashlar_node; NOTIFY ashlar_node, 'in one string'");
    seen.push([...heard]);
    await client.query("SELECT pg_notify('ashlar_node', 'by a function')");
    seen.push([...heard]);
    await client.query('UNLISTEN ashlar_node');
    return seen;
  });
  assert.deepEqual(actual, expected);
});

test('pg: an error\'s position counts in the whole query string', TIMEOUT, async () => {
  const [expected, actual] = await both(SHARDED, async (client) => {
    const positions = [];
    for (const sql of ['SELECT 1; SELECT nocol FROM t_order WHERE order_id = 2',
      'SELECT order_id FROM t_order WHERE order_id = 2 AND nocol = 1']) {
      await assert.rejects(client.query(sql), (error) => {
        positions.push(`${error.code} ${error.position}`);
        return true;
      });
    }
    return positions;
  });
  assert.deepEqual(actual, expected);
});

// PHP's PDO and Perl's DBD::Pg drop the statements they parsed with a plain SQL DEALLOCATE (one namespace, in
// PostgreSQL): through the proxy it said 26000 (the backend knows the statement under another name, or not at all),
// which also failed the transaction block it ran in.
for (const database of [SHARDED, POOLED]) {
  test(`pg: SQL DEALLOCATE drops a statement the client parsed, in a block too (${database})`, TIMEOUT, async () => {
    const [expected, actual] = await both(database, async (client) => {
      const outcome = [];
      const named = (value) => ({ name: 'ashlar_dealloc', text: 'SELECT $1::int AS v', values: [value] });
      outcome.push((await client.query(named(1))).rows);
      await client.query('BEGIN');
      outcome.push((await client.query('DEALLOCATE ashlar_dealloc')).command);
      outcome.push((await client.query('SELECT 42 AS answer')).rows);
      outcome.push((await client.query('COMMIT')).command);
      try {
        await client.query(named(2)); // node-postgres binds its cached statement at once
        outcome.push('still prepared');
      } catch (error) {
        outcome.push(error.code);
      }
      try {
        await client.query('DEALLOCATE PREPARE ashlar_dealloc');
        outcome.push('deallocated twice');
      } catch (error) {
        outcome.push(error.code);
      }
      return outcome;
    });
    assert.deepEqual(expected, [[{ v: 1 }], 'DEALLOCATE', [{ answer: 42 }], 'COMMIT', '26000', '26000']);
    assert.deepEqual(actual, expected);
  });
}

// DISCARD ALL and DEALLOCATE ALL drop the statements the client parsed too (pgjdbc, seeing the tag, parses its own again).
for (const database of [SHARDED, POOLED]) {
  test(`pg: DISCARD ALL and DEALLOCATE ALL drop the statements the client parsed (${database})`, TIMEOUT, async () => {
    const [expected, actual] = await both(database, async (client) => {
      const outcome = [];
      for (const drop of ['DISCARD ALL', 'DEALLOCATE ALL']) {
        const named = { name: 'ashlar_dropped', text: 'SELECT $1::int AS v', values: [1] };
        outcome.push((await client.query(named)).rows);
        outcome.push((await client.query(drop)).command);
        try {
          await client.query(named); // node-postgres binds its cached statement at once
          outcome.push('still prepared');
        } catch (error) {
          outcome.push(error.code);
        }
        client.connection.parsedStatements = {}; // node-postgres forgets it too, as pgjdbc does on the tag
        client.connection.submittedNamedStatements = {};
      }
      return outcome;
    });
    assert.deepEqual(expected, [[{ v: 1 }], 'DISCARD', '26000', [{ v: 1 }], 'DEALLOCATE', '26000']);
    assert.deepEqual(actual, expected);
  });
}
