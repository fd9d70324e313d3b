#!/usr/bin/env bash
# The server control ZooKeeper's C client suites call (their ZKSERVER_CMD, and ./tests/zkServer.sh in the recipes'
# tests), written for this harness: a real ZooKeeper 3.8 through the repository's scripts/zk, on the port the runner
# chose. tests/cclient/README.md has the whole harness.
#
#   zk_server.sh startClean|start|stop [HOSTS]
#
#   startClean  stops what runs, then starts a server with empty data on $ZKWIRE_CCLIENT_PORT, with maxClientCnxns
#               $ZKMAXCNXNS (default 100, as the suites expect; TestClientRetry asks for 1)
#   start       restarts the server `stop` killed, with its data and port: the suites reconnect to their sessions
#   stop        kills the server (SIGKILL, a crash) and keeps its data for `start`
#
# HOSTS (the suites pass their host string) is not used: the port comes from the environment. Environment (set by
# run_suites.py): ZKWIRE_CCLIENT_PORT, ZKWIRE_CCLIENT_RUN_DIR (scripts/zk's run dir). Exit status 0 on success.
set -euo pipefail

# The suites call this through system(), so it inherits the test program's environment: the library under test's
# LD_LIBRARY_PATH and a preloaded sanitizer runtime are not for the shell tools and the JVM started from here.
unset LD_PRELOAD LD_LIBRARY_PATH ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# Through the link the recipes call (./tests/zkServer.sh) too.
zk=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)/scripts/zk
run_dir=${ZKWIRE_CCLIENT_RUN_DIR:?set by tests/cclient/run_suites.py}
port=${ZKWIRE_CCLIENT_PORT:?set by tests/cclient/run_suites.py}

case ${1:-} in
  startClean)
    "$zk" stop --dir "$run_dir" >/dev/null
    "$zk" start --dir "$run_dir" --port "$port" --max-client-cnxns "${ZKMAXCNXNS:-100}" >/dev/null
    ;;
  start)
    # Restarts a killed server with its data; with none (a start before any startClean), a fresh one.
    "$zk" start --dir "$run_dir" --port "$port" --max-client-cnxns "${ZKMAXCNXNS:-100}" >/dev/null
    ;;
  stop)
    "$zk" kill --dir "$run_dir" >/dev/null
    ;;
  *)
    echo "zk_server.sh: unknown command '${1:-}' (startClean, start or stop)" >&2
    exit 2
    ;;
esac
