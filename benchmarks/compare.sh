#!/usr/bin/env bash
# Ashlar side by side with direct PostgreSQL, pgbouncer and ShardingSphere-Proxy 5.1.0, in one run
# on one machine, the contenders interleaved round by round (issue 6, "Side by side").
#
#   benchmarks/compare.sh                  everything, defaults below (about 2 h 10 min)
#   DURATION=5 ROUNDS=1 WARMUP=5 CLIENTS=8 TPCC_TERMINALS=4 TPCC_DURATION=10 benchmarks/compare.sh
#                                          a smoke run (6 to 10 min, depending on the machine's load)
#
# What it does:
#  1. builds what is missing: Ashlar (./mvnw ... -pl proxy-bootstrap -am package, as bin/ashlar
#     does), benchmarks/target/benchmarks.jar (TPC-C driver), the ShardingSphere-Proxy 5.1.0 lib/
#     (system mvn, $PEERS/shardingsphere-proxy-5.1.0/pom.xml), pgbouncer (apt-get);
#  2. starts a throwaway PostgreSQL 15 ($PEERS/pg.sh), loads pgbench (scale $SCALE, database bench
#     plus the MOD-2 split bench_s0/bench_s1, $PEERS/pgbench-init.sh) and TPC-C ($TPCC_WAREHOUSES
#     warehouses: directly into bench, timed; once more through a fresh Ashlar 1-shard proxy into a
#     scratch database, timed, for the load-time ratio; through Ashlar 2 shards into
#     bench_s0/bench_s1);
#  3. starts the targets, then for each workload: probes the combinations known to fail and picks
#     their stand-ins, warms every JVM proxy, and runs ROUNDS rounds, each round every client count
#     on every target;
#  4. prints a table per workload and client count (median TPS or tpmC, p50/p99 latency, ratio to
#     direct PostgreSQL, and for every proxy target its CPU and context switches per transaction)
#     and the targets of issues 6 and 12, into $OUT.txt and into docs/benchmarks.md between
#     <!-- compare:begin --> and <!-- compare:end -->;
#  5. stops everything it started, on any exit (Ctrl-C included).
#
# Targets (TARGETS, all on 127.0.0.1):
#   direct       PostgreSQL 15                          $PG_PORT (27432)   postgres, db bench
#   ashlar-pool  Ashlar, benchmarks/conf/pgbench-pool   27441             root/root, db bench: a plain pooler
#                (no rules: the native, event-driven data path); ASHLAR_POOL_EXECUTOR_SIZE sets its
#                proxy-frontend-executor-size (event loop threads; unset: the default, one per core)
#   ashlar-1     Ashlar, benchmarks/conf/pgbench-1shard  27433             root/root, db sharding_db (pgbench), tpcc (TPC-C)
#   ashlar-2     Ashlar, benchmarks/conf/pgbench-2shard  27434             root/root, same names, over bench_s0/bench_s1
#   pgb-txn      pgbouncer 1.18, transaction pooling     27435             postgres, db bench
#   pgb-session  pgbouncer 1.18, session pooling         27436
#   ss-1         ShardingSphere-Proxy 5.1.0 conf-1shard  27437             root/root, db sharding_db
#   ss-1-nokey   ShardingSphere-Proxy 5.1.0 conf-1shard-nokey 27438 (started when needed)
#   TPC-C on ShardingSphere runs on its own conf-1shard instance, 27439, backend fetch size 50, and
#   its client URL sets binaryTransferDisable=NUMERIC (5.1.0 garbles NUMERIC in binary format).
# Stand-ins, decided by a 3 s probe with 8 clients before each pgbench workload (as the peers'
# pgbench-compare.sh does): pgbouncer in transaction pooling cannot run -M prepared (no
# protocol-level prepared statements in 1.18), so pgb-txn runs -M extended there; ShardingSphere
# 5.1.0 with a sharding strategy fails -M prepared ("Sharding value must implements Comparable"),
# so ss-1 runs on conf-1shard-nokey there (unless ss-1-nokey is a target of its own). Every table
# row says what it really ran.
#
# Workloads (WORKLOADS):
#   select-prepared  pgbench -n -S -M prepared
#   select-simple    pgbench -n -S -M simple
#   tpcb-prepared    pgbench -n -M prepared     (history truncated, branches/tellers vacuumed and a
#                                               checkpoint taken on the backend before every run)
#   tpcc             java -cp benchmarks/target/benchmarks.jar io.ashlar.bench.tpcc.Tpcc run ...
#                    on direct, pgb-session (into direct's tables), ashlar-1, ashlar-2, ss-1 (fetch size 50)
# pgbench runs -c N -j min(N, THREADS); p50/p99 come from pgbench's per-transaction log
# (-l --sampling-rate $LAT_SAMPLING), the whole client-side latency of each sampled transaction.
#
# Proxy cost per transaction (issue 12), for every target but direct, each pgbench and TPC-C run: the proxy's
# process is the one listening on the target's port (ss -ltnp), checked against what started it
# (Ashlar's java pid, pgbouncer's pid file, ShardingSphere's run.sh pid file). Around the run:
#   CPU µs/txn  utime+stime of the whole process (/proc/PID/stat: every thread, exited ones too)
#               over the run, divided by pgbench's "number of transactions actually processed"
#               (TPC-C: over the driver's ramp-up and run, divided by its tpmTotal times their minutes);
#   cs/txn      context switches, voluntary + involuntary, of every thread, over the same count:
#               `perf stat -e context-switches -p PID` (counts threads that exit during the run);
#               without perf (CS_METHOD=proc, or perf missing), the sum over /proc/PID/task/*/status
#               (threads that exit before the run ends are lost: a lower bound for thread-per-session
#               proxies). The window includes pgbench's connecting and disconnecting.
# TPC-C tables leave these columns empty.
#
# Env (defaults):
#   TARGETS="direct ashlar-pool ashlar-1 ashlar-2 pgb-txn pgb-session ss-1"
#   WORKLOADS="select-prepared select-simple tpcb-prepared tpcc"
#   CLIENTS="1 8 32" ROUNDS=3 DURATION=20 (s) THREADS=2 SCALE=10 LAT_SAMPLING=0.1
#   WARMUP=60 (s: each JVM proxy, before its first pgbench round and before its first TPC-C round)
#   REWARM=10 (s: each JVM proxy again before every later pgbench workload)
#   TPCC_WAREHOUSES=2 TPCC_TERMINALS="1 4 8 32" TPCC_DURATION=60 TPCC_RAMP=10 (driver --warmup)
#   TPCC_LOADERS=2 (loader workers)
#   BUILD=auto (build what is missing or stale) | never (use what is there, start Ashlar's jar
#                without bin/ashlar's rebuild check)
#   PEERS=<repo>/../shared/peers (from a git worktree: beside the main checkout)  PG_BIN=/usr/lib/postgresql/15/bin  SS_JAVA=java (a Java 17)
#   RUN_DIR=/tmp/compare-run (PostgreSQL's data, wiped at start and, unless KEEP_PG=1, at exit)
#   OUT=/tmp/results/compare-<timestamp> ($OUT.txt: the report; $OUT/: raw.tsv and every log)
#   DOC=<repo>/docs/benchmarks.md (DOC= to leave it alone)
#   CS_METHOD=auto (perf if it counts here, else proc) | perf | proc
#   ASHLAR_POOL_EXECUTOR_SIZE= (ashlar-pool's proxy-frontend-executor-size; unset: server default)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${PEERS:-}" ]; then
    # beside the checkout; from a git worktree, beside the main checkout
    PEERS=$REPO/../shared/peers
    [ -d "$PEERS" ] || PEERS=$(cd "$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo .)/../.." 2>/dev/null && pwd)/shared/peers
fi
PEERS=$(cd "$PEERS" && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
SS_HOME=$PEERS/shardingsphere-proxy-5.1.0
SS_JAVA=${SS_JAVA:-java}

TARGETS=${TARGETS:-direct ashlar-pool ashlar-1 ashlar-2 pgb-txn pgb-session ss-1}
WORKLOADS=${WORKLOADS:-select-prepared select-simple tpcb-prepared tpcc}
CLIENTS=${CLIENTS:-1 8 32}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-20} THREADS=${THREADS:-2} SCALE=${SCALE:-10}
WARMUP=${WARMUP:-60} REWARM=${REWARM:-10} LAT_SAMPLING=${LAT_SAMPLING:-0.1}
PROBE_CLIENTS=${PROBE_CLIENTS:-8} PROBE_SECONDS=${PROBE_SECONDS:-3} WARMUP_CLIENTS=${WARMUP_CLIENTS:-8}
TPCC_WAREHOUSES=${TPCC_WAREHOUSES:-2} TPCC_TERMINALS=${TPCC_TERMINALS:-1 4 8 32}
TPCC_DURATION=${TPCC_DURATION:-60} TPCC_RAMP=${TPCC_RAMP:-10} TPCC_LOADERS=${TPCC_LOADERS:-2}
BUILD=${BUILD:-auto}
RUN_DIR=${RUN_DIR:-/tmp/compare-run}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-/tmp/results/compare-$STAMP}
DOC=${DOC-$REPO/docs/benchmarks.md}
CS_METHOD=${CS_METHOD:-auto}
ASHLAR_POOL_EXECUTOR_SIZE=${ASHLAR_POOL_EXECUTOR_SIZE:-}

