# SPDX-License-Identifier: MIT
"""The per-process dumps librclprof.so writes at exit ("rclprof-dump"
text, one file per process), read into one dict per process: its sites
and their counters, blame, stacks, timelines and thread-by-lock rows.
Raw addresses (a dump written from a signal handler) are translated
with the process's maps into (offset, symbol, object path)."""
import os
import struct

from .errors import Error

LIBNAME = "librclprof.so"  # the profiler's library: its frames are not CMD's

def parse_addr(fields):
    """OFFSET SYMBOL PATH (PATH may contain spaces)."""
    off = int(fields[0], 16)
    sym = None if fields[1] == "-" else fields[1]
    return off, sym, " ".join(fields[2:])


def elf_load_bias_delta(path, off0):
    """vaddr of file offset @off0 of the ELF object @path, from its PT_LOAD
    segments; None when the file cannot be read as ELF."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 52 or h[:4] != b"\x7fELF":
                return None
            is64, le = h[4] == 2, h[5] == 1
            e = "<" if le else ">"
            if is64:
                phoff, = struct.unpack(e + "Q", h[32:40])
                phentsize, phnum = struct.unpack(e + "HH", h[54:58])
            else:
                phoff, = struct.unpack(e + "I", h[28:32])
                phentsize, phnum = struct.unpack(e + "HH", h[42:46])
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
    except OSError:
        return None
    loads = []
    for i in range(phnum):
        b = ph[i * phentsize:(i + 1) * phentsize]
        if is64:
            typ, _fl, poff, pvaddr, _pa, filesz = struct.unpack(
                e + "IIQQQQ", b[:40])
        else:
            typ, poff, pvaddr, _pa, filesz = struct.unpack(e + "IIIII",
                                                            b[:20])
        if typ == 1:  # PT_LOAD
            loads.append((poff, pvaddr, filesz))
    for poff, pvaddr, filesz in loads:
        if poff <= off0 < poff + max(filesz, 1) or (off0 == 0 and
                                                     poff == 0):
            return pvaddr - poff + off0
    if loads:  # off0 below the first segment (page rounding)
        poff, pvaddr, _ = loads[0]
        return pvaddr - poff + off0
    return None


class Maps:
    """Raw addresses of a dump written from a signal handler or _exit,
    translated with the process's /proc/self/maps into (offset from the
    object's load bias, path), as dladdr would have done."""

    def __init__(self, lines):
        objs, order, last = {}, [], None
        for line in lines:
            f = line.split(None, 5)
            start, end = (int(x, 16) for x in f[0].split("-"))
            off = int(f[2], 16)
            path = f[5].strip() if len(f) > 5 else ""
            if path.endswith(" (deleted)"):
                path = path[:-10]
            if path.startswith("/"):
                o = objs.get(path)
                if o is None:
                    o = objs[path] = {"path": path, "start": start,
                                      "off": off, "end": end}
                    order.append(o)
                o["start"] = min(o["start"], start)
                if start == o["start"]:
                    o["off"] = off
                o["end"] = max(o["end"], end)
                last = o
            elif path == "" and last is not None and start == last["end"]:
                last["end"] = end  # .bss beyond the file: anonymous
            else:
                last = None
        for o in order:
            v = elf_load_bias_delta(o["path"], o["off"])
            o["bias"] = o["start"] - (v if v is not None else o["off"])
        self.objs = order

    def translate(self, addr):
        for o in self.objs:
            if o["start"] <= addr < o["end"]:
                return addr - o["bias"], None, o["path"]
        return addr, None, "?"


def load_dump(path):
    proc = {"sites": {}, "blame": [], "maps": [], "stacks": [],
            "threads_tl": [], "ncpu": 1, "serial_max": 1, "traced": False,
            "rwpairs": [], "trows": []}
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("rclprof-dump "):
        raise Error("%s: not a profiler dump" % path)
    if lines[-1] != "end":
        raise Error("%s: truncated dump" % path)
    for n, line in enumerate(lines[1:-1], 2):
        f = line.split(" ")
        try:
            load_line(proc, f)
        except (IndexError, ValueError, KeyError):
            raise Error("%s:%d: malformed line" % (path, n))
    if proc["maps"]:
        raw_to_offsets(proc, Maps(proc["maps"]))
    del proc["maps"]
    hz = proc["tsc_hz"]
    proc["ns"] = lambda cyc: cyc * 1e9 / hz
    if proc["exe"] == "":
        proc["exe"] = "?"
    return proc


def raw_to_offsets(proc, maps):
    fix = lambda a: maps.translate(a[0]) if a[2] == "@" else a
    for s in proc["sites"].values():
        s["frames"] = [fix(a) for a in s["frames"]]
        if s["obj"]:
            s["obj"] = fix(s["obj"])
    proc["blame"] = [(site, cyc, cnt, fix(a))
                     for site, cyc, cnt, a in proc["blame"]]
    for st in proc["stacks"]:
        st["frames"] = [fix(a) for a in st["frames"]]


