#!/usr/bin/env bash
# scripts/zk start on a run dir whose members died without a stop (kill -9) restarts them with their old config,
# port and data, as `scripts/zk --help` promises; a start after `stop` begins afresh. For a standalone server and
# a 3-member ensemble.
# usage: tests/tools/zk_script_test.sh [SCRIPT]   (SCRIPT: the zk script to test; default the repository's)
set -euo pipefail

ZK=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/zk}
RUN=$(mktemp -d "${TMPDIR:-/tmp}/zkwire-zk-script-XXXXXX")
cleanup() {
  local d
  for d in "$RUN"/*/; do "$ZK" stop --dir "$d" >/dev/null 2>&1 || true; done
  rm -rf "$RUN"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# check_restart NAME [START ARGS...]: in the run dir RUN/NAME
check_restart() {
  local name=$1 dir=$RUN/$1 m pid before after
  shift
  before=$("$ZK" start --dir "$dir" "$@" 2>"$RUN/stderr" | tail -n1) || fail "$name: start failed: $(<"$RUN/stderr")"
  # A marker in each member's data directory stands for its snapshots and logs: a fresh start removes them all.
  for m in "$dir"/member*; do echo kept >"$m/data/marker"; done
  for m in "$dir"/member*; do
    pid=$(<"$m/pid")
    kill -KILL "$pid"
    # Gone once its command line is (a zombie has none): the script's own test for a live member.
    while [[ -s /proc/$pid/cmdline ]]; do sleep 0.1; done
  done
  after=$("$ZK" start --dir "$dir" "$@" 2>"$RUN/stderr" | tail -n1) || fail "$name: restart failed: $(<"$RUN/stderr")"
  [[ $after == "$before" ]] || fail "$name: the restart moved the members from $before to $after (a fresh start?)"
  for m in "$dir"/member*; do
    [[ -f $m/data/marker ]] || fail "$name: the restart began ${m##*/} with empty data"
  done
  "$ZK" status --dir "$dir" >/dev/null || fail "$name: not every member is up after the restart"
  # After a stop, a start begins afresh.
  "$ZK" stop --dir "$dir" >/dev/null
  "$ZK" start --dir "$dir" "$@" >/dev/null 2>"$RUN/stderr" || fail "$name: start after stop failed: $(<"$RUN/stderr")"
  for m in "$dir"/member*; do
    [[ ! -f $m/data/marker ]] || fail "$name: a start after stop kept the data of ${m##*/}"
  done
  "$ZK" stop --dir "$dir" >/dev/null
}

check_restart standalone
check_restart ensemble --ensemble 3
echo "PASS: killed members restart with their config, port and data; a start after stop begins afresh"
