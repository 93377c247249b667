#!/usr/bin/env bash
# Issue 12, sharded: a 10,000,000-row ORDER BY across two data sources read through Ashlar by a
# client that stalls.
#
#   benchmarks/stalled-reader-sharded.sh                 defaults below (about 5 min on 2 cores)
#   ROWS=1000000 STALL_SECONDS=5 benchmarks/stalled-reader-sharded.sh     a smoke run
#
# Starts a throwaway PostgreSQL 15 (../shared/peers/pg.sh) with databases bench_s0 and bench_s1,
# loads t_wide (g bigint primary key, pad text of 100 bytes) with g = 1..ROWS, even g in bench_s0
# and odd in bench_s1, and views t_split_0/t_split_1 over it in each, then starts Ashlar serving
# bench_sharded (benchmarks/conf/stalled-sharded: t_wide one table per data source, t_split two
# per data source). For each layout it runs io.ashlar.bench.load.StalledReader (simple query) with
#   SELECT g, pad FROM <table> ORDER BY g
# which the proxy answers by merge-sorting the units' ordered rows (2 units, one per data source;
# 4 units, two per data source, read as portals in turns):
#   1. through Ashlar, read at full speed (warms the proxy)
#   2. through Ashlar: the client reads FIRST_ROWS rows, stops reading its socket for
#      STALL_SECONDS, then reads on to the end; the proxy's VmRSS is sampled every
#      SAMPLE_INTERVAL s from just before the query to its end.
# Every run checks that g comes 1, 2, 3, ... ROWS (every row, in order). For reference, the time
# to first row of one unit's query sent straight to bench_s0 (t_wide, t_split_0) is printed.
#
# PASS: every run read ROWS rows in order with no error, and in each stalled run the proxy's VmRSS
# at the end of the stall was at most MAX_GROWTH_MIB (64) above its value just before the query:
# a proxy that reads ahead of its client holds the rows the backends sent meanwhile (the whole
# result, before issue 12's streaming). The growth up to the top of the whole run is printed too:
# after the stall the rows flow at full speed, and the GC's heap grows with the garbage of
# millions of rows (-Xms512m -Xmx2g, ZGC: the heap bin/ashlar gives), whatever the proxy keeps.
#
# Env (defaults): ROWS=10000000 FIRST_ROWS=1000 STALL_SECONDS=20 SAMPLE_INTERVAL=0.2
#   MAX_GROWTH_MIB=64 PG_PORT=27472 ASHLAR_PORT=27473 OUT=/tmp/results/stalled-reader-sharded-<timestamp>;
#   and pooled-proxy.sh's (BUILD, PEERS, RUN_DIR, ASHLAR_JAVA_OPTS).
set -euo pipefail