CALLS = ["pthread_mutex_init", "pthread_mutex_destroy", "pthread_mutex_lock",
         "pthread_mutex_trylock", "pthread_mutex_timedlock",
         "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_timedwait",
         "pthread_cond_signal", "pthread_cond_broadcast", "pthread_create",
         "pthread_join", "pthread_exit", "pthread_mutex_clocklock",
         "pthread_cond_clockwait", "pthread_rwlock_init",
         "pthread_rwlock_destroy", "pthread_rwlock_rdlock",
         "pthread_rwlock_tryrdlock", "pthread_rwlock_timedrdlock",
         "pthread_rwlock_clockrdlock", "pthread_rwlock_wrlock",
         "pthread_rwlock_trywrlock", "pthread_rwlock_timedwrlock",
         "pthread_rwlock_clockwrlock", "pthread_rwlock_unlock",
         "pthread_spin_init", "pthread_spin_destroy", "pthread_spin_lock",
         "pthread_spin_trylock", "pthread_spin_unlock"]
STAT_FIELDS = ["acq", "contended", "try_fail", "timed_out", "hold", "wait",
               "cs", "cond_wait", "hold_max", "wait_max", "blame",
               "cs_misses", "cs_counted", "holds", "timed", "hold_u", "cs_u",
               "serial", "probes", "probe_wall", "probe_block",
               "probe_nblock"]
# timeline event kinds (enum prof_ev_kind)
EV_WAIT, EV_HOLD, EV_COND, EV_JOIN = range(4)


def load_line(proc, f):
    tag = f[0]
    if tag in ("pid", "ppid", "wall_ns", "wall_cycles", "threads",
               "thread_time", "cs_union", "untracked"):
        proc[tag] = int(f[1])
    elif tag == "exe":
        proc["exe"] = " ".join(f[1:])
    elif tag == "tsc_hz":
        proc["tsc_hz"] = float(f[1])
    elif tag == "cond":
        proc["cond_waits"], proc["signals"], proc["broadcasts"] = \
            map(int, f[1:4])
    elif tag == "sample":
        proc["sample"] = int(f[1])
    elif tag == "sections":
        (proc["sections"], proc["sections_timed"], proc["sections_c"],
         proc["union_c"]) = map(int, f[1:5])
    elif tag == "calls":
        proc["calls"] = dict(zip(CALLS, map(int, f[1:1 + len(CALLS)])))
    elif tag == "misses":
        proc["misses"] = " ".join(f[1:])
    elif tag == "ended":
        proc["ended"] = " ".join(f[1:])
    elif tag == "map":
        proc["maps"].append(" ".join(f[1:]))
    elif tag == "site":
        proc["sites"][int(f[1])] = {"kind": int(f[2]),
                                    "instances": int(f[3]),
                                    "type": int(f[5]) if len(f) > 5 else 0,
                                    "frames": [], "obj": None}
    elif tag == "frame":
        proc["sites"][int(f[1])]["frames"].append(parse_addr(f[3:]))
    elif tag == "obj":
        proc["sites"][int(f[1])]["obj"] = parse_addr(f[2:])
    elif tag == "stat":
        st = proc["sites"][int(f[1])]["stat"] = dict.fromkeys(STAT_FIELDS, 0)
        st.update(zip(STAT_FIELDS, map(int, f[2:2 + len(STAT_FIELDS)])))
    elif tag in ("hhold", "hwait"):
        proc["sites"][int(f[1])][tag] = [int(x) for x in f[2:]]
    elif tag == "blame":
        proc["blame"].append((int(f[1]), int(f[2]), int(f[3]),
                              parse_addr(f[4:])))
    elif tag == "rwpair":
        proc["rwpairs"].append((int(f[1]), int(f[2])))
    elif tag == "trow":
        proc["trows"].append((int(f[1]), [
            (int(c.split(":")[0]), int(c.split(":")[1])) for c in f[2:]]))
    elif tag == "ncpu":
        proc["ncpu"], proc["serial_max"] = int(f[1]), int(f[2])
    elif tag == "stack":
        proc["traced"] = True
        proc["stacks"].append({"site": int(f[1]), "wait": int(f[3]),
                               "nwaits": int(f[4]), "hold": int(f[5]),
                               "nholds": int(f[6]), "frames": []})
    elif tag == "sframe":
        proc["stacks"][-1]["frames"].append(parse_addr(f[2:]))
    elif tag == "tthread":
        proc["traced"] = True
        proc["threads_tl"].append({"id": int(f[1]), "start": int(f[2]),
                                   "end": int(f[3]), "dropped": int(f[5]),
                                   "ev": []})
    elif tag == "ev":
        proc["threads_tl"][-1]["ev"].append(
            (int(f[1]), int(f[2]), int(f[3]), int(f[4])))
    else:
        raise KeyError(tag)


def load_dumps(d):
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".dump"))
    except OSError as e:
        raise Error("%s: %s" % (d, e.strerror))
    procs = [load_dump(os.path.join(d, n)) for n in names]
    for p in procs:
        for s in p["sites"].values():
            s["stat"] = s.get("stat") or dict.fromkeys(STAT_FIELDS, 0)
        p["acquisitions"] = sum(s["stat"]["acq"] for s in p["sites"].values())
        split_rw_serial(p)
    return procs


def split_rw_serial(p):
    """An rwlock's serialising time is dumped on its write side: share it
    between the two sides by the blame of their holds (the waiting each
    side caused, while which the program could serialise)."""
    for w, r in p["rwpairs"]:
        if w not in p["sites"] or r not in p["sites"]:
            continue
        sw, sr = p["sites"][w]["stat"], p["sites"][r]["stat"]
        blame = sw["blame"] + sr["blame"]
        if sw["serial"] and blame:
            part = sw["serial"] * sr["blame"] // blame
            sr["serial"] += part
            sw["serial"] -= part
