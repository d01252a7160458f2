# SPDX-License-Identifier: MIT
"""The ranked lock table (docs/PROFILER.md, "Table columns"), the blame
lines under it and the co-location advice, from a librcl_profile.Profile."""

# Short forms of the lock types for the table.
TYPE_SHORT = {"mutex": "mutex", "rwlock-read": "rw:read",
              "rwlock-write": "rw:write", "spinlock": "spin"}


def fmt_ns(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= div:
            return "%.3g%s" % (ns / div, unit)
    return "%.0fns" % ns


def fmt_count(n):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= div:
            return "%.3g%s" % (n / div, unit)
    return str(int(n))


def table_text(rep, top):
    """The table of @rep's first @top locks (0: all) and what follows it."""
    out = []
    w = out.append
    g, th = rep.global_, rep.thresholds
    w("rcl-prof: %d process(es), %d thread(s), wall %s, %s acquisitions, "
      "%.1f%% of thread time in critical sections\n"
      % (g.processes, g.threads, fmt_ns(g.wall_ns),
         fmt_count(g.acquisitions), g.pct_time_in_cs))
    w("verdict thresholds: may help >= %g%%, RCL recommended >= %g%% (%s); "
      "misses/CS: %s\n" % (th.lower, th.upper, th.source, g.misses))
    locks = rep.locks if top == 0 else rep.locks[:top]
    if not locks:
        w("no lock was used\n")
        return "".join(out)
    hdr = ("#", "site", "type", "inst", "acq", "cont%", "%CS", "ser%",
           "hold", "wait", "misses/CS", "verdict")
    rows = []
    for l in locks:
        m = "%.1f" % l.misses_per_cs if l.misses_per_cs is not None \
            else "n/a"
        name = l.name if len(l.name) <= 44 else "..." + l.name[-41:]
        rows.append((str(l.rank), name, TYPE_SHORT.get(l.type, "?"),
                     str(l.instances),
                     fmt_count(l.acquisitions),
                     "%.1f" % l.contention_pct,
                     "%.1f" % l.pct_time_in_cs,
                     "%.0f" % l.serialising_pct,
                     fmt_ns(l.hold_ns.avg), fmt_ns(l.wait_ns.avg),
                     m, l.verdict))
    wid = [max(len(r[i]) for r in rows + [hdr]) for i in range(len(hdr))]
    for r in [hdr] + rows:
        w("  ".join(c.ljust(wid[i]) if i in (1, 2, 11) else c.rjust(wid[i])
                    for i, c in enumerate(r)).rstrip() + "\n")
    for l in locks:
        if l.release_sites and l.blame_ns > 0:
            b = l.release_sites[0]
            w("#%d %s: waiters blocked %s in total, %.0f%% while held by "
              "the section released at %s\n"
              % (l.rank, l.name, fmt_ns(l.blame_ns), 100 * b.share, b.site))
    for l in locks:
        if l.verdict_note:
            w("#%d %s: %s\n" % (l.rank, l.name, l.verdict_note))
    coloc = rep.colocation
    groups = coloc.groups if coloc and coloc.groups else []
    if groups:
        w("co-location: %d groups of threads each take one lock for %d%%+ "
          "of their acquisitions; one core per group may help a lock whose "
          "waiters sleep (rcl-prof --colocate-plan FILE, then rcl-run "
          "--colocate FILE):\n" % (len(groups), round(100 * coloc.share)))
        for g in groups:
            w("  %s: threads %s\n" % (g.lock, " ".join(map(str, g.threads))))
    return "".join(out)


def print_table(rep, top, out):
    out.write(table_text(rep, top))
