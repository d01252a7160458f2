# SPDX-License-Identifier: MIT
"""apps/harness/harness.py's concurrent applications (--jobs): the Gate
runs a timed step alone and the RCL test runs one at a time, and does not
starve a timed step behind a stream of others; the progress estimate
shares the work left among the jobs; each thread's output goes to its
own file; the table says how the last run went."""
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


def gate_runs_timed_steps_alone():
    p = Probe(harness.Gate(4))
    work = [("a-build", "build", 0.3), ("b-build", "build", 0.3),
            ("c-tests", "tests-posix", 0.3), ("d-bench", "bench", 0.1),
            ("e-profile", "profile", 0.1), ("f-rcl", "tests-rcl", 0.2),
            ("g-rcl", "tests-rcl", 0.2), ("h-build", "build", 0.2)]
    ths = [threading.Thread(target=p.run, args=w) for w in work]
    for t in ths:
        t.start()
        time.sleep(0.02)
    for t in ths:
        t.join(10)
        check(not t.is_alive(), "a gated step never ended")
    seen = dict(p.seen)
    check(len(seen) == len(work), "every step ran: %r" % p.seen)
    for name in ("d-bench", "e-profile"):
        check(not seen[name], "%s started beside %r" % (name, seen[name]))
    for name, beside in p.seen:
        check(not ({"d-bench", "e-profile"} & beside),
              "%s started while a timed step ran: %r" % (name, beside))
    check("g-rcl" not in seen["f-rcl"] and "f-rcl" not in seen["g-rcl"],
          "two RCL test runs at once: %r" % p.seen)
    check(any(len(b) >= 2 for _, b in p.seen),
          "no two shared steps ran at once: %r" % p.seen)


def timed_step_not_starved():
    """Shared steps keep coming; a timed step that waits stops new ones
    from starting and runs as soon as the running ones end."""
    gate = harness.Gate(3)
    p = Probe(gate)
    stop = threading.Event()

    def stream(tag):
        i = 0
        while not stop.is_set():
            p.run("%s%d" % (tag, i), "build", 0.05)
            i += 1
    ths = [threading.Thread(target=stream, args=(t,)) for t in "xy"]
    for t in ths:
        t.start()
    time.sleep(0.1)
    t0 = time.time()
    p.run("bench", "bench", 0.01)
    waited = time.time() - t0
    stop.set()
    for t in ths:
        t.join(10)
    check(waited < 1.0, "the timed step waited %.2f s behind a stream of "
          "0.05 s steps" % waited)
    check(not dict(p.seen)["bench"], "the timed step ran beside others")


def one_job_gate_is_free():
    gate = harness.Gate(1)
    done = []

    def inner():
        with gate.step("bench"):
            done.append(1)
    with gate.step("build"):  # with one job nothing ever waits
        t = threading.Thread(target=inner)
        t.start()
        t.join(5)
    check(done == [1], "one job: a step waited for another")


def progress_estimate():
    rec = {"big": {"steps": {"build": {"seconds": 600}}},
           "small": {"steps": {"build": {"seconds": 100}}}}
    plan = [(a, ["build", "tests"]) for a in ("big", "small", "tiny")]
    out = io.StringIO()
    pr = harness.Progress(plan, rec, jobs=2, out=out)
    # left: big 600+60, small 100+60, tiny 60+60: total 940, /2 = 470,
    # but big alone has 660 to go
    check(pr._estimate() == 660, "estimate %r, not big's 660" %
          pr._estimate())
    pr.done("big", "build", "ok", 5)
    # left: big 60, small 160, tiny 120: total 340 / 2 = 170
    check(pr._estimate() == 170, "estimate %r, not 170" % pr._estimate())
    check(out.getvalue().startswith("[corpus] big") and
          "~2m50s left" in out.getvalue(), "progress line: %r"
          % out.getvalue())
    pr.skip_app("small")
    check(pr._estimate() == 120, "skipped app still counted: %r"
          % pr._estimate())


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


def last_run_in_table():
    md = corpus_table.render({"apps": {}, "last_run": {
        "apps": ["a", "b", "c"], "jobs": 3, "seconds": 6130}})
    check("That run: 3 applications, 3 at a time, in 1h42m." in md,
          "the last run is described: " + md[:600])
    check("That run" not in corpus_table.render({"apps": {}}),
          "a record without a last run describes none")


gate_runs_timed_steps_alone()
timed_step_not_starved()
one_job_gate_is_free()
progress_estimate()
output_per_thread()
last_run_in_table()
print("harness_jobs: ok")
