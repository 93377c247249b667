// pgx v5 against Ashlar's sharded and pooled databases, each case compared with the same program against one
// PostgreSQL database holding the same rows (the reference), as the Python and Node.js suites do. Run by
// GoDriversTest, which starts the fixtures and passes where they listen in ASHLAR_* variables
// (DriverDatabases.environment()).
package drivers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func env(t testing.TB, name string) string {
	value, ok := os.LookupEnv(name)
	if !ok {
		t.Fatalf("%s is not set: GoDriversTest runs this suite with the fixtures' environment", name)
	}
	return value
}

func proxyURL(t testing.TB, database string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(env(t, "ASHLAR_USER"), env(t, "ASHLAR_PASSWORD")),
		Host: env(t, "ASHLAR_HOST") + ":" + env(t, "ASHLAR_PORT"), Path: "/" + database}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

func directURL(t testing.TB, database string) string {
	u := url.URL{Scheme: "postgres", User: url.User(env(t, "ASHLAR_PG_USER")),
		Host: env(t, "ASHLAR_PG_HOST") + ":" + env(t, "ASHLAR_PG_PORT"), Path: "/" + database}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

func sharded(t testing.TB) string { return env(t, "ASHLAR_SHARDED_DB") }
func pooled(t testing.TB) string  { return env(t, "ASHLAR_POOLED_DB") }
func reference(t testing.TB) string {
	return env(t, "ASHLAR_PG_REFERENCE")
}

func timeout(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connect(t testing.TB, ctx context.Context, connString string, configure func(*pgx.ConnConfig)) *pgx.Conn {
	config, err := pgx.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	if configure != nil {
		configure(config)
	}
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		t.Fatalf("connecting to %s: %v", connString, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// both runs the same program on the reference, then through the proxy's database, and returns the two results.
func both[T any](t *testing.T, database string, configure func(*pgx.ConnConfig), run func(*pgx.Conn) T) (T, T) {
	ctx := timeout(t)
	expected := run(connect(t, ctx, directURL(t, reference(t)), configure))
	actual := run(connect(t, ctx, proxyURL(t, database), configure))
	return expected, actual
}

func same(t *testing.T, what string, expected, actual any) {
	t.Helper()
	if !reflect.DeepEqual(expected, actual) {
		t.Fatalf("%s: expected (PostgreSQL's)\n  %#v\nAshlar gives\n  %#v", what, expected, actual)
	}
}

// rows reads every row as text, whatever the column types, so that results of both servers compare as values.
func rows(t testing.TB, ctx context.Context, conn *pgx.Conn, sql string, args ...any) [][]string {
	t.Helper()
	result, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer result.Close()
	var out [][]string
	for result.Next() {
		values, err := result.Values()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		row := make([]string, len(values))
		for i, value := range values {
			row[i] = fmt.Sprintf("%v", value)
		}
		out = append(out, row)
	}
	if err := result.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func code(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	if err == nil {
		return ""
	}
	return "not a PostgreSQL error: " + err.Error()
}

// compare runs the same program on the reference and through each of the proxy's databases, as a subtest per
// database, and fails where the results differ.
func compare[T any](t *testing.T, what string, run func(t *testing.T, conn *pgx.Conn) T) {
	for _, database := range databases(t) {
		t.Run(database, func(t *testing.T) {
			expected, actual := both(t, database, nil, func(conn *pgx.Conn) T { return run(t, conn) })
			same(t, what, expected, actual)
		})
	}
}

var execModes = []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol}

func databases(t *testing.T) []string { return []string{sharded(t), pooled(t)} }

// Every way pgx sends a statement (prepared and cached, described, unnamed, simple), twice each so that the caches
// are used: the same rows, on a route to one shard and across both.
func TestQueryExecModes(t *testing.T) {
	for _, database := range databases(t) {
		for _, mode := range execModes {
			t.Run(database+"/"+mode.String(), func(t *testing.T) {
				configure := func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = mode }
				expected, actual := both(t, database, configure, func(conn *pgx.Conn) [][][]string {
					ctx := timeout(t)
					var out [][][]string
					for _, user := range []int32{10, 11, 10} {
						out = append(out, rows(t, ctx, conn,
							"SELECT order_id, user_id, status FROM t_order WHERE user_id = $1 ORDER BY order_id", user))
					}
					out = append(out, rows(t, ctx, conn,
						"SELECT user_id, count(*), min(order_id) FROM t_order WHERE order_id > $1 GROUP BY user_id ORDER BY user_id LIMIT 5", int64(0)))
					return out
				})
				for i, result := range expected {
					if len(result) == 0 {
						t.Fatalf("query %d found no row on PostgreSQL: the comparison would say nothing", i)
					}
				}
				same(t, "rows", expected, actual)
			})
		}
	}
}

// Values of many types through the extended protocol, whose results pgx asks for in binary: each decoded to the same
// Go value.
func TestBinaryTypes(t *testing.T) {
	const sql = `SELECT $1::int2, $2::int4, $3::int8, $4::numeric, $5::float8, $6::bool, $7::text, $8::bytea, $9::uuid,
		$10::date, $11::timestamp, $12::timestamptz, $13::interval, $14::jsonb, $15::int4[], $16::text[], $17::inet,
		NULL::int4, '{"a": [1, 2]}'::json, 'infinity'::timestamptz, '1.5'::float4`
	args := []any{int16(-7), int32(123456), int64(-9000000000), "12345.678901", 2.5, true, "héllo", []byte{0, 1, 255},
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "2024-02-29", "2024-02-29 12:34:56.789", "2024-02-29 12:34:56.789+02",
		"1 year 2 mons 3 days 04:05:06", `{"k": [1, "x"]}`, []int32{1, 2, 3}, []string{"a", "b,c", ""}, "10.1.2.3/32"}
	for _, database := range databases(t) {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
			t.Run(database+"/"+mode.String(), func(t *testing.T) {
				configure := func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = mode }
				expected, actual := both(t, database, configure, func(conn *pgx.Conn) []any {
					ctx := timeout(t)
					values, err := func() ([]any, error) {
						result, err := conn.Query(ctx, sql, args...)
						if err != nil {
							return nil, err
						}
						defer result.Close()
						if !result.Next() {
							return nil, fmt.Errorf("no row: %v", result.Err())
						}
						return result.Values()
					}()
					if err != nil {
						t.Fatal(err)
					}
					return values
				})
				same(t, "values", expected, actual)
			})
		}
	}
}

// A batch is one pipeline ending with one Sync: a failing statement in its middle fails the rest, as PostgreSQL
// does, and the connection goes on.
func TestBatchWithAFailureInTheMiddle(t *testing.T) {
	compare(t, "batch", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		batch := &pgx.Batch{}
		batch.Queue("SELECT count(*) FROM t_order WHERE user_id = $1", int32(10))
		batch.Queue("SELECT status FROM t_order WHERE order_id = $1", int64(1))
		batch.Queue("SELECT 1/0")
		batch.Queue("SELECT count(*) FROM t_order")
		results := conn.SendBatch(ctx, batch)
		var out []string
		for i := 0; i < batch.Len(); i++ {
			var value any
			err := results.QueryRow().Scan(&value)
			out = append(out, fmt.Sprintf("%v|%s", value, code(err)))
		}
		out = append(out, "close|"+code(results.Close()))
		var after int64
		err := conn.QueryRow(ctx, "SELECT count(*) FROM t_order").Scan(&after)
		out = append(out, fmt.Sprintf("after %d|%s", after, code(err)))
		return out
	})
}

