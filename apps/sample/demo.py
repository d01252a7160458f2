#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The librcl demo: the whole pipeline on the sample app, kvcache.

  1. profile the original program with rcl-prof (prints the ranked table),
  2. rcl-refactor --locks profile.json into WORKDIR/refactored,
  3. build the refactored program against librcl,
  4. run the original, the refactored one with LIBLOCK_LOCK=rcl and with
     LIBLOCK_LOCK=posix, each in --check mode, and print one table,
  5. exit 1 if any run fails its check or if the refactored program's
     results (the --check digest) differ from the original's.

Standard library only.  Run by `make demo`; see docs/GUIDE.md.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipeline  # noqa: E402  (apps/sample/pipeline.py, shared with tests)

RUN_TIMEOUT = 60


def parse_args():
    ap = argparse.ArgumentParser(
        prog="demo.py",
        description="Profile, refactor, rebuild and compare the sample app "
        "kvcache (the librcl demo).")
    ap.add_argument("--top-srcdir", required=True,
                    help="librcl source tree")
    ap.add_argument("--top-builddir",
                    help="librcl build tree (default: use the installed "
                    "tools and pkg-config rcl)")
    ap.add_argument("--workdir", required=True,
                    help="where the profile, the refactored source and the "
                    "binaries go (recreated)")
    ap.add_argument("--kvcache", help="the original kvcache binary "
                    "(default: TOP_BUILDDIR/apps/sample/kvcache, else built "
                    "from source)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--san-cflags", default="",
                    help="sanitizer flags librcl was built with")
    ap.add_argument("--cflags", default="-O2 -g",
                    help="flags for the refactored build (default: %(default)s)")
    ap.add_argument("-t", "--threads", type=int, default=8,
                    help="kvcache worker threads (default: %(default)s)")
    ap.add_argument("-n", "--ops", type=int, default=1000000,
                    help="operations per compared run (default: "
                    "%(default)s)")
    ap.add_argument("--profile-threads", type=int, default=16,
                    help="worker threads of the profiled run: profile under "
                    "peak load (default: %(default)s)")
    ap.add_argument("--profile-ops", type=int, default=2000000,
                    help="operations of the profiled run (default: "
                    "%(default)s)")
    ap.add_argument("-r", "--repeat", type=int, default=3,
                    help="runs per variant, the median is shown "
                    "(default: %(default)s)")
    return ap.parse_args()


def run_variant(binary, env_extra, args):
    """Run @binary --check @args.repeat times; (median ops/s, digest, err)."""
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [binary, "--check", "-t", str(args.threads), "-n", str(args.ops)]
    rates, digests = [], set()
    for _ in range(args.repeat):
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, None, "timed out after %d s" % RUN_TIMEOUT
        res = pipeline.parse_kvcache(p.stdout)
        if p.returncode != 0 or res is None or not res["ok"]:
            err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])
            return None, None, err[-1]
        rates.append(res["throughput"])
        digests.add(res["digest"])
    if len(digests) != 1:
        return None, None, "digest changed between runs: %s" % sorted(digests)
    return statistics.median(rates), digests.pop(), None


def print_table(rows, lock, misses_note):
    base = rows[0][1]
    hdr = ("variant", "throughput", "vs orig", "%CS", "misses/CS", "result")
    lines = [hdr]
    for name, rate, digest, err, pct, misses in rows:
        if err:
            lines.append((name, "-", "-", pct, misses, "FAILED: " + err))
            continue
        ratio = "%.2fx" % (rate / base) if base else "-"
        same = "same" if digest == rows[0][2] else "DIFFERENT"
        lines.append((name, "%.2f Mops/s" % (rate / 1e6), ratio, pct, misses,
                      "check ok, %s digest %s" % (same, digest[:8])))
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(hdr))]
    print()
    for i, r in enumerate(lines):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    if lock:
        print("%%CS, misses/CS: rcl-prof on the original, lock %s%s"
              % (lock, "; misses " + misses_note if misses_note else ""))


def main():
    args = parse_args()
    tools = pipeline.Tools(args.top_srcdir, args.top_builddir, args.cc,
                           args.san_cflags)
    missing = tools.missing()
    if missing:
        for m in missing:
            print("demo: cannot run the pipeline: %s" % m, file=sys.stderr)
        return 1
    if os.path.isdir(args.workdir):
        shutil.rmtree(args.workdir)
    os.makedirs(args.workdir)
    src = os.path.join(args.top_srcdir, "apps", "sample", "kvcache.c")
    try:
        orig = args.kvcache or tools.build_original(src, args.workdir)
        pipeline.step("1/4 profile at peak load: rcl-prof -o profile.json "
                      "-- kvcache")
        prof = tools.profile(orig, args.workdir,
                             ["-t", str(args.profile_threads),
                              "-n", str(args.profile_ops)])
        pipeline.step("2/4 refactor: rcl-refactor --locks profile.json")
        outdir = tools.refactor(src, prof, args.workdir)
        pipeline.step("3/4 build the refactored kvcache against librcl")
        newbin = tools.build_refactored(
            os.path.join(outdir, "kvcache.c"), outdir,
            os.path.join(args.workdir, "kvcache-rcl"), args.cflags)
    except pipeline.StepError as e:
        print("demo: %s" % e, file=sys.stderr)
        return 1
    pipeline.step("4/4 run: original, refactored + rcl, refactored + posix "
                  "(%d threads, %d ops, median of %d)"
                  % (args.threads, args.ops, args.repeat))
    lock, pct, misses, verdict = pipeline.hottest_lock(prof)
    note = None
    if misses.startswith("n/a"):
        misses, note = "n/a", misses
    print("rcl-prof's hottest lock: %s, %s of time in CS, verdict: %s"
          % (lock, pct, verdict) if lock else "rcl-prof found no lock")
    variants = [("original (pthread)", orig, {}, pct, misses),
                ("refactored, LIBLOCK_LOCK=rcl", newbin,
                 {"LIBLOCK_LOCK": "rcl"}, "-", "-"),
                ("refactored, LIBLOCK_LOCK=posix", newbin,
                 {"LIBLOCK_LOCK": "posix"}, "-", "-")]
    rows = []
    for name, binary, env, p, m in variants:
        rate, digest, err = run_variant(binary, env, args)
        rows.append((name, rate, digest, err, p, m))
    print_table(rows, lock, note)
    failed = [r for r in rows if r[3] or r[2] != rows[0][2]]
    if failed:
        print("\ndemo: FAILED: %s" % ", ".join(r[0] for r in failed))
        return 1
    print("\ndemo: ok: the refactored kvcache computes the same results as "
          "the original under rcl and posix")
    return 0


if __name__ == "__main__":
    sys.exit(main())
