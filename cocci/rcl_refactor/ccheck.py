# SPDX-License-Identifier: MIT
"""The compile check: the diagnostics of the input and of the output are
compared as sets of (text, location), and a new one is blamed on the
section (or the lock) whose generated code it is in, so that the driver
can refuse that section alone and transform the others.

A location is the text of the line the diagnostic points at (stripped),
not its number: lines move when sections are extracted, the code around
them does not change."""
import collections
import os
import re

_DIAG = re.compile(r"^(.*?):(\d+):(?:(\d+):)? (warning|error|fatal error): "
                   r"(.*)$")
_EXPANSION = re.compile(r"^(.*?):(\d+):(?:\d+:)? note: in expansion of "
                        r"macro\b")


class Diag:
    """One warning or error: where (file, line number, line text) and
    what (its message, without the paths of scratch directories)."""

    def __init__(self, path, line, kind, msg, text):
        self.path, self.line, self.kind, self.msg = path, line, kind, msg
        self.text = text
        # (path, line) of the macro expansions the compiler names after
        # it ("note: in expansion of macro"), innermost first: where an
        # error in a header's #define comes from.
        self.expansions = []

    def key(self):
        return (os.path.basename(self.path), self.kind, self.msg,
                self.text)


def parse(stderr, scratch=None):
    """The diagnostics in a compiler's @stderr; paths under @scratch are
    made relative to it (the same file read from the input)."""
    out = []
    cache = {}
    for ln in stderr.splitlines():
        m = _DIAG.match(ln)
        if not m:
            e = _EXPANSION.match(ln)
            if e and out:
                out[-1].expansions.append((e.group(1), int(e.group(2))))
            continue
        path, line = m.group(1), int(m.group(2))
        msg = m.group(5)
        if scratch:
            msg = msg.replace(scratch + os.sep, "")
        if path not in cache:
            try:
                with open(path, encoding="latin-1") as fh:
                    cache[path] = fh.read().split("\n")
            except OSError:
                cache[path] = []
        lines = cache[path]
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        # A fatal error (a missing header) is an error: the output
        # does not compile.
        out.append(Diag(path, line, m.group(4).replace("fatal ", ""), msg,
                        text))
    return out


def at_expansion(diag, path):
    """@diag when it is in file @path; else, when it is in a macro's body
    elsewhere (a header) expanded in @path, a copy of it placed on the
    line of @path that expands the macro (the outermost expansion there);
    else None."""
    if diag.path == path:
        return diag
    lines = [ln for p, ln in diag.expansions if p == path]
    if not lines:
        return None
    d = Diag(path, lines[-1], diag.kind, diag.msg, diag.text)
    d.expansions = diag.expansions
    return d


# Warnings about what a call names, not about the code around it: a
# deprecated function called in a section is still called, and as often,
# once the section is extracted, from a line whose text the extraction
# may change (`keys[idx]` read as `keys[(*idx)]`).
_ABOUT_CALLEE = ("[-Wdeprecated-declarations]",)


def new_diags(before, after):
    """The diagnostics of @after whose (text, location) @before lacks; a
    warning about the function a call names (_ABOUT_CALLEE) is new only
    when @after has more of its message than @before."""
    def callee_counts(diags):
        return collections.Counter(
            (os.path.basename(d.path), d.kind, d.msg) for d in diags
            if d.msg.endswith(_ABOUT_CALLEE))
    old = {d.key() for d in before}
    had, has = callee_counts(before), callee_counts(after)
    return [d for d in after if d.key() not in old and not (
        d.msg.endswith(_ABOUT_CALLEE) and
        has[d.key()[:3]] <= had[d.key()[:3]])]


_HELD_CALL = re.compile(r"\bliblock_(?:lock|unlock|trylock)\s*\(([^;]*)")


def blame(diag, out_text, sections, site_macros, held=lambda name: (),
          conds=lambda name: ()):
    """(kind, object) the new diagnostic @diag of the transformed file
    (whose text is @out_text) belongs to: ("section", sec) when it is in
    the function extracted from a section or in the code that replaced
    it, ("lock", key) when it is on a converted lock's initialiser,
    ("locks", [key...]) on a lock call left in place (a held section's),
    ("conds", [key...]) on the declaration of a converted condition
    variable (the mutexes it waits with), else None.  @sections:
    {generated function name: Section}; @site_macros: {RCL_..._ALGO macro
    prefix: key}; @held(name): the converted locks whose name ends in
    field or variable @name and whose calls the file keeps in place;
    @conds(name): the mutexes of the converted conditions whose name ends
    in @name."""
    lines = out_text.split("\n")
    i = diag.line - 1
    if not 0 <= i < len(lines):
        return None
    gen = re.compile(r"\b(rcl_cs_\w+)\b")
    # Inside an extracted function (or its context union): the comment
    # that opens the generated code is above, before any line that ends
    # a top-level definition.
    for j in range(i, -1, -1):
        if j < i and lines[j].startswith("}") and not lines[j].startswith(
                "};"):
            break
        m = re.match(r"static void \*(rcl_cs_\w+)\(void \*rcl_arg\)",
                     lines[j])
        if m and m.group(1) in sections:
            return ("section", sections[m.group(1)])
        if lines[j].startswith("/* rcl-refactor: critical section of "):
            for k in range(j, min(len(lines), i + 64)):
                m = re.match(r"static void \*(rcl_cs_\w+)\(", lines[k])
                if m and m.group(1) in sections:
                    return ("section", sections[m.group(1)])
            break
    for name, key in site_macros.items():
        if name in lines[i]:
            return ("lock", key)
    # A lock call left in place: the lock its argument names (the last
    # identifier of `&ctx->smd.lock_peers`), not a section of the
    # function around it.
    m = _HELD_CALL.search(lines[i])
    if m:
        ids = re.findall(r"[A-Za-z_]\w*", m.group(1).split(",")[0])
        keys = held(ids[-1]) if ids else ()
        if keys:
            return ("locks", list(keys))
    # A converted condition's declaration (`static liblock_cond_t c =
    # INIT;`, an initialiser the tool did not read as pthread's)
    m = re.search(r"\bliblock_cond_t\b(.*)", lines[i])
    if m:
        keys = [k for n in re.findall(r"[A-Za-z_]\w*",
                                      re.sub(r"=[^,;]*", "", m.group(1)))
                for k in conds(n)]
        if keys:
            return ("conds", keys)
    # In the function that calls liblock_exec(): the nearest call above
    # (or below) in the same function.
    if not _in_function(lines, i):
        return None
    for rng in (range(i, -1, -1), range(i, len(lines))):
        for j in rng:
            if j != i and lines[j].startswith("}"):
                break
            for m in gen.finditer(lines[j]):
                if m.group(1) in sections and "(" in lines[j]:
                    return ("section", sections[m.group(1)])
    return None


def _in_function(lines, i):
    """Whether line @i is in a function body (written the usual way: the
    body's closing brace in column 0)."""
    for j in range(i, -1, -1):
        ln = lines[j]
        if j < i and ln.startswith("}"):
            return False
        if ln.startswith("{") or re.match(r"[A-Za-z_].*\)\s*\{\s*$", ln):
            return True
    return False
