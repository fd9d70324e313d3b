#!/usr/bin/python3
"""The C API on zkwire's libzookeeper_mt.so.2 against Debian's: the same zkwire_capi_bench binary (linked against
Debian's library) run on each, round by round, alternating which goes first, against one server. Prints a markdown
table per metric with each round's figures, the ratio zkwire/Debian per round and the median ratio.

  capi_compare.py --bench BIN --zkwire-lib-dir DIR -s HOSTS [--rounds R] [-n SYNC_OPS] [-p PIPELINED_OPS] [--control]
                  [--own-client ZKWIRE]

With --control each round also runs Debian's library a second time, and a last column gives the median ratio of
that run to the first: what the machine's noise alone makes of a ratio that should be 1.

With --own-client each round also runs zkwire's command line (`ZKWIRE bench`) on the same workload: zkwire's own
client, whose one thread starts each request from the previous one's reply, so no thread hands a request or a reply
to another, and whose replies need no completion thread. A second table sets it beside both libraries: its sync p50s
are the lowest a C library on zkwire's engine could reach on this machine and server if its threads cost nothing,
its pipelined throughput what the server gives one such client.

Each run reports which library it loaded; a run on the wrong one stops the comparison."""

import argparse
import json
import os
import statistics
import subprocess
import sys

# (key, label, better when lower, the target for the ratio)
METRICS = [
    ("sync_get_p50_us", "sync get p50 (µs)", True, "≤ 0.7"),
    ("sync_create_p50_us", "sync create p50 (µs)", True, "≤ 0.7"),
    ("sync_get_cpu_us", "client CPU per sync get (µs)", True, "≤ 0.5"),
    ("sync_create_cpu_us", "client CPU per sync create (µs)", True, "≤ 0.5"),
    ("pipelined_get_ops_per_s", "pipelined get (ops/s)", False, "≥ 1.5"),
    ("pipelined_get_cpu_us", "client CPU per pipelined get (µs)", True, "≤ 0.5"),
    ("sync_get_p99_us", "sync get p99 (µs)", True, ""),
    ("idle_handle_rss_kb", "RSS per idle handle (KiB)", True, ""),
    ("idle_handle_heap_kb", "heap per idle handle (KiB)", True, ""),
]


def run(bench, args, lib_dir, expected):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    if lib_dir:
        env["LD_LIBRARY_PATH"] = lib_dir
    completed = subprocess.run([bench, *args], env=env, capture_output=True, text=True, timeout=600, check=False)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        raise SystemExit(f"capi_compare: {bench} failed on {lib_dir or 'Debian'} (exit {completed.returncode}): "
                         f"{completed.stderr.strip()[-500:]}")
    result = json.loads(lines[-1])
    if os.path.realpath(result["library"]) != os.path.realpath(expected):
        raise SystemExit(f"capi_compare: the run meant for {expected} loaded {result['library']}")
    return result


def cli_bench(cli, servers, ops, count, window):
    """The CLI's summary rows (docs/cli.md: op, clients, window, count, errors, mean, p50, p90, p99, p99.9, max,
    ops/s, cpu/op) of one `zkwire bench` run, by operation."""
    completed = subprocess.run([cli, "-s", servers, "bench", "--ops", ",".join(ops), "-n", str(count), "--window",
                                str(window)], capture_output=True, text=True, timeout=600, check=False)
    rows = {line.split()[0]: line.split() for line in completed.stdout.splitlines() if line.split()[:1] in
            [[op] for op in ops]}
    if completed.returncode != 0 or set(rows) != set(ops):
        raise SystemExit(f"capi_compare: {cli} bench failed (exit {completed.returncode}): "
                         f"{completed.stderr.strip()[-500:]}")
    return rows