PG_PORT=27432
ASHLAR1_PORT=27433 ASHLAR2_PORT=27434 ASHLAR_LOAD_PORT=27440 ASHLARP_PORT=27441
PGB_TXN_PORT=27435 PGB_SESSION_PORT=27436
SS_PORT=27437 SS_NOKEY_PORT=27438 SS_TPCC_PORT=27439

BENCH_JAR=$REPO/benchmarks/target/benchmarks.jar
ASHLAR_JAR=$REPO/proxy-bootstrap/target/proxy-bootstrap.jar
TPCC_MAIN=io.ashlar.bench.tpcc.Tpcc

# Exactly what was asked for, to print with the results.
COMMAND="TARGETS='$TARGETS' WORKLOADS='$WORKLOADS' CLIENTS='$CLIENTS' ROUNDS=$ROUNDS DURATION=$DURATION THREADS=$THREADS SCALE=$SCALE WARMUP=$WARMUP REWARM=$REWARM LAT_SAMPLING=$LAT_SAMPLING TPCC_WAREHOUSES=$TPCC_WAREHOUSES TPCC_TERMINALS='$TPCC_TERMINALS' TPCC_DURATION=$TPCC_DURATION TPCC_RAMP=$TPCC_RAMP${ASHLAR_POOL_EXECUTOR_SIZE:+ ASHLAR_POOL_EXECUTOR_SIZE=$ASHLAR_POOL_EXECUTOR_SIZE}${CS_METHOD:+ CS_METHOD=$CS_METHOD} benchmarks/compare.sh"

log() { printf '%s compare: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
has() { case " $1 " in *" $2 "*) return 0 ;; *) return 1 ;; esac; }  # has LIST WORD

# ---------------------------------------------------------------------------------------------
# Cleanup: everything started here is recorded and stopped on exit, whatever the exit.
# ---------------------------------------------------------------------------------------------
STARTED_PG=0 ASHLAR_PIDS=() SS_STARTED=() PGB_STARTED=() CHILD=
declare -A ASHLAR_PID_OF ASHLAR_PORT_OF ASHLAR_CONF_OF ASHLAR_RESTARTS
cleanup() {
    local rc=$? pid port
    trap - EXIT INT TERM
    set +e
    if [ -n "$CHILD" ] && kill -0 "$CHILD" 2>/dev/null; then kill "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null; fi
    if [ -n "${METER_PERF:-}" ] && kill -0 "$METER_PERF" 2>/dev/null; then kill -INT "$METER_PERF" 2>/dev/null; wait "$METER_PERF" 2>/dev/null; fi
    for pid in "${ASHLAR_PIDS[@]}"; do stop_pid "$pid"; done
    for port in "${SS_STARTED[@]}"; do SS_RUN_DIR=$OUT/ss "$SS_HOME/run.sh" stop "$port" >/dev/null 2>&1; done
    for port in "${PGB_STARTED[@]}"; do PGB_RUN_DIR=$OUT/pgbouncer "$PEERS/pgbouncer/run.sh" stop "$port" >/dev/null 2>&1; done
    if [ "$STARTED_PG" = 1 ]; then
        "$PEERS/pg.sh" stop "$RUN_DIR/pg" "$PG_PORT" >/dev/null 2>&1
        [ -n "${KEEP_PG:-}" ] || rm -rf "$RUN_DIR/pg/data"
    fi
    # fd 9: the script's own stderr (a signal may run this trap inside a redirected command)
    [ "$rc" = 0 ] || log "stopped (exit $rc); logs in $OUT/" 2>&9
    exit "$rc"
}
exec 9>&2
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

stop_pid() {
    local pid=$1 i
    kill -0 "$pid" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null
    for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null
}

# Runs a command in the background and waits for it, so that a signal is handled at once.
run_child() {
    "$@" &
    CHILD=$!
    local rc=0
    wait "$CHILD" || rc=$?
    CHILD=
    return "$rc"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# first_match ERE FILE WIDTH: the first match in FILE, tabs blanked, cut to WIDTH; never fails
first_match() { { grep -m1 -o -E "$1" "$2" | tr '\t' ' ' | cut -c1-"$3"; } 2>/dev/null || true; }

wait_port() {  # PORT SECONDS PID LOG
    local i
    for i in $(seq 1 $(($2 * 4))); do
        port_open "$1" && return 0
        kill -0 "$3" 2>/dev/null || { tail -30 "$4" >&2; die "process $3 exited before opening port $1 (log $4)"; }
        sleep 0.25
    done
    tail -30 "$4" >&2
    die "port $1 not open after $2 s (log $4)"
}

# ---------------------------------------------------------------------------------------------
# What the run needs
# ---------------------------------------------------------------------------------------------
need_ashlar=0 need_ss=0 need_pgb=0 need_tpcc=0 pgbench_workloads=""
for t in $TARGETS; do
    case $t in
        direct) ;;
        ashlar-pool|ashlar-1|ashlar-2) need_ashlar=1 ;;
        pgb-txn|pgb-session) need_pgb=1 ;;
        ss-1|ss-1-nokey) need_ss=1 ;;
        *) die "unknown target '$t' (direct ashlar-pool ashlar-1 ashlar-2 pgb-txn pgb-session ss-1 ss-1-nokey)" ;;
    esac
done
for w in $WORKLOADS; do
    case $w in
        select-prepared|select-simple|tpcb-prepared) pgbench_workloads="$pgbench_workloads $w" ;;
        tpcc) need_tpcc=1 ;;
        *) die "unknown workload '$w' (select-prepared select-simple tpcb-prepared tpcc)" ;;
    esac
done
has "$TARGETS" direct || die "TARGETS must include direct: every ratio is to direct PostgreSQL"
if [ "$need_tpcc" = 1 ]; then need_ashlar=1; fi   # the load-time comparison runs through Ashlar

mkdir -p "$OUT/logs" "$(dirname "$OUT")"
RAW=$OUT/raw.tsv
printf 'workload\tclients\tround\ttarget\tran_on\targs\tstatus\ttps\tp50_ms\tp99_ms\tavg_ms\tnote\ttxns\tproxy_pid\tcpu_us_per_txn\tcs_per_txn\tcs_method\n' > "$RAW"

for p in $PG_PORT $ASHLAR1_PORT $ASHLAR2_PORT $ASHLAR_LOAD_PORT $ASHLARP_PORT $PGB_TXN_PORT $PGB_SESSION_PORT $SS_PORT $SS_NOKEY_PORT $SS_TPCC_PORT; do
    if port_open "$p"; then die "port $p is in use (a previous run still up? see $RUN_DIR)"; fi
done

# ---------------------------------------------------------------------------------------------
# 1. Build what is missing
# ---------------------------------------------------------------------------------------------
. "$REPO/bin/find-java.sh"   # JAVA_HOME -> a JDK 21+ for Ashlar and the TPC-C driver
JAVA=$JAVA_HOME/bin/java

ashlar_stale() {  # the test bin/ashlar makes before it rebuilds
    [ ! -f "$ASHLAR_JAR" ] || [ ! -d "$REPO/proxy-bootstrap/target/lib" ] || [ -n "$(find "$REPO" -path "$REPO/benchmarks" -prune -o \
        \( -name '*.java' -o -name 'pom.xml' -o -path '*/src/main/resources/*' \) -newer "$ASHLAR_JAR" -print -quit 2>/dev/null)" ]
}
if [ "$need_ashlar" = 1 ] && ashlar_stale; then
    if [ "$BUILD" = never ]; then
        [ -f "$ASHLAR_JAR" ] || die "$ASHLAR_JAR missing and BUILD=never"
        log "Ashlar's jar is older than its sources; BUILD=never: using it as it is"
    else
        log "building Ashlar: ./mvnw -B -q -DskipTests -pl proxy-bootstrap -am package"
        (cd "$REPO" && ./mvnw -B -q -DskipTests -pl proxy-bootstrap -am package) > "$OUT/logs/build-ashlar.log" 2>&1 \
            || { tail -30 "$OUT/logs/build-ashlar.log" >&2; die "Ashlar build failed"; }
    fi