// A batch of writes and reads in one transaction on the sharded database: every row lands where the rules put it.
func TestBatchOfInsertsLandsOnItsShards(t *testing.T) {
	ctx := timeout(t)
	conn := connect(t, ctx, proxyURL(t, sharded(t)), nil)
	cleanup(t, conn, 900001, 900040)
	batch := &pgx.Batch{}
	for id := int64(900001); id <= 900040; id++ {
		batch.Queue("INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, $3)", id, int32(id%7), "BATCH")
	}
	batch.Queue("SELECT count(*) FROM t_order WHERE order_id BETWEEN 900001 AND 900040")
	results := conn.SendBatch(ctx, batch)
	for i := 0; i < 40; i++ {
		tag, err := results.Exec()
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("insert %d: %v %v", i, tag, err)
		}
	}
	var count int64
	if err := results.QueryRow().Scan(&count); err != nil || count != 40 {
		t.Fatalf("count %d: %v", count, err)
	}
	if err := results.Close(); err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, ctx, 900001, 900040, 40)
}

func cleanup(t *testing.T, conn *pgx.Conn, from, to int64) {
	t.Helper()
	ctx := timeout(t)
	remove := func() {
		if _, err := conn.Exec(ctx, "DELETE FROM t_order WHERE order_id BETWEEN $1 AND $2", from, to); err != nil {
			t.Fatalf("cleaning up: %v", err)
		}
	}
	remove()
	t.Cleanup(remove)
}

