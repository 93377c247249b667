#!/usr/bin/env bash
# Issue 12: 10,000 idle clients and 1,000 active ones on one Ashlar pooled database.
#
#   benchmarks/many-clients.sh                      defaults below (about 2 min on 2 cores)
#   RULES=1shard benchmarks/many-clients.sh         the same on ShardingSphere's 1-shard rules (sharded sessions)
#   IDLE=1000 ACTIVE=100 RUN_SECONDS=10 benchmarks/many-clients.sh     a smoke run
#
# Starts a throwaway PostgreSQL 15 (../shared/peers/pg.sh, max_connections 300) and Ashlar serving
# its database "bench" as a plain pooler (benchmarks/conf/pgbench-pool: no rules, maxPoolSize 64, so
# the pool bounds the backend connections), then runs io.ashlar.bench.load.ManyClients
# (benchmarks/target/benchmarks.jar, one thread, non-blocking sockets): IDLE clients log in and stay
# idle, then ACTIVE more log in and run `SELECT 1` in a loop for RUN_SECONDS with all of them
# connected; then every idle client runs one `SELECT 1`, and all close. Meanwhile the proxy's
# process is sampled every SAMPLE_INTERVAL s (/proc/PID/status: Threads, VmRSS).
#
# PASS: every client logged in, every active client had queries answered and every idle client
# answered its final query, no query failed; at most MAX_THREADS (64) threads in the proxy and at
# most MAX_RSS_MIB (1024) MiB VmRSS, at every sample.
#
# Env (defaults): IDLE=10000 ACTIVE=1000 RUN_SECONDS=60 CONCURRENT_LOGINS=200 SAMPLE_INTERVAL=0.5
#   MAX_THREADS=64 MAX_RSS_MIB=1024 PG_PORT=27452 ASHLAR_PORT=27453 EXECUTOR_SIZE= (the proxy's
#   proxy-frontend-executor-size) OUT=/tmp/results/many-clients-<timestamp> (logs, samples.tsv)
#   DRIVER_JAVA_OPTS=-Xmx1g; and pooled-proxy.sh's (BUILD, PEERS, RUN_DIR, ASHLAR_JAVA_OPTS).
set -euo pipefail

NAME=many-clients
IDLE=${IDLE:-10000} ACTIVE=${ACTIVE:-1000} RUN_SECONDS=${RUN_SECONDS:-60}
CONCURRENT_LOGINS=${CONCURRENT_LOGINS:-200} SAMPLE_INTERVAL=${SAMPLE_INTERVAL:-0.5}
MAX_THREADS=${MAX_THREADS:-64} MAX_RSS_MIB=${MAX_RSS_MIB:-1024}
PG_PORT=${PG_PORT:-27452} ASHLAR_PORT=${ASHLAR_PORT:-27453}
OUT=${OUT:-/tmp/results/many-clients-$(date +%Y%m%d-%H%M%S)}
DRIVER_JAVA_OPTS=${DRIVER_JAVA_OPTS:--Xmx1g}
# More clients than the proxy accepts by default (at most 10,000): say so, as a deployment would.
MAX_CONNECTIONS=${MAX_CONNECTIONS:-$((IDLE + ACTIVE + 100))}
mkdir -p "$OUT"
. "$(dirname "${BASH_SOURCE[0]}")/pooled-proxy.sh"

# one socket per client in the driver and in the proxy, plus the proxy's backend connections
raise_nofile 65536
log "open files: $NOFILE"
need=$((IDLE + ACTIVE + 1000))
[ "$(ulimit -n)" -ge "$need" ] || die "ulimit -n is $(ulimit -n), the run needs about $need open files per process"

build_if_needed
start_pg
start_ashlar_pool
before_threads=$(threads_of "$ASHLAR_PID") before_rss=$(rss_kib_of "$ASHLAR_PID")
log "proxy before the clients: $before_threads threads, $(mib "$before_rss") MiB VmRSS"

sessions() { "$PG_BIN/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
    "select sessions from pg_stat_database where datname = 'bench'" 2>/dev/null || echo '?'; }
sessions_before=$(sessions)
start_sampler "$ASHLAR_PID" "$OUT/samples.tsv" "$SAMPLE_INTERVAL"
log "ManyClients: $IDLE idle + $ACTIVE active clients, $RUN_SECONDS s of SELECT 1 (log $OUT/driver.log)"
rc=0
# shellcheck disable=SC2086
timeout $((RUN_SECONDS + 900)) "$JAVA" $DRIVER_JAVA_OPTS -cp "$BENCH_JAR" io.ashlar.bench.load.ManyClients \
    --port "$ASHLAR_PORT" --database "$LOGICAL_DB" --user root --password root --idle "$IDLE" --active "$ACTIVE" \
    --seconds "$RUN_SECONDS" --concurrent-logins "$CONCURRENT_LOGINS" > "$OUT/driver.out" 2> "$OUT/driver.log" || rc=$?
stop_sampler
cat "$OUT/driver.out" >&2

result=$(grep '^RESULT ' "$OUT/driver.out" || true)
max_threads=$(max_col "$OUT/samples.tsv" 2)
max_rss=$(max_col "$OUT/samples.tsv" 3)
# the sample nearest the end of the logins (every client connected): phase line t= is the driver's clock
connected_at=$(sed -n 's/^PHASE all-connected t=//p' "$OUT/driver.out")
alive=yes; kill -0 "$ASHLAR_PID" 2>/dev/null || alive="NO (log $OUT/ashlar.log)"
sessions_after=$(sessions)
opened=$(awk -v a="$sessions_before" -v b="$sessions_after" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) print b - a; else print "?" }')
backend=$("$PG_BIN/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
    "select count(*) from pg_stat_activity where datname = 'bench'" 2>/dev/null || echo '?')

verdict=PASS
[ "$rc" = 0 ] && [ -n "$result" ] || verdict=FAIL
[ "$max_threads" -le "$MAX_THREADS" ] || verdict=FAIL
[ "$max_rss" -le $((MAX_RSS_MIB * 1024)) ] || verdict=FAIL
[ "$alive" = yes ] || verdict=FAIL

served=$(printf '%s\n' "$result" | grep -o -E '(idle_logged_in|active_logged_in|active_answered|idle_answered|failed_connections|query_errors|qps|login_p99_ms)=[^ ]*' | tr '\n' ' ')
echo "many-clients: $verdict: $IDLE idle + $ACTIVE active clients: ${served:-driver gave no result (exit $rc, see $OUT/driver.log)}; proxy max $max_threads threads (limit $MAX_THREADS; $before_threads before the clients), max VmRSS $(mib "$max_rss") MiB (limit $MAX_RSS_MIB MiB; $(mib "$before_rss") MiB before); proxy alive: $alive; backend connections to bench opened during the run: $opened, open at the end: $backend; all connected after ${connected_at:-?} s; open files: $NOFILE; samples $OUT/samples.tsv"
[ "$verdict" = PASS ]
