#!/usr/bin/env bash
# Proxy CPU and context switches per transaction of one pgbench run against a running proxy.
#
#   benchmarks/proxy-cpu.sh PID PORT USER DATABASE MODE [SECONDS]
#     PID      the proxy's process (every thread counts: /proc/PID/stat, /proc/PID/task/*/status)
#     MODE     pgbench -M: simple, extended or prepared (8 clients, 2 threads)
#   WORKLOAD=-S (select only, the default) or WORKLOAD= (pgbench's built-in TPC-B-like script)
#   prints: txn=N cpu=C.Cus user=U.Uus sys=S.Sus cs=C.CC   (per transaction; PGPASSWORD=root unless set)
#
# A quick A/B of two builds: start both on the same backend, warm each up, then alternate runs.
# Context switches here miss threads that exit during the run (compare.sh uses perf for them).
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
pid=$1 port=$2 user=$3 db=$4 mode=$5 seconds=${6:-10}
cs() { cat /proc/"$pid"/task/*/status 2>/dev/null | awk '/ctxt_switches/{s+=$2} END{print s}'; }
read -r ut0 st0 < <(awk '{print $14, $15}' /proc/"$pid"/stat)
cs0=$(cs)
txn=$(PGPASSWORD=${PGPASSWORD:-root} pgbench -n ${WORKLOAD--S} -M "$mode" -c 8 -j 2 -T "$seconds" -h 127.0.0.1 -p "$port" -U "$user" "$db" 2>&1 \
      | awk '/actually processed/{print $NF}')
read -r ut1 st1 < <(awk '{print $14, $15}' /proc/"$pid"/stat)
cs1=$(cs)
hz=$(getconf CLK_TCK)
awk -v n="$txn" -v u=$((ut1 - ut0)) -v s=$((st1 - st0)) -v c=$((cs1 - cs0)) -v hz="$hz" \
    'BEGIN { printf "txn=%d cpu=%.1fus user=%.1fus sys=%.1fus cs=%.2f\n", n, (u + s) * 1e6 / hz / n, u * 1e6 / hz / n, s * 1e6 / hz / n, c / n }'
