#!/usr/bin/env bash
# Issue 12: a 10,000,000-row result read through Ashlar's pooled database by a client that stalls.
#
#   benchmarks/stalled-reader.sh                    defaults below (about 2 min on 2 cores)
#   ROWS=1000000 STALL_SECONDS=5 benchmarks/stalled-reader.sh          a smoke run
#
# Starts a throwaway PostgreSQL 15 (../shared/peers/pg.sh) and Ashlar serving its database "bench"
# as a plain pooler (benchmarks/conf/pgbench-pool: no rules, the native data path), then runs
# io.ashlar.bench.load.StalledReader (benchmarks/target/benchmarks.jar; simple query protocol)
# with  SELECT g, repeat('x', 100) FROM generate_series(1, ROWS) g  four times, in this order:
#   1. direct to PostgreSQL, read at full speed (time to first row: the backend's first row)
#   2. through Ashlar, read at full speed (warms the proxy: its heap and buffers are in use after it)
#   3. direct again
#   4. through Ashlar: the client reads FIRST_ROWS rows, stops reading its socket for STALL_SECONDS,
#      then reads on to the end; the proxy's VmRSS (/proc/PID/status) is sampled every
#      SAMPLE_INTERVAL s from just before the query to its end;
#   5. TTFR_PROBES pairs of probes, direct then through Ashlar, each closing its connection once the
#      first row is in (the same query: PostgreSQL materializes generate_series before its first row,
#      about a second here, so single runs on a shared machine are noisy: these give medians); after
#      each probe the script waits until no backend runs the query any more (and says how long).
# Time to first row: from writing the Query to reading the first DataRow, in the client.
#
# PASS: every run read ROWS rows with no error; during run 4 the proxy's VmRSS rose at most
# MAX_GROWTH_MIB (64) above its value just before run 4; and the proxy's median time to first row
# over the probes is at most MAX_FIRST_ROW_DELAY_MS (100) above the direct median.
#
# Env (defaults): ROWS=10000000 FIRST_ROWS=1000 STALL_SECONDS=20 SAMPLE_INTERVAL=0.2 TTFR_PROBES=5
#   MAX_GROWTH_MIB=64 MAX_FIRST_ROW_DELAY_MS=100 PG_PORT=27462 ASHLAR_PORT=27463 EXECUTOR_SIZE=
#   OUT=/tmp/results/stalled-reader-<timestamp> (logs, rss.tsv); and pooled-proxy.sh's (BUILD,
#   PEERS, RUN_DIR, ASHLAR_JAVA_OPTS).
set -euo pipefail

