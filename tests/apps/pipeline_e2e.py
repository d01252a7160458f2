#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end test of the pipeline on the sample app kvcache.

profile (rcl-prof) -> refactor (rcl-refactor --locks profile.json) ->
build against librcl -> run with LIBLOCK_LOCK=posix and rcl: every run
passes kvcache's own --check and prints the original's digest.

Exit 77 (skip), with the reason, only while rcl-prof, rcl-refactor or the
'rcl' algorithm are not in the build tree; once they are, it must pass.
"""
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
srcdir = os.path.abspath(os.environ.get("top_srcdir", "."))
builddir = os.path.abspath(os.environ.get("abs_top_builddir", ".."))
sys.path.insert(0, os.path.join(srcdir, "apps", "sample"))
import pipeline  # noqa: E402

OPS, THREADS = "300000", "8"


def fail(msg):
    print("FAIL: %s" % msg)
    sys.exit(1)


def run_check(binary, algo):
    env = dict(os.environ)
    if algo:
        env["LIBLOCK_LOCK"] = algo
    try:
        p = subprocess.run([binary, "--check", "-t", THREADS, "-n", OPS],
                           env=env, capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        fail("%s (LIBLOCK_LOCK=%s) timed out" % (binary, algo))
    res = pipeline.parse_kvcache(p.stdout)
    if p.returncode != 0 or res is None or not res["ok"]:
        fail("%s (LIBLOCK_LOCK=%s) exited %d:\n%s%s" % (
            binary, algo, p.returncode, p.stdout, p.stderr))
    return res["digest"]


def main():
    cc = os.environ.get("CC", "cc")
    cflags = "-O1 -g"
    tools = pipeline.Tools(srcdir, builddir, cc,
                           os.environ.get("SAN_CFLAGS", ""))
    missing = tools.missing()
    if missing:
        print("SKIP: pipeline not complete yet: " + "; ".join(missing))
        return 77
    work = os.path.join(builddir, "tests", "apps", "e2e-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = os.path.join(srcdir, "apps", "sample", "kvcache.c")
    try:
        orig = tools.build_original(src, work)
        # 16 workers on a small machine: the cache lock's share of the
        # threads' time stays far above rcl-prof's 60% threshold even when
        # the machine is loaded, so the verdict does not flap.
        # (Sanitizers slow every section down: fewer operations suffice.)
        nprof = "300000" if tools.san else "1000000"
        prof = tools.profile(orig, work, ["-t", "16", "-n", nprof])
        out = tools.refactor(src, prof, work)
        with open(os.path.join(out, "kvcache.c")) as f:
            text = f.read()
        if not re.search(r"\bliblock_exec\s*\(", text):
            fail("rcl-refactor --locks profile.json transformed no critical "
                 "section of kvcache.c (the profile should select "
                 "cache_lock)")
        if re.search(r"pthread_mutex_lock\s*\(\s*&cache_lock", text):
            fail("cache_lock is still locked with pthread_mutex_lock in the "
                 "refactored kvcache.c")
        new = tools.build_refactored(os.path.join(out, "kvcache.c"), out,
                                     os.path.join(work, "kvcache-rcl"),
                                     cflags)
    except pipeline.StepError as e:
        fail(str(e))
    want = run_check(orig, None)
    for algo in ("posix", "rcl"):
        got = run_check(new, algo)
        if got != want:
            fail("LIBLOCK_LOCK=%s: digest %s, original %s" % (algo, got, want))
        print("ok: refactored kvcache under %s: digest %s" % (algo, got))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
