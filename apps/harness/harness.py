#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pipeline on real applications from Debian sources.

For one application (see apps.py): fetch its bookworm source with
`apt-get source` into the work directory (never into the librcl tree),
build it as is, profile it under a bounded loopback/local workload with
rcl-prof, refactor its hot locks with rcl-refactor --locks profile.json,
build the refactored copy against librcl, run the application's own test
suite with LIBLOCK_LOCK=rcl and LIBLOCK_LOCK=posix, then measure
throughput original vs refactored.  Writes WORKDIR/APP/report.txt and
exits 1 on any failure (a step that cannot run is a failure, with the
command and its output).  Standard library only.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sample"))
import apps  # noqa: E402
import pipeline  # noqa: E402
from pipeline import StepError, run, step  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(
        prog="harness.py",
        description="Fetch, profile, refactor, rebuild and test a Debian "
        "application with librcl.  Applications: %s."
        % ", ".join(sorted(apps.APPS)))
    ap.add_argument("app", choices=sorted(apps.APPS))
    ap.add_argument("--top-srcdir", required=True)
    ap.add_argument("--top-builddir",
                    help="librcl build tree (default: installed tools and "
                    "pkg-config rcl)")
    ap.add_argument("--workdir", required=True,
                    help="work directory; the app gets WORKDIR/APP")
    ap.add_argument("--tests", default="full", choices=("full", "quick"),
                    help="the app's full test suite (default) or a quick "
                    "subset")
    ap.add_argument("--algos", default="rcl,posix",
                    help="LIBLOCK_LOCK values the tests run under "
                    "(default: %(default)s)")
    ap.add_argument("--no-bench", action="store_true",
                    help="skip the throughput comparison")
    ap.add_argument("--san-cflags", default="",
                    help="sanitizer flags librcl was built with (added to "
                    "the refactored build)")
    ap.add_argument("--keep", action="store_true",
                    help="reuse an existing download")
    return ap.parse_args()


class Ctx:
    """What a step needs: tools, directories, compiler flags for librcl."""

    def __init__(self, args):
        self.args = args
        self.tools = pipeline.Tools(args.top_srcdir, args.top_builddir,
                                    os.environ.get("CC", "cc"),
                                    args.san_cflags)
        self.work = os.path.join(os.path.abspath(args.workdir), args.app)
        self.report = []
        self.failures = []

    def rcl_env(self):
        """CPPFLAGS/LDFLAGS/LIBS that build the refactored app on librcl."""
        env = self._rcl_env()
        san = " ".join(self.tools.san)
        if san:
            env["CFLAGS"] = "-g -O2 " + san
            env["LDFLAGS"] += " " + san
        return env

    def _rcl_env(self):
        t = self.tools
        if t.builddir:
            libs = os.path.join(t.builddir, "runtime", ".libs")
            return {
                "CPPFLAGS": "-I%s -I%s -I%s" % (
                    os.path.join(t.srcdir, "liblock"),
                    os.path.join(t.srcdir, "runtime"), t.builddir),
                "LDFLAGS": "-L%s -Wl,-rpath,%s" % (libs, libs),
                "LIBS": "-lrcl -lpthread", "LDLIBS": "-lrcl -lpthread"}
        pc = lambda f: subprocess.run(  # noqa: E731
            ["pkg-config", f, "rcl"], capture_output=True, text=True,
            check=True).stdout.strip()
        return {"CPPFLAGS": pc("--cflags"), "LDFLAGS": pc("--libs-only-L"),
                "LIBS": pc("--libs"), "LDLIBS": pc("--libs")}

    def note(self, line):
        print(line, flush=True)
        self.report.append(line)

    def fail(self, what):
        self.failures.append(what)
        self.note("FAILED: " + what)


def fetch(ctx, app):
    """apt-get source into WORK/dl, unpacked (Debian patches applied) into
    WORK/pristine; returns the pristine directory."""
    dl = os.path.join(ctx.work, "dl")
    os.makedirs(dl, exist_ok=True)
    dsc = [f for f in os.listdir(dl) if f.endswith(".dsc")
           and f.startswith(app.source + "_")]
    if not dsc or not ctx.args.keep:
        for f in os.listdir(dl):
            os.unlink(os.path.join(dl, f))
        try:
            run(["apt-get", "source", "--download-only", "-qq",
                 app.source], cwd=dl)
        except StepError as e:
            hint = ""
            if "deb-src" in str(e) or "Unable to find" in str(e):
                hint = ("\n    (no deb-src entry: ./install-deps.sh adds "
                        "one for bookworm)")
            raise StepError("cannot fetch the source of %s: %s%s"
                            % (app.source, e, hint))
        dsc = [f for f in os.listdir(dl) if f.endswith(".dsc")]
    if not dsc:
        raise StepError("apt-get source %s downloaded no .dsc" % app.source)
    pristine = os.path.join(ctx.work, "pristine")
    shutil.rmtree(pristine, ignore_errors=True)
    run(["dpkg-source", "--no-check", "-x", os.path.join(dl, dsc[0]),
         pristine], echo=False)
    ver = re.match(r"[^_]+_(.*)\.dsc$", dsc[0]).group(1)
    ctx.note("%s: Debian source %s" % (app.name, ver))
    return pristine


