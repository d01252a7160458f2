# SPDX-License-Identifier: MIT
"""rcl-config.h (one editable entry per lock initialisation site) and the
--locks selection (all, NAME,..., or a profile written by rcl-prof)."""
import json
import os
import re

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
        try:
            with open(path) as f:
                data = json.load(f)
        except OSError as e:
            raise ValueError("%s: %s" % (path, e.strerror))
        except ValueError as e:
            raise ValueError("%s: not valid JSON: %s" % (path, e))
        locks = data.get("locks") if isinstance(data, dict) else data
        if not isinstance(locks, list):
            raise ValueError("%s: expected a list of locks (or an object "
                             "with a \"locks\" list)" % path)
        for n, ent in enumerate(locks):
            if not isinstance(ent, dict):
                raise ValueError("%s: lock #%d is not an object" % (path, n))
            verdict = str(ent.get("verdict", "rcl")).lower()
            names = [str(ent[k]) for k in ("name", "symbol") if ent.get(k)]
            site = ent.get("site") or ent.get("init_site") or ""
            if isinstance(site, dict):
                site = "%s:%s" % (site.get("file", ""), site.get("line", ""))
            if ent.get("file") and ent.get("line"):
                site = "%s:%s" % (ent["file"], ent["line"])
            comment = _comment(ent)
            for key in names + ([_site_key(site)] if site else []):
                self.profile[key] = (verdict, comment)
        if not self.profile:
            raise ValueError("%s: no lock has a name, symbol or site" % path)

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
    """rcl-prof writes "RCL recommended", "may help" or "no"; other tools
    may say rcl/yes/true."""
    v = verdict.strip().lower()
    return v.startswith("rcl") or v in ("yes", "true", "transform")


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
        v = ent.get(k)
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


def write_config(sites, old):
    """@sites: [(macro, algo, comment)]; @old: existing entries."""
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
