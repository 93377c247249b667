# Sourced by benchmarks/many-clients.sh and benchmarks/stalled-reader.sh (not run by itself):
# a throwaway PostgreSQL 15 (../shared/peers/pg.sh) and Ashlar serving its database "bench" as a
# plain pooler (benchmarks/conf/pgbench-pool: no rules, the native data path), root/root, and
# what the checks read of the proxy's process (threads, VmRSS) from /proc.
#
# The sourcing script sets PG_PORT, ASHLAR_PORT, OUT and NAME before sourcing; optional env:
#   BUILD=auto|never  PEERS (../shared/peers)  PG_BIN (/usr/lib/postgresql/15/bin)
#   RUN_DIR (/tmp/$NAME-run: PostgreSQL's data, wiped at start and at exit)
#   ASHLAR_JAVA_OPTS (unset: bin/ashlar's own default)
#   EXECUTOR_SIZE (the proxy's proxy-frontend-executor-size; unset: its default, one per core)
#   MAX_CONNECTIONS (the proxy's proxy-frontend-max-connections; unset: its default, at most 10,000)
#   RULES=pool (the default: benchmarks/conf/pgbench-pool, logical database bench) or 1shard
#   (benchmarks/conf/pgbench-1shard: ShardingSphere's 1-shard rules over the same database, logical
#   database sharding_db: every statement parsed and routed, sessions of the sharded kind)
# shellcheck shell=bash

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${PEERS:-}" ]; then
    PEERS=$REPO/../shared/peers
    [ -d "$PEERS" ] || PEERS=$(cd "$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo .)/../.." 2>/dev/null && pwd)/shared/peers
fi
PEERS=$(cd "$PEERS" && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
BUILD=${BUILD:-auto}
RUN_DIR=${RUN_DIR:-/tmp/$NAME-run}
EXECUTOR_SIZE=${EXECUTOR_SIZE:-}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-}
RULES=${RULES:-pool}
case "$RULES" in
    pool) LOGICAL_DB=bench ;;
    1shard) LOGICAL_DB=sharding_db ;;
    *) echo "RULES=$RULES: pool or 1shard" >&2; exit 2 ;;
esac
ASHLAR_JAR=$REPO/proxy-bootstrap/target/proxy-bootstrap.jar
BENCH_JAR=$REPO/benchmarks/target/benchmarks.jar

