# SPDX-License-Identifier: MIT
"""apps/harness/corpus_table.py on a small recorded result: one row per
application with the sections, locks, refusals, tests per algorithm,
throughput ratios and where it stopped; step times; exclusions and failed
steps named; regressions found by name and algorithm."""
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "apps", "harness"))
import corpus_table  # noqa: E402

OK = {"status": "ok", "seconds": 12.4, "reason": ""}
RECORDED = {
    "tool": "abc1234 2026-11-27", "date": "2026-11-27 19:00 UTC",
    "tests": "full",
    "apps": {
        "alpha": {
            "app": "alpha", "source": "alpha-src", "version": "1.0-1",
            "why": "one hot queue lock", "tests_mode": "full",
            "excluded": {"t/flaky.t": "times out under load"},
            "steps": {"fetch": OK, "build": OK, "baseline": OK,
                      "bench": {"status": "ok", "seconds": 30.0,
                                "reason": ""}},
            "refactor": {
                "all": {"found": 12, "delegated": 6, "held": 2,
                        "refused": 4,
                        "locks_converted": 3, "locks_all": 5,
                        "reasons": [["calls an unknown function", 3],
                                    ["returns with the lock held", 1]]},
                "profile": {"found": 10, "delegated": 2, "refused": 1,
                            "locks_converted": 1, "locks_all": 5}},
            "tests": {"baseline": {"ok": True, "passed": 40, "total": 40},
                      "rcl": {"ok": False, "passed": 38, "total": 40},
                      "posix": {"ok": True, "passed": 40, "total": 40}},
            "throughput": {"original": 100.0, "rcl": 80.0, "posix": 99.0},
            "run": {"tool": "abc1234 2026-12-01",
                    "date": "2026-12-02 10:00 UTC"}},
        "beta": {
            "app": "beta", "source": "beta", "version": "2.0-3",
            "why": "worker pool", "tests_mode": "full", "excluded": {},
            "steps": {"fetch": OK,
                      "build": {"status": "FAIL", "seconds": 3.0,
                                "reason": "build dependencies not "
                                "installed: libfoo-dev"}},
            "refactor": {}, "tests": {}, "throughput": None}}}


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def main():
    md = corpus_table.render(RECORDED)
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            check(line.count("|") == lines[i - 1].count("|"),
                  "separator and header have as many columns: %r" % line)
    rows = [line for line in lines if line.startswith("| alpha")]
    check(len(rows) == 2, "alpha has a table row and a step-time row:\n" + md)
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    # the profile's record predates held sections: 0 held
    check(cells[:6] == ["alpha", "alpha-src 1.0-1", "12 / 6 / 2 / 4",
                        "10 / 2 / 0 / 1", "3 / 5",
                        "3× calls an unknown function; 1× returns with the "
                        "lock held"], "alpha's first cells: %r" % cells)
    check(cells[6:12] == ["40/40", "38/40 FAIL", "40/40", "-", "-", "-"],
          "alpha's test cells: %r" % cells[6:12])
    check(cells[12:14] == ["0.80", "0.99"], "ratios: %r" % cells[12:14])
    check(cells[14] == "all steps ran", "alpha ran all: %r" % cells[14])
    beta = [line for line in md.splitlines() if line.startswith("| beta")][0]
    check("build: build dependencies not installed: libfoo-dev" in beta,
          "beta stops at its build with the reason: " + beta)
    times = [c.strip() for c in rows[1].strip("|").split("|")]
    check(times[1] == "12" and times[-2] == "67",
          "alpha's step times and total: %r" % times)
    check(times[-1] == "2026-12-02 10:00 UTC, `abc1234 2026-12-01`",
          "alpha's run: %r" % times[-1])
    beta_rows = [line for line in lines if line.startswith("| beta")]
    beta_times = [c.strip() for c in beta_rows[1].strip("|").split("|")]
    check(beta_times[-1] == "-", "beta, recorded undated: %r" % beta_times)
    check("`t/flaky.t` (times out under load)" in md,
          "the exclusion is recorded by name")
    check("- beta, build (FAIL): build dependencies" in md,
          "beta's failure listed")
    check("abc1234 2026-11-27" in md, "the tool version is named")
    # A regression: rcl passed 38 recorded, 37 now; posix unchanged.
    new = dict(RECORDED["apps"]["alpha"])
    new["tests"] = dict(new["tests"], rcl={"ok": False, "passed": 37,
                                           "total": 40})
    reg = corpus_table.regressions(RECORDED["apps"], [new])
    check(reg == ["alpha: tests under rcl passed 37, recorded 38"],
          "one regression named: %r" % reg)
    check(corpus_table.regressions(RECORDED["apps"],
                                   [RECORDED["apps"]["alpha"]]) == [],
          "the same result is no regression")
    # The hand-written notes of the previous page survive a rewrite.
    again = corpus_table.render(RECORDED, md + "xz: the wrappers hide it\n")
    check(again.endswith(corpus_table.NOTES + "\nxz: the wrappers hide "
                         "it\n"), "notes kept:\n" + again[-300:])
    check(again.count(corpus_table.NOTES) == 1, "one notes marker")
    cut = dict(RECORDED["apps"]["alpha"], incomplete=True,
               app="gamma", tests={}, throughput=None)
    md = corpus_table.render({"apps": {"gamma": cut}})
    check("| run interrupted after bench |" in md,
          "an interrupted run says after which step")
    # A test run that failed beside other applications and passed alone.
    rerun = dict(RECORDED["apps"]["alpha"], app="delta")
    rerun["tests"] = dict(rerun["tests"], posix={
        "ok": True, "passed": 40, "total": 40,
        "beside": {"passed": 39, "total": 40, "failed": ["t/slow.t"]}})
    rerun["steps"] = dict(rerun["steps"], **{"tests-posix": {
        "status": "ok", "seconds": 20.0, "reason": "", "beside": {
            "status": "FAIL", "seconds": 25.0,
            "reason": "39/40 passed, failed: t/slow.t"}}})
    md = corpus_table.render({"apps": {"delta": rerun}})
    row = [line for line in md.splitlines() if line.startswith("| delta")][0]
    check("| 40/40 (alone; beside others 39/40) |" in row,
          "the rerun's cell gives both results: " + row)
    check("- delta, tests-posix: beside others, 39/40 passed, failed: "
          "t/slow.t; alone, ok" in md, "the rerun is listed:\n" + md)
    check("Test runs repeated alone" not in corpus_table.render(RECORDED),
          "no rerun section without reruns")
    print("corpus_table: ok")


main()