NAME=stalled-reader
ROWS=${ROWS:-10000000} FIRST_ROWS=${FIRST_ROWS:-1000} STALL_SECONDS=${STALL_SECONDS:-20}
SAMPLE_INTERVAL=${SAMPLE_INTERVAL:-0.2} TTFR_PROBES=${TTFR_PROBES:-5} MAX_GROWTH_MIB=${MAX_GROWTH_MIB:-64} MAX_FIRST_ROW_DELAY_MS=${MAX_FIRST_ROW_DELAY_MS:-100}
PG_PORT=${PG_PORT:-27462} ASHLAR_PORT=${ASHLAR_PORT:-27463}
OUT=${OUT:-/tmp/results/stalled-reader-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
. "$(dirname "${BASH_SOURCE[0]}")/pooled-proxy.sh"

SQL="SELECT g, repeat('x', 100) FROM generate_series(1, $ROWS) g"

build_if_needed
start_pg
start_ashlar_pool

reader() {  # LABEL PORT USER STALL_SECONDS [FIRST_ROW_ONLY]: one StalledReader run, its lines to stderr
    local label=$1 port=$2 user=$3 stall=$4 only=${5:-false} rc=0
    [ "$only" = true ] || log "run $label: $( [ "$stall" = 0 ] && echo "full speed" || echo "stall $stall s after $FIRST_ROWS rows"), port $port"
    timeout $((STALL_SECONDS + 900)) "$JAVA" -Xmx256m -cp "$BENCH_JAR" io.ashlar.bench.load.StalledReader \
        --port "$port" --database bench --user "$user" --password root --sql "$SQL" --expect-rows "$ROWS" \
        --first-rows "$FIRST_ROWS" --stall-seconds "$stall" --label "$label" --first-row-only "$only" > "$OUT/$label.out" 2>&1 || rc=$?
    cat "$OUT/$label.out" >&2
    [ "$rc" = 0 ] || FAILED="$FAILED $label"
}
first_row() { sed -n 's/^RESULT .* first_row_ms=\([0-9.]*\) .*/\1/p' "$OUT/$1.out"; }
field() { sed -n "s/^RESULT .* $2=\\([^ ]*\\).*/\\1/p" "$OUT/$1.out"; }

FAILED=""
rss_start=$(rss_kib_of "$ASHLAR_PID")
reader direct-1 "$PG_PORT" postgres 0
reader proxy-full "$ASHLAR_PORT" root 0
reader direct-2 "$PG_PORT" postgres 0
rss_before=$(rss_kib_of "$ASHLAR_PID")
start_sampler "$ASHLAR_PID" "$OUT/rss.tsv" "$SAMPLE_INTERVAL"
reader proxy-stalled "$ASHLAR_PORT" root "$STALL_SECONDS"
stop_sampler
rss_max=$(max_col "$OUT/rss.tsv" 3)
rss_after=$(rss_kib_of "$ASHLAR_PID")
growth=$(awk -v a="$rss_before" -v b="$rss_max" 'BEGIN { printf "%.1f\n", (b - a) / 1024 }')

# after a probe closed its connection: until no backend runs the query any more (at most 60 s);
# prints how long that took
backend_settles() {
    local t0 i n
    t0=$(date +%s.%N)
    for i in $(seq 1 600); do
        n=$("$PG_BIN/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
            "select count(*) from pg_stat_activity where datname = 'bench' and state = 'active'" 2>/dev/null) || n=1
        [ "$n" != 0 ] || break
        sleep 0.1
    done
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }'
}
log "time to first row: $TTFR_PROBES probes each, direct and through Ashlar, interleaved"
direct_probes="" proxy_probes="" direct_settle="" proxy_settle=""
for i in $(seq 1 "$TTFR_PROBES"); do
    reader "probe-direct-$i" "$PG_PORT" postgres 0 true 2>/dev/null
    direct_settle="$direct_settle $(backend_settles)"
    reader "probe-proxy-$i" "$ASHLAR_PORT" root 0 true 2>/dev/null
    proxy_settle="$proxy_settle $(backend_settles)"
    direct_probes="$direct_probes $(first_row "probe-direct-$i")" proxy_probes="$proxy_probes $(first_row "probe-proxy-$i")"
done
log "seconds until the backend stopped running the query after a probe closed its connection: direct$direct_settle; through Ashlar$proxy_settle"
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
d1=$(first_row direct-1) d2=$(first_row direct-2) p1=$(first_row proxy-full) p2=$(first_row proxy-stalled)
direct_ttfr=$(median "$direct_probes") proxy_ttfr=$(median "$proxy_probes")
delay=$(awk -v a="$proxy_ttfr" -v b="$direct_ttfr" 'BEGIN { if (a == "" || b == "") print ""; else printf "%+.1f\n", a - b }')

verdict=PASS
[ -z "$FAILED" ] || verdict=FAIL
[ -n "$rss_max" ] && awk -v g="$growth" -v m="$MAX_GROWTH_MIB" 'BEGIN { exit !(g <= m) }' || verdict=FAIL
[ -n "$delay" ] && awk -v d="$delay" -v m="$MAX_FIRST_ROW_DELAY_MS" 'BEGIN { exit !(d <= m) }' || verdict=FAIL
kill -0 "$ASHLAR_PID" 2>/dev/null || verdict=FAIL

echo "stalled-reader: $verdict: $ROWS rows, stall $STALL_SECONDS s after $FIRST_ROWS rows: proxy VmRSS grew ${growth} MiB during the stalled read (limit $MAX_GROWTH_MIB MiB; $(mib "$rss_before") MiB before it, max $(mib "$rss_max"), $(mib "$rss_after") after; $(mib "$rss_start") MiB before any run); time to first row, medians of $TTFR_PROBES probes: direct ${direct_ttfr:-?} ms, through Ashlar ${proxy_ttfr:-?} ms: ${delay:-?} ms (limit $MAX_FIRST_ROW_DELAY_MS ms; probes direct${direct_probes:- -}, Ashlar${proxy_probes:- -}; in the full reads direct ${d1:-?}/${d2:-?} ms, Ashlar ${p1:-?} (full speed)/${p2:-?} (stalled) ms; backend busy after a probe closed: direct$direct_settle s, Ashlar$proxy_settle s); read time direct $(field direct-1 reading_s)/$(field direct-2 reading_s) s, through Ashlar $(field proxy-full reading_s) s (full speed), $(field proxy-stalled reading_s) s (stalled run, stall excluded)${FAILED:+; runs failed:$FAILED}; samples $OUT/rss.tsv"
[ "$verdict" = PASS ]
