# SPDX-License-Identifier: MIT
"""The JSON profile rcl-prof writes and `rcl-refactor --locks` reads
(docs/PROFILER.md, "JSON profile"): typed records, one reader that checks
the schema version and every entry, and the writer.

The schema's major version is the integer `version`; version 1 only ever
gains fields, so keys a record does not know are kept (in `extra`) and
written back, never an error.  Errors are ProfileError, a ValueError with
a one-line message naming the file and the entry.
"""
import dataclasses
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

SCHEMA_VERSION = 1
RCL_RECOMMENDED = "RCL recommended"
VERDICTS = (RCL_RECOMMENDED, "may help", "no")


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line."""


def _f(t, null=False, required=False, key=None):
    """A record field: JSON type @t (see _check), nullable or not (None
    is then written as null, else the key is left out), required on
    reading; @key when the JSON key is not a Python name."""
    return field(default=None, metadata={"t": t, "null": null,
                                         "required": required, "key": key})


def _extra():
    return field(default_factory=dict, metadata={"extra": True})


@dataclass
class Totals:
    """hold_ns, wait_ns: sum, mean and maximum in nanoseconds."""
    total: Any = _f("num", required=True)
    avg: Any = _f("num", required=True)
    max: Any = _f("num", required=True)
    extra: Dict[str, Any] = _extra()


@dataclass
class ReleaseSite:
    """Blame of one release call site of a lock."""
    site: Optional[str] = _f("str", required=True)
    file: Optional[str] = _f("str", null=True)
    line: Optional[int] = _f("int", null=True)
    function: Optional[str] = _f("str", null=True)
    blame_ns: Any = _f("num")
    releases: Optional[int] = _f("int")
    share: Any = _f("num")
    extra: Dict[str, Any] = _extra()


@dataclass
class Lock:
    """One entry of `locks`: a lock site (one side of an rwlock).  Only
    `name` and `verdict` are required; the others are None when absent."""
    id: Optional[str] = _f("str")
    name: Optional[str] = _f("str", required=True)
    kind: Optional[str] = _f("str")
    type: Optional[str] = _f("str")
    symbol: Optional[str] = _f("str", null=True)
    file: Optional[str] = _f("str", null=True)
    line: Optional[int] = _f("int", null=True)
    function: Optional[str] = _f("str", null=True)
    backtrace: Optional[List[str]] = _f(["str"])
    wrappers: Optional[List[str]] = _f(["str"])
    instances: Optional[int] = _f("int")
    acquisitions: Optional[int] = _f("int")
    contended: Optional[int] = _f("int")
    contention_pct: Any = _f("num")
    trylock_failures: Optional[int] = _f("int")
    timed_holds: Optional[int] = _f("int")
    timeouts: Optional[int] = _f("int")
    pct_time_in_cs: Any = _f("num")
    pct_time_waiting: Any = _f("num")
    cs_ns: Any = _f("num")
    hold_ns: Optional[Totals] = _f(Totals)
    wait_ns: Optional[Totals] = _f(Totals)
    cond_wait_ns: Any = _f("num")
    serialising_ns: Any = _f("num")
    serialising_pct: Any = _f("num")
    blame_ns: Any = _f("num")
    blame_share: Any = _f("num")
    avg_queue: Any = _f("num")
    misses_per_cs: Any = _f("num", null=True)
    misses_per_cs_note: Optional[str] = _f("str", null=True)
    verdict: Optional[str] = _f("str", required=True)
    verdict_note: Optional[str] = _f("str")
    probed_holds: Optional[int] = _f("int")
    blocked_pct: Any = _f("num")
    blocked_holds_pct: Any = _f("num")
    release_sites: Optional[List[ReleaseSite]] = _f([ReleaseSite])
    hold_histogram: Optional[List[int]] = _f(["int"])
    wait_histogram: Optional[List[int]] = _f(["int"])
    thread_time_ns: Any = _f("num")
    rank: Optional[int] = _f("int")
    extra: Dict[str, Any] = _extra()

    @property
    def rcl_recommended(self):
        return self.verdict == RCL_RECOMMENDED


@dataclass
class Thresholds:
    lower: Any = _f("num", required=True)
    upper: Any = _f("num", required=True)
    source: Optional[str] = _f("str")
    extra: Dict[str, Any] = _extra()


@dataclass
class Global:
    """The whole run (the table's header)."""
    processes: Optional[int] = _f("int")
    threads: Optional[int] = _f("int")
    wall_ns: Any = _f("num")
    thread_time_ns: Any = _f("num")
    pct_time_in_cs: Any = _f("num")
    acquisitions: Optional[int] = _f("int")
    contended: Optional[int] = _f("int")
    acquisitions_per_s_per_thread: Any = _f("num")
    untracked_acquisitions: Optional[int] = _f("int")
    cond_waits: Optional[int] = _f("int")
    cond_signals: Optional[int] = _f("int")
    cond_broadcasts: Optional[int] = _f("int")
    blame_ns: Any = _f("num")
    sample: Optional[int] = _f("int")
    wrapper_calls: Optional[Dict[str, int]] = _f({"int"})
    misses: Optional[str] = _f("str")
    extra: Dict[str, Any] = _extra()


@dataclass
class Process:
    """One per-process dump."""
    pid: Optional[int] = _f("int", required=True)
    ppid: Optional[int] = _f("int")
    exe: Optional[str] = _f("str")
    threads: Optional[int] = _f("int")
    wall_ns: Any = _f("num")
    thread_time_ns: Any = _f("num")
    acquisitions: Optional[int] = _f("int")
    ended: Optional[str] = _f("str")
    profiled: Optional[bool] = _f("bool")
    extra: Dict[str, Any] = _extra()


@dataclass
class ColocCount:
    """A thread's acquisitions of one lock."""
    lock: Optional[str] = _f("str", required=True)
    id: Optional[str] = _f("str")
    count: Optional[int] = _f("int", required=True)
    extra: Dict[str, Any] = _extra()


@dataclass
class ColocThread:
    """A row of the thread-by-lock matrix (thread: creation index)."""
    pid: Optional[int] = _f("int", required=True)
    thread: Optional[int] = _f("int", required=True)
    acquisitions: Optional[List[ColocCount]] = _f([ColocCount],
                                                  required=True)
    extra: Dict[str, Any] = _extra()


@dataclass
class ColocGroup:
    """Threads that mostly take one lock: one CPU for them."""
    pid: Optional[int] = _f("int", required=True)
    lock: Optional[str] = _f("str", required=True)
    threads: Optional[List[int]] = _f(["int"], required=True)
    min_share: Any = _f("num", required=True)
    extra: Dict[str, Any] = _extra()


@dataclass
class Colocation:
    min_acquisitions: Optional[int] = _f("int")
    share: Any = _f("num")
    threads: Optional[List[ColocThread]] = _f([ColocThread])
    groups: Optional[List[ColocGroup]] = _f([ColocGroup])
    extra: Dict[str, Any] = _extra()


@dataclass
class Profile:
    """The document.  `version` and `locks` are required."""
    version: Optional[int] = _f("int", required=True)
    tool: Optional[str] = _f("str")
    command: Optional[List[str]] = _f(["str"])
    exit_status: Optional[int] = _f("int")
    thresholds: Optional[Thresholds] = _f(Thresholds)
    global_: Optional[Global] = _f(Global, key="global")
    processes: Optional[List[Process]] = _f([Process])
    locks: Optional[List[Lock]] = _f([Lock], required=True)
    colocation: Optional[Colocation] = _f(Colocation)
    extra: Dict[str, Any] = _extra()

    def lock(self, name):
        """The entry named @name (or whose symbol is @name), or None."""
        for lk in self.locks:
            if name in (lk.name, lk.symbol):
                return lk
        return None


# ---- reading ---------------------------------------------------------------

_TYPE_WORDS = {"str": "a string", "int": "an integer", "num": "a number",
               "bool": "true or false"}


def _jtype(v):
    """The JSON name of @v's type, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


def _want(t):
    if isinstance(t, str):
        return _TYPE_WORDS[t]
    if isinstance(t, list):
        return "a list"
    return "an object"


def _scalar_ok(t, v):
    if t == "str":
        return isinstance(v, str)
    if t == "bool":
        return isinstance(v, bool)
    if isinstance(v, bool):
        return False
    if t == "int":
        return isinstance(v, int)
    return isinstance(v, (int, float))  # num


def _value(t, v, where):
    """@v checked against type @t: "str", "int", "num", "bool", a record
    class, [T] (a list of T) or {T} (an object of T values)."""
    if isinstance(t, list):
        if not isinstance(v, list):
            raise ProfileError("%s: expected a list, not %s"
                               % (where, _jtype(v)))
        return [_value(t[0], x, "%s[%d]" % (where, i))
                for i, x in enumerate(v)]
    if isinstance(t, set):
        (et,) = t
        if not isinstance(v, dict):
            raise ProfileError("%s: expected an object, not %s"
                               % (where, _jtype(v)))
        return {k: _value(et, x, _at(where, k)) for k, x in v.items()}
    if isinstance(t, type):
        return _record(t, v, where)
    if not _scalar_ok(t, v):
        raise ProfileError("%s: expected %s, not %s"
                           % (where, _want(t), _jtype(v)))
    return v


def _at(where, key):
    return "%s.%s" % (where, key) if where else key


def _key(f):
    return f.metadata.get("key") or f.name


def _record(cls, obj, where):
    if not isinstance(obj, dict):
        raise ProfileError("%s: expected an object, not %s"
                           % (where, _jtype(obj)))
    vals, known = {}, set()
    for f in dataclasses.fields(cls):
        if f.metadata.get("extra"):
            continue
        k = _key(f)
        known.add(k)
        if k not in obj:
            if f.metadata["required"]:
                raise ProfileError("%s: no \"%s\"" % (where or "top level",
                                                      k))
            continue
        v = obj[k]
        if v is None and (f.metadata["null"] or not f.metadata["required"]):
            continue
        vals[f.name] = _value(f.metadata["t"], v, _at(where, k))
    return cls(extra={k: v for k, v in obj.items() if k not in known},
               **vals)


def _lock_where(i, ent):
    """locks[3] ("name"): an entry, named in messages."""
    name = ent.get("name") if isinstance(ent, dict) else None
    return "locks[%d]%s" % (i, " (%s)" % json.dumps(name)
                            if isinstance(name, str) else "")


def from_dict(doc, path="<profile>"):
    """The Profile of the parsed JSON @doc; ProfileError if the schema
    version is not 1 or any entry is malformed.  @path names the source
    in messages."""
    if not isinstance(doc, dict):
        raise ProfileError("%s: not a profile: expected a JSON object with "
                           "\"version\" and \"locks\", not %s"
                           % (path, _jtype(doc)))
    if "version" not in doc:
        raise ProfileError("%s: no schema version (rcl-prof writes "
                           "\"version\": %d)" % (path, SCHEMA_VERSION))
    ver = doc["version"]
    if isinstance(ver, bool) or not isinstance(ver, int):
        raise ProfileError("%s: schema version %s is not an integer (this "
                           "reader knows version %d)"
                           % (path, json.dumps(ver), SCHEMA_VERSION))
    if ver != SCHEMA_VERSION:
        raise ProfileError("%s: schema version %d, this reader knows "
                           "version %d only" % (path, ver, SCHEMA_VERSION))
    locks = doc.get("locks")
    if not isinstance(locks, list):
        raise ProfileError("%s: expected a list of lock entries in "
                           "\"locks\", not %s" % (path, _jtype(locks)
                                                  if "locks" in doc
                                                  else "nothing"))
    recs = []
    for i, ent in enumerate(locks):  # each entry named on error
        where = _lock_where(i, ent)
        if not isinstance(ent, dict):
            raise ProfileError("%s: %s: expected an object, not %s"
                               % (path, where, _jtype(ent)))
        v = ent.get("verdict")
        if v is None:
            raise ProfileError("%s: %s: no verdict (expected %s)"
                               % (path, where, _verdict_list()))
        if v not in VERDICTS:
            raise ProfileError("%s: %s: unknown verdict %s (expected %s)"
                               % (path, where, json.dumps(v),
                                  _verdict_list()))
        try:
            recs.append(_record(Lock, ent, where))
        except ProfileError as e:
            raise ProfileError("%s: %s" % (path, e))
    try:
        prof = _record(Profile, dict(doc, locks=[]), "")
    except ProfileError as e:
        raise ProfileError("%s: %s" % (path, e))
    prof.locks = recs
    return prof


def _verdict_list():
    q = ['"%s"' % v for v in VERDICTS]
    return ", ".join(q[:-1]) + " or " + q[-1]


def loads(text, path="<profile>"):
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ProfileError("%s: not valid JSON: %s" % (path, e))
    return from_dict(doc, path)


def read(path):
    """The Profile in file @path (ProfileError when unusable)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ProfileError("%s: %s" % (path, e.strerror))
    except UnicodeDecodeError as e:
        raise ProfileError("%s: not valid JSON: %s" % (path, e))
    return loads(text, path)


# ---- writing ---------------------------------------------------------------

def _out(v):
    if dataclasses.is_dataclass(v):
        return to_dict(v)
    if isinstance(v, list):
        return [_out(x) for x in v]
    if isinstance(v, dict):
        return {k: _out(x) for k, x in v.items()}
    return v


def to_dict(rec):
    """@rec (any record) as JSON data, keys in the schema's order and
    the unknown keys it was read with last; an absent field is left out
    (null when the schema allows null)."""
    out = {}
    for f in dataclasses.fields(rec):
        if f.metadata.get("extra"):
            continue
        v = getattr(rec, f.name)
        if v is None and not f.metadata["null"]:
            continue
        out[_key(f)] = _out(v)
    for k, v in rec.extra.items():
        out.setdefault(k, v)
    return out


def dumps(prof):
    return json.dumps(to_dict(prof), indent=1) + "\n"


def write(prof, path):
    """Write @prof to @path ("-": stdout) through a temporary file, so
    that a reader never sees half a profile; ProfileError on failure."""
    text = dumps(prof)
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        raise ProfileError("cannot write %s: %s" % (path, e.strerror))
