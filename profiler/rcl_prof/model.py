# SPDX-License-Identifier: MIT
"""The report: the sites of every process merged by their stable
identity (the same lock in several processes or runs is one row), their
counters in nanoseconds, the figures of docs/PROFILER.md ("Definitions")
and each lock's verdict, as a librcl_profile.Profile."""
import hashlib
import os

import librcl_profile

from .dumps import CALLS, LIBNAME, STAT_FIELDS
from .symbols import describe

SCHEMA_VERSION = librcl_profile.SCHEMA_VERSION
HBUCKETS = 40  # log2 buckets of the hold and wait histograms

KINDS = {0: "unidentified", 1: "init", 2: "static", 3: "first-use"}
# What the locks of a site are (enum prof_type); a reader-writer lock is
# two rows, one per side.  Short forms for the table.
TYPES = {0: "mutex", 1: "rwlock-read", 2: "rwlock-write", 3: "spinlock"}


def fix_path(path, proc):
    return proc["exe"] if path in ("/proc/self/exe", "?", "") else path


def site_key(proc, s, syms):
    """Stable identity of a site across processes and runs (a mutex's is
    what it was before other lock types were profiled)."""
    t = (TYPES.get(s.get("type", 0), "?"),) if s.get("type", 0) else ()
    if s["kind"] == 2 and s["obj"]:
        path = fix_path(s["obj"][2], proc)
        name = syms.data_symbol(path, s["obj"][0])
        return ("static", path, name or "%#x" % s["obj"][0]) + t, name
    frames = tuple((fix_path(p, proc), max(o - 1, 0))
                   for o, _sym, p in s["frames"])
    return (KINDS.get(s["kind"], "?"),) + frames + t, None


def merge_sites(procs, syms):
    wanted, inl = {}, {}
    for p in procs:
        for s in p["sites"].values():
            for o, _sym, path in s["frames"]:
                wanted.setdefault(fix_path(path, p), set()).add(max(o - 1, 0))
                if s["kind"] in (1, 2, 3) and \
                        os.path.basename(path) != LIBNAME:
                    inl.setdefault(fix_path(path, p), set()).add(max(o - 1, 0))
        for _site, _cyc, _cnt, (o, _sym, path) in p["blame"]:
            wanted.setdefault(fix_path(path, p), set()).add(o)
    syms.resolve_code(wanted)
    syms.resolve_inline(inl)
    rows = {}
    for p in procs:
        ns = p["ns"]
        site_rows = {}
        for sid, s in p["sites"].items():
            key, symbol = site_key(p, s, syms)
            r = rows.get(key)
            if r is None:
                r = rows[key] = new_row(p, s, key, symbol, syms)
            site_rows[sid] = r
            add_site(r, p, s, ns)
        p["site_rows"] = site_rows
        for sid, cyc, cnt, (o, sym, path) in p["blame"]:
            r = site_rows.get(sid)
            if r is None:
                continue
            loc = syms.code_at(fix_path(path, p), o, sym)
            b = r["release_sites"].setdefault(describe(loc), {
                "site": describe(loc), "file": loc["file"],
                "line": loc["line"], "function": loc["function"],
                "blame_ns": 0.0, "releases": 0})
            b["blame_ns"] += ns(cyc)
            b["releases"] += cnt
    return list(rows.values())


def new_row(proc, s, key, symbol, syms):
    frames = [syms.code_at(fix_path(path, proc), max(o - 1, 0), sym)
              for o, sym, path in s["frames"]
              if os.path.basename(path) != LIBNAME]
    top = frames[0] if frames else {"file": None, "line": None,
                                    "function": None}
    kind = key[0]
    wrappers = []
    if kind in ("static", "init", "first-use") and frames:
        top, wrappers = outside_wrappers(frames, s, syms)
    if kind == "static":  # a stripped object: no symbol, name the offset
        name = symbol or "global at %s+%s" % (os.path.basename(key[1]), key[2])
    elif kind == "unidentified":
        name = "(unidentified locks)"
    else:
        name = describe(top) if frames else "?"
        if kind == "first-use":
            name = "first used at " + name
    h = hashlib.sha1(repr(key[1:]).encode()).hexdigest()[:16]
    return {"id": h, "name": name, "kind": kind, "symbol": symbol,
            "type": TYPES.get(s.get("type", 0), "?"),
            "file": top["file"], "line": top["line"],
            "function": top["function"],
            "backtrace": [describe(f) for f in frames],
            "wrappers": wrappers,
            "instances": 0, "stat": dict.fromkeys(STAT_FIELDS, 0.0),
            "hhold": [0] * HBUCKETS, "hwait": [0] * HBUCKETS,
            "pids": set(), "thread_time_ns": 0.0, "release_sites": {},
            "misses": proc["misses"]}