// checkPlacement reads every shard directly: each order of [from, to] is on ds_(user_id % 2), in t_order_(order_id % 2),
// once.
func checkPlacement(t *testing.T, ctx context.Context, from, to int64, want int) {
	t.Helper()
	found := 0
	for _, shard := range strings.Split(env(t, "ASHLAR_PG_SHARDS"), ",") {
		direct := connect(t, ctx, directURL(t, shard), nil)
		for table := 0; table < 2; table++ {
			sql := fmt.Sprintf("SELECT order_id, user_id FROM t_order_%d WHERE order_id BETWEEN $1 AND $2", table)
			result, err := direct.Query(ctx, sql, from, to)
			if err != nil {
				t.Fatal(err)
			}
			for result.Next() {
				var order int64
				var user int32
				if err := result.Scan(&order, &user); err != nil {
					t.Fatal(err)
				}
				found++
				if fmt.Sprintf("ds_%d", user%2) != shard || order%2 != int64(table) {
					t.Errorf("order %d of user %d is in %s.t_order_%d", order, user, shard, table)
				}
			}
			result.Close()
		}
	}
	if found != want {
		t.Fatalf("%d rows on the shards, %d written", found, want)
	}
}

// CopyFrom (binary COPY FROM STDIN) into a sharded table: each row goes to its shard; into the pooled database: the
// table holds them.
func TestCopyFrom(t *testing.T) {
	t.Run("sharded", func(t *testing.T) {
		ctx := timeout(t)
		conn := connect(t, ctx, proxyURL(t, sharded(t)), nil)
		cleanup(t, conn, 910001, 910100)
		var source [][]any
		for id := int64(910001); id <= 910100; id++ {
			source = append(source, []any{id, int32(id % 13), "COPIED"})
		}
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"t_order"}, []string{"order_id", "user_id", "status"}, pgx.CopyFromRows(source))
		if err != nil || n != 100 {
			t.Fatalf("CopyFrom: %d rows, %v", n, err)
		}
		checkPlacement(t, ctx, 910001, 910100, 100)
	})
	t.Run("pooled", func(t *testing.T) {
		expected, actual := both(t, pooled(t), nil, func(conn *pgx.Conn) []string {
			ctx := timeout(t)
			if _, err := conn.Exec(ctx, "CREATE TEMP TABLE copied (id int8, name text, at timestamptz, tags text[])"); err != nil {
				t.Fatal(err)
			}
			at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
			source := [][]any{{int64(1), "one", at, []string{"a"}}, {int64(2), nil, nil, nil}, {int64(3), "thrée", at, []string{}}}
			n, err := conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"id", "name", "at", "tags"}, pgx.CopyFromRows(source))
			var out []string
			out = append(out, fmt.Sprintf("%d|%s", n, code(err)))
			for _, row := range rows(t, ctx, conn, "SELECT id, name, at, tags FROM copied ORDER BY id") {
				out = append(out, strings.Join(row, "|"))
			}
			return out
		})
		same(t, "copied rows", expected, actual)
	})
}

