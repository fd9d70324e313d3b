#!/usr/bin/python3
"""ZooKeeper's own C client suites (CppUnit, from Debian's source package) on Debian's libzookeeper_mt and on
zkwire's. tests/cclient/README.md describes the harness.

  run_suites.py build --build-dir DIR [--cache-dir DIR] --debian-include DIR --debian-lib FILE
                      [--c-compiler CC] [--cxx-compiler CXX] [--launcher CCACHE]
  run_suites.py run --build-dir DIR --program NAME --suite SUITE --debian-lib FILE [--zkwire-lib-dir DIR]
                    [--preload RUNTIME] [--library debian|zkwire|both] [--case CASE] [--case-timeout S]
                    [--deadline S]

build fetches the source package (fetch_source.sh, cached in --cache-dir, by default ~/.cache/zkwire/debian-source)
and builds the test programs (suites/CMakeLists.txt) in DIR/suites. run runs one suite, every case of it in one
process as upstream does (or only --case), on Debian's library and on zkwire's (--zkwire-lib-dir, through
LD_LIBRARY_PATH) at the same time, each against a server of its own, and compares each case's outcome (pass, fail,
hang, crash) with expected_results: what each library must do. A case left hanging (--case-timeout, 120 s) or a crash
ends the process; the cases after it then run one process each, so every case gets an outcome. Exit status 0 when
every outcome is the expected one; 77 when something the harness needs is missing (the source package, CppUnit,
Java), unless CI=true: then 1."""

import argparse
import fcntl
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from requirements import missing  # noqa: E402  (tests/support, found through the path above)
ZK = os.path.join(REPO, "scripts", "zk")
SERVER_SCRIPT = os.path.join(HERE, "zk_server.sh")
EXPECTATIONS = os.path.join(HERE, "expected_results")
OUTCOMES = ("pass", "fail", "hang", "crash")
CASE_END = re.compile(r" : (elapsed \d+( : OK)?|OK|assertion|error)\n")
SANITIZER_REPORT = re.compile(r"ERROR: (Address|Leak|Undefined)Sanitizer|runtime error: ")


# What a run started and must end if the runner itself is stopped (SIGINT, SIGTERM) or runs past --deadline: the
# test programs' process groups and the servers' run dirs. (ctest's TIMEOUT kills with SIGKILL, which leaves the
# servers running: the entries' --deadline comes first.)
STARTED = {"groups": set(), "run_dirs": set()}