def run_own_client(cli, servers, sync_ops, pipelined_ops):
    """zkwire's own client on the capi bench's workload: its sync get and create p50s (µs) with one request at a
    time, and its get throughput with as many in flight as the capi bench's pipelined phase (100)."""
    sync = cli_bench(cli, servers, ["get", "create"], sync_ops, 1)
    pipelined = cli_bench(cli, servers, ["get"], pipelined_ops, 100)
    return {"sync_get_p50_us": float(sync["get"][6]), "sync_create_p50_us": float(sync["create"][6]),
            "pipelined_get_ops_per_s": float(pipelined["get"][11]),
            "errors": int(sync["get"][4]) + int(sync["create"][4]) + int(pipelined["get"][4])}


def print_own_client(rounds):
    print()
    print("| figure | Debian | zkwire's libzookeeper | zkwire's own client | median ratio zkwire/Debian | "
          "median ratio own client/Debian |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, label in (("sync_get_p50_us", "sync get p50 (µs)"), ("sync_create_p50_us", "sync create p50 (µs)"),
                       ("pipelined_get_ops_per_s", "pipelined get (ops/s)")):
        def median(name):
            return statistics.median(r[name][key] for r in rounds)

        def ratio(name):
            return statistics.median(r[name][key] / r["debian"][key] for r in rounds)

        print(f"| {label} | {median('debian'):g} | {median('zkwire'):g} | {median('own'):g} | "
              f"{ratio('zkwire'):.2f} | {ratio('own'):.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--zkwire-lib-dir", required=True)
    parser.add_argument("--debian-lib", default="/usr/lib/x86_64-linux-gnu/libzookeeper_mt.so.2")
    parser.add_argument("-s", "--servers", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", "--sync-ops", type=int, default=2000)
    parser.add_argument("-p", "--pipelined-ops", type=int, default=20000)
    parser.add_argument("--control", action="store_true", help="also run Debian's library twice per round")
    parser.add_argument("--own-client", help="zkwire's command line: also measure zkwire's own client")
    args = parser.parse_args()
    zkwire_lib = os.path.join(args.zkwire_lib_dir, "libzookeeper_mt.so.2")
    bench_args = ["-s", args.servers, "-n", str(args.sync_ops), "-p", str(args.pipelined_ops)]

    rounds = []
    for round_index in range(args.rounds):
        order = [("debian", None, args.debian_lib), ("zkwire", args.zkwire_lib_dir, zkwire_lib)]
        if args.control:
            order.append(("control", None, args.debian_lib))
        if args.own_client:
            order.append(("own", None, None))
        if round_index % 2 == 1:
            order.reverse()
        results = {name: run_own_client(args.own_client, args.servers, args.sync_ops, args.pipelined_ops)
                   if name == "own" else run(args.bench, bench_args, lib_dir, expected)
                   for name, lib_dir, expected in order}
        rounds.append(results)
        print(f"capi_compare: round {round_index + 1} of {args.rounds} done", file=sys.stderr)

    header = " | ".join(f"round {i + 1}: Debian / zkwire (ratio)" for i in range(len(rounds)))
    control_header = " | control: median ratio Debian/Debian" if args.control else ""
    print(f"| metric | {header} | median ratio zkwire/Debian | issue target{control_header} |")
    print("|---|" + "---:|" * (len(rounds) + 2 + (1 if args.control else 0)))
    for key, label, _lower_is_better, target in METRICS:
        cells = []
        ratios = []
        for results in rounds:
            debian, zkwire = results["debian"][key], results["zkwire"][key]
            ratio = zkwire / debian if debian else float("nan")
            ratios.append(ratio)
            cells.append(f"{debian:g} / {zkwire:g} ({ratio:.2f})")
        control = ""
        if args.control:
            controls = [r["control"][key] / r["debian"][key] if r["debian"][key] else float("nan") for r in rounds]
            control = f" | {statistics.median(controls):.2f}"
        print(f"| {label} | {' | '.join(cells)} | {statistics.median(ratios):.2f} | {target}{control} |")
    if args.own_client:
        print_own_client(rounds)
    errors = sum(r[name]["errors"] for r in rounds for name in r)
    if errors:
        print(f"\n{errors} request(s) failed during the runs.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