// A transaction with savepoints (pgx's nested Begin) and a failed statement rolled back to its savepoint.
func TestTransactionsAndSavepoints(t *testing.T) {
	ctx := timeout(t)
	conn := connect(t, ctx, proxyURL(t, sharded(t)), nil)
	cleanup(t, conn, 920001, 920010)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(q pgx.Tx, sql string, args ...any) {
		t.Helper()
		if _, err := q.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(tx, "INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, 'TX')", int64(920001), int32(1))
	nested, err := tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(nested, "INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, 'TX')", int64(920002), int32(2))
	_, err = nested.Exec(ctx, "INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, 'TX')", int64(920001), int32(1))
	if code(err) != "23505" {
		t.Fatalf("a duplicate key: %v (want 23505)", err)
	}
	if err := nested.Rollback(ctx); err != nil {
		t.Fatalf("rollback to the savepoint: %v", err)
	}
	mustExec(tx, "INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, 'TX')", int64(920003), int32(3))
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got := rows(t, ctx, conn, "SELECT order_id FROM t_order WHERE order_id BETWEEN 920001 AND 920010 ORDER BY order_id")
	same(t, "committed rows", [][]string{{"920001"}, {"920003"}}, got)
	checkPlacement(t, ctx, 920001, 920010, 2)

	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(tx, "INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, 'TX')", int64(920004), int32(4))
	if _, err := tx.Exec(ctx, "SELECT 1/0"); code(err) != "22012" {
		t.Fatalf("division by zero: %v", err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); code(err) != "25P02" {
		t.Fatalf("a statement in a failed transaction: %v (want 25P02)", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got = rows(t, ctx, conn, "SELECT count(*) FROM t_order WHERE order_id BETWEEN 920001 AND 920010")
	same(t, "rows after the rollback", [][]string{{"2"}}, got)
}

// Errors carry PostgreSQL's SQLSTATE, and a syntax error its position in the client's text.
func TestErrors(t *testing.T) {
	compare(t, "errors", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		var out []string
		for _, sql := range []string{"SELECT order_id FROM t_order WHERE", "SELECT no_such_column FROM t_order",
			"SELECT * FROM no_such_table", "SELECT 1::int4 + 'x'::text",
			// rewritten for the merge (the sort column added to the select list): positions kept
			"SELECT order_id FROM t_order ORDER BY nosuch", "SELECT status FROM t_order GROUP BY status ORDER BY order_id",
			// a LIMIT the proxy reads itself to finish the page
			"SELECT order_id FROM t_order LIMIT 'x'"} {
			_, err := conn.Exec(ctx, sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				t.Fatalf("%s: %v", sql, err)
			}
			out = append(out, fmt.Sprintf("%s|%s|%d", pgErr.Code, pgErr.Severity, pgErr.Position))
		}
		return out
	})
}

// A cancelled context cancels the statement (57014) and the connection serves the next one.
func TestCancel(t *testing.T) {
	for _, database := range databases(t) {
		t.Run(database, func(t *testing.T) {
			ctx := timeout(t)
			conn := connect(t, ctx, proxyURL(t, database), nil)
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			started := time.Now()
			_, err := conn.Exec(short, "SELECT pg_sleep(20)")
			if err == nil {
				t.Fatal("pg_sleep(20) ended without error")
			}
			if took := time.Since(started); took > 10*time.Second {
				t.Fatalf("the cancelled statement took %v", took)
			}
			// pgx closes a connection whose query it abandoned; a new one must work, and the old backend must be freed.
			again := connect(t, ctx, proxyURL(t, database), nil)
			var one int
			if err := again.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("after the cancel: %v", err)
			}
		})
	}
}

// LISTEN on one connection, NOTIFY from another, through the pooled database.
func TestListenNotify(t *testing.T) {
	ctx := timeout(t)
	listener := connect(t, ctx, proxyURL(t, pooled(t)), nil)
	if _, err := listener.Exec(ctx, "LISTEN ashlar_go"); err != nil {
		t.Fatal(err)
	}
	notifier := connect(t, ctx, proxyURL(t, pooled(t)), nil)
	if _, err := notifier.Exec(ctx, "SELECT pg_notify('ashlar_go', 'payload ü')"); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	notification, err := listener.WaitForNotification(wait)
	if err != nil {
		t.Fatalf("no notification: %v", err)
	}
	if notification.Channel != "ashlar_go" || notification.Payload != "payload ü" {
		t.Fatalf("notification %+v", notification)
	}
}

// Many goroutines sharing a pgxpool, each reading its users' orders: every answer is the reference's.
func TestPoolConcurrency(t *testing.T) {
	ctx := timeout(t)
	direct := connect(t, ctx, directURL(t, reference(t)), nil)
	want := map[int32]int64{}
	for user := int32(0); user < 20; user++ {
		var count int64
		if err := direct.QueryRow(ctx, "SELECT count(*) FROM t_order WHERE user_id = $1", user).Scan(&count); err != nil {
			t.Fatal(err)
		}
		want[user] = count
	}
	for _, database := range databases(t) {
		t.Run(database, func(t *testing.T) {
			config, err := pgxpool.ParseConfig(proxyURL(t, database) + "&pool_max_conns=8")
			if err != nil {
				t.Fatal(err)
			}
			pool, err := pgxpool.NewWithConfig(ctx, config)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var wrong []string
			var lock sync.Mutex
			var group sync.WaitGroup
			for worker := 0; worker < 16; worker++ {
				group.Add(1)
				go func(worker int) {
					defer group.Done()
					for i := 0; i < 50; i++ {
						user := int32((worker + i) % 20)
						var count int64
						err := pool.QueryRow(ctx, "SELECT count(*) FROM t_order WHERE user_id = $1", user).Scan(&count)
						if err != nil || count != want[user] {
							lock.Lock()
							wrong = append(wrong, fmt.Sprintf("user %d: %d (want %d), %v", user, count, want[user], err))
							lock.Unlock()
						}
					}
				}(worker)
			}
			group.Wait()
			sort.Strings(wrong)
			if len(wrong) > 0 {
				t.Fatalf("%d wrong answers, e.g. %s", len(wrong), wrong[0])
			}
		})
	}
}

// A large result read row by row, in binary: the same rows, in order.
func TestLargeResult(t *testing.T) {
	compare(t, "count and sum", func(t *testing.T, conn *pgx.Conn) []int64 {
		ctx := timeout(t)
		result, err := conn.Query(ctx, "SELECT g, md5(g::text) FROM generate_series(1, $1::int) g", 100000)
		if err != nil {
			t.Fatal(err)
		}
		defer result.Close()
		var count, sum int64
		for result.Next() {
			var g int64
			var hash string
			if err := result.Scan(&g, &hash); err != nil {
				t.Fatal(err)
			}
			if g != count+1 || len(hash) != 32 {
				t.Fatalf("row %d: %d %q", count, g, hash)
			}
			count++
			sum += g
		}
		if err := result.Err(); err != nil {
			t.Fatal(err)
		}
		return []int64{count, sum}
	})
}

// Statements prepared by name (conn.Prepare) and described: the same parameter and result descriptions.
func TestPrepareByName(t *testing.T) {
	compare(t, "described and run", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		description, err := conn.Prepare(ctx, "by_user", "SELECT order_id, status FROM t_order WHERE user_id = $1 AND order_id > $2 ORDER BY order_id")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, oid := range description.ParamOIDs {
			out = append(out, fmt.Sprintf("param %d", oid))
		}
		for _, field := range description.Fields {
			out = append(out, fmt.Sprintf("field %s %d", field.Name, field.DataTypeOID))
		}
		for _, row := range rows(t, ctx, conn, "by_user", int32(10), int64(0)) {
			out = append(out, strings.Join(row, "|"))
		}
		if err := conn.Deallocate(ctx, "by_user"); err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, "by_user", int32(10), int64(0))
		out = append(out, "after deallocate: "+code(err))
		return out
	})
}