fi
if [ "$need_tpcc" = 1 ]; then
    if [ ! -f "$BENCH_JAR" ] || { [ "$BUILD" != never ] && [ -n "$(find "$REPO/benchmarks/src/main" "$REPO/benchmarks/pom.xml" -newer "$BENCH_JAR" -print -quit 2>/dev/null)" ]; }; then
        [ "$BUILD" != never ] || die "$BENCH_JAR missing and BUILD=never (or leave tpcc out of WORKLOADS)"
        log "building the benchmarks jar: ./mvnw -B -q -DskipTests -pl benchmarks -am package"
        (cd "$REPO" && ./mvnw -B -q -DskipTests -pl benchmarks -am package) > "$OUT/logs/build-benchmarks.log" 2>&1 \
            || { tail -30 "$OUT/logs/build-benchmarks.log" >&2; die "benchmarks build failed"; }
    fi
    [ -f "$BENCH_JAR" ] || die "$BENCH_JAR not built"
    ls "$REPO"/conf/tpcc/config-tpcc-1shard.yaml "$REPO"/conf/tpcc/config-tpcc-2shard.yaml >/dev/null \
        || die "conf/tpcc/config-tpcc-{1,2}shard.yaml missing"
fi
if [ "$need_ss" = 1 ] || { [ "$need_tpcc" = 1 ] && has "$TARGETS" ss-1; }; then
    if [ ! -f "$SS_HOME/lib/shardingsphere-proxy-bootstrap-5.1.0.jar" ]; then
        [ "$BUILD" != never ] || die "$SS_HOME/lib missing and BUILD=never"
        log "assembling ShardingSphere-Proxy 5.1.0: mvn -q -f $SS_HOME/pom.xml package"
        env -u JAVA_HOME mvn -q -B -f "$SS_HOME/pom.xml" package > "$OUT/logs/build-shardingsphere.log" 2>&1 \
            || { tail -30 "$OUT/logs/build-shardingsphere.log" >&2; die "ShardingSphere-Proxy assembly failed"; }
    fi
fi
if [ "$need_pgb" = 1 ] && [ ! -x /usr/sbin/pgbouncer ]; then
    [ "$BUILD" != never ] && [ "$(id -u)" = 0 ] || die "pgbouncer missing: apt-get install -y pgbouncer"
    log "installing pgbouncer: apt-get install -y pgbouncer"
    apt-get install -y pgbouncer > "$OUT/logs/apt-pgbouncer.log" 2>&1 || die "apt-get install pgbouncer failed"
fi

# ---------------------------------------------------------------------------------------------
# 2. PostgreSQL and the data
# ---------------------------------------------------------------------------------------------
psql_pg() {  # DB ARGS...: psql on the backend, as postgres
    local db=$1; shift
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$db" "$@"
}

if [ -d "$RUN_DIR/pg" ]; then "$PEERS/pg.sh" stop "$RUN_DIR/pg" "$PG_PORT" >/dev/null 2>&1 || true; fi
rm -rf "$RUN_DIR/pg"
mkdir -p "$RUN_DIR"
log "starting PostgreSQL on $PG_PORT ($RUN_DIR/pg)"
STARTED_PG=1
# Every proxy's pool stays open during the whole run: room for all of them at once; ashlar-2 commits
# transactions that wrote to both shards in two phases (PREPARE TRANSACTION needs max_prepared_transactions).
PG_EXTRA_CONF=$'max_connections = 700\nmax_prepared_transactions = 700' "$PEERS/pg.sh" start "$RUN_DIR/pg" "$PG_PORT" tpcc_load > "$OUT/logs/pg.log" 2>&1 9>&- \
    || { cat "$OUT/logs/pg.log" >&2; die "PostgreSQL did not start"; }
PG_VERSION=$(psql_pg postgres -tAc 'show server_version')

if [ -n "$pgbench_workloads" ]; then
    log "loading pgbench scale $SCALE (bench, bench_s0, bench_s1)"
    "$PEERS/pgbench-init.sh" "$PG_PORT" "$SCALE" > "$OUT/logs/pgbench-init.log" 2>&1 \
        || { tail -20 "$OUT/logs/pgbench-init.log" >&2; die "pgbench-init.sh failed"; }
fi

# ---------------------------------------------------------------------------------------------
# Ashlar
# ---------------------------------------------------------------------------------------------
render() {  # SRC_FILE DEST_FILE ASHLAR_PORT: fill the @TOKENS@ of benchmarks/conf
    sed -e "s|@PG_HOST@|127.0.0.1|g" -e "s|@PG_PORT@|$PG_PORT|g" -e "s|@PG_USER@|postgres|g" \
        -e "s|@PG_PASSWORD@||g" -e "s|@PG_DB_1SHARD@|bench|g" -e "s|@PG_DB_2SHARD_0@|bench_s0|g" \
        -e "s|@PG_DB_2SHARD_1@|bench_s1|g" -e "s|@ASHLAR_PORT@|$3|g" "$1" > "$2"
}

render_tpcc() {  # SRC_FILE DEST_FILE DB...: conf/tpcc's config, its Nth URL pointed at the Nth DB
    local src=$1 dst=$2; shift 2
    awk -v host="127.0.0.1:$PG_PORT" -v dbs="$*" '
        BEGIN { n = split(dbs, db, " "); i = 0 }
        /^[ \t]*(url|jdbcUrl):[ \t]*jdbc:postgresql:/ {
            i++
            if (i > n) { print "render_tpcc: more data sources than databases" > "/dev/stderr"; exit 1 }
            match($0, /^[ \t]*/)
            key = $0; sub(/^[ \t]*/, "", key); sub(/:.*/, "", key)
            print substr($0, 1, RLENGTH) key ": jdbc:postgresql://" host "/" db[i]
            next
        }
        /^[ \t]*username:/ { match($0, /^[ \t]*/); print substr($0, 1, RLENGTH) "username: postgres"; next }
        /^[ \t]*password:/ { match($0, /^[ \t]*/); print substr($0, 1, RLENGTH) "password: \"\""; next }
        { print }' "$src" > "$dst"
}

# ashlar_conf NAME PORT PGBENCH_CONF_DIR TPCC_SRC DB...: a conf dir with the pgbench and/or TPC-C databases
ashlar_conf() {
    local name=$1 port=$2 pgconf=$3 tpcc=$4; shift 4
    local d=$OUT/$name/conf f
    mkdir -p "$d"
    render "$REPO/benchmarks/conf/pgbench-1shard/server.yaml" "$d/server.yaml" "$port"
    if [ "$name" = ashlar-pool ] && [ -n "$ASHLAR_POOL_EXECUTOR_SIZE" ]; then
        printf '  proxy-frontend-executor-size: %s\n' "$ASHLAR_POOL_EXECUTOR_SIZE" >> "$d/server.yaml"   # props is the last block
    fi
    if [ -n "$pgconf" ]; then
        for f in "$REPO/benchmarks/conf/$pgconf"/config-*.yaml; do render "$f" "$d/$(basename "$f")" "$port"; done
    fi
    if [ -n "$tpcc" ]; then render_tpcc "$REPO/conf/tpcc/$tpcc" "$d/config-tpcc.yaml" "$@"; fi
    echo "$d"
}

start_ashlar() {  # NAME PORT CONF_DIR
    local name=$1 port=$2 conf=$3 lg=$OUT/logs/ashlar-$1.log pid
    ASHLAR_PORT_OF[$name]=$port ASHLAR_CONF_OF[$name]=$conf
    if [ "$BUILD" = never ]; then
        # without its rebuild check (other work may be editing sources); it execs the JVM
        ASHLAR_BUILD=never nohup "$REPO/bin/ashlar" start --conf "$conf" --port "$port" >> "$lg" 2>&1 < /dev/null 9>&- &
    else
        nohup "$REPO/bin/ashlar" start --conf "$conf" --port "$port" >> "$lg" 2>&1 < /dev/null 9>&- &
    fi
    pid=$!
    ASHLAR_PIDS+=("$pid")
    ASHLAR_PID_OF[$name]=$pid
    wait_port "$port" 120 "$pid" "$lg"
    log "Ashlar $name up on $port (pid $pid, conf $conf)"
    LAST_PID=$pid
}

# ensure_ashlar TARGET: if TARGET is an Ashlar whose process is gone, say so and start it again
# (its log keeps both lives); the report lists every restart. Returns 1 if it restarted it.
ensure_ashlar() {
    local pid=${ASHLAR_PID_OF[$1]:-}
    [ -n "$pid" ] || return 0
    ! kill -0 "$pid" 2>/dev/null || return 0
    log "WARNING: Ashlar $1 (pid $pid) is gone (log $OUT/logs/ashlar-$1.log); starting it again"
    ASHLAR_RESTARTS[$1]=$(( ${ASHLAR_RESTARTS[$1]:-0} + 1 ))
    start_ashlar "$1" "${ASHLAR_PORT_OF[$1]}" "${ASHLAR_CONF_OF[$1]}"
    return 1
}

