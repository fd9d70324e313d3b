#!/usr/bin/env bash
# scripts/zk start on a run dir whose members died without a stop (kill -9) restarts them with their old config,
# port and data, as `scripts/zk --help` promises; a start after `stop` begins afresh. For a standalone server and
# a 3-member ensemble. `scripts/zk kill` is such a crash too; --max-client-cnxns reaches zoo.cfg; a start on the
# port of a member just stopped succeeds although the member's closed connections hold it in TIME_WAIT; a stop ends
# although nothing reaps the stopped member.
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
    # Gone once its command line is (a zombie has none): the script's own test for a live member. Read, not tested
    # with -s: procfs files report size 0.
    while [[ -n $(tr -d '\0' 2>/dev/null <"/proc/$pid/cmdline") ]]; do sleep 0.1; done
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

# check_kill_and_port: in the run dir RUN/kill
check_kill_and_port() {
  local dir=$RUN/kill before after port
  before=$("$ZK" start --dir "$dir" --max-client-cnxns 1 2>"$RUN/stderr" | tail -n1) ||
    fail "kill: start failed: $(<"$RUN/stderr")"
  grep -qx 'maxClientCnxns=1' "$dir/member1/zoo.cfg" || fail "--max-client-cnxns 1 is not in zoo.cfg"
  echo kept >"$dir/member1/data/marker"
  "$ZK" kill --dir "$dir" >/dev/null
  ! "$ZK" status --dir "$dir" >/dev/null || fail "kill: the member is still up"
  after=$("$ZK" start --dir "$dir" 2>"$RUN/stderr" | tail -n1) || fail "kill: restart failed: $(<"$RUN/stderr")"
  [[ $after == "$before" ]] || fail "kill: the restart moved the member from $before to $after"
  [[ -f $dir/member1/data/marker ]] || fail "kill: the restart began with empty data"
  # Every start leaves the readiness check's connection, closed by the server, in TIME_WAIT on the client port.
  port=${before##*:}
  "$ZK" stop --dir "$dir" >/dev/null
  "$ZK" start --dir "$dir" --port "$port" >/dev/null 2>"$RUN/stderr" ||
    fail "a start on port $port right after its member stopped failed: $(<"$RUN/stderr")"
  "$ZK" stop --dir "$dir" >/dev/null
}

# check_stop_unreaped: in the run dir RUN/unreaped. A member's JVM outlives the `zk start` that launched it and is
# adopted by the nearest subreaper (or the first process): where that one never reaps, a stopped member stays a
# zombie, which `zk stop` must count as gone. Here a subreaper that reaps nothing runs the start and the stop.
check_stop_unreaped() {
  local dir=$RUN/unreaped status
  status=$(python3 - "$ZK" "$dir" <<'PY'
import ctypes, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER; the members' zombies stay until this exits
zk, run_dir = sys.argv[1], sys.argv[2]
subprocess.run([zk, "start", "--dir", run_dir], check=True, stdout=subprocess.DEVNULL)
print(subprocess.run(["timeout", "60", zk, "stop", "--dir", run_dir], stdout=subprocess.DEVNULL).returncode)
PY
  ) || fail "unreaped: start failed"
  [[ $status == 0 ]] || fail "unreaped: zk stop did not end (status $status) while the stopped member was a zombie"
}

check_restart standalone
check_restart ensemble --ensemble 3
check_kill_and_port
check_stop_unreaped
echo "PASS: killed members restart with their config, port and data (also after zk kill); a start after stop begins" \
  "afresh, also on the port just freed; --max-client-cnxns reaches zoo.cfg; a stop ends while nothing reaps a member"
