# SPDX-License-Identifier: MIT
"""apps/harness/harness.py's concurrent applications (--jobs): the Gate
runs the RCL test runs one at a time and lets the other steps run
together; the progress estimate shares the work left among the jobs and
adds the benches, which run one by one at the end; the steps whose
failed test runs are repeated alone; each thread's output goes to its
own file; the table says how the last run went."""
import contextlib
import io
import os
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "apps", "harness"))
import corpus_table  # noqa: E402
import harness  # noqa: E402


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


class Probe:
    """Runs steps through a gate and records which ran at once."""

    def __init__(self, gate):
        self.gate = gate
        self.mu = threading.Lock()
        self.now = set()
        self.seen = []  # (step, steps running beside it at its start)

    def run(self, name, st, secs):
        with self.gate.step(st):
            with self.mu:
                self.seen.append((name, set(self.now)))
                self.now.add(name)
            time.sleep(secs)
            with self.mu:
                self.now.discard(name)


def gate_serialises_rcl_tests():
    p = Probe(harness.Gate(4))
    work = [("a-build", "build", 0.3), ("b-tests", "tests-posix", 0.3),
            ("c-rcl", "tests-rcl", 0.2), ("d-rcl", "tests-rcl", 0.2),
            ("e-bench", "bench", 0.1), ("f-build", "build", 0.2)]
    ths = [threading.Thread(target=p.run, args=w) for w in work]
    for t in ths:
        t.start()
        time.sleep(0.02)
    for t in ths:
        t.join(10)
        check(not t.is_alive(), "a gated step never ended")
    seen = dict(p.seen)
    check(len(seen) == len(work), "every step ran: %r" % p.seen)
    check("d-rcl" not in seen["c-rcl"] and "c-rcl" not in seen["d-rcl"],
          "two RCL test runs at once: %r" % p.seen)
    check(len(seen["c-rcl"]) >= 2 and len(seen["f-build"]) >= 2,
          "the other steps did not run beside each other: %r" % p.seen)


def one_job_gate_is_free():
    gate = harness.Gate(1)
    done = []

    def inner():
        with gate.step("tests-rcl"):
            done.append(1)
    with gate.step("tests-rcl"):  # with one job nothing ever waits
        t = threading.Thread(target=inner)
        t.start()
        t.join(5)
    check(done == [1], "one job: a step waited for another")


def progress_estimate():
    rec = {"big": {"steps": {"build": {"seconds": 600}}},
           "small": {"steps": {"build": {"seconds": 100},
                               "bench": {"seconds": 30}}}}
    plan = [(a, ["build", "tests", "bench"])
            for a in ("big", "small", "tiny")]
    out = io.StringIO()
    pr = harness.Progress(plan, rec, jobs=2, out=out)
    # left: big 600+60, small 100+60, tiny 60+60: total 940, /2 = 470,
    # but big alone has 660 to go; then the benches one by one, 60+30+60
    check(pr._estimate() == 660 + 150, "estimate %r, not big's 660 + the "
          "benches' 150" % pr._estimate())
    pr.done("big", "build", "ok", 5)
    # left: big 60, small 160, tiny 120: total 340 / 2 = 170
    check(pr._estimate() == 170 + 150, "estimate %r, not 320"
          % pr._estimate())
    check(out.getvalue().startswith("[corpus] big") and
          "~5m20s left" in out.getvalue(), "progress line: %r"
          % out.getvalue())
    pr.skip_app("small")
    check(pr._estimate() == 120 + 120, "skipped app still counted: %r"
          % pr._estimate())
    one = harness.Progress(plan, rec, jobs=1, out=io.StringIO())
    check(one._estimate() == 720 + 190 + 180, "one job: the sum, %r"
          % one._estimate())


