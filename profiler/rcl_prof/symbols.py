# SPDX-License-Identifier: MIT
"""Symbolisation: file:line and function of code offsets (addr2line),
the names of data symbols (nm), the functions that take a lock as a
parameter (readelf, wrappers.py), cached per object file."""
import os
import shutil
import subprocess

from .wrappers import Wrappers


def _addr2line(path, offs, flags):
    """addr2line FLAGS -e PATH on code offsets @offs: its output lines,
    none when the tool or the file is missing or the run fails."""
    a2l = shutil.which("addr2line")
    if not a2l or not os.path.isfile(path):
        return []
    try:
        return subprocess.run(
            [a2l] + flags + ["-e", path] + ["%#x" % o for o in offs],
            capture_output=True, text=True, timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return []


def _file_line(loc):
    """(file or None, line or None) of addr2line's "FILE:LINE" text."""
    file, _, line = loc.rpartition(":")
    line = line.split(" ")[0]
    return (None if file in ("", "??") else file,
            int(line) if line.isdigit() and line != "0" else None)


class Symbols:
    """file:line function for code offsets (addr2line), symbol names for
    data offsets (nm), cached per object file."""

    def __init__(self):
        self.code = {}
        self.inl = {}
        self.nm = {}
        self.wrappers = Wrappers()

    def resolve_code(self, wanted):
        """wanted: {path: set(offsets)}; fills self.code."""
        for path, offs in wanted.items():
            offs = sorted(o for o in offs if (path, o) not in self.code)
            if not offs:
                continue
            out = _addr2line(path, offs, ["-f", "-C"])
            for i, o in enumerate(offs):
                fn = out[2 * i] if 2 * i + 1 < len(out) else "??"
                loc = out[2 * i + 1] if 2 * i + 1 < len(out) else "??:0"
                self.code[(path, o)] = _file_line(loc) + (
                    None if fn == "??" else fn,)

    def resolve_inline(self, wanted):
        """wanted: {path: set(offsets)}; fills self.inl with each code
        offset's chain of inlined calls, innermost first: [(function,
        file, line)] (addr2line -i), empty when unknown."""
        for path, offs in wanted.items():
            offs = sorted(o for o in offs if (path, o) not in self.inl)
            if not offs:
                continue
            out = _addr2line(path, offs, ["-a", "-i", "-f", "-C"])
            chains, cur, i = {}, None, 0
            while i < len(out):
                if out[i].startswith("0x"):
                    cur = chains.setdefault(int(out[i], 16), [])
                    i += 1
                    continue
                if cur is not None and i + 1 < len(out):
                    fn = out[i]
                    if fn != "??":
                        cur.append((fn,) + _file_line(out[i + 1]))
                i += 2
            for o in offs:
                self.inl[(path, o)] = chains.get(o, [])

    def code_at(self, path, off, dlsym=None):
        file, line, fn = self.code.get((path, off), (None, None, None))
        return {"file": file, "line": line, "function": fn or dlsym,
                "object": path, "offset": off}

    def data_symbol(self, path, off):
        if path not in self.nm:
            self.nm[path] = self._nm(path)
        for start, size, name in self.nm[path]:
            if start <= off < start + max(size, 1):
                return name
        return None

    @staticmethod
    def _nm(path):
        nm = shutil.which("nm")
        syms = []
        if not nm or not os.path.isfile(path):
            return syms
        for flags in (["-S", "--defined-only"], ["-D", "-S", "--defined-only"]):
            try:
                out = subprocess.run([nm] + flags + [path],
                                     capture_output=True, text=True,
                                     timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            for line in out.splitlines():
                f = line.split()
                if len(f) == 4 and f[2] in "bBdDrRgGsSvV":
                    syms.append((int(f[0], 16), int(f[1], 16), f[3]))
            if syms:
                break
        return syms


def describe(loc):
    """file:line function, or function+off (object) without debug info."""
    if loc["file"] and loc["line"]:
        s = "%s:%d" % (os.path.basename(loc["file"]), loc["line"])
        return s + (" " + loc["function"] if loc["function"] else "")
    obj = os.path.basename(loc["object"])
    if loc["function"]:
        return "%s (%s+%#x)" % (loc["function"], obj, loc["offset"])
    return "%s+%#x" % (obj, loc["offset"])