NAME=stalled-reader-sharded
ROWS=${ROWS:-10000000} FIRST_ROWS=${FIRST_ROWS:-1000} STALL_SECONDS=${STALL_SECONDS:-20}
SAMPLE_INTERVAL=${SAMPLE_INTERVAL:-0.2} MAX_GROWTH_MIB=${MAX_GROWTH_MIB:-64}
PG_PORT=${PG_PORT:-27472} ASHLAR_PORT=${ASHLAR_PORT:-27473}
OUT=${OUT:-/tmp/results/stalled-reader-sharded-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
. "$(dirname "${BASH_SOURCE[0]}")/pooled-proxy.sh"

build_if_needed
start_pg

psql_db() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$1" "${@:2}"; }
log "loading $ROWS rows into bench_s0 and bench_s1"
t0=$(date +%s)
for s in 0 1; do
    psql_db "bench_s$s" -c "CREATE TABLE t_wide (g bigint PRIMARY KEY, pad text)" \
        -c "INSERT INTO t_wide SELECT g, repeat('x', 100) FROM generate_series(1, $ROWS) g WHERE g % 2 = $s" \
        -c "CREATE VIEW t_split_0 AS SELECT g, pad FROM t_wide WHERE (g / 2) % 2 = 0" \
        -c "CREATE VIEW t_split_1 AS SELECT g, pad FROM t_wide WHERE (g / 2) % 2 = 1" \
        -c "VACUUM ANALYZE t_wide" > "$OUT/load-s$s.log" 2>&1 &
done
wait || die "loading failed (logs $OUT/load-s*.log)"
log "loaded in $(( $(date +%s) - t0 )) s"

conf=$OUT/ashlar-conf
mkdir -p "$conf"
sed -e "s|@ASHLAR_PORT@|$ASHLAR_PORT|g" "$REPO/benchmarks/conf/pgbench-1shard/server.yaml" > "$conf/server.yaml"
sed -e "s|@PG_PORT@|$PG_PORT|g" -e "s|@PG_DB_S0@|bench_s0|g" -e "s|@PG_DB_S1@|bench_s1|g" \
    "$REPO/benchmarks/conf/stalled-sharded/config-stalled.yaml" > "$conf/config-stalled.yaml"
ASHLAR_BUILD=never nohup "$REPO/bin/ashlar" start --conf "$conf" --port "$ASHLAR_PORT" > "$OUT/ashlar.log" 2>&1 < /dev/null &
ASHLAR_PID=$!
for _ in $(seq 1 480); do
    port_open "$ASHLAR_PORT" && break
    kill -0 "$ASHLAR_PID" 2>/dev/null || { tail -30 "$OUT/ashlar.log" >&2; die "Ashlar exited at start"; }
    sleep 0.25
done
port_open "$ASHLAR_PORT" || die "Ashlar did not open $ASHLAR_PORT"
log "Ashlar (bench_sharded) up on $ASHLAR_PORT, pid $ASHLAR_PID"

reader() {  # LABEL PORT DATABASE USER SQL STALL_SECONDS EXPECT [FIRST_ROW_ONLY]
    local label=$1 port=$2 db=$3 user=$4 sql=$5 stall=$6 expect=$7 only=${8:-false} rc=0
    [ "$only" = true ] || log "run $label: $( [ "$stall" = 0 ] && echo "full speed" || echo "stall $stall s after $FIRST_ROWS rows"): $sql"
    timeout $((STALL_SECONDS + 900)) "$JAVA" -Xmx256m -cp "$BENCH_JAR" io.ashlar.bench.load.StalledReader \
        --port "$port" --database "$db" --user "$user" --password root --sql "$sql" --expect-rows "$expect" \
        --first-rows "$FIRST_ROWS" --stall-seconds "$stall" --label "$label" --first-row-only "$only" \
        --ascending "$( [ "$only" = true ] && echo false || echo true )" > "$OUT/$label.out" 2>&1 || rc=$?
    cat "$OUT/$label.out" >&2
    [ "$rc" = 0 ] || FAILED="$FAILED $label"
}
field() { sed -n "s/^RESULT .* $2=\\([^ ]*\\).*/\\1/p" "$OUT/$1.out"; }

FAILED="" SUMMARY=""
reader direct-s0 "$PG_PORT" bench_s0 postgres "SELECT g, pad FROM t_wide ORDER BY g" 0 -1 true
reader direct-s0-split "$PG_PORT" bench_s0 postgres "SELECT g, pad FROM t_split_0 ORDER BY g" 0 -1 true
verdict=PASS
for table in t_wide t_split; do
    sql="SELECT g, pad FROM $table ORDER BY g"
    reader "$table-full" "$ASHLAR_PORT" bench_sharded root "$sql" 0 "$ROWS"
    rss_before=$(rss_kib_of "$ASHLAR_PID")
    start_sampler "$ASHLAR_PID" "$OUT/rss-$table.tsv" "$SAMPLE_INTERVAL"
    reader "$table-stalled" "$ASHLAR_PORT" bench_sharded root "$sql" "$STALL_SECONDS" "$ROWS" &
    reader_pid=$!
    # VmRSS at the end of the stall: what the proxy took in while its client read nothing
    rss_stall_end=""
    while kill -0 "$reader_pid" 2>/dev/null; do
        if [ -z "$rss_stall_end" ] && grep -q '^STALL_END' "$OUT/$table-stalled.out" 2>/dev/null; then
            rss_stall_end=$(rss_kib_of "$ASHLAR_PID")
        fi
        sleep 0.05
    done
    wait "$reader_pid" || true
    grep -q "^RESULT $table-stalled ok" "$OUT/$table-stalled.out" || FAILED="$FAILED $table-stalled"
    stop_sampler
    rss_max=$(max_col "$OUT/rss-$table.tsv" 3)
    growth=$(awk -v a="$rss_before" -v b="${rss_stall_end:-0}" 'BEGIN { printf "%.1f\n", (b - a) / 1024 }')
    growth_max=$(awk -v a="$rss_before" -v b="$rss_max" 'BEGIN { printf "%.1f\n", (b - a) / 1024 }')
    [ -n "$rss_stall_end" ] && awk -v g="$growth" -v m="$MAX_GROWTH_MIB" 'BEGIN { exit !(g <= m) }' || verdict=FAIL
    units=$( [ "$table" = t_wide ] && echo "2 units, one per data source" || echo "4 units, two per data source" )
    SUMMARY="$SUMMARY; $table ($units): VmRSS grew ${growth} MiB from the query's start to the stall's end ($(mib "$rss_before") MiB before, $(mib "${rss_stall_end:-0}") at the stall's end), ${growth_max} MiB up to the top of the whole run (max $(mib "$rss_max"), after the stall: heap the GC took while the rows flowed), first row $(field "$table-full" first_row_ms)/$(field "$table-stalled" first_row_ms) ms, read $(field "$table-full" reading_s) s at full speed, $(field "$table-stalled" reading_s) s stalled (stall excluded)"
done
[ -z "$FAILED" ] || verdict=FAIL
kill -0 "$ASHLAR_PID" 2>/dev/null || verdict=FAIL

echo "stalled-reader-sharded: $verdict: $ROWS rows ORDER BY g over 2 data sources, stall $STALL_SECONDS s after $FIRST_ROWS rows (VmRSS growth limit $MAX_GROWTH_MIB MiB)$SUMMARY; first row straight from bench_s0 (one unit's query): t_wide $(field direct-s0 first_row_ms) ms, t_split_0 $(field direct-s0-split first_row_ms) ms${FAILED:+; runs failed:$FAILED}; samples $OUT/rss-*.tsv"
[ "$verdict" = PASS ]