def output_per_thread():
    base = io.StringIO()
    to = harness.ThreadOutput(base)
    mine, theirs = io.StringIO(), io.StringIO()

    def other():
        to.to(theirs)
        to.write("from the other thread\n")
        to.to(None)
        to.write("back to base\n")
    to.to(mine)
    t = threading.Thread(target=other)
    t.start()
    t.join(5)
    to.write("from this thread\n")
    check(mine.getvalue() == "from this thread\n", "mine: %r"
          % mine.getvalue())
    check(theirs.getvalue() == "from the other thread\n", "theirs: %r"
          % theirs.getvalue())
    check(base.getvalue() == "back to base\n", "base: %r" % base.getvalue())


def test_labels():
    """The tests record each step fills in, which a failed run repeats
    alone; the other steps have none."""
    got = {st: harness.test_label(st) for st in (
        "baseline", "tests-rcl", "tests-mcs", "rcl-run-malthusian_stp",
        "build-rcl", "bench", "profile")}
    check(got == {"baseline": "baseline", "tests-rcl": "rcl",
                  "tests-mcs": "mcs",
                  "rcl-run-malthusian_stp": "rcl-run-malthusian_stp",
                  "build-rcl": None, "bench": None, "profile": None},
          "test labels: %r" % got)


class FakeRecipe:
    """An application whose posix tests fail the first time only (a test
    that the load broke) and whose mcs tests always fail."""
    name = "fake"
    source = "fake-src"
    why = "a fake"
    EXCLUDE = {}
    runs = {}

    def __init__(self, ctx):
        self.ctx = ctx

    def build(self, tree, env):
        pass

    def prepare(self, tree, env):
        pass

    def profile(self, tree, out):
        with open(out, "w") as f:
            f.write("{}")

    def test(self, tree, env, log, quick, prefix=()):
        algo = env.get("LIBLOCK_LOCK", "baseline")
        n = self.runs[algo] = self.runs.get(algo, 0) + 1
        if n > 4:
            print("FAIL: the %s test run repeated again and again" % algo,
                  file=sys.stderr)
            sys.exit(1)
        with open(log, "w") as f:
            f.write("run %d\n" % n)
        ok = algo not in ("mcs", "posix") or (algo == "posix" and n > 1)
        return ok, "", {"passed": 3 if ok else 2, "total": 3,
                        "failed": [] if ok else ["t/load.t"]}


