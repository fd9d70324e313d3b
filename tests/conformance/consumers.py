#!/usr/bin/python3
"""Runs programs nobody here wrote, unmodified, on two libzookeeper_mt.so.2 builds against one server, and compares
their outputs once normalized (session ids, times, zxids, pointers, the per-run root node).

  consumers.py cli_mt|load_gen|zkpython --debian-lib FILE [--preload SANITIZER_RUNTIME] [--shim FILE]

zkpython is Debian's Python binding (python3-zookeeper) in /usr/bin/python3, running zkpython_app.py; --shim is the
PyIOBase_Type stand-in it needs to import (zkpython_shim.c, README.md). Exit status 77 when python3-zookeeper, Kazoo
or the shim is missing, unless CI=true: then that is a failure.

The reference run uses Debian's library (LD_LIBRARY_PATH removed); the candidate run uses the environment this
script got from zkwire_capi_launch: LD_LIBRARY_PATH and ZKWIRE_CAPI_EXPECT_LIB (Debian's library again in the
capi_consumer_debian_* entries, zkwire's in capi_consumer_zkwire_*). Each run's loaded library is read from the
dynamic loader's own report (LD_DEBUG=libs) and must be the expected file. Exit status 0 when everything matches."""

import argparse
import difflib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

BIN = "/usr/lib/zookeeper/bin"
HOSTS = os.environ.get("ZKWIRE_CAPI_HOSTS", "")

# cli_mt batch commands (each one is a process and a session of its own). Commands that leave batch mode waiting
# for events (exists, wexists, myid) are left out: cli_mt does not exit after them.
CLI_COMMANDS = [
    "create {root}",
    "create2 {root}/plain",
    "set {root}/plain hello",
    "get {root}/plain",
    "aget {root}/plain",
    "ls {root}",
    "ls2 {root}",
    "create +e {root}/eph",
    "create +s {root}/seq-",
    "create +s {root}/seq-",
    "create2 +c {root}/box",
    "create +t=60000 {root}/ttl",
    "create {root}/plain",
    "create {root}/missing/child",
    "ls {root}",
    "sync {root}",
    "get {root}/absent",
    "delete {root}",
    "delete {root}/plain",
    "adelete {root}/ttl",
    "addauth user:pw digest",
]


def library_loaded(debug_prefix):
    """The libzookeeper_mt.so.2 the loader initialized, from LD_DEBUG_OUTPUT files."""
    directory = os.path.dirname(debug_prefix)
    found = set()
    for name in os.listdir(directory):
        if not name.startswith(os.path.basename(debug_prefix)):
            continue
        with open(os.path.join(directory, name), errors="replace") as f:
            for line in f:
                match = re.search(r"calling init: (\S*libzookeeper_mt\.so\.2)", line)
                if match:
                    found.add(os.path.realpath(match.group(1)))
        os.unlink(os.path.join(directory, name))
    return found


class Library:
    def __init__(self, name, lib_dir, expected, preload=None):
        self.name = name
        self.lib_dir = lib_dir
        self.expected = os.path.realpath(expected)
        self.preload = preload
        self.shim = None  # preloaded after the sanitizer runtime (zkpython)
        self.leak_suppressions = None  # LeakSanitizer on, with these suppressions (zkpython)

    def env(self, debug_prefix):
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        if self.lib_dir:
            env["LD_LIBRARY_PATH"] = self.lib_dir
        preload = [file for file in (self.preload, self.shim) if file]
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        if self.preload:
            # An instrumented library in a program that is not: the sanitizer runtime goes first. The programs' own
            # leaks are not ours to judge; where they can be told from the library's, leaks are checked.
            env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0"
            if self.leak_suppressions:
                env["ASAN_OPTIONS"] = f"detect_leaks=1:verify_asan_link_order=0:malloc_context_size={LEAK_FRAMES}"
                env["LSAN_OPTIONS"] = f"suppressions={self.leak_suppressions}:print_suppressions=0"
        env["LD_DEBUG"] = "libs"
        env["LD_DEBUG_OUTPUT"] = debug_prefix
        return env


def run(library, argv, scratch, timeout=None, stop_after=None, errors_apart=False):
    """(exit status, stdout+stderr), or (exit status, stdout, stderr) with errors_apart; checks the loaded library.
    stop_after: SIGTERM after that many seconds."""
    prefix = os.path.join(scratch, "ld")
    stderr = subprocess.PIPE if errors_apart else subprocess.STDOUT
    process = subprocess.Popen(argv, env=library.env(prefix), stdout=subprocess.PIPE, stderr=stderr)
    try:
        if stop_after is not None:
            # load_gen runs until stopped: its run length is the measurement window. Its output is read meanwhile:
            # a program that fills the pipe blocks in its log call, and the point where it stops would then depend
            # on how many bytes each library logs instead of on the run.
            try:
                output, errors = process.communicate(timeout=stop_after)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGTERM)
        output, errors = process.communicate(timeout=timeout or 60)
        status = process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        output, errors = process.communicate()
        status = 124
    texts = (output.decode(errors="replace"),) + ((errors.decode(errors="replace"),) if errors_apart else ())
    if status == 124:
        return (status,) + texts
    loaded = library_loaded(prefix)
    if loaded != {library.expected}:
        raise SystemExit(f"FAIL: {library.name} run of {argv[0]} loaded {sorted(loaded)}, expected {library.expected}")
    return (process.returncode,) + texts


LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+:\d+\(0x[0-9a-f]+\):ZOO_([A-Z]+)@(\w+)@\d+: ?(.*)$")


def normalize_cli(text, root):
    """cli_mt's own lines (the library's log lines dropped), with run-specific values replaced."""
    lines = []
    for line in text.splitlines():
        if LOG_PREFIX.match(line) or re.search(r"ZOO_(ERROR|WARN|INFO|DEBUG)", line):
            continue
        line = line.replace(root, "<root>")
        line = re.sub(r"0x[0-9a-f]+", "<hex>", line)
        line = re.sub(r"time = \d+ msec", "time = <n> msec", line)
        line = re.sub(r"(c|m)time ?= ?.*", r"\1time = <time>", line)
        line = re.sub(r"(c|m)zxid ?= ?[0-9a-f]+", r"\1zxid=<zxid>", line)
        line = re.sub(r"ephemeralOwner = [1-9a-f][0-9a-f]*", "ephemeralOwner = <session>", line)
        lines.append(line.rstrip())
    # Events and replies are printed from the library's threads, in an order the scheduler picks.
    return sorted(lines)


def compare_cli(reference, candidate, scratch):
    failures = 0
    # A root per library: each run sees the same tree (sequence numbers included).
    roots = [f"/consumers-cli-{os.getpid()}-{i}" for i in range(2)]
    for command in CLI_COMMANDS:
        outputs = []
        for lib, root in zip((reference, candidate), roots):
            argv = [f"{BIN}/cli_mt", "-h", HOSTS, "-c", command.format(root=root)]
            status, text = run(lib, argv, scratch, timeout=30)
            outputs.append((status, normalize_cli(text, root)))
        same = outputs[0] == outputs[1]
        print(f"{'ok  ' if same else 'DIFF'} cli_mt -c '{command}' (exit {outputs[0][0]} / {outputs[1][0]})")
        if not same:
            failures += 1
            for name, (status, lines) in zip(("reference", "candidate"), outputs):
                print(f"  {name} (exit {status}):")
                for line in lines:
                    print(f"    {line}")
    return failures


def load_gen_messages(text, root):
    """The program's own log lines (through the library's log_message), without the library's."""
    messages = []
    for line in text.splitlines():
        match = re.search(r"@(main|doCreateNodes|doWrites|doReads|doDeletes|recursiveDelete)@\d+: ?(.*)$", line)
        if match:
            message = match.group(2).replace(root, "<root>").rstrip()
            message = re.sub(r"\(\d+ nodes\)", "(<n> nodes)", message)
            message = re.sub(r"<root>/\d+", "<root>/<i>", message)
            messages.append(f"{match.group(1)}: {message}")
    return messages


def compare_load_gen(reference, candidate, scratch, seconds=3.0):
    failures = 0
    results = []
    for i, lib in enumerate((reference, candidate)):
        root = f"/consumers-load-{os.getpid()}-{i}"
        status, text = run(lib, [f"{BIN}/load_gen", HOSTS, root, "10"], scratch, timeout=30, stop_after=seconds)
        messages = load_gen_messages(text, root)
        cycles = sum(1 for m in messages if m.startswith("main: Starting the delete cycle"))
        clean_status, clean_text = run(lib, [f"{BIN}/load_gen", HOSTS, root, "clean"], scratch, timeout=30)
        # The first node the clean run deletes (the only one it names) is a child or the root itself, depending on
        # the phase of the cycle the SIGTERM stopped: either is right.
        clean = [re.sub(r"^recursiveDelete: Deleting <root>(/<i>)?$", "recursiveDelete: Deleting <the first node>", m)
                 for m in load_gen_messages(clean_text, root)]
        results.append((set(messages), cycles, clean_status, clean, status))
        print(f"load_gen on {lib.name}: {cycles} cycles in {seconds:.1f} s ({cycles / seconds:.0f}/s), "
              f"exit {status} on SIGTERM; clean: exit {clean_status}")
    (ref_messages, ref_cycles, ref_clean_status, ref_clean, _), (messages, cycles, clean_status, clean, _) = results
    if cycles == 0 or ref_cycles == 0:
        print("FAIL: a load_gen run completed no cycle")
        failures += 1
    if messages != ref_messages:
        print("FAIL: load_gen printed different messages:")
        for line in sorted(ref_messages ^ messages):
            print(f"  {'reference' if line in ref_messages else 'candidate'} only: {line}")
        failures += 1
    if clean_status != 0 or ref_clean_status != 0 or sorted(set(clean)) != sorted(set(ref_clean)):
        print(f"FAIL: load_gen clean differs: {ref_clean_status} {sorted(set(ref_clean))} / {clean_status} "
              f"{sorted(set(clean))}")
        failures += 1
    return failures


