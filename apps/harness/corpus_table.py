# SPDX-License-Identifier: MIT
"""docs/REAL-CODE.md from the corpus results (docs/REAL-CODE.json).

render(recorded) -> the Markdown page; regressions(old, new) -> one line
per application whose tests pass fewer under some algorithm than the
recorded run said.  Standard library only; no I/O (the harness reads and
writes the files), so tests/apps/corpus_table_test.py checks it on a
small recorded result.
"""

TEST_COLS = ["baseline", "rcl", "posix", "mcs", "rcl-run-mcs",
             "rcl-run-malthusian_stp"]
STEP_ORDER = ["fetch", "build", "baseline", "profile", "refactor-profile",
              "refactor-all", "build-rcl", "tests-rcl", "tests-posix",
              "tests-mcs", "rcl-run-mcs", "rcl-run-malthusian_stp", "bench"]


def _esc(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _sections(st):
    if not st or "found" not in st:
        return "-"
    return "%d / %d / %d / %d" % (st["found"], st["delegated"],
                                  st.get("held", 0), st["refused"])


def _locks(st):
    if not st or "locks_all" not in st:
        return "-"
    return "%d / %d" % (st["locks_converted"], st["locks_all"])


def _tests(t):
    if not t:
        return "-"
    if "passed" not in t:
        return "FAIL"
    cell = "%s/%s" % (t["passed"], t["total"])
    if not t.get("ok"):
        cell += " FAIL"
    b = t.get("beside")
    if b:  # failed beside other applications' steps, run again alone
        cell += " (alone; beside others %s/%s)" % (b.get("passed"),
                                                  b.get("total"))
    return cell


def _ratio(tp, algo):
    if not tp or not tp.get("original") or not tp.get(algo):
        return "-"
    return "%.2f" % (tp[algo] / tp["original"])


def _stop(res):
    """The first failed step and its reason, or 'all steps ran'."""
    steps = res.get("steps", {})
    for name in STEP_ORDER + sorted(set(steps) - set(STEP_ORDER)):
        s = steps.get(name)
        if s and s["status"] == "FAIL":
            return "%s: %s" % (name, s.get("reason", ""))
    if res.get("incomplete"):
        last = [n for n in STEP_ORDER if n in steps]
        return "run interrupted after %s" % (last[-1] if last else
                                             "no step")
    return "all steps ran"


def _reasons(res, n=3):
    st = (res.get("refactor") or {}).get("all") or \
        (res.get("refactor") or {}).get("profile") or {}
    rs = st.get("reasons") or []
    return "; ".join("%d× %s" % (k, r) for r, k in rs[:n]) or "-"


def _run_text(run):
    n, secs = len(run["apps"]), int(run["seconds"])
    return "%d application%s, %d at a time, in %dh%02dm" % (
        n, "" if n == 1 else "s", run["jobs"], secs // 3600,
        secs % 3600 // 60)


def _last_run(recorded):
    """How long the run that wrote the record took, and how; and the
    last run of every application when that was another."""
    run, whole = recorded.get("last_run"), recorded.get("whole_run")
    if not run:
        return ""
    out = "  That run: %s." % _run_text(run)
    if whole and whole != run:
        out += "  The last run of every application: %s%s." % (
            _run_text(whole),
            ", ended %s" % whole["date"] if whole.get("date") else "")
    return out


NOTES = "<!-- Notes below this line are kept when the table is rewritten. -->"


def kept_notes(old_md):
    """The hand-written part of an earlier page: from the NOTES marker on
    (just the marker when there is none)."""
    i = (old_md or "").find(NOTES)
    return old_md[i:] if i >= 0 else NOTES + "\n"


def render(recorded, old_md=""):
    """The page for @recorded, ending with the notes of @old_md."""
    apps = recorded.get("apps", {})
    names = sorted(apps)
    out = ["# Real code: Debian programs through the pipeline",
           "",
           "Written by `make check-corpus` (apps/harness/harness.py, "
           "recipes in apps/harness/apps.py) from docs/REAL-CODE.json; "
           "do not edit by hand.  rcl-refactor: `%s` (last commit touching "
           "cocci/); run %s, test suites: %s.%s" % (
               recorded.get("tool", "?"), recorded.get("date", "?"),
               recorded.get("tests", "full"),
               _last_run(recorded)),
           "",
           "Sections: found / delegated (extracted to a server) / held "
           "(left in place on a converted lock) / refused, "
           "by `rcl-refactor --locks all` (with the profile's selection in "
           "brackets).  Locks: converted to a liblock lock / all locks "
           "rcl-refactor saw.  Tests: passed/total of the application's own "
           "suite, unmodified (baseline), refactored under LIBLOCK_LOCK=rcl, "
           "posix, mcs, and unmodified under `rcl-run --lock mcs` and "
           "`--lock malthusian_stp`.  Throughput: refactored / original, "
           "median of 3.  Records made before held sections existed say "
           "0 held.  The steps and the recipe format: docs/GUIDE.md, "
           "section 6.",
           "",
           "| app | Debian source | sections (all) | sections (profile) | "
           "locks | top refusals | " + " | ".join(TEST_COLS) +
           " | rcl/orig | posix/orig | first failure |",
           "|" + "---|" * (9 + len(TEST_COLS))]
    for n in names:
        r = apps[n]
        rf = r.get("refactor") or {}
        tp = r.get("throughput")
        out.append("| " + " | ".join(_esc(c) for c in [
            n, "%s %s" % (r.get("source", "?"), r.get("version", "?")),
            _sections(rf.get("all")), _sections(rf.get("profile")),
            _locks(rf.get("all") or rf.get("profile")), _reasons(r)] +
            [_tests((r.get("tests") or {}).get(c)) for c in TEST_COLS] +
            [_ratio(tp, "rcl"), _ratio(tp, "posix"), _stop(r)]) + " |")
    out += ["", "## Time per step (seconds), and when each application "
            "last ran", "",
            "Rows come from the last run of each application (`make "
            "check-corpus APPS=...` updates only those it runs): the last "
            "column gives that run's date and the rcl-refactor it ran "
            "(last commit touching cocci/; `-`: recorded before runs were "
            "dated).", "",
            "| app | " + " | ".join(STEP_ORDER) + " | total | run |",
            "|" + "---|" * (len(STEP_ORDER) + 3)]
    for n in names:
        steps = apps[n].get("steps", {})
        cells = []
        for s in STEP_ORDER:
            v = steps.get(s)
            cells.append("-" if not v else "%.0f%s" % (
                v["seconds"], "" if v["status"] == "ok" else
                " " + v["status"].lower()))
        total = sum(v["seconds"] for v in steps.values())
        run = apps[n].get("run") or {}
        out.append("| %s | %s | %.0f | %s |" % (
            n, " | ".join(cells), total, _esc("%s, `%s`" % (
                run["date"], run["tool"]) if run else "-")))
    out += ["", "## Why each application, and tests excluded", ""]
    for n in names:
        r = apps[n]
        exc = r.get("excluded") or {}
        out.append("- **%s**: %s.%s" % (n, r.get("why", ""), (
            " Excluded from every run: " + "; ".join(
                "`%s` (%s)" % (t, w) for t, w in sorted(exc.items())))
            if exc else " No test excluded."))
    out += ["", "## Failed steps", ""]
    any_fail = False
    for n in names:
        for s in STEP_ORDER + sorted(set(apps[n].get("steps", {})) -
                                     set(STEP_ORDER)):
            v = apps[n].get("steps", {}).get(s)
            if v and v["status"] != "ok":
                any_fail = True
                out.append("- %s, %s (%s): %s" % (n, s, v["status"],
                                                  v.get("reason", "")))
    if not any_fail:
        out.append("None.")
    again = [(n, s, v["beside"]) for n in names
             for s, v in sorted(apps[n].get("steps", {}).items())
             if v.get("beside")]
    if again:
        out += ["", "## Test runs repeated alone", "",
                "With more than one application at a time, a test run "
                "that failed beside the others' steps ran again alone "
                "at the end; the table gives the second result.", ""]
        for n, s, first in again:
            out.append("- %s, %s: beside others, %s; alone, %s" % (
                n, s, first.get("reason") or first["status"],
                apps[n]["steps"][s]["status"]))
    return "\n".join(out) + "\n\n" + kept_notes(old_md)


def regressions(old_apps, results):
    """Lines naming each application and algorithm whose tests passed
    fewer than in @old_apps (the recorded run)."""
    out = []
    for r in results:
        old = (old_apps.get(r["app"]) or {}).get("tests") or {}
        new = r.get("tests") or {}
        for algo, t in sorted(old.items()):
            if "passed" not in t:
                continue
            if r.get("tests_mode") != old_apps[r["app"]].get("tests_mode"):
                continue
            n = new.get(algo) or {}
            if n.get("passed", -1) < t["passed"]:
                out.append("%s: tests under %s passed %s, recorded %d"
                           % (r["app"], algo, n.get("passed", "none"),
                              t["passed"]))
    return out
