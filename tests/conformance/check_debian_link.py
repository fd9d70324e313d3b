#!/usr/bin/python3
"""capi_debian_link_guard, the one check of which libzookeeper_mt.so.2 a program loads: every program given here,
which links Debian's libzookeeper_mt, must load Debian's library when started plainly, also in a tree that builds
zkwire's (a RUNPATH or link path that reached zkwire's would make each C-vs-zkwire comparison measure zkwire against
itself), and zkwire's when LD_LIBRARY_PATH names zkwire's directory (how docs/libzookeeper.md moves a program).

  check_debian_link.py --debian-lib FILE [--zkwire-lib FILE] PROGRAM...

Started plainly, checked three ways per program: what ldd resolves libzookeeper_mt.so.2 to, what the dynamic loader
reports it initialized when the program starts (LD_DEBUG=libs; the program is given --help and may fail after
loading), and that no RPATH/RUNPATH entry names a directory holding another libzookeeper_mt.so.2. With --zkwire-lib,
zkwire's library must exist (the tree builds it), so the guard runs in the situation it is for, and ldd with
LD_LIBRARY_PATH=<its directory> must resolve to it (ldd only: zkwire's library may be an ASan build, which a program
without the runtime cannot start). A program given that does not exist is a failure."""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def ldd_resolution(program, library_path=None):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    if library_path:
        env["LD_LIBRARY_PATH"] = library_path
    output = subprocess.run(["ldd", program], env=env, capture_output=True, text=True, check=False).stdout
    paths = re.findall(r"libzookeeper_mt\.so\.2 => (\S+)", output)
    return {os.path.realpath(p) for p in paths}


def loader_resolution(program):
    with tempfile.TemporaryDirectory(prefix="zkwire-link-guard-") as scratch:
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        env["LD_DEBUG"] = "libs"
        env["LD_DEBUG_OUTPUT"] = os.path.join(scratch, "ld")
        try:
            subprocess.run([program, "--help"], env=env, capture_output=True, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            pass
        found = set()
        for name in os.listdir(scratch):
            with open(os.path.join(scratch, name), errors="replace") as f:
                for line in f:
                    match = re.search(r"calling init: (\S*libzookeeper_mt\.so\.2)", line)
                    if match:
                        found.add(os.path.realpath(match.group(1)))
        return found


def foreign_runpaths(program, debian):
    output = subprocess.run(["readelf", "-d", program], capture_output=True, text=True, check=False).stdout
    bad = []
    for entries in re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", output):
        for entry in entries.split(":"):
            entry = entry.replace("$ORIGIN", os.path.dirname(os.path.realpath(program)))
            candidate = os.path.join(entry, "libzookeeper_mt.so.2")
            if os.path.exists(candidate) and os.path.realpath(candidate) != debian:
                bad.append(candidate)
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debian-lib", required=True)
    parser.add_argument("--zkwire-lib")
    parser.add_argument("programs", nargs="+")
    args = parser.parse_args()
    debian = os.path.realpath(args.debian_lib)
    failures = 0
    if args.zkwire_lib and not os.path.exists(args.zkwire_lib):
        print(f"FAIL: {args.zkwire_lib} is not built (build zkwire_libzookeeper)")
        failures += 1
    zkwire = os.path.realpath(args.zkwire_lib) if args.zkwire_lib else None
    for program in args.programs:
        if not os.access(program, os.X_OK):
            print(f"FAIL: {program} is not built")
            failures += 1
            continue
        checks = {
            "ldd": ldd_resolution(program),
            "loader": loader_resolution(program),
        }
        for how, found in checks.items():
            if found != {debian}:
                print(f"FAIL: {program}: {how} resolves libzookeeper_mt.so.2 to {sorted(found)}, expected {debian}")
                failures += 1
        for path in foreign_runpaths(program, debian):
            print(f"FAIL: {program}: its RPATH/RUNPATH reaches {path}")
            failures += 1
        if all(found == {debian} for found in checks.values()):
            print(f"ok   {program} loads {debian}")
        if zkwire and os.path.exists(zkwire):
            lib_dir = os.path.dirname(os.path.abspath(args.zkwire_lib))
            swapped = ldd_resolution(program, lib_dir)
            if swapped != {zkwire}:
                print(f"FAIL: {program}: with LD_LIBRARY_PATH={lib_dir} ldd resolves libzookeeper_mt.so.2 to "
                      f"{sorted(swapped)}, expected {zkwire}")
                failures += 1
            else:
                print(f"ok   {program} with LD_LIBRARY_PATH={lib_dir} loads {zkwire}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