// PostgreSQL parses a whole query string before it runs any of it: pgx's batch in simple protocol mode is one such
// string, and a syntax error at its end runs none of it, the COMMIT ahead of it included.
func TestSyntaxErrorLateInAQueryStringRunsNothing(t *testing.T) {
	const sql = "BEGIN; INSERT INTO t_order (order_id, user_id, status) VALUES (930001, 1, 'LATE'); COMMIT; SELEC oops"
	compare(t, "answers", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		if _, err := conn.Exec(ctx, "DELETE FROM t_order WHERE order_id = 930001"); err != nil {
			t.Fatal(err)
		}
		results, err := conn.PgConn().Exec(ctx, sql).ReadAll()
		var out []string
		for _, result := range results {
			out = append(out, result.CommandTag.String())
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Fatalf("no PostgreSQL error: %v", err)
		}
		out = append(out, fmt.Sprintf("%s at %d", pgErr.Code, pgErr.Position))
		var count int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM t_order WHERE order_id = 930001").Scan(&count); err != nil {
			t.Fatal(err)
		}
		return append(out, fmt.Sprintf("rows %d", count))
	})
}

// MIN and MAX over types whose order the proxy does not know (inet, arrays, money) across shards: PostgreSQL finishes
// them over intermediate results, whatever shards the values are on. They failed with 0A000 once two shards had one.
func TestMinMaxOverTypesOfUnknownOrder(t *testing.T) {
	compare(t, "extremes", func(t *testing.T, conn *pgx.Conn) [][]string {
		ctx := timeout(t)
		var out [][]string
		for _, sql := range []string{
			"SELECT max('10.0.0.0'::inet + user_id), min('10.0.0.0'::inet + user_id) FROM t_order",
			"SELECT max(ARRAY[user_id, order_id::int]), min(ARRAY[user_id]) FROM t_order",
			"SELECT max(user_id::numeric::money), min(order_id::numeric::money) FROM t_order WHERE order_id > $1",
			"SELECT status, max(ARRAY[user_id]) FROM t_order GROUP BY status ORDER BY status",
		} {
			args := []any{}
			if strings.Contains(sql, "$1") {
				args = append(args, int64(0))
			}
			out = append(out, rows(t, ctx, conn, sql, args...)...)
		}
		return out
	})
}

