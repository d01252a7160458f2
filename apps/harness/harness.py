#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pipeline on real applications from Debian sources: the corpus.

For each application named (default: all, see apps.ORDER), driven by its
recipe in apps.py: fetch its bookworm source with `apt-get source` into
the work directory (never into the librcl tree), build it as is under
bear, run its own tests (the baseline), profile its workload with
rcl-prof, refactor a copy with rcl-refactor --locks profile.json and
another with --locks all, build the result against librcl, run its tests
under LIBLOCK_LOCK=rcl, posix and mcs, time the workload (original, rcl,
posix; median of 3), and run the unmodified build's tests under rcl-run
--lock mcs and malthusian_stp.  A failing step is recorded with its
reason and the run goes on (the steps needing it are skipped, saying
so); a progress line per step.  Writes WORKDIR/APP/report.txt and
result.json, and with --record/--doc the corpus results and the
docs/REAL-CODE.md table (corpus_table.py).  Exit 1 when a step failed,
2 when tests pass fewer than recorded.  Standard library only.
"""
import argparse
import concurrent.futures
import contextlib
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sample"))
import apps  # noqa: E402
import corpus_table  # noqa: E402
import pipeline  # noqa: E402
from pipeline import StepError, run, step  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(
        prog="harness.py",
        description="Fetch, profile, refactor, rebuild and test a Debian "
        "application with librcl.  Applications: %s."
        % ", ".join(sorted(apps.APPS)))
    ap.add_argument("apps", nargs="*", metavar="APP",
                    help="applications to run, in this order (default: "
                    "all, smallest build first: %s)" % " ".join(apps.ORDER))
    ap.add_argument("--list-deps", action="store_true",
                    help="print the Debian build dependencies of the "
                    "applications (all by default), one line, and exit "
                    "(install-deps.sh --corpus installs them)")
    ap.add_argument("--top-srcdir")
    ap.add_argument("--top-builddir",
                    help="librcl build tree (default: installed tools and "
                    "pkg-config rcl)")
    ap.add_argument("--workdir",
                    help="work directory; the app gets WORKDIR/APP")
    ap.add_argument("--tests", default="full", choices=("full", "quick"),
                    help="the app's full test suite (default) or a quick "
                    "subset")
    ap.add_argument("--algos", default="rcl,posix,mcs",
                    help="LIBLOCK_LOCK values the tests run under "
                    "(default: %(default)s)")
    ap.add_argument("--no-bench", action="store_true",
                    help="skip the throughput comparison")
    ap.add_argument("--san-cflags", default="",
                    help="sanitizer flags librcl was built with (added to "
                    "the refactored build)")
    ap.add_argument("--build", default="all", choices=("all", "profile"),
                    dest="build_tree",
                    help="which refactored copy is built, tested and "
                    "timed: the --locks all one (default; it moves the "
                    "most) or the profile's selection (the user's first "
                    "step); the other is used when this one moved "
                    "nothing")
    ap.add_argument("--keep", action="store_true",
                    help="reuse an existing download")
    ap.add_argument("--rcl-run-locks", default="mcs,malthusian_stp",
                    help="algorithms the unmodified build's tests run "
                    "under with rcl-run (empty: none; default: "
                    "%(default)s)")
    ap.add_argument("--record", metavar="JSON",
                    help="the recorded results (docs/REAL-CODE.json): "
                    "read for time estimates and regressions, updated "
                    "with this run's applications")
    ap.add_argument("--doc", metavar="MD",
                    help="write the table of the recorded results here "
                    "(docs/REAL-CODE.md)")
    ap.add_argument("--render-only", action="store_true",
                    help="run nothing: rewrite --doc from --record")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="run N applications at a time (default 1), the "
                    "longest recorded first; each writes its output to "
                    "WORKDIR/APP/harness.log, standard output gets the "
                    "progress lines.  The test runs under "
                    "LIBLOCK_LOCK=rcl take turns; once every "
                    "application's other steps are done, the test runs "
                    "that failed are repeated alone, and the benches run "
                    "one by one")
    args = ap.parse_args()
    if args.render_only and not (args.doc and args.record):
        ap.error("--render-only needs --doc and --record")
    if args.jobs < 1:
        ap.error("--jobs: %d is not a number of applications (1 or more)"
                 % args.jobs)
    if not args.list_deps and not (args.top_srcdir and args.workdir):
        ap.error("--top-srcdir and --workdir are required")
    for a in args.apps:
        if a not in apps.APPS:
            ap.error("unknown application %r (known: %s)"
                     % (a, " ".join(apps.ORDER)))
    if not args.apps:
        args.apps = list(apps.ORDER)
    for algo in args.rcl_run_locks.split(",") if args.rcl_run_locks \
            else []:
        if not re.fullmatch(r"\w+", algo):
            ap.error("--rcl-run-locks: bad algorithm name %r" % algo)
    return args


class Ctx:
    """What a step needs: tools, directories, compiler flags for librcl."""

    def __init__(self, args, name):
        self.args = args
        self.tools = pipeline.Tools(args.top_srcdir, args.top_builddir,
                                    os.environ.get("CC", "cc"),
                                    args.san_cflags)
        self.work = os.path.join(os.path.abspath(args.workdir), name)
        self.rcl_run = None
        if self.tools.builddir:
            p = os.path.join(self.tools.builddir, "liblock", "interpose",
                             "rcl-run")
            self.rcl_run = p if os.access(p, os.X_OK) else None
        self.rcl_run = self.rcl_run or shutil.which("rcl-run")
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
            # Not the build directory: its config.h (librcl's) would
            # shadow the application's own "config.h" wherever the
            # application's -I come after CPPFLAGS (mosquitto's clients).
            return {
                "CPPFLAGS": "-I%s -I%s" % (
                    os.path.join(t.srcdir, "liblock"),
                    os.path.join(t.srcdir, "runtime")),
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
    ctx.note("%s: Debian source %s%s" % (
        app.name, ver, "" if not app.version or ver == app.version else
        " (the recipe names %s)" % app.version))
    ctx.version = ver
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
        raise StepError("rcl-prof names no lock site in the files "
                        "refactored (it names: %s)" % (", ".join(sorted(set(
                            lk.get("name", "?") for lk in locks))) or
                            "no lock at all"))
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


# Before held sections: "N found, D transformed, R refused"; since: "N
# found, D delegated, H held, R refused" (group 2: delegated).
SUMMARY = re.compile(r"^rcl-refactor: (\d+) section\(s\) found, (\d+) "
                     r"(?:transformed|delegated)(?:, (\d+) held)?, (\d+) "
                     r"refused(?:, (\d+) of unselected)?", re.M)
REASON = re.compile(r"^ +(\d+)  (\S.*)$", re.M)


def config_locks(tree):
    """(locks rcl-refactor converted, locks it kept as pthread mutexes)
    as its rcl-config.h files list them."""
    conv = kept = 0
    for conf in glob.glob(os.path.join(tree, "**", "rcl-config.h"),
                          recursive=True):
        with open(conf, errors="replace") as f:
            text = f.read()
        conv += len(re.findall(r"^#define \S+_ALGO \"", text, re.M))
        m = re.search(r"Kept as pthread mutexes.*?\*/", text, re.S)
        if m:
            kept += len(re.findall(r"^ \* (?!other --locks)\S", m.group(0),
                                   re.M))
    return conv, kept


def refactor(ctx, app, tree, profile):
    """rcl-refactor --locks PROFILE --in-place on the app's lock files;
    its counts: {found, delegated, held, refused, unselected, reasons,
    unparsed, files, locks_converted, locks_all, extracted}."""
    files = app.lock_files(tree)
    if not files:
        raise StepError("no source file of %s locks a mutex" % app.name)
    log = ""
    while True:
        cmd = [ctx.tools.refactor_cmd, "--locks", profile] + \
            ctx.tools.refactor_incs() + app.refactor_args(tree) + \
            ["--in-place"] + files
        p = run(cmd, cwd=tree, check_ok=False,
                env=ctx.tools.refactor_env(),
                timeout=app.REFACTOR_TIMEOUT)
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
    stats = {"files": len(files), "exit": p.returncode,
             "unparsed": sorted(set(app.lock_files(tree)) - set(files))}
    m = SUMMARY.search(out)
    if m:
        stats.update(found=int(m.group(1)), delegated=int(m.group(2)),
                     held=int(m.group(3) or 0), refused=int(m.group(4)),
                     unselected=int(m.group(5) or 0))
        stats["reasons"] = [[r, int(n)] for n, r in
                            REASON.findall(out[m.end():])]
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
    # Its compile check refused an output file, or an input did not
    # compile with the flags given: then it wrote no file at all,
    # whatever it found, delegated or held.
    unwritten = re.search(r"^rcl-refactor: (.*(?:nothing written|the "
                          r"input does not compile).*)$", out, re.M)
    if unwritten:
        stats["not_written"] = unwritten.group(1).strip()[:300]
    stats["locks_converted"], kept = config_locks(tree)
    stats["locks_all"] = stats["locks_converted"] + kept
    stats["extracted"] = "liblock_exec" in "".join(
        open(os.path.join(tree, f), errors="replace").read() for f in files)
    return stats


def run_tests(ctx, app, tree, label, env, quick, out, prefix=()):
    """The app's own test suite once: out[label] = {ok, passed, total,
    failed, excluded, log}, also when it fails (StepError)."""
    out[label] = {"ok": False}
    log = os.path.join(ctx.work, "tests-%s.log" % label)
    passed, detail, counts = app.test(tree, env, log, quick, prefix)
    ctx.note("tests (%s) %s: %s%s" % (
        "quick" if quick else "full", label, "PASS" if passed else "FAIL",
        " - " + detail if detail else ""))
    res = out[label] = dict(counts, ok=passed,
                            excluded=sorted(app.EXCLUDE), log=log)
    if not passed:
        ctx.fail("%s test suite, %s" % (app.name, label))
        raise StepError("%s/%s passed, failed: %s (log %s)" % (
            counts["passed"], counts["total"],
            " ".join(counts["failed"]) or "see log", log))
    return res


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def bench(ctx, app, orig, tree):
    """Median of 3 samples of the workload: original, refactored under
    rcl and posix; {'original', 'rcl', 'posix', 'unit'}."""
    out = {"unit": app.UNIT}
    for label, t, env in (("original", orig, dict(os.environ)),
                          ("rcl", tree, dict(os.environ, LIBLOCK_LOCK="rcl")),
                          ("posix", tree,
                           dict(os.environ, LIBLOCK_LOCK="posix"))):
        out[label] = median([app.bench(t, env) for _ in range(3)])
        ratio = "" if label == "original" or not out["original"] else \
            " (%.2fx original)" % (out[label] / out["original"])
        ctx.note("throughput %s: %s%s" % (label, app.fmt(out[label]), ratio))
    return out


def missing_deps(app):
    out = []
    for pkg in app.build_deps:
        p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                           capture_output=True, text=True)
        if "install ok installed" not in p.stdout:
            out.append(pkg)
    return out


def recorded_seconds(recorded, name, st):
    """The recorded time of step @st of application @name (60 s for a step
    never recorded)."""
    old = (recorded.get(name) or {}).get("steps", {})
    return (old.get(st) or {}).get("seconds", 60)


class Progress:
    """One line per step: elapsed time and an estimate of what is left,
    from the recorded step times.  With @jobs applications at a time the
    estimate is the work left shared by the jobs, but never less than
    the longest application's own rest (its steps run one after the
    other), plus the benches, which run one by one at the end.
    Thread-safe; the lines go to @out."""

    def __init__(self, plan, recorded, jobs=1, out=None):
        self.t0 = time.time()
        self.jobs = jobs
        self.out = out or sys.stdout
        self.mu = threading.Lock()
        self.left = {}
        for name, steps in plan:
            for st in steps:
                self.left[(name, st)] = recorded_seconds(recorded, name, st)

    def _estimate(self):
        per_app, last = {}, 0
        for (name, st), secs in self.left.items():
            if st == "bench" and self.jobs > 1:
                last += secs
            else:
                per_app[name] = per_app.get(name, 0) + secs
        total = sum(per_app.values())
        return max([total / self.jobs] + list(per_app.values())) + last

    def done(self, name, st, status, secs):
        with self.mu:
            self.left.pop((name, st), None)
            el = time.time() - self.t0
            self.out.write("[corpus] %-10s %-22s %-5s %6.0fs   elapsed %s, "
                           "~%s left\n" % (name, st, status, secs, _hms(el),
                                           _hms(self._estimate())))
            self.out.flush()

    def skip_app(self, name):
        with self.mu:
            for k in [k for k in self.left if k[0] == name]:
                del self.left[k]


class Gate:
    """What the steps of concurrent applications (--jobs) may not do
    together.  The test runs under LIBLOCK_LOCK=rcl take turns: each
    process starts a SCHED_FIFO server that spins on the server CPU while
    it has work, and two of them would share that CPU.  (The timed bench
    runs alone, after every application's other steps: run_app(defer).)
    With one job the gate costs nothing."""

    SERVER = ("tests-rcl",)

    def __init__(self, jobs):
        self.jobs = jobs
        self.server = threading.Lock()

    @contextlib.contextmanager
    def step(self, st):
        if self.jobs > 1 and st in self.SERVER:
            with self.server:
                yield
        else:
            yield


class ThreadOutput:
    """sys.stdout (or stderr) for concurrent applications: what a thread
    writes goes to the file it set with to(), the rest to @base."""

    def __init__(self, base):
        self.base = base
        self.local = threading.local()

    def to(self, f):
        self.local.f = f

    def _f(self):
        return getattr(self.local, "f", None) or self.base

    def write(self, text):
        return self._f().write(text)

    def flush(self):
        self._f().flush()

    def __getattr__(self, name):  # fileno, isatty, encoding...
        return getattr(self._f(), name)


def _hms(s):
    s = int(s)
    return "%dh%02dm" % (s // 3600, s % 3600 // 60) if s >= 3600 else \
        "%dm%02ds" % (s // 60, s % 60)


def plan_steps(args):
    steps = ["fetch", "build", "baseline", "profile", "refactor-profile",
             "refactor-all", "build-rcl"]
    steps += ["tests-" + a for a in args.algos.split(",") if a]
    steps += ["rcl-run-" + a for a in
              (args.rcl_run_locks.split(",") if args.rcl_run_locks else [])]
    if not args.no_bench:
        steps.append("bench")  # last: with --jobs, after all the others
    return steps


def test_label(st):
    """The tests record a step fills in (res["tests"][label]), or None."""
    if st == "baseline" or st.startswith("rcl-run-"):
        return st
    if st.startswith("tests-"):
        return st[len("tests-"):]
    return None


# What a step's inputs come from, for "skip" reasons.
NEEDS = {"pristine": "fetch", "orig": "build", "profile": "profile",
         "tree": "build-rcl"}


def step_reason(msg):
    """One line for the table: the error's first line, and its last one
    when the first only introduces the output (`cmd` exited N:)."""
    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]
    if not lines:
        return "failed"
    out = lines[0]
    if out.endswith(":") and len(lines) > 1:
        out += " " + lines[-1]
    return out[:300]


def run_app(args, name, progress, steps, on_step=None, gate=None,
            defer=False):
    """Every step for one application; its result record (never
    raises for a step that fails: the step is recorded with its reason
    and the steps that need it are skipped, saying which).  @gate: the
    Gate of concurrent applications, or None (one at a time).  @defer:
    return instead a function that runs, again, each test step whose
    suite failed, then the last step, the timed bench, and returns the
    record (the caller runs it when nothing else runs)."""
    gate = gate or Gate(1)
    ctx = Ctx(args, name)
    app = apps.APPS[name](ctx)
    ctx.version = None
    res = {"app": name, "source": app.source, "why": app.why,
           "excluded": dict(app.EXCLUDE), "tests_mode": args.tests,
           "steps": {}, "tests": {}, "refactor": {}, "throughput": None,
           "incomplete": True,
           "run": {"tool": tool_version(args.top_srcdir),
                   "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                         time.gmtime())}}
    os.makedirs(ctx.work, exist_ok=True)
    state = {}

    def do(st, fn, needs=()):
        if st not in steps:
            return None
        for n in needs:
            if n not in state:
                res["steps"][st] = {"status": "skip", "seconds": 0,
                                    "reason": "needs a successful %s"
                                    % NEEDS[n]}
                progress.done(name, st, "skip", 0)
                return None
        with gate.step(st):
            step("%s: %s" % (name, st))
            t0 = time.time()
            try:
                out = fn()
                status, reason = "ok", ""
            except StepError as e:
                out, status = None, "FAIL"
                reason = step_reason(str(e))
                ctx.note("FAILED %s: %s" % (st, e))
            secs = time.time() - t0
        res["steps"][st] = {"status": status, "seconds": round(secs, 1),
                            "reason": reason}
        progress.done(name, st, status, secs)
        label = test_label(st)
        if defer and status == "FAIL" and label and not alone and \
                "passed" in res["tests"].get(label, {}):
            # The suite ran and some test failed beside the other
            # applications' steps: run it again alone at the end.
            retry.append((st, fn, needs, label))
        if on_step:  # an interrupted run keeps the steps done
            on_step(res)
        return out

    retry = []
    alone = []  # non-empty in the deferred part: no retry of a retry

    def again(st, fn, needs, label):
        """Step @st once more, alone: the record keeps both results."""
        first, first_step = res["tests"][label], res["steps"][st]
        log = first.get("log")
        if log and os.path.exists(log):
            os.replace(log, log[:-len(".log")] + ".beside.log")
            first["log"] = log[:-len(".log")] + ".beside.log"
        ctx.note("%s failed beside other applications' steps: run again "
                 "alone" % st)
        # The second run decides whether the suite failed (it says so
        # again if it does).
        what = "%s test suite, %s" % (app.name, label)
        if what in ctx.failures:
            ctx.failures.remove(what)
        do(st, fn, needs)
        res["tests"].setdefault(label, {})["beside"] = {
            k: first.get(k) for k in ("passed", "total", "failed", "log")}
        res["steps"][st]["beside"] = first_step

    def fetch_step():
        state["pristine"] = fetch(ctx, app)
        res["version"] = ctx.version

    def build_step():
        miss = missing_deps(app)
        if miss:
            raise StepError("build dependencies not installed: %s"
                            % " ".join(miss))
        state["orig"] = fresh_copy(ctx, state["pristine"], "orig")
        app.build(state["orig"], dict(os.environ))

    def baseline_step():
        run_tests(ctx, app, state["orig"], "baseline", dict(os.environ),
                  args.tests == "quick", res["tests"])

    def profile_step():
        out = os.path.join(ctx.work, "profile.json")
        app.profile(state["orig"], out)
        nm, pct, misses, verdict = pipeline.hottest_lock(out)
        ctx.note("profile: hottest lock %s, %s of time in CS, misses/CS %s, "
                 "verdict %s" % (nm, pct, misses, verdict))
        res["hottest"] = {"lock": nm, "pct_cs": pct, "verdict": verdict}
        state["profile"] = out

    def refactor_step(kind):
        tree = fresh_copy(ctx, state["pristine"], "rcl-" + kind)
        app.prepare(tree, dict(os.environ))
        locks = select_locks(ctx, app, state["profile"], tree) \
            if kind == "profile" else "all"
        stats = refactor(ctx, app, tree, locks)
        res["refactor"][kind] = stats
        if stats.get("not_written"):
            # Its counts describe what it would have written (exit 1, as
            # for refusals): the step failed.
            raise StepError("rcl-refactor wrote no file: %s"
                            % stats["not_written"])
        # A tree that only holds sections (on converted locks) is built
        # and tested like one that delegates some.
        if stats.get("extracted") or stats.get("locks_converted"):
            state.setdefault("trees", []).append((kind, tree))
        return stats

    if do("fetch", fetch_step) is None and "pristine" not in state:
        progress.skip_app(name)
        return finish(ctx, res)
    do("build", build_step, ["pristine"])
    if "orig" not in state:
        progress.skip_app(name)
        return finish(ctx, res)
    do("baseline", baseline_step, ["orig"])
    do("profile", profile_step, ["orig"])
    if os.path.exists(os.path.join(ctx.work, "refactor.log")):
        os.unlink(os.path.join(ctx.work, "refactor.log"))
    do("refactor-profile", lambda: refactor_step("profile"), ["profile"])
    do("refactor-all", lambda: refactor_step("all"), ["pristine"])
    if not state.get("trees"):
        state["no_tree"] = True

    def build_rcl_step():
        if state.get("no_tree"):
            why = [(k, v["not_written"]) for k, v in
                   sorted(res["refactor"].items()) if v.get("not_written")]
            if why:
                # Sections were delegated or held, but its compile check
                # stopped every file from being written.
                raise StepError("rcl-refactor wrote no file (--locks %s: "
                                "%s)" % why[0])
            raise StepError("rcl-refactor converted no lock (see "
                            "%s/refactor.log)" % ctx.work)
        # The copy --build asks for when it moved any section (by default
        # the --locks all one, which moves the most); otherwise the other.
        trees = dict(state["trees"])
        kind = args.build_tree if args.build_tree in trees else \
            state["trees"][-1][0]
        tree = trees[kind]
        res["built"] = kind
        app.build(tree, dict(os.environ, **ctx.rcl_env()))
        state["tree"] = tree

    do("build-rcl", build_rcl_step, ["orig"])
    for algo in args.algos.split(","):
        def t(algo=algo):
            run_tests(ctx, app, state["tree"], algo,
                      dict(os.environ, LIBLOCK_LOCK=algo),
                      args.tests == "quick", res["tests"])
        do("tests-" + algo, t, ["tree"])

    for algo in args.rcl_run_locks.split(",") if args.rcl_run_locks else []:
        def r(algo=algo):
            if not ctx.rcl_run:
                raise StepError("rcl-run not built or installed")
            label = "rcl-run-" + algo
            run_tests(ctx, app, state["orig"], label, dict(os.environ),
                      args.tests == "quick", res["tests"],
                      [ctx.rcl_run, "--lock", algo, "--"])
        do("rcl-run-" + algo, r, ["orig"])

    def bench_step():
        res["throughput"] = bench(ctx, app, state["orig"], state["tree"])

    def last():
        alone.append(True)
        for args_ in retry:
            again(*args_)
        do("bench", bench_step, ["tree"])
        return finish(ctx, res)
    return last if defer else last()


def finish(ctx, res):
    res["incomplete"] = False
    with open(os.path.join(ctx.work, "report.txt"), "w") as f:
        f.write("\n".join(ctx.report) + "\n")
    with open(os.path.join(ctx.work, "result.json"), "w") as f:
        json.dump(res, f, indent=1)
    res["failures"] = len(ctx.failures)
    return res


def tool_version(srcdir):
    p = subprocess.run(["git", "-C", srcdir, "log", "-1",
                        "--format=%h %cd", "--date=short", "--", "cocci"],
                       capture_output=True, text=True)
    return p.stdout.strip() or "unknown (not a git checkout)"


def save_record(args, apps_rec, last_run=None, old=None):
    """Write the record file; @last_run: what the run that ends says of
    itself (its applications, jobs, wall time and end); @old: the record
    it replaces."""
    old = old or {}
    recorded = {"tool": tool_version(args.top_srcdir),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "tests": args.tests, "apps": apps_rec}
    if last_run:
        recorded["last_run"] = last_run
        # The last run of every recipe stays named when a later run
        # takes a few applications again.
        whole = last_run if sorted(last_run["apps"]) == sorted(apps.APPS) \
            else old.get("whole_run")
        if whole:
            recorded["whole_run"] = whole
    with open(args.record + ".tmp", "w") as f:
        json.dump(recorded, f, indent=1, sort_keys=True)
        f.write("\n")
    os.rename(args.record + ".tmp", args.record)
    return recorded


def main():
    args = parse_args()
    if args.list_deps:
        print(" ".join(sorted({d for a in args.apps
                               for d in apps.APPS[a].build_deps})))
        return 0
    if args.render_only:
        with open(args.record) as f:
            recorded = json.load(f)
        old_md = ""
        if os.path.exists(args.doc):
            with open(args.doc) as f:
                old_md = f.read()
        with open(args.doc, "w") as f:
            f.write(corpus_table.render(recorded, old_md))
        print("harness: table written to %s" % args.doc)
        return 0
    probe = Ctx(args, "_probe")
    missing = probe.tools.missing()
    if missing:
        for m in missing:
            print("harness: cannot run the pipeline: %s" % m, file=sys.stderr)
        return 1
    recorded = {}
    if args.record and os.path.exists(args.record):
        with open(args.record) as f:
            recorded = json.load(f)
    apps_rec = recorded.get("apps", {})
    t_start = time.time()
    steps = plan_steps(args)
    order = list(args.apps)
    if args.jobs > 1:
        # Longest first: the last to start are the shortest, so the jobs
        # end close together.
        order.sort(key=lambda a: -sum(recorded_seconds(apps_rec, a, st)
                                      for st in steps))
    progress = Progress([(a, steps) for a in order], apps_rec, args.jobs,
                        sys.stdout)
    gate = Gate(args.jobs)
    record_mu = threading.Lock()
    ran = {}  # app -> its record so far (a copy), for the record file

    def keep(res):
        snap = copy.deepcopy(res)  # only this thread changes @res
        with record_mu:
            ran[res["app"]] = snap
            save_record(args, dict(apps_rec, **ran),
                        recorded.get("last_run"), recorded)

    def logged(name, fn, mode):
        """fn() with this thread's output in the application's
        harness.log (--jobs); a harness bug fails the application, not
        the run."""
        log = None
        if args.jobs > 1:
            os.makedirs(os.path.join(os.path.abspath(args.workdir), name),
                        exist_ok=True)
            log = open(os.path.join(os.path.abspath(args.workdir), name,
                                    "harness.log"), mode)
            sys.stdout.to(log)
            sys.stderr.to(log)
        try:
            return fn()
        except Exception as e:  # a harness bug in one app: the others run
            print("harness: %s: %s: %s" % (name, type(e).__name__, e),
                  file=sys.__stderr__)
            progress.skip_app(name)
            return {"app": name, "steps": {"harness": {
                "status": "FAIL", "seconds": 0,
                "reason": "%s: %s" % (type(e).__name__, e)}},
                "tests": {}, "refactor": {}, "failures": 1}
        finally:
            if log:
                sys.stdout.to(None)
                sys.stderr.to(None)
                log.close()

    def start(name):
        return logged(name, lambda: run_app(
            args, name, progress, steps, keep if args.record else None,
            gate, defer=args.jobs > 1), "w")

    if args.jobs == 1:
        done = [start(name) for name in order]
    else:
        sys.stdout, sys.stderr = ThreadOutput(sys.stdout), \
            ThreadOutput(sys.stderr)
        print("harness: %d applications, %d at a time, then the benches "
              "one by one; each one's output in %s/APP/harness.log"
              % (len(order), args.jobs, os.path.abspath(args.workdir)),
              flush=True)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            firsts = list(pool.map(start, order))
        # Nothing else runs now: the timed steps, one by one.
        done = [logged(name, last, "a") if callable(last) else last
                for name, last in zip(order, firsts)]
        sys.stdout, sys.stderr = sys.stdout.base, sys.stderr.base
    # The table's rows in the order asked for.
    by_app = {r["app"]: r for r in done}
    results = [by_app[a] for a in args.apps]
    regressed = corpus_table.regressions(apps_rec, results)
    if args.record:
        for r in results:
            apps_rec[r["app"]] = r
        recorded = save_record(args, apps_rec, {
            "apps": list(args.apps), "jobs": args.jobs,
            "seconds": round(time.time() - t_start),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
            recorded)
    if args.doc:
        old_md = ""
        if os.path.exists(args.doc):
            with open(args.doc) as f:
                old_md = f.read()
        with open(args.doc, "w") as f:
            f.write(corpus_table.render(recorded if args.record else {
                "tool": tool_version(args.top_srcdir), "apps": {
                    r["app"]: r for r in results}}, old_md))
        print("harness: table written to %s" % args.doc)
    for r in results:
        bad = [s for s, v in r["steps"].items() if v["status"] == "FAIL"]
        print("harness: %s: %s" % (r["app"], "ok" if not bad else
                                   "failed: " + ", ".join(bad)))
    for line in regressed:
        print("harness: REGRESSION: " + line)
    if regressed:
        return 2
    return 1 if any(r.get("failures") or any(
        v["status"] == "FAIL" for v in r["steps"].values())
        for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