def deferred_retry(work):
    """run_app(defer=True): the steps run, a failed test run is repeated
    alone by the function it returns, before the bench; the record keeps
    both results; a failure that passes alone is not the application's."""
    import argparse
    import tempfile
    saved = {k: getattr(harness, k) for k in (
        "fetch", "missing_deps", "refactor", "select_locks", "bench")}
    saved_hot = harness.pipeline.hottest_lock
    harness.apps.APPS["fake"] = FakeRecipe
    order = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pristine = os.path.join(tmp, "pristine")
            os.makedirs(pristine)
            harness.fetch = lambda ctx, app: pristine
            harness.missing_deps = lambda app: []
            harness.refactor = lambda ctx, app, tree, locks: {
                "found": 1, "delegated": 1, "held": 0, "refused": 0,
                "extracted": 1, "locks_converted": 1}
            harness.select_locks = lambda ctx, app, prof, tree: "all"
            harness.pipeline.hottest_lock = lambda p: ("l", 1.0, 0, "rcl")

            def bench(ctx, app, orig, tree):
                order.append("bench")
                return {"original": 1.0, "rcl": 1.0, "posix": 1.0}
            harness.bench = bench
            args = argparse.Namespace(
                tests="full", algos="rcl,posix,mcs", rcl_run_locks="",
                build_tree="all", top_srcdir=work, top_builddir=None,
                san_cflags="", workdir=tmp, no_bench=False)
            steps = harness.plan_steps(args)
            pr = harness.Progress([("fake", steps)], {}, 2, io.StringIO())
            with contextlib.redirect_stdout(io.StringIO()):
                last = harness.run_app(args, "fake", pr, steps,
                                       gate=harness.Gate(2), defer=True)
            check(callable(last), "deferred: %r" % (last,))
            check(FakeRecipe.runs == {"baseline": 1, "rcl": 1, "posix": 1,
                                      "mcs": 1}, "first pass: %r"
                  % FakeRecipe.runs)
            check(order == [], "the bench ran before the deferred part")
            with contextlib.redirect_stdout(io.StringIO()):
                res = last()
            check(FakeRecipe.runs["posix"] == 2 and
                  FakeRecipe.runs["mcs"] == 2 and
                  FakeRecipe.runs["rcl"] == 1, "the failed runs were "
                  "repeated, only them: %r" % FakeRecipe.runs)
            check(order == ["bench"], "the bench ran once: %r" % order)
            posix, mcs = res["tests"]["posix"], res["tests"]["mcs"]
            check(posix["ok"] and posix["passed"] == 3 and
                  posix["beside"]["passed"] == 2 and
                  posix["beside"]["failed"] == ["t/load.t"],
                  "posix keeps both results: %r" % posix)
            check(res["steps"]["tests-posix"]["status"] == "ok" and
                  res["steps"]["tests-posix"]["beside"]["status"] == "FAIL",
                  "posix's step: %r" % res["steps"]["tests-posix"])
            check(not mcs["ok"] and mcs["beside"]["passed"] == 2 and
                  res["steps"]["tests-mcs"]["status"] == "FAIL",
                  "mcs failed twice: %r" % mcs)
            check(res["failures"] == 1, "only mcs's failure counts: %r"
                  % res["failures"])
            beside = os.path.join(tmp, "fake", "tests-posix.beside.log")
            check(os.path.exists(beside) and
                  open(beside).read() == "run 1\n",
                  "the first run's log is kept beside the second")
    finally:
        for k, v in saved.items():
            setattr(harness, k, v)
        harness.pipeline.hottest_lock = saved_hot
        del harness.apps.APPS["fake"]


def last_run_in_table():
    md = corpus_table.render({"apps": {}, "last_run": {
        "apps": ["a", "b", "c"], "jobs": 3, "seconds": 6130}})
    check("That run: 3 applications, 3 at a time, in 1h42m." in md,
          "the last run is described: " + md[:600])
    check("That run" not in corpus_table.render({"apps": {}}),
          "a record without a last run describes none")


def whole_run_kept():
    """A run of a few applications keeps the record's last run of every
    application, and the table names both."""
    import argparse
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        args = argparse.Namespace(
            top_srcdir=os.path.join(HERE, "..", ".."), tests="full",
            record=os.path.join(tmp, "rec.json"))
        every = {"apps": sorted(harness.apps.APPS), "jobs": 3,
                 "seconds": 6759, "date": "2026-12-07 22:48 UTC"}
        rec = harness.save_record(args, {}, every, {})
        check(rec.get("whole_run") == every, "a run of every recipe is "
              "the whole run: %r" % rec.get("whole_run"))
        one = {"apps": ["fio"], "jobs": 1, "seconds": 236,
               "date": "2026-12-08 00:07 UTC"}
        rec = harness.save_record(args, {}, one, rec)
        check(rec.get("whole_run") == every and rec["last_run"] == one,
              "a run of one application keeps the whole run: %r" % rec)
        md = corpus_table.render(rec)
        check("That run: 1 application, 1 at a time, in 0h03m.  The last "
              "run of every application: %d applications, 3 at a time, in "
              "1h52m, ended 2026-12-07 22:48 UTC." % len(harness.apps.APPS)
              in md, "both runs are described: " + md[:700])


gate_serialises_rcl_tests()
one_job_gate_is_free()
progress_estimate()
output_per_thread()
test_labels()
deferred_retry(os.path.join(HERE, "..", ".."))
last_run_in_table()
whole_run_kept()
print("harness_jobs: ok")