log() { printf '%s %s: %s\n' "$(date +%H:%M:%S)" "$NAME" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

STARTED_PG=0 ASHLAR_PID= SAMPLER_PID=
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    [ -z "$SAMPLER_PID" ] || kill "$SAMPLER_PID" 2>/dev/null
    if [ -n "$ASHLAR_PID" ] && kill -0 "$ASHLAR_PID" 2>/dev/null; then
        kill "$ASHLAR_PID"
        for _ in $(seq 1 40); do kill -0 "$ASHLAR_PID" 2>/dev/null || break; sleep 0.25; done
        kill -9 "$ASHLAR_PID" 2>/dev/null
    fi
    if [ "$STARTED_PG" = 1 ]; then
        "$PEERS/pg.sh" stop "$RUN_DIR/pg" "$PG_PORT" >/dev/null 2>&1
        rm -rf "$RUN_DIR/pg/data"
    fi
    [ "$rc" = 0 ] || log "stopped (exit $rc); logs in $OUT/"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Many sockets: raise the open-files limit as far as this shell may (the JVMs raise their soft
# limit to the hard one themselves). NOFILE tells what the run had.
raise_nofile() {
    local want=$1
    if ulimit -n "$want" 2>/dev/null; then
        NOFILE="$(ulimit -n) (raised with ulimit -n $want)"
    else
        ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
        NOFILE="$(ulimit -n) (ulimit -n $want refused: the hard limit is $(ulimit -Hn))"
    fi
}

build_if_needed() {
    . "$REPO/bin/find-java.sh"
    JAVA=$JAVA_HOME/bin/java
    local stale
    stale=$( [ ! -f "$ASHLAR_JAR" ] || [ ! -d "$REPO/proxy-bootstrap/target/lib" ] || find "$REPO" -path "$REPO/benchmarks" -prune -o \
        \( -name '*.java' -o -name 'pom.xml' -o -path '*/src/main/resources/*' \) -newer "$ASHLAR_JAR" -print -quit 2>/dev/null)
    if [ ! -f "$ASHLAR_JAR" ] || { [ "$BUILD" != never ] && [ -n "$stale" ]; }; then
        [ "$BUILD" != never ] || die "$ASHLAR_JAR missing and BUILD=never"
        log "building Ashlar: ./mvnw -B -q -DskipTests -pl proxy-bootstrap -am package"
        (cd "$REPO" && ./mvnw -B -q -DskipTests -pl proxy-bootstrap -am package) > "$OUT/build-ashlar.log" 2>&1 \
            || { tail -30 "$OUT/build-ashlar.log" >&2; die "Ashlar build failed"; }
    fi
    if [ ! -f "$BENCH_JAR" ] || { [ "$BUILD" != never ] && [ -n "$(find "$REPO/benchmarks/src/main" "$REPO/benchmarks/pom.xml" -newer "$BENCH_JAR" -print -quit 2>/dev/null)" ]; }; then
        [ "$BUILD" != never ] || die "$BENCH_JAR missing and BUILD=never"
        log "building the benchmarks jar: ./mvnw -B -q -DskipTests -pl benchmarks -am package"
        (cd "$REPO" && ./mvnw -B -q -DskipTests -pl benchmarks -am package) > "$OUT/build-benchmarks.log" 2>&1 \
            || { tail -30 "$OUT/build-benchmarks.log" >&2; die "benchmarks build failed"; }
    fi
}

start_pg() {  # PostgreSQL 15 on $PG_PORT, databases bench, bench_s0, bench_s1 (pg.sh's), trust on loopback
    for p in "$PG_PORT" "$ASHLAR_PORT"; do
        if port_open "$p"; then die "port $p is in use (a previous run still up? see $RUN_DIR)"; fi
    done
    if [ -d "$RUN_DIR/pg" ]; then "$PEERS/pg.sh" stop "$RUN_DIR/pg" "$PG_PORT" >/dev/null 2>&1 || true; fi
    rm -rf "$RUN_DIR/pg"
    mkdir -p "$RUN_DIR"
    STARTED_PG=1
    "$PEERS/pg.sh" start "$RUN_DIR/pg" "$PG_PORT" > "$OUT/pg.log" 2>&1 || { cat "$OUT/pg.log" >&2; die "PostgreSQL did not start"; }
    PG_VERSION=$("$PG_BIN/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc 'show server_version')
    log "PostgreSQL $PG_VERSION up on $PG_PORT ($RUN_DIR/pg)"
}

start_ashlar_pool() {  # Ashlar on $ASHLAR_PORT serving bench as $LOGICAL_DB ($RULES); sets ASHLAR_PID (its java)
    local conf=$OUT/ashlar-conf f
    mkdir -p "$conf"
    for f in "$REPO/benchmarks/conf/pgbench-1shard/server.yaml" "$REPO/benchmarks/conf/pgbench-$RULES/config-pgbench.yaml"; do
        sed -e "s|@PG_HOST@|127.0.0.1|g" -e "s|@PG_PORT@|$PG_PORT|g" -e "s|@PG_USER@|postgres|g" -e "s|@PG_PASSWORD@||g" \
            -e "s|@PG_DB_1SHARD@|bench|g" -e "s|@ASHLAR_PORT@|$ASHLAR_PORT|g" "$f" > "$conf/$(basename "$f")"
    done
    if [ -n "$EXECUTOR_SIZE" ]; then printf '  proxy-frontend-executor-size: %s\n' "$EXECUTOR_SIZE" >> "$conf/server.yaml"; fi
    if [ -n "$MAX_CONNECTIONS" ]; then printf '  proxy-frontend-max-connections: %s\n' "$MAX_CONNECTIONS" >> "$conf/server.yaml"; fi
    # its rebuild check is done above; bin/ashlar execs the JVM, so $! is the proxy's pid
    ASHLAR_BUILD=never nohup "$REPO/bin/ashlar" start --conf "$conf" --port "$ASHLAR_PORT" > "$OUT/ashlar.log" 2>&1 < /dev/null &
    ASHLAR_PID=$!
    for _ in $(seq 1 480); do
        port_open "$ASHLAR_PORT" && break
        kill -0 "$ASHLAR_PID" 2>/dev/null || { tail -30 "$OUT/ashlar.log" >&2; die "Ashlar exited at start (log $OUT/ashlar.log)"; }
        sleep 0.25
    done
    port_open "$ASHLAR_PORT" || die "Ashlar did not open $ASHLAR_PORT in 120 s (log $OUT/ashlar.log)"
    local listen
    listen=$(ss -Htlnp "sport = :$ASHLAR_PORT" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2) || true
    [ -z "$listen" ] || [ "$listen" = "$ASHLAR_PID" ] || die "port $ASHLAR_PORT is held by pid $listen, not by the Ashlar started here ($ASHLAR_PID)"
    log "Ashlar ($LOGICAL_DB over bench, rules $RULES, executor size ${EXECUTOR_SIZE:-default}) up on $ASHLAR_PORT, pid $ASHLAR_PID"
}

threads_of() { awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
rss_kib_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f\n", k / 1024 }'; }

# start_sampler PID FILE INTERVAL: "seconds threads rss_kib" lines every INTERVAL s, in the background
start_sampler() {
    local pid=$1 file=$2 interval=$3
    : > "$file"
    (
        t0=$(date +%s.%N)
        while kill -0 "$pid" 2>/dev/null; do
            printf '%s %s %s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" \
                "$(threads_of "$pid")" "$(rss_kib_of "$pid")" >> "$file"
            sleep "$interval"
        done
    ) &
    SAMPLER_PID=$!
}
stop_sampler() {
    [ -n "$SAMPLER_PID" ] || return 0
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=
}
max_col() { awk -v c="$2" '$c != "" && $c + 0 > m { m = $c + 0 } END { print m + 0 }' "$1"; }  # FILE COLUMN
