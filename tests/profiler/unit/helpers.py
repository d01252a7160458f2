# SPDX-License-Identifier: MIT
"""Shared fixtures for the rcl-prof unit tests: a full lock entry as
rcl-prof writes it, a profile around it, and a hand-written dump."""
import copy

import librcl_profile


def lock_entry(**over):
    """A lock entry with every version-1 field, in rcl-prof's order."""
    ent = {
        "id": "00000000000000a1", "name": "g_heavy", "kind": "static",
        "type": "mutex", "symbol": "g_heavy", "file": "app.c", "line": 12,
        "function": "main", "backtrace": ["app.c:12 main"],
        "wrappers": [],
        "instances": 1, "acquisitions": 1000, "contended": 10,
        "contention_pct": 1.0, "trylock_failures": 2, "timed_holds": 990,
        "timeouts": 0, "pct_time_in_cs": 70.0, "pct_time_waiting": 3.5,
        "cs_ns": 1.4e9,
        "hold_ns": {"total": 7e8, "avg": 700000.0, "max": 5000.0},
        "wait_ns": {"total": 0.0, "avg": 0.0, "max": 0.0},
        "cond_wait_ns": 0.0, "serialising_ns": 0.0, "serialising_pct": 0.0,
        "blame_ns": 2.5e6, "blame_share": 1.0, "avg_queue": 0.0036,
        "misses_per_cs": None,
        "misses_per_cs_note": "n/a: no hardware counters",
        "verdict": "RCL recommended",
        "release_sites": [{"site": "app.c:40 work", "file": "app.c",
                           "line": 40, "function": "work",
                           "blame_ns": 2.5e6, "releases": 7,
                           "share": 0.84}],
        "hold_histogram": [0, 0, 0, 1000], "wait_histogram": [],
        "thread_time_ns": 2e9, "rank": 1,
    }
    ent.update(over)
    return ent


def profile_doc(locks=None, **over):
    """A whole profile as rcl-prof writes it."""
    doc = {
        "version": 1, "tool": "rcl-prof 0.1.0", "command": ["./app", "-n"],
        "exit_status": 0,
        "thresholds": {"lower": 15.0, "upper": 60.0, "source": "default"},
        "global": {
            "processes": 1, "threads": 2, "wall_ns": 1000000000,
            "thread_time_ns": 2e9, "pct_time_in_cs": 50.0,
            "acquisitions": 1000, "contended": 10,
            "acquisitions_per_s_per_thread": 500.0,
            "untracked_acquisitions": 0, "cond_waits": 0,
            "cond_signals": 0, "cond_broadcasts": 0, "blame_ns": 2.5e6,
            "sample": 1, "wrapper_calls": {"pthread_mutex_lock": 1000},
            "misses": "n/a: no hardware counters"},
        "processes": [{"pid": 100, "ppid": 1, "exe": "/bin/app",
                       "threads": 2, "wall_ns": 1000000000,
                       "thread_time_ns": 2e9, "acquisitions": 1000,
                       "ended": "exit", "profiled": True}],
        "locks": [lock_entry()] if locks is None else locks,
        "colocation": {"min_acquisitions": 100, "share": 0.75,
                       "threads": [], "groups": []},
    }
    doc.update(over)
    return copy.deepcopy(doc)


def profile(locks=None, **over):
    return librcl_profile.from_dict(profile_doc(locks, **over), "test")


ZEROS = " 0" * 40


def dump_text(sites=((1, 1400000000, 4), (2, 600000000, 1),
                     (3, 200000000, 2))):
    """A dump of pid 100 (t_verdicts.sh's): sites (id, cs cycles,
    instances) at 1 GHz, 2 s of thread time."""
    out = ["rclprof-dump 1", "pid 100", "ppid 1", "exe /nonexistent/app",
           "tsc_hz 1000000000", "wall_ns 1000000000",
           "wall_cycles 1000000000", "threads 2", "thread_time 2000000000",
           "cs_union 1000000000", "untracked 0", "cond 0 0 0",
           "calls 1 0 3 0 0 3 0 0 0 0 1 1 0",
           "misses n/a: no hardware counters"]
    for sid, cs, inst in sites:
        out += ["site %d 1 %d 1" % (sid, inst),
                "frame %d 0 %#x - /nonexistent/app" % (sid, 4096 * sid + 1),
                "stat %d 1000 10 2 0 %d 0 %d 0 5000 0 0 0 0"
                % (sid, cs // 2, cs),
                "hhold %d 0 0 0 1000%s" % (sid, ZEROS[8:]),
                "hwait %d%s" % (sid, ZEROS)]
    out.append("end")
    return "\n".join(out) + "\n"


class FakeWrappers:
    """The functions named in @names take the lock as a parameter."""

    def __init__(self, names=()):
        self.names = set(names)

    def is_wrapper(self, path, function, row_type):
        return function in self.names


class FakeSymbols:
    """Symbols without addr2line or nm: every offset is `fn_OFF`
    (file.c:OFF), inlined chains as given, no data symbols; the
    functions in @wrappers take the lock as a parameter."""

    def __init__(self, inl=None, wrappers=()):
        self.code = {}
        self.inl = dict(inl or {})
        self.wrappers = FakeWrappers(wrappers)

    def resolve_code(self, wanted):
        for path, offs in wanted.items():
            for o in offs:
                self.code.setdefault((path, o), ("file.c", o, "fn_%x" % o))

    def resolve_inline(self, wanted):
        for path, offs in wanted.items():
            for o in offs:
                self.inl.setdefault((path, o), [])

    def code_at(self, path, off, dlsym=None):
        file, line, fn = self.code.get((path, off), (None, None, None))
        return {"file": file, "line": line, "function": fn or dlsym,
                "object": path, "offset": off}

    def data_symbol(self, path, off):
        return None
