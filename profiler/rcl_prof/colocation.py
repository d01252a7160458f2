# SPDX-License-Identifier: MIT
"""Co-location advice (FFlocker: threads that share a lock, on one core):
the thread-by-lock matrix, the groups of threads that mostly take one
contended lock, and the plan file rcl-run --colocate reads."""
import os
import sys

from librcl_profile import ColocCount, ColocGroup, Colocation, ColocThread

from .errors import Error
from .model import lock_of

COLOC_MIN_ACQ = 100   # acquisitions below which a thread is not advised on
COLOC_SHARE = 0.75    # share of a thread's acquisitions on its main lock


def colocation(procs, rep):
    """The thread-by-lock matrix of each process (acquisitions of each
    thread's most used locks, threads by creation index) and the groups of
    threads that take one contended lock for COLOC_SHARE or more of their
    acquisitions.  Advice needs two groups or more: one group would put the
    whole program on one core."""
    matrix, groups = [], []
    for p in procs:
        if not p.get("site_rows"):
            continue
        byid, locks = {}, {}
        for index, cells in p["trows"]:
            row = {}  # by lock id: two sites may show the same name
            for sid, acq in cells:
                lock = lock_of(p, rep, sid)
                if lock is not None:
                    locks[lock.id] = lock
                    row[lock.id] = row.get(lock.id, 0) + acq
            if row:
                matrix.append(ColocThread(
                    pid=p["pid"], thread=index, acquisitions=[
                        ColocCount(lock=locks[i].name, id=i, count=n)
                        for i, n in sorted(row.items(),
                                           key=lambda kv: -kv[1])]))
            total = sum(row.values())
            if index == 0 or total < COLOC_MIN_ACQ:
                continue  # the main thread is not created: cannot be pinned
            lid, n = max(row.items(), key=lambda kv: (kv[1], kv[0]))
            if n >= COLOC_SHARE * total and locks[lid].contended:
                byid.setdefault(lid, []).append((index, n / total))
        found = [ColocGroup(pid=p["pid"], lock=locks[lid].name,
                            threads=sorted(i for i, _ in ts),
                            min_share=round(min(x for _, x in ts), 3))
                 for lid, ts in byid.items() if len(ts) >= 2]
        if len(found) >= 2:
            groups += found
    groups.sort(key=lambda g: (g.pid, g.threads[0]))
    return Colocation(min_acquisitions=COLOC_MIN_ACQ, share=COLOC_SHARE,
                      threads=matrix, groups=groups)


def plan_text(groups, cpus):
    """rcl-run --colocate's plan for @groups: each group of the first
    process on its own CPU of @cpus (round robin when the groups
    outnumber them), or None without groups."""
    if not groups:
        return None
    pid = min(g.pid for g in groups)
    lines = ["# rcl-run --colocate plan written by rcl-prof: the threads "
             "(creation indices) that mostly take one lock share a CPU"]
    for i, g in enumerate(x for x in groups if x.pid == pid):
        lines.append("# %s: at least %d%% of their acquisitions"
                     % (g.lock, round(100 * g.min_share)))
        lines.append("cpu %d: %s" % (cpus[i % len(cpus)],
                                     " ".join(map(str, g.threads))))
    return "\n".join(lines) + "\n"


def write_colocate_plan(rep, path):
    """Write the plan for the groups of @rep on the CPUs this process may
    use; say so when there is none, or when it leaves processes out."""
    groups = rep.colocation.groups
    if not groups:
        sys.stderr.write("rcl-prof: --colocate-plan: no two groups of "
                         "threads mostly share one contended lock; no plan "
                         "written\n")
        return
    pids = sorted({g.pid for g in groups})
    if len(pids) > 1:
        sys.stderr.write("rcl-prof: --colocate-plan: the groups span %d "
                         "processes; the plan is for pid %d\n"
                         % (len(pids), pids[0]))
    text = plan_text(groups, sorted(os.sched_getaffinity(0)))
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise Error("cannot write %s: %s" % (path, e.strerror))