# ---------------------------------------------------------------------------------------------
# TPC-C data
# ---------------------------------------------------------------------------------------------
tpcc() {  # SUBCOMMAND URL USER PASSWORD ARGS...: the TPC-C driver
    local sub=$1 url=$2 user=$3 pass=$4; shift 4
    run_child timeout "${TPCC_TIMEOUT:-3600}" "$JAVA" -cp "$BENCH_JAR" "$TPCC_MAIN" "$sub" --url "$url" --user "$user" --password "$pass" "$@"
}

TPCC_LOAD_DIRECT= TPCC_LOAD_ASHLAR= TPCC_LOAD_ASHLAR2=
# tpcc_load VAR LABEL URL USER PASSWORD: creates the schema and loads it; VAR = seconds, or FAIL.
# (Not run in $(...): a signal must find the driver in CHILD of this shell.)
tpcc_load() {
    local var=$1 label=$2 url=$3 user=$4 pass=$5 t0 t1 lg=$OUT/logs/tpcc-load-$2.log
    t0=$(date +%s.%N)
    if tpcc create "$url" "$user" "$pass" > "$lg" 2>&1 \
        && tpcc load "$url" "$user" "$pass" --warehouses "$TPCC_WAREHOUSES" --loaders "$TPCC_LOADERS" >> "$lg" 2>&1; then
        t1=$(date +%s.%N)
        printf -v "$var" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
    else
        tail -20 "$lg" >&2
        log "TPC-C load ($label) FAILED, log $lg"
        printf -v "$var" FAIL
    fi
}

# ---------------------------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------------------------
# target -> "port user db password"
target_conn() {
    case $1 in
        direct)      echo "$PG_PORT postgres bench -" ;;
        ashlar-pool) echo "$ASHLARP_PORT root bench root" ;;
        ashlar-1)    echo "$ASHLAR1_PORT root sharding_db root" ;;
        ashlar-2)    echo "$ASHLAR2_PORT root sharding_db root" ;;
        pgb-txn)     echo "$PGB_TXN_PORT postgres bench -" ;;
        pgb-session) echo "$PGB_SESSION_PORT postgres bench -" ;;
        ss-1)        echo "$SS_PORT root sharding_db root" ;;
        ss-1-nokey)  echo "$SS_NOKEY_PORT root sharding_db root" ;;
        ss-tpcc)     echo "$SS_TPCC_PORT root sharding_db root" ;;
    esac
}
target_label() {
    case $1 in
        direct)      echo "PostgreSQL $PG_VERSION, direct" ;;
        ashlar-pool) echo "Ashlar, pooled (no rules)$( [ -z "$ASHLAR_POOL_EXECUTOR_SIZE" ] || echo ", $ASHLAR_POOL_EXECUTOR_SIZE event loop$( [ "$ASHLAR_POOL_EXECUTOR_SIZE" = 1 ] || echo s)")" ;;
        ashlar-1)    echo "Ashlar, 1 shard (MOD 1)" ;;
        ashlar-2)    echo "Ashlar, 2 shards (MOD 2)" ;;
        pgb-txn)     echo "pgbouncer, transaction pooling" ;;
        pgb-session) echo "pgbouncer, session pooling" ;;
        ss-1)        echo "ShardingSphere-Proxy 5.1.0, conf-1shard (MOD 1)" ;;
        ss-1-nokey)  echo "ShardingSphere-Proxy 5.1.0, conf-1shard-nokey" ;;
    esac
}
is_jvm() { case $1 in ashlar-*|ss-*) return 0 ;; *) return 1 ;; esac; }

# ---------------------------------------------------------------------------------------------
# Proxy cost per transaction (issue 12): CPU and context switches of the proxy's process
# ---------------------------------------------------------------------------------------------
# proxy_pid TARGET: the pid of the process serving TARGET's port (nothing for direct). The process
# listening on the port decides; what started it (Ashlar's java, pgbouncer's pid file,
# ShardingSphere's run.sh pid file, which is its java: run.sh execs it) is checked against it.
proxy_pid() {
    local t=$1 port listen expect=""
    [ "$t" != direct ] || return 0
    read -r port _ <<< "$(target_conn "$t")"
    listen=$(ss -Htlnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2) || true
    case $t in
        ashlar-*) expect=${ASHLAR_PID_OF[$t]:-} ;;
        pgb-*)    expect=$(cat "$OUT/pgbouncer/$port/pgbouncer.pid" 2>/dev/null) || true ;;
        ss-*)     expect=$(cat "$OUT/ss/$port/proxy.pid" 2>/dev/null) || true ;;
    esac
    if [ -n "$listen" ] && [ -n "$expect" ] && [ "$listen" != "$expect" ]; then
        log "WARNING: $t: port $port is held by pid $listen ($(cat "/proc/$listen/comm" 2>/dev/null)), not by the pid that was started ($expect): measuring $listen"
    fi
    [ -n "$listen" ] || [ -z "$expect" ] || log "WARNING: $t: no listener found on $port by ss; measuring the started pid $expect"
    echo "${listen:-$expect}"
}

CLK_TCK=$(getconf CLK_TCK)
if [ "$CS_METHOD" = auto ]; then
    CS_METHOD=proc
    if command -v perf >/dev/null 2>&1 && perf stat -x, -e context-switches -- sleep 0.01 2>&1 >/dev/null | grep -q '^[0-9][0-9]*,,context-switches'; then
        CS_METHOD=perf
    fi
fi
case $CS_METHOD in perf|proc) ;; *) die "CS_METHOD must be auto, perf or proc, not '$CS_METHOD'" ;; esac

cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || true; }   # utime + stime, all threads
cs_of_tasks() {  # voluntary + involuntary context switches, summed over the threads alive now
    cat "/proc/$1"/task/*/status 2>/dev/null | awk '/^(nonvoluntary|voluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

METER_PID= METER_CPU0= METER_CS0= METER_PERF= METER_PERF_OUT= METER_CPU= METER_CS=
meter_start() {  # PID
    METER_PID=$1 METER_CPU= METER_CS= METER_PERF=
    if [ "$CS_METHOD" = perf ]; then
        METER_PERF_OUT=$OUT/logs/perf-stat.out
        rm -f "$METER_PERF_OUT"
        perf stat -x, -e context-switches -p "$METER_PID" -o "$METER_PERF_OUT" > /dev/null 2>&1 9>&- &
        METER_PERF=$!
        sleep 0.3   # attached to every thread before the run starts
    else
        METER_CS0=$(cs_of_tasks "$METER_PID")
    fi
    METER_CPU0=$(cpu_ticks "$METER_PID")
}
meter_stop() {  # sets METER_CPU (seconds) and METER_CS (count); empty if the process is gone
    local cpu1 cs1=""
    cpu1=$(cpu_ticks "$METER_PID")
    if [ -n "$METER_PERF" ]; then
        kill -INT "$METER_PERF" 2>/dev/null || true
        wait "$METER_PERF" 2>/dev/null || true
        METER_PERF=
        cs1=$(awk -F, '$3 == "context-switches" && $1 ~ /^[0-9]+$/ { print $1 }' "$METER_PERF_OUT" 2>/dev/null) || true
        METER_CS=$cs1
    else
        cs1=$(cs_of_tasks "$METER_PID")
        METER_CS=$(awk -v a="$METER_CS0" -v b="$cs1" 'BEGIN { print b - a }')
    fi
    if [ -n "$cpu1" ] && [ -n "$METER_CPU0" ]; then
        METER_CPU=$(awk -v a="$METER_CPU0" -v b="$cpu1" -v hz="$CLK_TCK" 'BEGIN { printf "%.2f\n", (b - a) / hz }')
    fi
    kill -0 "$METER_PID" 2>/dev/null || METER_CPU= METER_CS=
}
per_txn() { awk -v a="$1" -v n="$2" -v k="$3" 'BEGIN { if (a == "" || n == "" || n + 0 == 0) print ""; else printf "%.3f\n", a * k / n }'; }

start_ss() {  # CONF PORT [FETCH]
    local fetch=${3:--1}
    SS_RUN_DIR=$OUT/ss JAVA=$SS_JAVA PG_PORT=$PG_PORT PG_DB_1SHARD=bench SS_BACKEND_FETCH_SIZE=$fetch \
        "$SS_HOME/run.sh" start "$SS_HOME/$1" "$2" >> "$OUT/logs/shardingsphere-start.log" 2>&1 9>&- \
        || { tail -40 "$OUT/logs/shardingsphere-start.log" >&2; die "ShardingSphere-Proxy $1 did not start on $2"; }
    SS_STARTED+=("$2")
    log "ShardingSphere-Proxy 5.1.0 $1 up on $2 (backend fetch size $fetch)"
}

start_pgb() {  # MODE PORT
    PGB_RUN_DIR=$OUT/pgbouncer PG_PORT=$PG_PORT POOL_MODE=$1 "$PEERS/pgbouncer/run.sh" start "$2" \
        >> "$OUT/logs/pgbouncer-start.log" 2>&1 9>&- || { cat "$OUT/logs/pgbouncer-start.log" >&2; die "pgbouncer $1 did not start"; }
    PGB_STARTED+=("$2")
    log "pgbouncer $1 pooling up on $2"
}

TPCC_TARGETS=""
for t in direct pgb-session ashlar-1 ashlar-2 ss-1; do has "$TARGETS" "$t" && TPCC_TARGETS="$TPCC_TARGETS $t"; done

if [ "$need_tpcc" = 1 ]; then
    log "TPC-C: creating and loading $TPCC_WAREHOUSES warehouses directly into bench"
    tpcc_load TPCC_LOAD_DIRECT direct "jdbc:postgresql://127.0.0.1:$PG_PORT/bench" postgres ""
    [ "$TPCC_LOAD_DIRECT" != FAIL ] || die "TPC-C load failed directly on PostgreSQL"
    log "TPC-C direct load: $TPCC_LOAD_DIRECT s"
    # The same load through a freshly started Ashlar (1 shard) into a scratch database, as a user
    # would load through the proxy; then the scratch database is dropped.
    conf=$(ashlar_conf ashlar-load "$ASHLAR_LOAD_PORT" "" config-tpcc-1shard.yaml tpcc_load)
    start_ashlar ashlar-load "$ASHLAR_LOAD_PORT" "$conf"
    log "TPC-C: the same load through Ashlar 1 shard (port $ASHLAR_LOAD_PORT) into tpcc_load"
    tpcc_load TPCC_LOAD_ASHLAR ashlar-1 "jdbc:postgresql://127.0.0.1:$ASHLAR_LOAD_PORT/tpcc" root root
    log "TPC-C load through Ashlar 1 shard: $TPCC_LOAD_ASHLAR s"
    stop_pid "$LAST_PID"
    psql_pg postgres -c 'DROP DATABASE tpcc_load' > /dev/null
fi

if has "$TARGETS" ashlar-pool; then
    conf=$(ashlar_conf ashlar-pool "$ASHLARP_PORT" pgbench-pool "")
    start_ashlar ashlar-pool "$ASHLARP_PORT" "$conf"
fi
if has "$TARGETS" ashlar-1; then
    conf=$(ashlar_conf ashlar-1 "$ASHLAR1_PORT" pgbench-1shard "$( [ "$need_tpcc" = 1 ] && echo config-tpcc-1shard.yaml)" bench)
    start_ashlar ashlar-1 "$ASHLAR1_PORT" "$conf"
fi
if has "$TARGETS" ashlar-2; then
    conf=$(ashlar_conf ashlar-2 "$ASHLAR2_PORT" pgbench-2shard "$( [ "$need_tpcc" = 1 ] && echo config-tpcc-2shard.yaml)" bench_s0 bench_s1)
    start_ashlar ashlar-2 "$ASHLAR2_PORT" "$conf"
    if [ "$need_tpcc" = 1 ]; then
        log "TPC-C: loading through Ashlar 2 shards into bench_s0/bench_s1"
        tpcc_load TPCC_LOAD_ASHLAR2 ashlar-2 "jdbc:postgresql://127.0.0.1:$ASHLAR2_PORT/tpcc" root root
        log "TPC-C load through Ashlar 2 shards: $TPCC_LOAD_ASHLAR2 s"
    fi
fi
if [ -n "$TPCC_LOAD_DIRECT" ]; then psql_pg bench -c 'VACUUM ANALYZE' -c CHECKPOINT > /dev/null; fi
has "$TARGETS" pgb-txn && start_pgb transaction "$PGB_TXN_PORT"
has "$TARGETS" pgb-session && start_pgb session "$PGB_SESSION_PORT"
# ShardingSphere-Proxy 5.1.0 reads table metadata at start: every table is loaded by now.
if [ -n "$pgbench_workloads" ] && has "$TARGETS" ss-1; then start_ss conf-1shard "$SS_PORT"; fi
if [ -n "$pgbench_workloads" ] && { has "$TARGETS" ss-1-nokey || { has "$TARGETS" ss-1 && { has "$WORKLOADS" select-prepared || has "$WORKLOADS" tpcb-prepared; }; }; }; then
    start_ss conf-1shard-nokey "$SS_NOKEY_PORT"
fi
if [ "$need_tpcc" = 1 ] && has "$TARGETS" ss-1; then start_ss conf-1shard "$SS_TPCC_PORT" 50; fi

# ---------------------------------------------------------------------------------------------
# 3. pgbench
# ---------------------------------------------------------------------------------------------
workload_args() {
    case $1 in
        select-prepared) echo "-S -M prepared" ;;
        select-simple)   echo "-S -M simple" ;;
        tpcb-prepared)   echo "-M prepared" ;;
    esac
}

before_pgbench_run() {  # reset what TPC-B grows, on the backend (pgbench -n skips it)
    local db
    if [ "$1" = tpcb-prepared ]; then
        for db in bench bench_s0 bench_s1; do
            psql_pg "$db" -c 'VACUUM pgbench_branches, pgbench_tellers' -c 'TRUNCATE pgbench_history' > /dev/null
        done
        psql_pg postgres -c CHECKPOINT > /dev/null
    fi
}

# pgbench_run WORKLOAD CLIENTS ROUND ROW_TARGET RUN_TARGET SECONDS NOTE ARGS...
# One pgbench run; appends a line to raw.tsv (not for warm-ups) and returns non-zero if it failed.
pgbench_run() {
    local w=$1 c=$2 r=$3 t=$4 on=$5 secs=$6 note=$7; shift 7
    local port user db pass j lg latdir rc=0 tps avg status=ok p50= p99= lat
    local mpid="" txns="" cpu_txn="" cs_txn=""
    read -r port user db pass <<< "$(target_conn "$on")"
    j=$THREADS; [ "$c" -ge "$j" ] || j=$c
    lg=$OUT/logs/$w-c$c-$r-$t.log
    latdir=$OUT/lat/$w-c$c-$r-$t
    ensure_ashlar "$on" || note="${note:+$note; }Ashlar restarted before this run: its process was gone"
    before_pgbench_run "$w"
    local latargs=()
    if [ "$r" != warmup ] && [ "$r" != probe ]; then
        mkdir -p "$latdir"
        latargs=(-l "--sampling-rate=$LAT_SAMPLING" "--log-prefix=$latdir/tx")
        mpid=$(proxy_pid "$on")
    fi
    [ -z "$mpid" ] || meter_start "$mpid"
    PGPASSWORD=$([ "$pass" = - ] || echo "$pass") run_child timeout $((secs + 120)) \
        "$PG_BIN/pgbench" -n "$@" -c "$c" -j "$j" -T "$secs" "${latargs[@]}" \
        -h 127.0.0.1 -p "$port" -U "$user" "$db" > "$lg" 2>&1 || rc=$?
    [ -z "$mpid" ] || meter_stop
    txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$lg")
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$lg")
    avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$lg")
    if [ "$rc" -ne 0 ] || grep -q -E 'aborted|Run was aborted' "$lg" || [ -z "$tps" ]; then
        status="FAIL: $(first_match '(ERROR|FATAL): .*' "$lg" 150)"
        if [ "$status" = "FAIL: " ] && grep -q '^number of transactions actually processed: 0$' "$lg"; then
            status="FAIL: no transaction completed in $secs s"
        fi
        [ "$status" != "FAIL: " ] || status="FAIL: pgbench exit $rc, see $lg"
        if [ -n "${ASHLAR_PID_OF[$on]:-}" ] && ! kill -0 "${ASHLAR_PID_OF[$on]}" 2>/dev/null; then
            status="FAIL: the Ashlar process is gone (log $OUT/logs/ashlar-$on.log)"
        fi
    elif [ -d "$latdir" ]; then
        # nearest-rank percentiles over every sampled transaction (3rd column: latency in µs)
        lat=$(cat "$latdir"/tx.* | awk '$3 ~ /^[0-9]+$/ { print $3 }' | sort -n | awk '
            { v[NR] = $1 }
            END { if (NR == 0) exit
                  i50 = int(NR * 0.50); if (i50 < NR * 0.50) i50++
                  i99 = int(NR * 0.99); if (i99 < NR * 0.99) i99++
                  printf "%.3f %.3f %d\n", v[i50] / 1000, v[i99] / 1000, NR }')
        read -r p50 p99 _ <<< "$lat"
    fi
    rm -rf "$latdir"
    if [ -n "$mpid" ] && [ "$status" = ok ]; then
        cpu_txn=$(per_txn "$METER_CPU" "$txns" 1000000)   # µs of proxy CPU per transaction
        cs_txn=$(per_txn "$METER_CS" "$txns" 1)
    fi
    if [ "$r" != warmup ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$c" "$r" "$t" "$on" "$*" "$status" \
            "${tps:-}" "${p50:-}" "${p99:-}" "${avg:-}" "$note" "${txns:-}" "$mpid" "$cpu_txn" "$cs_txn" "$( [ -z "$mpid" ] || echo "$CS_METHOD")" >> "$RAW"
    fi
    log "$(printf '%-15s c=%-3s %-7s %-11s on %-11s %-14s tps=%-9s p50=%-7s p99=%-7s %s%s' \
        "$w" "$c" "$r" "$t" "$on" "$*" "${tps:--}" "${p50:--}" "${p99:--}" \
        "$( [ -z "$cpu_txn$cs_txn" ] || echo "cpu=${cpu_txn:--}us/txn cs=${cs_txn:--}/txn (pid $mpid) ")" "${status:0:100}")"
    [ "$status" = ok ]
}

declare -A EFF_ON EFF_ARGS EFF_NOTE WARMED
# plan_pgbench WORKLOAD: probe the known failures, decide what each target row runs
plan_pgbench() {
    local w=$1 args t
    args=$(workload_args "$w")
    for t in $TARGETS; do
        EFF_ON[$w/$t]=$t EFF_ARGS[$w/$t]=$args EFF_NOTE[$w/$t]=""
        case "$t/$args" in
        pgb-txn/*prepared*)
            # shellcheck disable=SC2086
            if ! pgbench_run "$w" "$PROBE_CLIENTS" probe "$t" "$t" "$PROBE_SECONDS" "probe" $args; then
                EFF_ARGS[$w/$t]=${args/-M prepared/-M extended}
                EFF_NOTE[$w/$t]="ran -M extended: pgbouncer 1.18 in transaction pooling fails -M prepared ($(probe_error "$w" "$t"))"
            fi ;;
        ss-1/*prepared*)
            # shellcheck disable=SC2086
            if ! pgbench_run "$w" "$PROBE_CLIENTS" probe "$t" "$t" "$PROBE_SECONDS" "probe" $args; then
                if has "$TARGETS" ss-1-nokey; then
                    EFF_ON[$w/$t]=""
                    EFF_NOTE[$w/$t]="with a sharding strategy ($(probe_error "$w" "$t")); see ss-1-nokey"
                else
                    EFF_ON[$w/$t]=ss-1-nokey
                    EFF_NOTE[$w/$t]="ran on conf-1shard-nokey: with its MOD strategy 5.1.0 fails -M prepared ($(probe_error "$w" "$t"))"
                fi
            fi ;;
        esac
    done
}
probe_error() { awk -F'\t' -v w="$1" -v t="$2" '$1 == w && $3 == "probe" && $4 == t { s = $7 } END { sub(/^FAIL: /, "", s); print s }' "$RAW" | cut -c1-110; }

warm_pgbench() {  # WORKLOAD: JVM proxies: WARMUP s the first time, REWARM s after that
    local w=$1 t on secs
    for t in $TARGETS; do
        on=${EFF_ON[$w/$t]}
        [ -n "$on" ] && is_jvm "$on" || continue
        secs=$REWARM; [ -n "${WARMED[$on]:-}" ] || secs=$WARMUP
        WARMED[$on]=1
        [ "$secs" -gt 0 ] || continue
        # shellcheck disable=SC2086
        pgbench_run "$w" "$WARMUP_CLIENTS" warmup "$t" "$on" "$secs" "" ${EFF_ARGS[$w/$t]} || true
    done
}

for w in $pgbench_workloads; do
    log "== $w: probes"
    plan_pgbench "$w"
    log "== $w: warm-up"
    warm_pgbench "$w"
    for r in $(seq 1 "$ROUNDS"); do
        log "== $w: round $r of $ROUNDS"
        for c in $CLIENTS; do
            for t in $TARGETS; do
                on=${EFF_ON[$w/$t]}
                if [ -z "$on" ]; then
                    printf '%s\t%s\t%s\t%s\t\t%s\tFAIL: %s\t\t\t\t\t\t\t\t\t\t\n' "$w" "$c" "$r" "$t" "$(workload_args "$w")" "${EFF_NOTE[$w/$t]}" >> "$RAW"
                    continue
                fi
                # shellcheck disable=SC2086
                pgbench_run "$w" "$c" "$r" "$t" "$on" "$DURATION" "${EFF_NOTE[$w/$t]}" ${EFF_ARGS[$w/$t]} || true
            done
        done
    done
done

# ---------------------------------------------------------------------------------------------
# 3b. TPC-C
# ---------------------------------------------------------------------------------------------
tpcc_conn() {  # target -> "url user password"
    case $1 in
        direct)   echo "jdbc:postgresql://127.0.0.1:$PG_PORT/bench postgres -" ;;
        # what one hop through a pooler that parses nothing costs TPC-C on this machine
        pgb-session) echo "jdbc:postgresql://127.0.0.1:$PGB_SESSION_PORT/bench postgres -" ;;
        ashlar-1) echo "jdbc:postgresql://127.0.0.1:$ASHLAR1_PORT/tpcc root root" ;;
        ashlar-2) echo "jdbc:postgresql://127.0.0.1:$ASHLAR2_PORT/tpcc root root" ;;
        # 5.1.0 garbles NUMERIC in binary format, which pgjdbc 42.7 asks for once a statement is
        # server-prepared ("number of bytes should be at-least 8" in getDouble): text for NUMERIC only
        ss-1)     echo "jdbc:postgresql://127.0.0.1:$SS_TPCC_PORT/sharding_db?binaryTransferDisable=NUMERIC root root" ;;
    esac
}

# tpcc_run TERMINALS ROUND TARGET SECONDS RAMP: one driver run; appends to raw.tsv (not for warm-ups)
tpcc_run() {
    local n=$1 r=$2 t=$3 secs=$4 ramp=$5 url user pass lg rc=0 result status=ok tpmc p50 p99 note=""
    read -r url user pass <<< "$(tpcc_conn "$t")"
    [ "$pass" != - ] || pass=""
    lg=$OUT/logs/tpcc-t$n-$r-$t.log
    local home=fixed
    # the driver gives each terminal its own home warehouse, at most 10 per warehouse (TPC-C 4.2.2)
    [ "$n" -le $((10 * TPCC_WAREHOUSES)) ] || home=random
    ensure_ashlar "$t" || note="Ashlar restarted before this run: its process was gone"
    psql_pg postgres -c CHECKPOINT > /dev/null
    local mpid="" cpu_txn="" cs_txn="" txns=""
    # the proxy's own process (ShardingSphere's TPC-C instance listens on its own port)
    if [ "$r" != warmup ] && [ "$t" != direct ]; then
        if [ "$t" = ss-1 ]; then mpid=$(cat "$OUT/ss/$SS_TPCC_PORT/proxy.pid" 2>/dev/null) || true; else mpid=$(proxy_pid "$t"); fi
    fi
    [ -z "$mpid" ] || meter_start "$mpid"
    TPCC_TIMEOUT=$((secs + ramp + 300)) tpcc run "$url" "$user" "$pass" --terminals "$n" --duration "$secs" --warmup "$ramp" --home "$home" > "$lg" 2>&1 || rc=$?
    [ -z "$mpid" ] || meter_stop
    result=$(grep '^RESULT ' "$lg" | tail -1)
    tpmc=$(kv "$result" tpmC)
    # The meter spans the ramp-up too: transactions over ramp-up and run at the measured rate (tpmTotal).
    txns=$(awk -v m="$(kv "$result" tpmTotal)" -v s=$((secs + ramp)) 'BEGIN { if (m != "") printf "%.0f\n", m * s / 60 }')
    if [ -n "$mpid" ] && [ -n "$tpmc" ]; then
        cpu_txn=$(per_txn "$METER_CPU" "$txns" 1000000)
        cs_txn=$(per_txn "$METER_CS" "$txns" 1)
    fi
    p50=$(kv "$result" p50) p99=$(kv "$result" p99)   # every transaction type together
    if [ "$rc" -ne 0 ] || [ -z "$tpmc" ]; then
        if [ -n "$result" ] && [ "$(kv "$result" errors)" != 0 ]; then
            status="FAIL: $(kv "$result" errors) transactions failed (tpmC $tpmc); $(first_match '(ERROR|[A-Za-z.]*Exception).*' "$lg" 120)"
        else
            status="FAIL: $(first_match '(ERROR|[A-Za-z.]*Exception|tpcc: ).*' "$lg" 150)"
        fi
        [ "$status" != "FAIL: " ] || status="FAIL: driver exit $rc, see $lg"
    fi
    [ "$t" != ss-1 ] || note="backend fetch size 50 (proxy-backend-query-fetch-size, as its docs advise; stock -1 fetches row by row); client URL binaryTransferDisable=NUMERIC (5.1.0 garbles binary NUMERIC)"
    [ "$home" = fixed ] || note="${note:+$note; }home warehouse drawn per transaction (more than 10 terminals per warehouse)"
    if [ "$r" != warmup ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' tpcc "$n" "$r" "$t" "$t" \
            "--terminals $n --home $home" "$status" "${tpmc:-}" "${p50:-}" "${p99:-}" "" "$note" "${txns:-}" "$mpid" "$cpu_txn" "$cs_txn" \
            "$( [ -z "$mpid" ] || echo "$CS_METHOD")" >> "$RAW"
    fi
    log "$(printf '%-15s t=%-3s %-7s %-11s tpmC=%-9s p50=%-7s p99=%-7s %s%s' tpcc "$n" "$r" "$t" "${tpmc:--}" "${p50:--}" "${p99:--}" \
        "$( [ -z "$cpu_txn$cs_txn" ] || echo "cpu=${cpu_txn:--}us/txn cs=${cs_txn:--}/txn (pid $mpid) ")" "${status:0:100}")"
}
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

if [ "$need_tpcc" = 1 ]; then
    log "== tpcc: warm-up"
    for t in $TPCC_TARGETS; do
        if is_jvm "$t" && [ "$WARMUP" -gt 0 ]; then tpcc_run 4 warmup "$t" "$WARMUP" 0; fi
    done
    for r in $(seq 1 "$ROUNDS"); do
        log "== tpcc: round $r of $ROUNDS"
        for n in $TPCC_TERMINALS; do
            for t in $TPCC_TARGETS; do tpcc_run "$n" "$r" "$t" "$TPCC_DURATION" "$TPCC_RAMP"; done
        done
    done
    # TPC-C consistency conditions 1-4 on the data as each target sees it, after all the runs
    declare -A TPCC_CHECK
    for t in $TPCC_TARGETS; do
        read -r url user pass <<< "$(tpcc_conn "$t")"
        [ "$pass" != - ] || pass=""
        if tpcc check "$url" "$user" "$pass" > "$OUT/logs/tpcc-check-$t.log" 2>&1; then TPCC_CHECK[$t]=pass; else TPCC_CHECK[$t]=FAIL; fi
        log "tpcc consistency check through $t: ${TPCC_CHECK[$t]} (log $OUT/logs/tpcc-check-$t.log)"
    done
fi

# ---------------------------------------------------------------------------------------------
# 4. Report
# ---------------------------------------------------------------------------------------------
# medians.tsv: workload clients target ran_on args ok_runs runs tps p50 p99 all_tps note cpu_us_per_txn cs_per_txn cs_method
awk -F'\t' '
    function median(s,   a, n, i, j, x) {
        n = split(s, a, " ")
        if (n == 0) return ""
        for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR == 1 || $3 == "probe" || $3 == "warmup" { next }
    {
        k = $1 SUBSEP $2 SUBSEP $4
        if (!(k in runs)) { order[++nk] = k; on[k] = $5; args[k] = $6; note[k] = $12; fail[k] = "" }
        runs[k]++
        if ($7 == "ok") {
            ok[k]++; tps[k] = tps[k] " " $8; all[k] = all[k] sprintf(" %.0f", $8)
            if ($9 != "") p50[k] = p50[k] " " $9
            if ($10 != "") p99[k] = p99[k] " " $10
            if ($15 != "") cpu[k] = cpu[k] " " $15
            if ($16 != "") cs[k] = cs[k] " " $16
            if ($17 != "") csm[k] = $17
            on[k] = $5; args[k] = $6
        } else if (fail[k] == "") fail[k] = $7
    }
    END {
        for (i = 1; i <= nk; i++) {
            k = order[i]; split(k, p, SUBSEP)
            n = note[k]; if (ok[k] == 0) n = fail[k]
            printf "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p[1], p[2], p[3], on[k], args[k], ok[k], runs[k],
                median(tps[k]), median(p50[k]), median(p99[k]), substr(all[k], 2), n, median(cpu[k]), median(cs[k]), csm[k]
        }
    }' "$RAW" > "$OUT/medians.tsv"

med() {  # WORKLOAD CLIENTS TARGET FIELD -> value from medians.tsv
    awk -F'\t' -v w="$1" -v c="$2" -v t="$3" -v f="$4" '$1 == w && $2 == c && $3 == t && $6 > 0 { print $f }' "$OUT/medians.tsv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print ""; else printf "%.3f\n", a / b }'; }
fmt0() { [ -z "$1" ] && echo "" || awk -v a="$1" 'BEGIN { printf "%.0f\n", a }'; }
fmt3() { [ -z "$1" ] && echo "" || awk -v a="$1" 'BEGIN { printf "%.3f\n", a }'; }
fmt1() { [ -z "$1" ] && echo "" || awk -v a="$1" 'BEGIN { printf "%.1f\n", a }'; }
fmt2() { [ -z "$1" ] && echo "" || awk -v a="$1" 'BEGIN { printf "%.2f\n", a }'; }

workload_title() {
    case $1 in
        select-prepared) echo "pgbench -S -M prepared (select only, prepared statements)" ;;
        select-simple)   echo "pgbench -S -M simple (select only, simple query protocol)" ;;
        tpcb-prepared)   echo "pgbench -M prepared (built-in TPC-B-like)" ;;
        tpcc)            echo "TPC-C ($TPCC_WAREHOUSES warehouses, ${TPCC_DURATION} s per run after ${TPCC_RAMP} s ramp-up), tpmC" ;;
    esac
}

report_tables() {
    local w c t list unit direct row tps
    for w in $WORKLOADS; do
        if [ "$w" = tpcc ]; then list=$TPCC_TARGETS unit=tpmC; else list=$TARGETS unit=TPS; fi
        for c in $( [ "$w" = tpcc ] && echo "$TPCC_TERMINALS" || echo "$CLIENTS"); do
            echo
            echo "#### $(workload_title "$w"), $c $( [ "$w" = tpcc ] && echo terminal || echo client)$( [ "$c" = 1 ] || echo s)"
            echo
            echo "| target | ran | runs ok | median $unit | p50 ms | p99 ms | vs direct | proxy CPU µs/txn | proxy cs/txn | $unit per round | note |"
            echo "|---|---|---|---|---|---|---|---|---|---|---|"
            direct=$(med "$w" "$c" direct 8)
            for t in $list; do
                # \037 (unit separator), not a tab: read would merge the tabs around an empty field
                row=$(awk -F'\t' -v w="$w" -v c="$c" -v t="$t" '$1 == w && $2 == c && $3 == t' "$OUT/medians.tsv" | tr '\t' '\037')
                [ -n "$row" ] || continue
                IFS=$'\037' read -r _ _ _ on args okr runs tps p50 p99 all note cpu cs _ <<< "$row"
                if [ "$okr" = 0 ]; then
                    echo "| $(target_label "$t") | \`$args\` | 0/$runs | FAIL | | | | | | | ${note//|/\\|} |"
                else
                    echo "| $(target_label "$t") | $( [ "$on" = "$t" ] || echo "$on ")\`$args\` | $okr/$runs | $(fmt0 "$tps") | $(fmt3 "$p50") | $(fmt3 "$p99") | $(ratio "$tps" "$direct") | $(fmt1 "$cpu") | $(fmt2 "$cs") | $all | ${note//|/\\|} |"
                fi
            done
        done
    done
}

# The issue's targets, next to what this run measured.
report_targets() {
    local w c a1 d pgb pgbs pgbt ss ssr a1r pgbr met1 met2 ssname
    echo
    echo "| workload | clients | Ashlar 1 shard / direct | target | met | Ashlar 1 shard / ShardingSphere-Proxy 5.1.0 | target | met |"
    echo "|---|---|---|---|---|---|---|---|"
    for w in $WORKLOADS; do
        for c in $( [ "$w" = tpcc ] && echo "$TPCC_TERMINALS" || echo "$CLIENTS"); do
            d=$(med "$w" "$c" direct 8); a1=$(med "$w" "$c" ashlar-1 8)
            a1r=$(ratio "$a1" "$d")
            # pgbouncer's reference: the better pooling mode among rows that ran the workload's own protocol
            pgbr="" pgb=""
            if [ "$w" = tpcc ]; then
                pgbr="≥ 0.70"
                met1=$(awk -v a="$a1r" 'BEGIN { if (a == "") print ""; else print (a >= 0.70 ? "yes" : "no") }')
            else
                for t in pgb-session pgb-txn; do
                    [ "$(med "$w" "$c" "$t" 5)" = "$(workload_args "$w")" ] || continue
                    pgbs=$(ratio "$(med "$w" "$c" "$t" 8)" "$d")
                    if [ -n "$pgbs" ] && { [ -z "$pgb" ] || awk -v a="$pgbs" -v b="$pgb" 'BEGIN { exit !(a > b) }'; }; then pgb=$pgbs pgbt=$t; fi
                done
                [ -z "$pgb" ] || pgbr="≥ $pgb (pgbouncer $( [ "$pgbt" = pgb-txn ] && echo transaction || echo session) pooling / direct)"
                met1=$(awk -v a="$a1r" -v b="$pgb" 'BEGIN { if (a == "" || b == "") print ""; else print (a >= b ? "yes" : "no") }')
            fi
            ss=$(med "$w" "$c" ss-1 8); ssname="conf-1shard"
            [ "$(med "$w" "$c" ss-1 4)" != ss-1-nokey ] || ssname="conf-1shard-nokey"
            if [ -z "$ss" ]; then ss=$(med "$w" "$c" ss-1-nokey 8); ssname="conf-1shard-nokey"; fi
            ssr=$(ratio "$a1" "$ss")
            met2=$(awk -v a="$ssr" 'BEGIN { if (a == "") print ""; else print (a >= 2 ? "yes" : "no") }')
            echo "| $w | $c | ${a1r:-n/a} | ${pgbr:-n/a} | ${met1:-n/a} | ${ssr:-n/a}$( [ -z "$ssr" ] || echo " ($ssname)") | ≥ 2 | ${met2:-n/a} |"
        done
    done
    if [ "$need_tpcc" = 1 ]; then
        local lr
        lr=$(ratio "$TPCC_LOAD_ASHLAR" "$TPCC_LOAD_DIRECT")
        echo
        echo "| TPC-C load, $TPCC_WAREHOUSES warehouses, $TPCC_LOADERS loaders (create + load) | seconds | vs direct | target | met |"
        echo "|---|---|---|---|---|"
        echo "| PostgreSQL, direct | $TPCC_LOAD_DIRECT | 1 | | |"
        echo "| Ashlar, 1 shard (fresh proxy) | $TPCC_LOAD_ASHLAR | ${lr:-n/a} | ≤ 2 | $(awk -v a="$lr" 'BEGIN { if (a == "") print "n/a"; else print (a <= 2 ? "yes" : "no") }') |"
        [ -z "$TPCC_LOAD_ASHLAR2" ] || echo "| Ashlar, 2 shards | $TPCC_LOAD_ASHLAR2 | $(ratio "$TPCC_LOAD_ASHLAR2" "$TPCC_LOAD_DIRECT") | | |"
        local t checks=""
        for t in $TPCC_TARGETS; do checks="$checks, $t ${TPCC_CHECK[$t]:-not run}"; done
        echo
        echo "TPC-C consistency conditions 1-4 (\`Tpcc check\`) after all the runs, through each target: ${checks#, }."
    fi
}

# Issue 12's targets: proxy CPU per transaction against pgbouncer's (session pooling: it runs every
# workload's own protocol), context switches per transaction.
report_targets12() {
    local w c t cpu cs pgb r limit met cst csmet
    echo
    echo "| workload | clients | Ashlar | proxy CPU µs/txn | pgbouncer session pooling CPU µs/txn | ratio | target | met | cs/txn | target | met |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for w in $pgbench_workloads; do
        for c in $CLIENTS; do
            pgb=""
            [ "$(med "$w" "$c" pgb-session 5)" != "$(workload_args "$w")" ] || pgb=$(med "$w" "$c" pgb-session 13)
            for t in ashlar-pool ashlar-1; do
                has "$TARGETS" "$t" || continue
                cpu=$(med "$w" "$c" "$t" 13) cs=$(med "$w" "$c" "$t" 14)
                r=$(ratio "$cpu" "$pgb")
                if [ "$t" = ashlar-pool ]; then limit=1; else limit=1.25; fi
                met=$(awk -v a="$r" -v l="$limit" 'BEGIN { if (a == "") print "n/a"; else print (a <= l ? "yes" : "no") }')
                cst="" csmet=""
                case $w in select-*)
                    if [ "$c" = 8 ]; then
                        cst="≤ 0.6"
                        csmet=$(awk -v a="$cs" 'BEGIN { if (a == "") print "n/a"; else print (a <= 0.6 ? "yes" : "no") }')
                    fi ;;
                esac
                echo "| $w | $c | $(target_label "$t") | $(fmt1 "$cpu") | $(fmt1 "$pgb") | ${r:-n/a} | ≤ $limit x pgbouncer | $met | $(fmt2 "$cs") | $cst | $csmet |"
            done
        done
    done
}

machine() {
    local cpu mem jdk
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    jdk=$("$JAVA" -version 2>&1 | head -1)
    echo "- machine: $(nproc) cores ($cpu), $mem, Linux $(uname -r); client, proxies and PostgreSQL share the cores"
    echo "- PostgreSQL $PG_VERSION ($PEERS/pg.sh: fsync, synchronous_commit and full_page_writes off, shared_buffers 1GB), pgbench $("$PG_BIN/pgbench" --version | awk '{ print $3 }'), scale $SCALE"
    echo "- Ashlar on $jdk; ShardingSphere-Proxy 5.1.0 on $("$SS_JAVA" -version 2>&1 | head -1); $( /usr/sbin/pgbouncer --version 2>/dev/null | head -1 )"
    echo "- load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average when the report was written)"
}

{
    echo "### Side by side, $(date '+%Y-%m-%d %H:%M %Z')"
    echo
    machine
    echo
    echo '```sh'
    echo "$COMMAND"
    echo '```'
    echo
    echo "Medians over $ROUNDS rounds; in each round every target runs once per client count, one after the other"
    echo "(pgbench: ${DURATION} s per run, $THREADS pgbench threads at most; TPC-C: ${TPCC_DURATION} s after a ${TPCC_RAMP} s ramp-up, the"
    echo "driver on JDK $("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')). Every JVM proxy ran ${WARMUP} s of the workload before its first"
    echo "round (pgbench: ${REWARM} s again before each later pgbench workload). p50/p99: client-side latency of a"
    echo "transaction; pgbench's per-transaction log sampled at $LAT_SAMPLING, the TPC-C driver's histogram over all five"
    echo "transaction types. \"vs direct\": median over direct PostgreSQL's median in the same run. \"proxy CPU µs/txn\","
    echo "\"proxy cs/txn\": the proxy process's CPU time (utime+stime) and context switches ($CS_METHOD) over each pgbench run, all"
    echo "threads, divided by the transactions it completed (TPC-C: over ramp-up and run, divided by tpmTotal times their"
    echo "minutes); medians over the rounds. Raw runs:"
    echo "\`$OUT/raw.tsv\`, logs beside it."
    echo
    restarts=""
    for name in "${!ASHLAR_RESTARTS[@]}"; do restarts="$restarts, $name ${ASHLAR_RESTARTS[$name]}x"; done
    if [ -n "$restarts" ]; then
        echo "**Ashlar processes found dead and restarted during the run: ${restarts#, }** (logs: \`$OUT/logs/ashlar-*.log\`)."
        echo
    fi
    echo "#### Targets (issue 6)"
    echo
    echo "pgbench: Ashlar 1 shard keeps at least the share of direct PostgreSQL that pgbouncer keeps in the same run,"
    echo "on the same protocol (the better pooling mode of those that ran the workload's own -M; transaction pooling"
    echo "runs -M extended for prepared workloads and is then left out). TPC-C 1 shard: at least 0.70 of direct (0.90"
    echo "where the proxy has cores of its own: not this machine). Everywhere: at least 2x ShardingSphere-Proxy 5.1.0."
    report_targets
    if [ -n "$pgbench_workloads" ]; then
        echo
        echo "#### Targets (issue 12)"
        echo
        echo "Proxy CPU per transaction (utime+stime of the proxy's process, every thread, over the run, divided by the"
        echo "transactions pgbench completed): Ashlar pooled at most pgbouncer's (session pooling) on \`-S -M prepared\`,"
        echo "\`-S -M simple\` and TPC-B \`-M prepared\`; Ashlar on ShardingSphere's 1-shard rules (ashlar-1) at most 1.25x"
        echo "pgbouncer's. At most 0.6 context switches per \`-S\` transaction with 8 clients (voluntary + involuntary,"
        echo "every thread of the proxy; counted with $( [ "$CS_METHOD" = perf ] && echo "\`perf stat -e context-switches -p PID\`" || echo "/proc/PID/task/*/status"))."
        report_targets12
    fi
    report_tables
} > "$OUT.txt"

cat "$OUT.txt"

if [ -n "$DOC" ]; then
    [ -f "$DOC" ] || die "$DOC missing"
    if ! grep -q '^<!-- compare:begin -->' "$DOC"; then
        printf '\n<!-- compare:begin -->\n<!-- compare:end -->\n' >> "$DOC"
    fi
    awk -v body="$OUT.txt" '
        /^<!-- compare:begin -->/ { print; print ""; while ((getline l < body) > 0) print l; print ""; skip = 1; next }
        /^<!-- compare:end -->/ { skip = 0 }
        !skip { print }' "$DOC" > "$DOC.compare.tmp"
    cat "$DOC.compare.tmp" > "$DOC"
    rm -f "$DOC.compare.tmp"
    log "results written to $DOC (between the compare markers) and $OUT.txt"
else
    log "results in $OUT.txt"
fi