def stop_everything(signum, _frame):
    for group in list(STARTED["groups"]):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    for run_dir in list(STARTED["run_dirs"]):
        subprocess.run([ZK, "stop", "--dir", run_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    why = "ran past --deadline" if signum == signal.SIGALRM else f"stopped by signal {signum}"
    print(f"run_suites: {why}; the programs and servers it started are stopped", flush=True)
    os._exit(1)


def default_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "zkwire", "debian-source")


def build(args):
    started = time.monotonic()
    cache = args.cache_dir or os.environ.get("ZKWIRE_CCLIENT_CACHE") or default_cache_dir()
    fetch = subprocess.run([os.path.join(HERE, "fetch_source.sh"), cache], stdout=subprocess.PIPE, text=True)
    if fetch.returncode != 0:
        return missing("Debian's source package zookeeper (apt-get source; the reason is above)")
    source = fetch.stdout.strip().splitlines()[-1]
    fetched = time.monotonic()
    if subprocess.run(["pkg-config", "--exists", "cppunit"]).returncode != 0:
        return missing("CppUnit (libcppunit-dev, scripts/setup)")
    tree = os.path.join(args.build_dir, "suites")
    configure = ["cmake", "-S", os.path.join(HERE, "suites"), "-B", tree, "-DCMAKE_BUILD_TYPE=",
                 f"-DZKWIRE_CCLIENT_SOURCE={source}", f"-DZKWIRE_CCLIENT_SERVER_SCRIPT={SERVER_SCRIPT}",
                 f"-DZKWIRE_CCLIENT_HOSTS_WRAP={os.path.join(HERE, 'hosts_wrap.c')}",
                 f"-DZKWIRE_DEBIAN_ZOOKEEPER_INCLUDE_DIR={args.debian_include}",
                 f"-DZKWIRE_DEBIAN_ZOOKEEPER_MT_LIBRARY={args.debian_lib}"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if args.c_compiler:
        configure.append(f"-DCMAKE_C_COMPILER={args.c_compiler}")
    if args.cxx_compiler:
        configure.append(f"-DCMAKE_CXX_COMPILER={args.cxx_compiler}")
    if args.launcher:
        configure += [f"-DCMAKE_C_COMPILER_LAUNCHER={args.launcher}", f"-DCMAKE_CXX_COMPILER_LAUNCHER={args.launcher}"]
    # A tree configured by another generator or from another source cannot be reused.
    cache_file = os.path.join(tree, "CMakeCache.txt")
    if os.path.exists(cache_file) and source not in open(cache_file).read():
        shutil.rmtree(tree)
    for step in (configure, ["cmake", "--build", tree, "-j", os.environ.get("ZKWIRE_JOBS", "2")]):
        if subprocess.run(step, stdout=subprocess.DEVNULL if step is configure else None).returncode != 0:
            print(f"FAIL: {' '.join(step[:3])} ...")
            return 1
    print(f"built the suites from {source}: fetch {fetched - started:.1f} s, build {time.monotonic() - fetched:.1f} s")
    return 0


def expectations(suite):
    """{case: (debian outcomes, zkwire outcomes, reason)} of a suite, in the order listed (the order upstream
    registers the cases, in which they run). An outcome field is one outcome or several joined by '|' (any of them
    is as expected), which needs a reason."""
    cases = {}
    with open(EXPECTATIONS) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(None, 3)
            allowed = [tuple(field.split("|")) for field in fields[1:3]]
            if len(fields) < 3 or any(o not in OUTCOMES for outcomes in allowed for o in outcomes):
                raise SystemExit(f"{EXPECTATIONS}:{number}: expected 'Suite::case debian zkwire [reason]'")
            reason = fields[3] if len(fields) > 3 else ""
            if (allowed[0] != allowed[1] or len(allowed[0]) > 1) and not reason:
                raise SystemExit(f"{EXPECTATIONS}:{number}: {fields[0]}: libraries that differ, or a choice of "
                                 "outcomes, need a reason")
            name_suite, _, case = fields[0].partition("::")
            if name_suite == suite:
                cases[case] = (allowed[0], allowed[1], reason)
    return cases


def free_port():
    """A TCP port free on 127.0.0.1, below the kernel's ephemeral range (as scripts/zk picks them)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        end = int(f.read().split()[0])
    for _ in range(1000):
        port = random.randrange(10000, end)
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise SystemExit("no free port found")


def loaded_library(pid):
    """The libzookeeper_mt.so.2 process pid has mapped (realpath), or None."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "libzookeeper_mt.so" in path:
                    return os.path.realpath(path)
    except OSError:
        pass
    return None


class Ipv6Forwarder:
    """testIPV6 connects to ::1 at the server's port. The server listens on 127.0.0.1 only (scripts/zk, as every
    server of this project: never beyond loopback), so this listens on [::1]:port and copies each connection's bytes
    to and from 127.0.0.1:port, in both directions, until either side closes."""

    def __init__(self, port):
        self.port = port
        self.listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("::1", port))
        self.listener.listen(16)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                server = socket.create_connection(("127.0.0.1", self.port))
            except OSError:
                client.close()  # no server now: as a refused connection would end
                continue
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()


class Process:
    """One process of a test program: the cases it started and how each ended."""

    def __init__(self):
        self.outcomes = {}  # case -> (outcome, seconds)
        self.current = None  # the case running when the process ended or was killed
        self.library = None
        self.output = ""


def run_process(argv, env, cwd, case_timeout, suite, cases):
    """Runs a test program, following its progress on stdout ('Suite::case' when a case starts; ' : OK', or
    ' : assertion' / ' : error' for a failure, then a newline when it ends). A case running longer than case_timeout is
    a hang: the process group is killed. stderr (the library's log, sanitizer reports) is kept apart."""
    process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    STARTED["groups"].add(process.pid)
    run = Process()
    streams = {process.stdout.fileno(): "", process.stderr.fileno(): ""}
    open_fds = set(streams)
    position = 0  # how far stdout has been parsed
    case_started = time.monotonic()
    # A case's name is written as it starts, and the case's own output may follow it on the same line ('...::test
    # LogCallbackInitLog Message Received'): only the names of the suite's cases count, the longest that matches
    # (testCreateContainer, not testCreate). A single case's name also comes in the recipes' 'Running <test path>'
    # line, right before the case starts.
    names = "|".join(sorted(cases, key=len, reverse=True))
    name = re.compile(rf"{suite}::({names})")
    while open_fds:
        deadline = case_started + case_timeout
        ready, _, _ = select.select(list(open_fds), [], [], max(0.0, min(1.0, deadline - time.monotonic())))
        if run.library is None:
            run.library = loaded_library(process.pid)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.discard(fd)
            streams[fd] += chunk.decode(errors="replace")
        out = streams[process.stdout.fileno()]
        while True:
            if run.current is None:
                match = name.search(out, position)
                if not match:
                    break
                run.current, case_started, position = match.group(1), time.monotonic(), match.end()
            # The listeners' end of a case: TestDriver's timing listener writes ' : elapsed N' (then ' : OK' if it
            # passed), the recipes' brief listener ' : OK', ' : assertion' or ' : error'; then a newline. A case's own
            # output may come between.
            end = CASE_END.search(out, position)
            if not end:
                break
            status = out[position:end.end()]
            outcome = "fail" if re.search(r" : (assertion|error)", status) else "pass" if ": OK\n" in status else "fail"
            # The driver's own measure where it gives one; the time between the lines seen here otherwise.
            elapsed = re.search(r" : elapsed (\d+)", status)
            seconds = int(elapsed.group(1)) / 1000 if elapsed else time.monotonic() - case_started
            run.outcomes[run.current] = (outcome, seconds)
            run.current, position = None, end.end()
        if run.current is not None and time.monotonic() >= deadline:
            os.killpg(process.pid, signal.SIGKILL)
            run.outcomes[run.current] = ("hang", time.monotonic() - case_started)
            streams[process.stderr.fileno()] += f"\nrun_suites: {suite}::{run.current} ran past {case_timeout:.0f} s; killed\n"
            run.current = None
            break
    status = process.wait()
    STARTED["groups"].discard(process.pid)
    if run.current is not None:  # ended inside a case: a crash (a signal, abort(), exit())
        run.outcomes[run.current] = ("crash", time.monotonic() - case_started)
        run.current = None
    run.output = streams[process.stdout.fileno()] + streams[process.stderr.fileno()]
    return run, (None if any(o == "hang" for o, _ in run.outcomes.values()) else status)


class Library:
    """One library's run of a suite: where it is, and the outcomes of its cases."""

    def __init__(self, name, expect_lib, lib_dir=None, preload=None):
        self.name = name
        self.expect_lib = os.path.realpath(expect_lib)
        self.lib_dir = lib_dir
        self.preload = preload
        self.results = {}  # case -> (outcome, seconds)
        self.mapped = set()  # the libzookeeper_mt files its processes mapped
        self.output = ""
        self.elapsed = 0.0
        self.lock = None

    def environment(self, port, closed_port, run_dir):
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        env.update(ZKWIRE_CCLIENT_PORT=str(port), ZKWIRE_CCLIENT_CLOSED_PORT=str(closed_port),
                   ZKWIRE_CCLIENT_RUN_DIR=run_dir)
        if self.lib_dir:
            env["LD_LIBRARY_PATH"] = self.lib_dir
        if self.preload:
            # An instrumented library in a program that is not: the sanitizer runtime goes first. The suites leak on
            # their own (results they never free), so leaks are not judged here; the conformance programs judge
            # zkwire's library for them.
            env["LD_PRELOAD"] = self.preload
            env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0:halt_on_error=1"
            env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        return env

    def claim(self, work_root, suite):
        """Takes this library's work folder for the suite, or exits: two runs in one folder would stop each other's
        server. Held until the runner exits."""
        os.makedirs(work_root, exist_ok=True)
        self.lock = open(os.path.join(work_root, f"{self.name}-{suite}.lock"), "w")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SystemExit(f"run_suites: another run uses {work_root}/{self.name}-{suite}") from None

    def run(self, program, suite, cases, work_root, case_timeout):
        """Runs the cases, all in one process (or one case) and, after a hang or crash, each remaining case in a
        process of its own, against a server of this run's own."""
        started = time.monotonic()
        work = os.path.join(work_root, f"{self.name}-{suite}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(os.path.join(work, "tests"))
        # The recipes' tests call ./tests/zkServer.sh (their own script's place); the client's call ZKSERVER_CMD.
        os.symlink(SERVER_SCRIPT, os.path.join(work, "tests", "zkServer.sh"))
        run_dir = os.path.join(work, "zk")
        STARTED["run_dirs"].add(run_dir)
        port = free_port()
        env = self.environment(port, free_port(), run_dir)
        try:
            self.run_cases(program, suite, cases, work, run_dir, env, port, case_timeout)
        except Exception as error:  # reported; its cases stay 'not run', which fails the run
            self.output += f"run_suites: {error!r}\n"
        finally:
            subprocess.run([ZK, "stop", "--dir", run_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.elapsed = time.monotonic() - started

    def run_cases(self, program, suite, cases, work, run_dir, env, port, case_timeout):
        try:
            forwarder = Ipv6Forwarder(port)
        except OSError as error:  # no IPv6 loopback here: testIPV6 fails, and this says why
            self.output += f"run_suites: no [::1]:{port} for testIPV6 ({error})\n"
            forwarder = None
        try:
            target = f"{suite}::{cases[0]}" if len(cases) == 1 else suite
            while True:
                one, status = run_process([program, target], env, work, case_timeout, suite, cases)
                self.output += one.output
                if one.library:
                    self.mapped.add(one.library)
                self.results.update(one.outcomes)
                todo = [case for case in cases if case not in self.results]
                if not todo:
                    break
                if not one.outcomes:
                    # Nothing ran: the program did not find the case or failed before it started.
                    self.output += f"run_suites: {target} ran no case (exit status {status})\n"
                    self.results.update((case, ("crash", 0.0)) for case in todo)
                    break
                # A hang or crash ended the process early: each case not run yet gets a process of its own.
                target = f"{suite}::{todo[0]}"
        finally:
            if forwarder:
                forwarder.close()


def run(args):
    expected = expectations(args.suite)
    if not expected:
        raise SystemExit(f"{EXPECTATIONS} lists no case of {args.suite}")
    if args.case and args.case not in expected:
        raise SystemExit(f"{EXPECTATIONS} lists no case {args.suite}::{args.case}")
    program = os.path.join(os.path.abspath(args.build_dir), "suites", args.program)
    if not os.path.exists(program):
        return missing(f"{program} (the ctest entry capi_cclient_build builds it)")
    if not shutil.which("java"):
        return missing("java (scripts/setup)")
    libraries = []
    if args.library in ("debian", "both"):
        libraries.append(Library("debian", args.debian_lib))
    if args.library in ("zkwire", "both"):
        if not args.zkwire_lib_dir:
            raise SystemExit("--library zkwire needs --zkwire-lib-dir")
        libraries.append(Library("zkwire", os.path.join(args.zkwire_lib_dir, "libzookeeper_mt.so.2"),
                                 args.zkwire_lib_dir, args.preload))
    cases = [args.case] if args.case else list(expected)
    work_root = os.path.join(os.path.abspath(args.build_dir), "work")
    for library in libraries:
        library.claim(work_root, args.suite)
    # The libraries' runs at the same time, each with its own server: they mostly wait (on the suites' sleeps).
    threads = [threading.Thread(target=library.run,
                                args=(program, args.suite, cases, work_root, args.case_timeout))
               for library in libraries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    failures = []
    for library in libraries:
        print(f"---- {args.suite} on {library.name}'s library: the program's output ----")
        print(library.output)
        if library.mapped != {library.expect_lib}:
            failures.append(f"{library.name}: the program mapped {sorted(library.mapped) or 'no libzookeeper_mt'}, "
                            f"expected {library.expect_lib}")
        if SANITIZER_REPORT.search(library.output):
            failures.append(f"{library.name}: a sanitizer report (above)")
    print(f"---- {args.suite}, case by case: " +
          " | ".join(f"{library.name} ({library.expect_lib}, {library.elapsed:.0f} s)" for library in libraries))
    for case in cases:
        columns, notes = [], []
        for library in libraries:
            outcome, seconds = library.results.get(case, ("not run", 0.0))
            allowed = expected[case][0 if library.name == "debian" else 1]
            want = "|".join(allowed)
            columns.append(f"{outcome:5} {seconds:5.1f} s{'' if outcome in allowed else ' BAD'}")
            if outcome not in allowed:
                failures.append(f"{library.name}: {args.suite}::{case}: {outcome}, expected {want}" +
                                ("" if "pass" in allowed else " (a listed deviation that changed: update expected_results)"))
            if allowed != ("pass",):
                notes.append(f"{library.name} expected {want}")
        reason = expected[case][2]
        note = f"  [{', '.join(notes)}: {reason}]" if notes else ""
        print(f"  {case:38} " + " | ".join(columns) + note)
    for failure in failures:
        print(f"FAIL: {failure}")
    passed = sum(1 for library in libraries for case in cases if library.results.get(case, ("",))[0] == "pass")
    print(f"{len(libraries) * len(cases)} case runs, {passed} of them passing; {len(failures)} unexpected outcome(s)")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build")
    b.add_argument("--build-dir", required=True)
    b.add_argument("--cache-dir")
    b.add_argument("--debian-include", required=True)
    b.add_argument("--debian-lib", required=True)
    b.add_argument("--c-compiler")
    b.add_argument("--cxx-compiler")
    b.add_argument("--launcher")
    r = commands.add_parser("run")
    r.add_argument("--build-dir", required=True)
    r.add_argument("--program", required=True)
    r.add_argument("--suite", required=True)
    r.add_argument("--library", choices=("debian", "zkwire", "both"), default="both")
    r.add_argument("--debian-lib", required=True)
    r.add_argument("--zkwire-lib-dir")
    r.add_argument("--preload")
    r.add_argument("--case")
    r.add_argument("--case-timeout", type=float, default=120)
    r.add_argument("--deadline", type=int, default=0, help="seconds after which the run stops itself (0: none)")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    signal.signal(signal.SIGTERM, stop_everything)
    signal.signal(signal.SIGINT, stop_everything)
    signal.signal(signal.SIGALRM, stop_everything)
    if args.command == "run" and args.deadline > 0:
        signal.alarm(args.deadline)
    return build(args) if args.command == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
