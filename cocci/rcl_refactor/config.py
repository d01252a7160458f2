# SPDX-License-Identifier: MIT
"""rcl-config.h (one editable entry per lock initialisation site) and the
--locks selection (all, NAME,..., or a profile written by rcl-prof)."""
import os
import re

import librcl_profile  # shared with rcl-prof (profiler/librcl_profile)

HEADER = """\
/*
 * rcl-config.h: lock algorithm and server of every lock initialisation
 * site, written by rcl-refactor.  Edit freely: a later run keeps the
 * entries that are already here.  LIBLOCK_LOCK=ALGO still overrides
 * every site at run time (see liblock(3)).
 *
 * RCL_<site>_ALGO:   "rcl", "posix", "mcs", ... (rcl-bench --list)
 * RCL_<site>_SERVER: CPU of the RCL server, or LIBLOCK_SERVER_DEFAULT
 */
#ifndef RCL_CONFIG_H
#define RCL_CONFIG_H

#include <liblock.h>

"""
FOOTER = "#endif /* RCL_CONFIG_H */\n"


class Selection:
    """Which locks to transform, and the profile's words about each."""

    def __init__(self, spec):
        self.all = False
        self.names = set()
        self.profile = {}  # key or "file:line" -> (verdict, comment)
        self.spec = spec
        if spec == "all":
            self.all = True
        elif spec.endswith(".json") or os.path.isfile(spec):
            self._load(spec)
        else:
            self.names = {n.strip() for n in spec.split(",") if n.strip()}
            if not self.names:
                raise ValueError("--locks: empty list of lock names")

    def _load(self, path):
        """rcl-prof's profile, read and checked by librcl_profile (schema
        version 1, every entry with a name and a known verdict):
        librcl_profile.ProfileError, a ValueError, otherwise."""
        prof = librcl_profile.read(path)
        if not prof.locks:
            raise ValueError("%s: the profile lists no lock" % path)
        for ent in prof.locks:
            names = [n for n in (ent.name, ent.symbol) if n]
            # A block-scope static's symbol is NAME.N (GCC, Clang): NAME.
            names += [m.group(1) for m in
                      (re.match(r"([A-Za-z_]\w*)\.\d+$", n) for n in names)
                      if m]
            site = "%s:%s" % (ent.file, ent.line) \
                if ent.file and ent.line else ""
            comment = _comment(ent)
            for key in names + ([_site_key(site)] if site else []):
                self.profile[key] = (ent.verdict, comment)

    def profile_sites(self):
        """The (file name, line) of every site the profile names a lock
        by (the mutex's initialisation, or its first use)."""
        out = set()
        for k in self.profile:
            f, _, line = k.rpartition(":")
            if f and line.isdigit():
                out.add((f, int(line)))
        return out

    def name_sites(self, names_at):
        """@names_at: {(file name, line): lock names the compiler sees
        there}.  Each name gets the verdict of the profile's entry for its
        site, unless the profile names it already: a profile names a lock
        in a structure by where it is initialised, and a unit, a nested
        section or a lock call names it by its key ("TAG.field")."""
        for (f, line), names in sorted(names_at.items()):
            ent = self.profile.get("%s:%d" % (f, line))
            for n in sorted(names) if ent else ():
                self.profile.setdefault(n, ent)

    def selected(self, key, sites=()):
        """@key: "m", "TAG.field" or ".field" (structure unknown); @sites:
        [(file, line)] of its inits."""
        if self.all:
            return True
        if self.names:
            return any(k in self.names for k in _aliases(key))
        for k in _aliases(key) + [_site_key("%s:%d" % s) for s in sites]:
            if k in self.profile:
                return _is_rcl(self.profile[k][0])
        return False

    def use_selected(self, name):
        """Whether a name of frontend.Unit.mutex_uses may be a selected
        lock: "m", "TAG.field" as selected(), "local m" as "m";
        "?.field", a field of a structure without a tag, when some
        selected "X.field" (or ".field", "field") names that field;
        ".field" is answered by the other."""
        if name.startswith("."):
            return False
        if name.startswith("local "):
            return self.selected(name[6:])
        if not name.startswith("?."):
            return self.selected(name)
        fld = name[2:]
        if self.all or self.selected("." + fld):
            return True
        keys = self.names or {k for k, v in self.profile.items()
                              if _is_rcl(v[0])}
        return any(k.rpartition(".")[2] == fld for k in keys if "." in k)

    def comment(self, key, sites=()):
        for k in _aliases(key) + [_site_key("%s:%d" % s) for s in sites]:
            if k in self.profile:
                return self.profile[k][1]
        return None


def _aliases(key):
    """Names that select @key: itself and, for a field, ".field" and
    "field" (which select that field of every structure)."""
    field = key.rpartition(".")[2]
    return [key] if field == key else [key, "." + field, field]


def _is_rcl(verdict):
    """Of rcl-prof's verdicts ("RCL recommended", "may help" or "no",
    checked on reading), the one that selects a lock."""
    return verdict == librcl_profile.RCL_RECOMMENDED


def _site_key(site):
    f, _, line = str(site).rpartition(":")
    return "%s:%s" % (os.path.basename(f), line)


_PROFILE_KEYS = (("rank", "rank %s"), ("pct_time_in_cs", "%s%% of time in CS"),
                 ("contention_pct", "%s%% contended"),
                 ("acquisitions", "%s acquisitions"),
                 ("misses_per_cs", "%s misses/CS"), ("verdict", "verdict: %s"))


def _comment(ent):
    """The profile's numbers for this lock, for rcl-config.h."""
    parts = []
    for k, fmt in _PROFILE_KEYS:
        v = getattr(ent, k)
        if isinstance(v, float):
            v = "%.3g" % v
        if v is not None and not isinstance(v, (dict, list)):
            parts.append(fmt % v)
    return ", ".join(parts) or None


def existing_entries(path):
    """Entry blocks of an rcl-config.h we wrote before, by site macro."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return {}
    out = {}
    for m in re.finditer(r"((?:/\*(?:[^*]|\*(?!/))*\*/\n)?)"
                         r"(#define (RCL_\w+)_ALGO .*\n"
                         r"#define \3_SERVER .*\n)",
                         text):
        out[m.group(3)] = m.group(0)
    return out


def _in_comment(text):
    """@text, safe inside a /* */ comment: a reason may quote a source
    line that holds one (`liblock_lock(&m); /* peers */`)."""
    return text.replace("/*", "/ *").replace("*/", "* /").replace("\n", " ")


def write_config(sites, old):
    """@sites: [(macro, algo, comment)]; @old: existing entries."""
    sites = [(m, a, _in_comment(c)) for m, a, c in sites]
    body = []
    seen = set()
    for macro, entry in old.items():
        body.append(entry)
        seen.add(macro)
    posix = []
    for macro, algo, comment in sites:
        if algo is None:
            posix.append(" * %s\n" % comment)
            continue
        if macro in seen:
            continue
        seen.add(macro)
        body.append("/* %s */\n#define %s_ALGO \"%s\"\n"
                    "#define %s_SERVER LIBLOCK_SERVER_DEFAULT\n" %
                    (comment, macro, algo, macro))
    if posix:
        body.append("/*\n * Kept as pthread mutexes (no entry: edit the code "
                    "or rerun with\n * other --locks to convert them):\n" +
                    "".join(posix) + " */\n")
    return HEADER + "\n".join(body) + "\n" + FOOTER
