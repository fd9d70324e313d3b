#!/usr/bin/python3
"""Prints zkwire_codec_bench results as ratios to the memcpy reference measured in the same run.

Usage:
  build/bin/zkwire_codec_bench --benchmark_repetitions=5 --benchmark_format=json > out.json
  /usr/bin/python3 bench/ratios.py out.json        (or read from stdin)

For each benchmark: CPU ns/op (the median when repetitions were run, with the coefficient of variation across them),
bytes per op, allocations per op, and the ratio of its time to reference/memcpy and reference/byte_sum over the
nearest byte count. Standard library only.
"""

import json
import sys


def load(stream):
    data = json.load(stream)
    runs = {}
    has_median = any(b.get("aggregate_name") == "median" for b in data["benchmarks"])
    cv = {b["run_name"]: b["cpu_time"] for b in data["benchmarks"] if b.get("aggregate_name") == "cv"}
    for b in data["benchmarks"]:
        if has_median and b.get("aggregate_name") != "median":
            continue
        if not has_median and b.get("run_type") == "aggregate":
            continue
        name = b.get("run_name", b["name"])
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        runs[name] = {
            "ns": b["cpu_time"] * scale,
            "bytes": b.get("bytes/op", 0.0),
            "allocs": b.get("allocs/op", 0.0),
            "cv": cv.get(name),
        }
    return runs, has_median


def nearest(refs, size):
    return min(refs, key=lambda r: abs(r[0] - size)) if refs else None


def main():
    stream = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    runs, has_median = load(stream)
    memcpy = [(r["bytes"], r["ns"]) for n, r in runs.items() if n.startswith("reference/memcpy/")]
    byte_sum = [(r["bytes"], r["ns"]) for n, r in runs.items() if n.startswith("reference/byte_sum/")]
    print(f"CPU time per op ({'median of repetitions' if has_median else 'single run'})")
    header = f"{'benchmark':40} {'ns/op':>11} {'cv':>5} {'bytes/op':>9} {'allocs/op':>9} {'memcpy ns':>10} " \
             f"{'x memcpy':>9} {'x byte_sum':>10}"
    print(header)
    print("-" * len(header))
    for name, r in runs.items():
        if name.startswith("reference/"):
            continue
        m = nearest(memcpy, r["bytes"])
        s = nearest(byte_sum, r["bytes"])
        cv = f"{100 * r['cv']:4.0f}%" if r["cv"] is not None else "    -"
        print(f"{name:40} {r['ns']:11.1f} {cv:>5} {r['bytes']:9.0f} {r['allocs']:9.2f} {m[1] if m else 0:10.1f} "
              f"{r['ns'] / m[1] if m else 0:9.1f} {r['ns'] / s[1] if s else 0:10.2f}")


if __name__ == "__main__":
    main()