def positions(frames, syms):
    """The source positions of @frames, innermost first, each frame's
    inlined calls (addr2line -i) as positions of their own."""
    out = []
    for f in frames:
        chain = syms.inl.get((f["object"], f["offset"])) or []
        if not chain:
            out.append(f)
        for fn, file, line in chain:
            out.append({"file": file, "line": line, "function": fn,
                        "object": f["object"], "offset": f["offset"]})
    return out


def outside_wrappers(frames, s, syms):
    """(the position that names site @s, [the wrappers' positions it
    was reached through, innermost first]): the first position, from
    the lock call outwards, whose function does not take the lock as a
    parameter (wrappers.py); the outermost one when all of them do
    (RCLPROF_DEPTH frames were not enough)."""
    pos = positions(frames, syms)
    typ = TYPES.get(s.get("type", 0), "?")
    skipped = []
    for p in pos[:-1]:
        if not syms.wrappers.is_wrapper(p["object"], p["function"], typ):
            break
        skipped.append(p)
    if not skipped:  # as before wrappers were looked for
        return frames[0], []
    return pos[len(skipped)], [describe(p) for p in skipped]


def add_site(r, p, s, ns):
    st = dict(s["stat"])
    # With --sample N contended holds are all timed, uncontended ones only
    # in part: scale the uncontended part (hold_u, cs_u) by holds/timed.
    if st["timed"] and st["holds"] > st["timed"]:
        f = st["holds"] / st["timed"]
        st["hold"] += st["hold_u"] * (f - 1)
        st["cs"] += st["cs_u"] * (f - 1)
    for k in STAT_FIELDS:
        v = st[k]
        if k in ("hold", "wait", "cs", "cond_wait", "blame", "serial"):
            r["stat"][k] += ns(v)
        elif k in ("hold_max", "wait_max"):
            r["stat"][k] = max(r["stat"][k], ns(v))
        else:
            r["stat"][k] += v
    for tag in ("hhold", "hwait"):
        for i, v in enumerate(s.get(tag, [])[:HBUCKETS]):
            r[tag][i] += v
    r["instances"] += s["instances"]
    if p["pid"] not in r["pids"]:
        r["pids"].add(p["pid"])
        r["thread_time_ns"] += p["ns"](p["thread_time"])
    if p["misses"] != "counted":
        r["misses"] = p["misses"]


def verdict(pct, th):
    if pct >= th["upper"]:
        return "RCL recommended"
    if pct >= th["lower"]:
        return "may help"
    return "no"


# Probed holds (the off-CPU probe, prof_wrap.c) below which a lock's
# blocked share is reported but does not change its verdict: one probe
# that met a page fault says little about the lock.
MIN_PROBES = 5


def blocked_share(st):
    """The share of a lock's probed hold time its holders spent switched
    out voluntarily (I/O, sleep, a nested wait), or None if never probed."""
    return st["probe_block"] / st["probe_wall"] \
        if st["probes"] and st["probe_wall"] else None


def judge(pct, st, th, blocked):
    """(verdict, note) of a lock with @pct %% of thread time in its
    sections and @blocked its blocked_share(): a server CPU shortens the
    part of a section that runs, so when enough holds were probed the
    verdict is that of the on-CPU part, @pct times the share not blocked;
    the note says so when that changes the verdict."""
    v = verdict(pct, th)
    if blocked is None or st["probes"] < MIN_PROBES:
        return v, None
    on_cpu = pct * (1.0 - blocked)
    w = verdict(on_cpu, th)
    if w == v:
        return v, None
    return w, ("%.0f%% of its hold time blocked off CPU (%d of %d probed "
               "holds switched out: I/O, sleep or a nested wait), which a "
               "server CPU cannot shorten: judged on the %.1f%% left of its "
               "%.1f%% %%CS, not %r" % (100 * blocked, st["probe_nblock"],
                                        st["probes"], on_cpu, pct, v))


