# SPDX-License-Identifier: MIT
"""Lock wrappers: functions that take the lock itself as a parameter
(`uv_mutex_init(uv_mutex_t *)`, xz's inline `mythread_mutex_init()`,
fio's `mutex_init_pshared(pthread_mutex_t *)`).  A lock initialised, or
first used, through one is named by the first caller outside the
wrappers (docs/PROFILER.md, "Definitions").  The parameters' types come
from the object's DWARF (readelf); without debug information no function
is a wrapper and names are what they were."""
import os
import re
import shutil
import subprocess

# The pointed-to type that makes a parameter "the lock", by row type.
LOCK_TYPES = {"mutex": "pthread_mutex_t", "rwlock-read": "pthread_rwlock_t",
              "rwlock-write": "pthread_rwlock_t",
              "spinlock": "pthread_spinlock_t"}

_DIE = re.compile(r"^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)")
_ATTR = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)$")
_REF = re.compile(r"<0x([0-9a-f]+)>")
_STRIP = ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type",
          "DW_TAG_restrict_type", "DW_TAG_atomic_type")


def _name(v):
    """DW_AT_name's value without readelf's form prefix."""
    return re.sub(r"^\(.*?\):\s*", "", v).strip()


def parse_dies(lines):
    """readelf --debug-dump=info lines -> (dies: {offset: {tag, name,
    type}}, params: {function name: [type offsets of its parameters]})
    for functions at the top level of their unit (depth 1) and their
    parameters (depth 2)."""
    dies, params = {}, {}
    cur, fn = None, None
    for line in lines:
        m = _DIE.match(line)
        if m:
            depth, off, tag = int(m.group(1)), int(m.group(2), 16), \
                m.group(3)
            cur = dies[off] = {"tag": tag, "name": None, "type": None}
            if depth == 1:
                fn = cur if tag == "DW_TAG_subprogram" else None
            elif depth == 2 and fn is not None and \
                    tag == "DW_TAG_formal_parameter":
                fn.setdefault("params", []).append(cur)
            continue
        m = _ATTR.match(line)
        if not m or cur is None:
            continue
        if m.group(1) == "DW_AT_name":
            cur["name"] = _name(m.group(2))
        elif m.group(1) == "DW_AT_type":
            r = _REF.search(m.group(2))
            if r:
                cur["type"] = int(r.group(1), 16)
    for d in dies.values():
        if d["tag"] == "DW_TAG_subprogram" and d["name"] and "params" in d:
            params.setdefault(d["name"], []).append(
                [p["type"] for p in d["params"]])
    return dies, params


def points_to(dies, off, type_name):
    """Whether the type at @off is a pointer to @type_name (through
    typedefs and qualifiers on either side of the pointer)."""
    seen = 0
    while off in dies and dies[off]["tag"] in _STRIP and seen < 32:
        off, seen = dies[off]["type"], seen + 1
    if off not in dies or dies[off]["tag"] != "DW_TAG_pointer_type":
        return False
    off = dies[off]["type"]
    while off in dies and seen < 64:
        d = dies[off]
        if d["tag"] == "DW_TAG_typedef" and d["name"] == type_name:
            return True
        if d["tag"] not in _STRIP:
            return False
        off, seen = d["type"], seen + 1
    return False


class Wrappers:
    """Which functions of an object take a lock of a given type by
    pointer, cached per object file."""

    def __init__(self):
        self.objs = {}

    def _load(self, path):
        if path not in self.objs:
            self.objs[path] = ({}, {})
            readelf = shutil.which("readelf")
            if readelf and os.path.isfile(path):
                try:
                    out = subprocess.run(
                        [readelf, "--debug-dump=info", "--dwarf-depth=3",
                         path], capture_output=True, text=True,
                        errors="replace", timeout=120).stdout
                    self.objs[path] = parse_dies(out.splitlines())
                except (OSError, subprocess.SubprocessError):
                    pass
        return self.objs[path]

    def is_wrapper(self, path, function, row_type):
        """Whether @function of object @path has a parameter that points
        to a lock of the row's type ("mutex", "rwlock-read"...)."""
        want = LOCK_TYPES.get(row_type)
        if not want or not function:
            return False
        dies, params = self._load(path)
        return any(points_to(dies, t, want)
                   for sig in params.get(function, []) for t in sig)