# zkpython: the Python interpreter leaks at exit, and so does the binding (its watcher records; zoo_get_acl's result,
# which it never gives to deallocate_ACL_vector). LeakSanitizer keeps one frame above malloc per allocation, so
# zkpython.supp can name the interpreter's and the binding's own allocations by module without hiding an allocation
# zkwire's library makes while called from them (README.md).
LEAK_FRAMES = 2
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "support"))
from requirements import missing  # noqa: E402  (tests/support, found through the path above)


def compare_zkpython(reference, candidate, scratch):
    """The same application transcript on both libraries, each run exiting 0 (a leak report is an exit 23)."""
    runs = []
    for i, lib in enumerate((reference, candidate)):
        root = f"/consumers-zkpython-{os.getpid()}-{i}"
        status, output, errors = run(lib, ["/usr/bin/python3", os.path.join(HERE, "zkpython_app.py"), HOSTS, root],
                                     scratch, timeout=150, errors_apart=True)
        runs.append((status, output.splitlines(), errors))
        print(f"zkpython on {lib.name}: exit {status}, {len(output.splitlines())} transcript lines")
    failures = 0
    for lib, (status, _, errors) in zip((reference, candidate), runs):
        if status != 0:
            failures += 1
            print(f"FAIL: the {lib.name} run exited {status}; its stderr:")
            print(errors)
    if runs[0][1] != runs[1][1]:
        failures += 1
        print("FAIL: the transcripts differ (reference, candidate):")
        print("\n".join(difflib.unified_diff(runs[0][1], runs[1][1], reference.name, candidate.name, lineterm="")))
    if failures == 0:
        print("\n".join(runs[1][1]))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool", choices=["cli_mt", "load_gen", "zkpython"])
    parser.add_argument("--debian-lib", required=True)
    parser.add_argument("--preload", help="a sanitizer runtime for the runs on a library other than Debian's")
    parser.add_argument("--shim", help="zkpython: the PyIOBase_Type stand-in, preloaded into Python on both libraries")
    args = parser.parse_args()
    if not HOSTS or not os.environ.get("ZKWIRE_CAPI_EXPECT_LIB"):
        raise SystemExit("FAIL: run through zkwire_capi_launch (ZKWIRE_CAPI_HOSTS, ZKWIRE_CAPI_EXPECT_LIB unset)")
    if args.tool == "zkpython":
        # Found, not imported: without the shim the import fails (README.md).
        if importlib.util.find_spec("zookeeper") is None:
            return missing("Debian's python3-zookeeper for /usr/bin/python3 (scripts/setup)")
        if importlib.util.find_spec("kazoo") is None:
            return missing("Debian's python3-kazoo for /usr/bin/python3 (scripts/setup)")
        if not args.shim or not os.path.isfile(args.shim):
            return missing("zkwire_zkpython_shim, built only with Python's headers (python3-dev, scripts/setup)")
    elif not os.access(f"{BIN}/{args.tool}", os.X_OK):
        raise SystemExit(f"FAIL: {BIN}/{args.tool} missing (Debian's zookeeper-bin, see scripts/setup)")
    reference = Library("debian", None, args.debian_lib)
    lib_dir = os.environ.get("LD_LIBRARY_PATH")
    candidate = Library(os.environ.get("ZKWIRE_CAPI_LIBRARY", "candidate"), lib_dir,
                        os.environ["ZKWIRE_CAPI_EXPECT_LIB"], args.preload if lib_dir else None)
    if args.tool == "zkpython":
        for lib in (reference, candidate):
            lib.shim = args.shim
            lib.leak_suppressions = os.path.join(HERE, "zkpython.supp")
    with tempfile.TemporaryDirectory(prefix="zkwire-consumers-") as scratch:
        if args.tool == "cli_mt":
            failures = compare_cli(reference, candidate, scratch)
        elif args.tool == "zkpython":
            failures = compare_zkpython(reference, candidate, scratch)
        else:
            failures = compare_load_gen(reference, candidate, scratch)
    print(f"{args.tool}: {'same output on both libraries' if failures == 0 else f'{failures} difference(s)'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