def finish_row(r, th, total_blame):
    st = r["stat"]
    holds = max(st["holds"] + st["contended"] if st["holds"] else
                 sum(r["hhold"]), 1)
    tt = r["thread_time_ns"] or 1.0
    acq = st["acq"]
    pct = 100.0 * st["cs"] / tt
    rel = sorted(r["release_sites"].values(), key=lambda b: -b["blame_ns"])
    for b in rel:
        b["share"] = b["blame_ns"] / st["blame"] if st["blame"] else 0.0
    counted = r["misses"] == "counted" and st["cs_counted"]
    blocked = blocked_share(st)
    verd, note = judge(pct, st, th, blocked)
    hist = lambda h: h[:max([i + 1 for i, v in enumerate(h) if v] or [0])]
    return {
        "id": r["id"], "name": r["name"], "kind": r["kind"],
        "type": r["type"], "symbol": r["symbol"], "file": r["file"],
        "line": r["line"],
        "function": r["function"], "backtrace": r["backtrace"],
        "wrappers": r["wrappers"],
        "instances": r["instances"], "acquisitions": int(acq),
        "contended": int(st["contended"]),
        "contention_pct": 100.0 * st["contended"] / acq if acq else 0.0,
        "trylock_failures": int(st["try_fail"]),
        "timed_holds": int(st["timed"]),
        "timeouts": int(st["timed_out"]),
        "pct_time_in_cs": pct,
        "pct_time_waiting": 100.0 * st["wait"] / tt,
        "cs_ns": st["cs"],
        "hold_ns": {"total": st["hold"], "avg": st["hold"] / holds,
                    "max": st["hold_max"]},
        "wait_ns": {"total": st["wait"],
                    "avg": st["wait"] / st["contended"]
                    if st["contended"] else 0.0,
                    "max": st["wait_max"]},
        "cond_wait_ns": st["cond_wait"],
        "serialising_ns": min(st["serial"], st["hold"]),
        "serialising_pct": min(100.0, 100.0 * st["serial"] / st["hold"])
        if st["hold"] else 0.0,
        "blame_ns": st["blame"],
        "blame_share": st["blame"] / total_blame if total_blame else 0.0,
        "avg_queue": st["blame"] / st["hold"] if st["hold"] else 0.0,
        "misses_per_cs": st["cs_misses"] / st["cs_counted"]
        if counted else None,
        "misses_per_cs_note": None if counted else r["misses"],
        "verdict": verd,
        "verdict_note": note,
        "probed_holds": int(st["probes"]),
        "blocked_pct": 100.0 * blocked if blocked is not None else None,
        "blocked_holds_pct": 100.0 * st["probe_nblock"] / st["probes"]
        if st["probes"] else None,
        "release_sites": rel,
        "hold_histogram": hist(r["hhold"]),
        "wait_histogram": hist(r["hwait"]),
        "thread_time_ns": r["thread_time_ns"],
    }


def union_ns(p):
    """Time in at least one critical section; under --sample the
    uncontended sections' part is scaled like the per-site sums."""
    u, uc = p.get("cs_union", 0), p.get("union_c", 0)
    n, timed = p.get("sections", 0), p.get("sections_timed", 0)
    if timed and n > timed:
        u = uc + (u - uc) * n / timed
    return p["ns"](u)


def build_report(procs, th, command, status, syms, tool):
    """The profile (docs/PROFILER.md, "JSON profile") of the dumps
    @procs, @th the thresholds ({lower, upper, source}); its colocation
    is left for colocation.colocation()."""
    active = [p for p in procs if p["acquisitions"]] or procs[:1]
    rows = merge_sites(active, syms)
    total_blame = sum(r["stat"]["blame"] for r in rows)
    locks = [finish_row(r, th, total_blame) for r in rows]
    locks.sort(key=lambda l: (-l["pct_time_in_cs"], -l["blame_ns"],
                              -l["acquisitions"], l["name"]))
    for i, l in enumerate(locks, 1):
        l["rank"] = i
    tt = sum(p["ns"](p["thread_time"]) for p in active)
    union = sum(union_ns(p) for p in active)
    wall = max([p["wall_ns"] for p in active] or [0])
    acq = sum(l["acquisitions"] for l in locks)
    misses = sorted({p["misses"] for p in active}) or ["n/a"]
    glob = {
        "processes": len(active),
        "threads": sum(p["threads"] for p in active),
        "wall_ns": wall,
        "thread_time_ns": tt,
        "pct_time_in_cs": 100.0 * union / tt if tt else 0.0,
        "acquisitions": acq,
        "contended": sum(l["contended"] for l in locks),
        "acquisitions_per_s_per_thread": acq / (tt / 1e9) if tt else 0.0,
        "untracked_acquisitions": sum(p["untracked"] for p in active),
        "cond_waits": sum(p["cond_waits"] for p in active),
        "cond_signals": sum(p["signals"] for p in active),
        "cond_broadcasts": sum(p["broadcasts"] for p in active),
        "blame_ns": total_blame,
        "sample": max(p.get("sample", 1) for p in active),
        "wrapper_calls": {c: sum(p.get("calls", {}).get(c, 0)
                                 for p in active) for c in CALLS},
        "misses": misses[0] if len(misses) == 1 else ", ".join(misses),
    }
    # checked as any reader checks it: a malformed report is a bug here
    return librcl_profile.from_dict({
        "version": SCHEMA_VERSION, "tool": tool,
        "command": command, "exit_status": status, "thresholds": th,
        "global": glob,
        "processes": [{"pid": p["pid"], "ppid": p["ppid"], "exe": p["exe"],
                       "threads": p["threads"], "wall_ns": p["wall_ns"],
                       "thread_time_ns": p["ns"](p["thread_time"]),
                       "acquisitions": p["acquisitions"],
                       "ended": p.get("ended", "exit"),
                       "profiled": p in active} for p in procs],
        "locks": locks,
    }, "rcl-prof's report")


def lock_of(p, rep, sid):
    """The report's entry (a librcl_profile.Lock) for site @sid of process
    @p, or None."""
    r = p["site_rows"].get(sid)
    if r is None:
        return None
    if "byid" not in p:
        p["byid"] = {l.id: l for l in rep.locks}
    return p["byid"].get(r["id"])
