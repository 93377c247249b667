#!/usr/bin/env bash
# Issue 15: does the proxy give memory back to the operating system after a spike?
#
#   benchmarks/memory-spike.sh                       defaults below (about 4 min on 2 cores)
#   ASHLAR_JAVA_OPTS="-Xms512m -Xmx2g -XX:+UseZGC" benchmarks/memory-spike.sh   the JVM options before
#
# Starts a throwaway PostgreSQL 15 (../shared/peers/pg.sh) with bench_s0 and bench_s1, loads t_wide
# (g bigint primary key, pad text of 100 bytes) with g = 1..ROWS, even g in bench_s0 and odd in
# bench_s1, and starts Ashlar with bin/ashlar's JVM options (or ASHLAR_JAVA_OPTS) serving bench_sharded
# (benchmarks/conf/stalled-sharded). Then:
#   1. warm-up: a few small statements; VmRSS after IDLE_SECONDS idle is "before"
#   2. the spike: CLIENTS clients at once, ROUNDS times each, run
#        SELECT g % KEYS AS k, count(*), max(pad) FROM t_wide GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5
#      which the proxy answers by grouping the shards' KEYS groups each and sorting them by count, in
#      memory (within proxy-statement-memory-limit); the top VmRSS is "during"
#   3. idle for AFTER_SECONDS: VmRSS every SAMPLE_INTERVAL s; "after" is its value 30, 60, 120 and
#      AFTER_SECONDS s after the spike; "top" the highest of all samples (the heap may still grow as the
#      collector finishes the spike's garbage)
# Prints the figures; PASS when the spike ran without error and VmRSS at the end is at most half-way
# between before and the top (the heap went back). Samples in $OUT/rss.tsv (seconds threads rss_kib).
#
# Env (defaults): ROWS=2000000 KEYS=150000 CLIENTS=3 ROUNDS=3 IDLE_SECONDS=10 AFTER_SECONDS=180
#   SAMPLE_INTERVAL=1 PG_PORT=27482 ASHLAR_PORT=27483 OUT=/tmp/results/memory-spike-<timestamp>;
#   and pooled-proxy.sh's (BUILD, PEERS, RUN_DIR, ASHLAR_JAVA_OPTS).
set -euo pipefail

NAME=memory-spike
ROWS=${ROWS:-2000000} KEYS=${KEYS:-150000} CLIENTS=${CLIENTS:-3} ROUNDS=${ROUNDS:-3}
IDLE_SECONDS=${IDLE_SECONDS:-10} AFTER_SECONDS=${AFTER_SECONDS:-180} SAMPLE_INTERVAL=${SAMPLE_INTERVAL:-1}
PG_PORT=${PG_PORT:-27482} ASHLAR_PORT=${ASHLAR_PORT:-27483}
OUT=${OUT:-/tmp/results/memory-spike-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
. "$(dirname "${BASH_SOURCE[0]}")/pooled-proxy.sh"

build_if_needed
start_pg

psql_db() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$1" "${@:2}"; }
log "loading $ROWS rows into bench_s0 and bench_s1"
for s in 0 1; do
    psql_db "bench_s$s" -c "CREATE TABLE t_wide (g bigint PRIMARY KEY, pad text)" \
        -c "INSERT INTO t_wide SELECT g, repeat('x', 100) FROM generate_series(1, $ROWS) g WHERE g % 2 = $s" \
        -c "CREATE VIEW t_split_0 AS SELECT g, pad FROM t_wide WHERE (g / 2) % 2 = 0" \
        -c "CREATE VIEW t_split_1 AS SELECT g, pad FROM t_wide WHERE (g / 2) % 2 = 1" \
        -c "VACUUM ANALYZE t_wide" > "$OUT/load-s$s.log" 2>&1 &
done
wait || die "loading failed (logs $OUT/load-s*.log)"

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
opts=$(tr '\0' ' ' < "/proc/$ASHLAR_PID/cmdline" | grep -o -- '-Xm[sx][^ ]*\|-XX:[^ ]*' | tr '\n' ' ')
log "Ashlar (bench_sharded) up on $ASHLAR_PORT, pid $ASHLAR_PID, JVM options: $opts"

proxy_sql() { PGPASSWORD=root "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$ASHLAR_PORT" -U root -d bench_sharded "$@"; }
for _ in 1 2 3; do proxy_sql -c "SELECT count(*) FROM t_wide WHERE g < 100" > /dev/null; done
sleep "$IDLE_SECONDS"
rss_before=$(rss_kib_of "$ASHLAR_PID")
start_sampler "$ASHLAR_PID" "$OUT/rss.tsv" "$SAMPLE_INTERVAL"

sql="SELECT g % $KEYS AS k, count(*), max(pad) FROM t_wide GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5"
log "spike: $CLIENTS clients x $ROUNDS rounds of: $sql"
t0=$(date +%s)
failed=0
for c in $(seq 1 "$CLIENTS"); do
    ( for _ in $(seq 1 "$ROUNDS"); do proxy_sql -c "$sql" > /dev/null || exit 1; done ) > "$OUT/client-$c.log" 2>&1 &
done
for job in $(jobs -p); do
    [ "$job" = "$SAMPLER_PID" ] || [ "$job" = "$ASHLAR_PID" ] || wait "$job" || failed=$((failed + 1))
done
spike_seconds=$(( $(date +%s) - t0 ))
log "spike over in $spike_seconds s ($failed clients failed); idle for $AFTER_SECONDS s"
at() {  # VmRSS (KiB) SECONDS after the spike, from the samples
    awk -v t="$1" -v s="$spike_seconds" '$1 + 0 >= s + t { print $3; exit }' "$OUT/rss.tsv"
}
sleep "$AFTER_SECONDS"
stop_sampler
rss_30=$(at 30) rss_60=$(at 60) rss_120=$(at 120) rss_end=$(rss_kib_of "$ASHLAR_PID")
rss_top=$(max_col "$OUT/rss.tsv" 3)
verdict=PASS
[ "$failed" = 0 ] || verdict=FAIL
awk -v e="$rss_end" -v b="$rss_before" -v t="$rss_top" 'BEGIN { exit !(e <= b + (t - b) / 2) }' || verdict=FAIL
echo "memory-spike: $verdict: JVM options $opts; VmRSS before $(mib "$rss_before") MiB, top during the spike" \
    "$(mib "$rss_top") MiB ($CLIENTS clients x $ROUNDS rounds, $spike_seconds s, $failed failed), after 30 s" \
    "$(mib "${rss_30:-0}") MiB, after 60 s $(mib "${rss_60:-0}") MiB, after 120 s $(mib "${rss_120:-0}") MiB, after" \
    "$AFTER_SECONDS s $(mib "$rss_end") MiB;" \
    "samples $OUT/rss.tsv"
[ "$verdict" = PASS ]