// CopyFrom of a row whose sharding column is NULL where the table says NOT NULL: PostgreSQL's 23502, and nothing of
// the COPY stays (it was 0A000, "a row without a sharding value has no shard").
func TestCopyFromNullIntoANotNullShardingColumn(t *testing.T) {
	compare(t, "copy", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		if _, err := conn.Exec(ctx, "DELETE FROM t_order WHERE order_id BETWEEN 940001 AND 940003"); err != nil {
			t.Fatal(err)
		}
		source := [][]any{{int64(940001), int32(1), "OK"}, {int64(940002), nil, "NULL USER"}, {int64(940003), int32(3), "OK"}}
		_, err := conn.CopyFrom(ctx, pgx.Identifier{"t_order"}, []string{"order_id", "user_id", "status"}, pgx.CopyFromRows(source))
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Fatalf("no PostgreSQL error: %v", err)
		}
		var count int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM t_order WHERE order_id BETWEEN 940001 AND 940003").Scan(&count); err != nil {
			t.Fatal(err)
		}
		return []string{pgErr.Code, pgErr.Message, fmt.Sprintf("rows %d", count)}
	})
}

// A parameter that does not convert to its column's type, in a statement that reads every shard: PostgreSQL's error,
// its context naming the client's unnamed portal (it named the proxy's own, "ashlar_unit_0").
func TestParameterErrorNamesTheClientsPortal(t *testing.T) {
	compare(t, "error", func(t *testing.T, conn *pgx.Conn) []string {
		ctx := timeout(t)
		_, err := conn.Exec(ctx, "SELECT count(*) FROM t_order WHERE status = $1 AND user_id > $2::int", "NEW", "abc")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Fatalf("no PostgreSQL error: %v", err)
		}
		return []string{pgErr.Code, pgErr.Message, pgErr.Where}
	})
}

// A text COPY whose fourth row the shard refuses: the error's context never names another line of the client's data
// (it named the row's line on its shard, 2).
func TestCopyErrorContextNamesNoOtherLine(t *testing.T) {
	ctx := timeout(t)
	conn := connect(t, ctx, proxyURL(t, sharded(t)), nil)
	cleanup(t, conn, 950001, 950004)
	data := "950001\t1\ta\n950002\t2\tb\n950003\t4\tc\n950004\t4\t\\N\n"
	_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY t_order (order_id, user_id, status) FROM STDIN")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23502" {
		t.Fatalf("want 23502, got %v", err)
	}
	if strings.Contains(pgErr.Where, ", line ") && !strings.Contains(pgErr.Where, ", line 4") {
		t.Fatalf("context names another line: %q", pgErr.Where)
	}
	if !strings.Contains(pgErr.Where, "950004") {
		t.Fatalf("context does not show the row: %q", pgErr.Where)
	}
}