def fresh_copy(ctx, pristine, name):
    d = os.path.join(ctx.work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(pristine, d, symlinks=True)
    return d


UNPARSED = re.compile(r"^rcl-refactor: ([^:\s]+):\d+: cannot parse", re.M)
RCL_ENTRY = re.compile(r"^/\* (\S+): (\S+), [^\n]*?(\d+) section\(s\)"
                       r"[^\n]*\n#define \S+_ALGO \"rcl\"", re.M)
REFUSED = re.compile(r"^(\S+?:\d+): not transformed: (.*)$", re.M)


def select_locks(ctx, app, profile, tree):
    """The profile rcl-refactor gets: rcl-prof's own when it recommends
    RCL for some lock; otherwise (a small machine rarely makes a real
    server lock-bound) a copy keeping only the app.TOP_FALLBACK
    top-ranked locks of the files it refactors (once each), marked so,
    and the report says it."""
    with open(profile) as f:
        prof = json.load(f)
    locks = prof.get("locks") or []
    rec = [lk for lk in locks
           if str(lk.get("verdict", "")).lower() == "rcl recommended"]
    if rec:
        ctx.note("locks: %d recommended by rcl-prof: %s" % (
            len(rec), ", ".join(lk.get("name", "?") for lk in rec)))
        return profile
    ours = {os.path.basename(f) for f in app.lock_files(tree)}
    top, seen = [], set()
    for lk in locks:
        name = lk.get("name", "?")
        site = re.match(r"([^\s:]+\.[ch]):\d+ ", name)
        if name in seen or (site and site.group(1) not in ours):
            continue  # a site in a file rcl-refactor is not given
        seen.add(name)
        top.append(lk)
    top = top[:app.TOP_FALLBACK]
    if not top:
        raise StepError("rcl-prof recorded no lock in %s" % app.name)
    ctx.note("locks: none reaches rcl-prof's 'RCL recommended' threshold "
             "(hottest %.1f%% of time in CS); refactoring the %d top-ranked "
             "instead: %s" % (top[0].get("pct_time_in_cs", 0.0), len(top),
                              "; ".join(lk.get("name", "?") for lk in top)))
    sel = dict(prof, locks=[dict(lk, verdict="RCL recommended",
                                 profiler_verdict=lk.get("verdict"),
                                 selected_by="harness: top-%d by rank"
                                 % app.TOP_FALLBACK) for lk in top])
    path = os.path.join(ctx.work, "locks-selected.json")
    with open(path, "w") as f:
        json.dump(sel, f, indent=1)
    return path


def refactor(ctx, app, tree, profile):
    """rcl-refactor --locks PROFILE --in-place on the app's lock files;
    whether it extracted any section."""
    files = app.lock_files(tree)
    if not files:
        raise StepError("no source file of %s locks a mutex" % app.name)
    log = ""
    while True:
        cmd = [ctx.tools.refactor_cmd, "--locks", profile] + \
            ctx.tools.refactor_incs() + app.refactor_args(tree) + \
            ["--in-place"] + files
        p = run(cmd, cwd=tree, check_ok=False,
                env=ctx.tools.refactor_env())
        out = p.stdout + p.stderr
        log += "$ %s\n%s" % (" ".join(cmd), out)
        if p.returncode not in (0, 1):  # 1: some sections refused, listed
            raise StepError("rcl-refactor exited %d:\n%s" % (
                p.returncode, "\n".join(out.splitlines()[-15:])))
        # A file the tool cannot parse stops the whole run: leave that
        # file as it is (its sections stay POSIX) and try the others.
        bad = [f for f in UNPARSED.findall(out) if f in files]
        if not bad:
            break
        for f in bad:
            ctx.note("rcl-refactor cannot parse %s: left as is, rerun "
                     "without it" % f)
            files.remove(f)
        if not files:
            break
    with open(os.path.join(ctx.work, "refactor.log"), "a") as f:
        f.write(log)
    refused = REFUSED.findall(out)
    counts = {}
    for _, reason in refused:
        counts[reason] = counts.get(reason, 0) + 1
    # Its own messages: the summary, files it could not parse or whose
    # output did not compile (nothing written for those).
    summary = [line for line in out.splitlines()
               if line.startswith("rcl-refactor:")]
    ctx.note("rcl-refactor on %d files (exit %d):" % (len(files),
                                                      p.returncode))
    for line in summary:
        ctx.note("  " + line.strip()[:300])
    for reason, n in sorted(counts.items(), key=lambda x: -x[1]):
        ctx.note("  refused %d: %s" % (n, reason))
    # The files rcl-refactor rewrote, headers included (the app's
    # configure may rewrite others): each now includes <liblock.h>.
    diff = subprocess.run(["diff", "-rq", os.path.join(ctx.work, "pristine"),
                           tree], capture_output=True, text=True).stdout
    changed = [m for m in re.findall(r"^Files .* and (.*) differ$", diff,
                                     re.M)
               if "#include <liblock.h>" in open(m, errors="replace").read()]
    ctx.note("  files changed: %d" % len(changed))
    rcl_locks = []
    for conf in glob.glob(os.path.join(tree, "**", "rcl-config.h"),
                          recursive=True):
        with open(conf, errors="replace") as f:
            rcl_locks += RCL_ENTRY.findall(f.read())
    if rcl_locks:
        ctx.note("  locks on RCL (rcl-config.h): " + "; ".join(
            "%s (%s, %s sections)" % e for e in rcl_locks))
    return "liblock_exec" in "".join(
        open(os.path.join(tree, f), errors="replace").read() for f in files)


def run_tests(ctx, app, tree, algos, quick):
    """The app's own test suite under each LIBLOCK_LOCK value."""
    ok = True
    for algo in algos:
        env = dict(os.environ, LIBLOCK_LOCK=algo)
        log = os.path.join(ctx.work, "tests-%s.log" % algo)
        step("%s: own test suite (%s) with LIBLOCK_LOCK=%s, log %s"
             % (app.name, "quick" if quick else "full", algo, log))
        passed, detail = app.test(tree, env, log, quick)
        ctx.note("tests (%s) under %s: %s%s" % (
            "quick" if quick else "full", algo,
            "PASS" if passed else "FAIL", " - " + detail if detail else ""))
        if not passed:
            ctx.fail("%s test suite under LIBLOCK_LOCK=%s" % (app.name, algo))
            ok = False
    return ok


def bench(ctx, app, orig, tree):
    step("%s: throughput, original vs refactored" % app.name)
    base = app.bench(orig, dict(os.environ))
    ctx.note("throughput original: %s" % app.fmt(base))
    for algo in ("rcl", "posix"):
        r = app.bench(tree, dict(os.environ, LIBLOCK_LOCK=algo))
        ratio = "%.2fx" % (r / base) if base and r else "-"
        ctx.note("throughput refactored, %s: %s (%s original)"
                 % (algo, app.fmt(r), ratio))


def main():
    args = parse_args()
    ctx = Ctx(args)
    app = apps.APPS[args.app](ctx)
    missing = ctx.tools.missing()
    if missing:
        for m in missing:
            print("harness: %s: cannot run the pipeline: %s" % (args.app, m),
                  file=sys.stderr)
        return 1
    os.makedirs(ctx.work, exist_ok=True)
    try:
        step("%s: fetch the Debian source" % app.name)
        pristine = fetch(ctx, app)
        step("%s: build the original" % app.name)
        orig = fresh_copy(ctx, pristine, "orig")
        app.build(orig, dict(os.environ))
        step("%s: profile under load (rcl-prof)" % app.name)
        profile = os.path.join(ctx.work, "profile.json")
        app.profile(orig, profile)
        name, pct, misses, verdict = pipeline.hottest_lock(profile)
        ctx.note("profile: hottest lock %s, %s of time in CS, misses/CS %s, "
                 "verdict %s" % (name, pct, misses, verdict))
        step("%s: refactor (rcl-refactor --locks profile.json)" % app.name)
        tree = fresh_copy(ctx, pristine, "rcl")
        app.prepare(tree, dict(os.environ))
        if os.path.exists(os.path.join(ctx.work, "refactor.log")):
            os.unlink(os.path.join(ctx.work, "refactor.log"))
        if not refactor(ctx, app, tree, select_locks(ctx, app, profile, tree)):
            # The hot locks were all refused: still run the app's tests on
            # RCL with every lock the tool can prove safe, and say so.
            ctx.note("locks: no section of the selected locks was "
                     "extracted; second attempt with --locks all")
            tree = fresh_copy(ctx, pristine, "rcl")
            app.prepare(tree, dict(os.environ))
            if not refactor(ctx, app, tree, "all"):
                raise StepError("rcl-refactor transformed no critical "
                                "section of %s (see %s/refactor.log)"
                                % (app.name, ctx.work))
        step("%s: build the refactored copy against librcl" % app.name)
        app.build(tree, dict(os.environ, **ctx.rcl_env()))
    except StepError as e:
        ctx.fail(str(e))
    else:
        run_tests(ctx, app, tree, args.algos.split(","),
                  args.tests == "quick")
        if not args.no_bench:
            try:
                bench(ctx, app, orig, tree)
            except StepError as e:
                ctx.fail(str(e))
    with open(os.path.join(ctx.work, "report.txt"), "w") as f:
        f.write("\n".join(ctx.report) + "\n")
    print("\n==> %s: report in %s/report.txt" % (app.name, ctx.work))
    print("\n".join("    " + line for line in ctx.report))
    if ctx.failures:
        print("harness: %s: %d failure(s)" % (app.name, len(ctx.failures)))
        return 1
    print("harness: %s: ok" % app.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
