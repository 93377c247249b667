#!/usr/bin/env bash
# What counting costs (issue 14): proxy CPU per pgbench -S transaction with server.yaml's metrics-port set
# ("on": every session counts, and /metrics is scraped every SCRAPE_INTERVAL s during the run) and not set
# ("off": sessions count nothing), on a pooled database and on a sharded one-shard database, -M prepared and
# -M simple, interleaved round by round (the order of the targets alternates). With BASE_HOME set to a checkout
# built without this work (its proxy-bootstrap/target/proxy-bootstrap.jar), a third target "base" runs too.
#
#   benchmarks/metrics-cost.sh                          ROUNDS=3 DURATION=15 CLIENTS=8 SCALE=1
#   BASE_HOME=/tmp/ashlar-base benchmarks/metrics-cost.sh
#   OPS_HOME=DIR runs off and on from DIR's bin/ashlar and jar (a copy: builds meanwhile do not touch it)
#
# Proxy CPU: utime+stime of the proxy's whole process (/proc/PID/stat) over the run, divided by pgbench's
# transactions. Both (or all three) proxies run at once on one throwaway PostgreSQL 15 ($PEERS/pg.sh); only the
# one measured has clients. Ports 48432-48439.
set -euo pipefail
home="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$home/bin/find-java.sh" || exit 1
PEERS=${PEERS:-$home/../shared/peers}
RUN=${RUN_DIR:-/tmp/metrics-cost}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-15}
CLIENTS=${CLIENTS:-8}
SCALE=${SCALE:-1}
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-1}
PG_PORT=48432
METRICS_PORT=48439
declare -A PORT=([off]=48433 [on]=48434 [base]=48435)
TARGETS="off on"
[ -n "${BASE_HOME:-}" ] && TARGETS="off on base"
HZ=$(getconf CLK_TCK)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$PEERS/pg.sh" stop "$RUN/pg" $PG_PORT >/dev/null 2>&1 || true
  rm -rf "$RUN"
}
trap cleanup EXIT

rm -rf "$RUN" && mkdir -p "$RUN"
# A throwaway PostgreSQL 15 (the peers' pg.sh: runs it as an unprivileged user when run as root).
"$PEERS/pg.sh" start "$RUN/pg" $PG_PORT bench >/dev/null
pgbench -q -i -s "$SCALE" -h 127.0.0.1 -p $PG_PORT -U postgres bench >/dev/null 2>&1

conf() { # $1 target dir, $2 extra props
  mkdir -p "$1"
  cat > "$1/server.yaml" <<EOF
authority:
  users:
    - user: root@%
      password: root
      admin: true
props:
  proxy-bind-address: 127.0.0.1
$2
EOF
  for each in pgbench-1shard pgbench-pool; do
    sed -e "s/@PG_HOST@/127.0.0.1/; s/@PG_PORT@/$PG_PORT/; s/@PG_DB_1SHARD@/bench/; s/@PG_USER@/postgres/; s/@PG_PASSWORD@//" \
      "$home/benchmarks/conf/$each/config-pgbench.yaml" > "$1/config-$each.yaml"
  done
}
conf "$RUN/off" ""
conf "$RUN/on" "  metrics-port: $METRICS_PORT"
conf "$RUN/base" ""

start() { # $1 target
  local dir=${OPS_HOME:-$home}
  [ "$1" = base ] && dir=$BASE_HOME
  ASHLAR_BUILD=never ASHLAR_JAVA_OPTS="-Xms512m -Xmx1g -XX:+UseZGC" "$dir/bin/ashlar" start --conf "$RUN/$1" --port "${PORT[$1]}" \
    > "$RUN/$1.log" 2>&1 &
  pids+=($!)
}
export PGPASSWORD=root
for t in $TARGETS; do start "$t"; done
for t in $TARGETS; do
  for _ in $(seq 120); do
    psql -X -q -h 127.0.0.1 -p "${PORT[$t]}" -U root -c "SELECT 1" bench >/dev/null 2>&1 && break
    sleep 1
  done
done

proxy_pid() { ss -ltnpH "sport = :$1" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1; }
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

run() { # $1 target $2 database $3 mode $4 seconds: prints "txns cpu_us_per_txn tps"
  local pid before after out txns scraper=""
  pid=$(proxy_pid "${PORT[$1]}")
  if [ "$1" = on ]; then
    ( while sleep "$SCRAPE_INTERVAL"; do curl -s -o /dev/null "http://127.0.0.1:$METRICS_PORT/metrics" || true; done ) &
    scraper=$!
  fi
  before=$(ticks "$pid")
  out=$(pgbench -n -S -M "$3" -c "$CLIENTS" -j 2 -T "$4" -h 127.0.0.1 -p "${PORT[$1]}" -U root "$2" 2>&1)
  after=$(ticks "$pid")
  [ -n "$scraper" ] && { kill "$scraper"; wait "$scraper" 2>/dev/null || true; }
  txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$out")
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$out" | head -1)
  [ -n "$txns" ] && [ "$txns" -gt 0 ] || { echo "pgbench failed on $1 $2 $3: $out" >&2; exit 1; }
  echo "$txns $(awk -v t=$((after - before)) -v hz="$HZ" -v n="$txns" 'BEGIN { printf "%.1f", t * 1000000 / hz / n }') $tps"
}

# Warm-up: every target, every database and mode, 10 s each.
for t in $TARGETS; do for db in bench sharding_db; do for m in prepared simple; do run "$t" "$db" "$m" 10 >/dev/null; done; done; done

echo "round target database mode transactions proxy_cpu_us_per_txn tps"
order=($TARGETS)
for r in $(seq "$ROUNDS"); do
  for db in bench sharding_db; do
    for m in prepared simple; do
      for t in "${order[@]}"; do
        echo "$r $t $db $m $(run "$t" "$db" "$m" "$DURATION")"
      done
    done
  done
  order=($(printf '%s\n' "${order[@]}" | tac))
done
curl -s "http://127.0.0.1:$METRICS_PORT/metrics" | grep -E '^ashlar_(statements|transactions)_total' | grep -v ' 0$' || true
