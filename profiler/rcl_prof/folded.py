# SPDX-License-Identifier: MIT
"""--folded: the wait and hold time of every lock by call stack, as
folded stacks ("wait;LOCK;root;...;caller NS") for flame graph tools."""
import os
import sys

from .dumps import LIBNAME
from .errors import Error
from .model import fix_path, lock_of

def frame_names(syms, path, off, dlsym):
    """The frames of one return address, outermost first: a function
    and the calls inlined into it, each `func [file.c:42]` or `func`
    (without line information), or `object+0xoff` (without symbols); no
    ';', which separates frames."""
    chain = syms.inl.get((path, off)) or []
    if not chain:
        loc = syms.code_at(path, off, dlsym)
        if not loc["function"]:
            return ["%s+%#x" % (os.path.basename(path), off)]
        chain = [(loc["function"], loc["file"], loc["line"])]
    names = []
    for fn, file, line in reversed(chain):
        s = fn
        if file and line:
            s += " [%s:%d]" % (os.path.basename(file), line)
        names.append(s.replace(";", ":"))
    return names


def folded_lines(procs, rep, syms):
    """{folded stack: nanoseconds}.  A frame is a return address: its call
    is the instruction before it (offset - 1).  Under --sample N the hold
    stacks are scaled like the report's hold totals."""
    wanted = {}
    for p in procs:
        for st in p["stacks"]:
            for o, _sym, path in st["frames"]:
                wanted.setdefault(fix_path(path, p), set()).add(max(o - 1, 0))
    syms.resolve_code(wanted)
    syms.resolve_inline(wanted)
    out = {}
    for p in procs:
        ns = p["ns"]
        hold_by_site = {}
        for st in p["stacks"]:
            hold_by_site[st["site"]] = hold_by_site.get(st["site"], 0) + \
                st["hold"]
        for st in p["stacks"]:
            lock = lock_of(p, rep, st["site"])
            if lock is None:
                continue
            frames = []
            for o, sym, path in reversed(st["frames"]):
                if os.path.basename(path) != LIBNAME:
                    frames += frame_names(syms, fix_path(path, p),
                                          max(o - 1, 0), sym)
            frames = frames or ["[unknown stack]"]
            hold = ns(st["hold"])
            sampled = p["sites"][st["site"]]["stat"]
            if p.get("sample", 1) > 1 and hold_by_site[st["site"]]:
                # the site's timed holds stand for all of them
                f = lock.hold_ns.total / ns(hold_by_site[st["site"]])
                hold *= f if sampled["timed"] else 1
            name = lock.name.replace(";", ":")
            for kind, v in (("wait", ns(st["wait"])), ("hold", hold)):
                if v > 0:
                    key = ";".join([kind, name] + frames)
                    out[key] = out.get(key, 0.0) + v
    return out


def folded_text(lines):
    """{stack: ns} as sorted "STACK NS" lines (whole nanoseconds; stacks
    that round to 0 are left out)."""
    return "".join("%s %d\n" % (k, round(v)) for k, v in sorted(lines.items())
                   if round(v) > 0)


def write_folded(procs, rep, syms, path):
    text = folded_text(folded_lines(procs, rep, syms))
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise Error("cannot write %s: %s" % (path, e.strerror))
