#!/usr/bin/python3
"""The differential test: runs capi_differential (differential.c) for several seeds on Debian's libzookeeper_mt and
on another build against one server, and compares the transcripts line by line (README.md, "Differential test").

  differential.py --program FILE --debian-lib FILE [--preload SANITIZER_RUNTIME] [--seeds N] [--steps N]

Seeds are drawn at random and printed, unless ZKWIRE_DIFF_SEED=N replays that one seed. The reference run uses
Debian's library (LD_LIBRARY_PATH removed); the candidate run uses the environment zkwire_capi_launch gave this
script (Debian's library again in capi_debian_differential, zkwire's in capi_zkwire_differential), and each run's
loaded library is checked from the loader's own report (consumers.py). On a difference it prints the seed, how to
replay it and the first differing lines. Exit status 0 when every seed's transcripts are the same."""

import argparse
import difflib
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import consumers  # noqa: E402  (its Library and run: the loaded library checked, the sanitizer runtime preloaded)


def first_difference(reference, candidate, context=6, limit=40):
    """The first hunk of a unified diff of two transcripts, at most `limit` lines."""
    lines = list(difflib.unified_diff(reference, candidate, "debian", "candidate", n=context, lineterm=""))
    hunk = []
    for line in lines:
        if line.startswith("@@") and any(l.startswith("@@") for l in hunk):
            break
        hunk.append(line)
    return hunk[:limit]


def run_seed(library, program, seed, steps, scratch, label):
    root = f"/capi-diff-{os.getpid()}-{seed}-{label}"
    started = time.monotonic()
    status, output, errors = consumers.run(library, [program, str(seed), str(steps), root], scratch, timeout=120,
                                           errors_apart=True)
    return status, output.splitlines(), errors, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True, help="capi_differential")
    parser.add_argument("--debian-lib", required=True)
    parser.add_argument("--preload", help="a sanitizer runtime for the runs on a library other than Debian's")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=250)
    args = parser.parse_args()
    if not consumers.HOSTS or not os.environ.get("ZKWIRE_CAPI_EXPECT_LIB"):
        raise SystemExit("FAIL: run through zkwire_capi_launch (ZKWIRE_CAPI_HOSTS, ZKWIRE_CAPI_EXPECT_LIB unset)")
    reference = consumers.Library("debian", None, args.debian_lib)
    lib_dir = os.environ.get("LD_LIBRARY_PATH")
    candidate = consumers.Library(os.environ.get("ZKWIRE_CAPI_LIBRARY", "candidate"), lib_dir,
                                  os.environ["ZKWIRE_CAPI_EXPECT_LIB"], args.preload if lib_dir else None)
    replay = os.environ.get("ZKWIRE_DIFF_SEED")
    seeds = [int(replay)] if replay else [random.SystemRandom().randrange(1, 2**32) for _ in range(args.seeds)]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="zkwire-differential-") as scratch:
        for seed in seeds:
            runs = [run_seed(lib, args.program, seed, args.steps, scratch, label)
                    for lib, label in ((reference, "ref"), (candidate, "cand"))]
            (ref_status, ref_lines, ref_errors, ref_time), (status, lines, errors, seconds) = runs
            same = ref_status == 0 and status == 0 and ref_lines == lines
            print(f"{'ok  ' if same else 'DIFF'} seed {seed}: {len(ref_lines)} / {len(lines)} lines, "
                  f"{ref_time:.1f} s / {seconds:.1f} s (debian / {candidate.name})")
            if same:
                continue
            failures += 1
            print(f"  replay: ZKWIRE_DIFF_SEED={seed} ctest -R capi_{candidate.name}_differential, or "
                  f"ZKWIRE_CAPI_HOSTS=<server> {args.program} {seed} {args.steps} /root")
            for name, status_, errors_ in (("debian", ref_status, ref_errors), (candidate.name, status, errors)):
                if status_ != 0:
                    print(f"  the {name} run exited {status_}; its stderr:\n{errors_}")
            for line in first_difference(ref_lines, lines):
                print(f"  {line}")
    print(f"differential: {len(seeds)} seed(s) of {args.steps} steps, "
          f"{'same transcripts' if failures == 0 else f'{failures} differing'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
