# SPDX-License-Identifier: MIT
"""Sections inside a macro's body.

memcached's extstore.c writes

    #define STAT_INCR(e, stat, amount) { \\
        pthread_mutex_lock(&e->stats_mutex); \\
        e->stats.stat += amount; \\
        pthread_mutex_unlock(&e->stats_mutex); \\
    }

and zstd's JOB_ERROR(e) locks `&job->job_mutex` (a local of the function
that expands it), sets the job's result, unlocks and jumps to the error
label.  Such a macro is not a lock macro (its expansion is more than a
lock call) and its sections cannot be extracted (the code is the macro's,
shared by every expansion).  They are held: the lock calls in the
`#define` become liblock_lock/liblock_trylock/liblock_unlock, provided
every lock they name, at every expansion of the macro, is converted (the
body is one text for all of them).  A lock that one expansion names and
that stays POSIX keeps every other lock the macro names POSIX too.

A *section macro* is a function-like `#define`, read by the compiler
(not in a skipped branch), defined once in the files read and not
overridden by --macro-file, whose body calls lock functions (pthread's,
or the project's lock macros and parameter wrappers), each call a
statement of its own; its other mentions of locks (a condition wait, say)
keep those locks POSIX as before (Program._scan_macro).  A wrapper
function that computes its lock from its parameters stays called there
(its own body is converted).  An expansion is
a call of it inside a function; its lock expressions are named there, at
the expansion, with the macro's arguments substituted."""
import re

from . import analyse, cparse, find


class SectionMacro:
    def __init__(self, f, tok, name, params, body_off):
        self.file, self.tok, self.name, self.params = f, tok, name, params
        self.line = f.src.line_of(f.src.toks[tok].start)
        self.where = "%s at %s:%d" % (name, f.display, self.line)
        # (LockFn, argument texts in the macro's terms, start and end
        # offsets of the call in the file's text, end of its name)
        self.calls = []
        self.body_off = body_off  # where the body starts in the file
        self.expansions = []  # (File, token of the macro's name, FuncInfo)
        # (File, token, [key name or None per call], why or None)
        self.named = []
        self.keys = set()  # every lock its calls name at some expansion
        self.why = None    # set when an expansion's lock cannot be told
        # The macro's other definitions (#undef, then #define again:
        # collectd's UC_WRAP), each a SectionMacro making the same lock
        # calls: an expansion locks alike whichever is in effect there,
        # and every definition is rewritten (edits()).
        self.others = []

    def definitions(self):
        return [self] + self.others

    def ranges(self, f):
        """Offsets, in the text of File @f, of the lock calls of its
        definitions there."""
        return [(a, b) for d in self.definitions() if d.file is f
                for _, _, a, b, _ in d.calls]

    def signature(self):
        """What its expansions lock: the parameters and each lock call's
        function and arguments, in order."""
        return (tuple(self.params),
                tuple((lf.name, lf.role, tuple(args))
                      for lf, args, _, _, _ in self.calls))

    def through_wrappers(self):
        """Whether every lock call of its body is of a wrapper function
        that names its lock itself (named_wrapper): the body is never
        rewritten, and each call takes the lock its wrapper's body takes,
        converted or not.  Then an expansion the tool does not follow
        (Tor's SPIN_UNTIL() inside SPIN(), in test_threads.c), or whose
        lock it cannot name, keeps no lock POSIX: that section stays as
        written, on the wrapper's lock."""
        return all(named_wrapper(lf) for lf, _, _, _, _ in self.calls)


_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)")


def find_all(prog):
    """{name: SectionMacro} of the files of @prog."""
    defs = {}
    for f in prog.files:
        for k, t in enumerate(f.src.toks):
            if t.kind != "pp":
                continue
            m = _DEFINE.match(t.text)
            if not m:
                continue
            if f.src.line_of(t.start) in f.dead_defines:
                continue
            defs.setdefault(m.group(1), []).append((f, k, m))
    out = {}
    for name, found in defs.items():
        if name in prog.fns or name in prog.api or \
                name in getattr(prog, "guard_names", ()):
            continue  # (a scope guard's kept uses: safety.py)
        bodies = {_flat(m.string[m.end():]) for _, _, m in found}
        sms = [_section_macro(prog, f, k, m, bodies) for f, k, m in found]
        # Defined several times (in one file, #undef between, or in
        # several): one section macro when every definition makes the
        # same lock calls; else each definition's mentions of a lock
        # keep it POSIX (Program._scan_macro).
        if None in sms or len({sm.signature() for sm in sms}) != 1:
            continue
        out[name] = sms[0]
        sms[0].others = sms[1:]
    # A macro expanded by another macro: those expansions are not seen.
    for name, sm in out.items():
        if sm.through_wrappers():
            continue
        own = {id(d.file.src.toks[d.tok]) for d in sm.definitions()}
        for f in prog.files:
            for t in f.src.toks:
                if t.kind == "pp" and id(t) not in own and \
                        re.search(r"\b%s\b" % name, t.text) and \
                        _DEFINE.match(t.text):
                    sm.why = sm.why or (
                        "%s is used in the body of macro %s at %s:%d (its "
                        "expansions there are not followed)" % (
                            sm.where, _DEFINE.match(t.text).group(1),
                            f.display, f.src.line_of(t.start)))
    return out


def _flat(body):
    """A macro body's text with its continuations and spacing evened."""
    return " ".join(body.replace("\\\n", " ").split())


def _section_macro(prog, f, k, m, bodies):
    """The SectionMacro of the definition of token @k of @f (match @m),
    or None; @bodies: the flattened bodies of every definition of that
    name in the files."""
    t = f.src.toks[k]
    name = m.group(1)
    params = [p.strip() for p in m.group(2).split(",") if p.strip()]
    if any(not re.fullmatch(r"[A-Za-z_]\w*", p) for p in params):
        return None  # variadic: its arguments are not mapped
    # None when every definition is #undef'd again after its uses
    # (collectd's UC_WRAP): the files' own definitions hold
    chosen = prog.macros.get(name)
    body = t.text[m.end():]
    if chosen is not None and (chosen[0] is None or
                               _flat(chosen[1]) not in bodies):
        return None  # --macro-file gives another definition
    try:
        toks = cparse.lex(body)
    except cparse.ParseError:
        return None
    sm = SectionMacro(f, k, name, params, t.start + m.end())
    for i, b in enumerate(toks):
        lf = prog.fns.get(b.text) if b.kind == "id" else None
        if lf is None or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        try:
            close = cparse.match(toks, i + 1)
        except cparse.ParseError:
            return None
        before = toks[i - 1].text if i else "{"
        after = toks[close + 1].text if close + 1 < len(toks) else ";"
        if before not in ("{", "}", ";") or after not in (";", "}"):
            return None  # its result is used: not a statement
        args = [find.join_tokens([x.text for x in toks[a:c]])
                for a, c in cparse.split_args(toks, i + 1, close)]
        if lf.expr(args) is None:
            return None
        sm.calls.append((lf, args, sm.body_off + b.start,
                         sm.body_off + toks[close].end,
                         sm.body_off + b.end))
    return sm if sm.calls else None


def expansions(prog):
    """The expansions of every section macro, and the locks they name.
    A lock named where the tool cannot tell which one it is keeps every
    candidate, and the macro's other locks, POSIX."""
    for sm in prog.section_macros.values():
        for f in prog.files:
            toks = f.src.toks
            for k, t in enumerate(toks):
                if t.kind != "id" or t.text != sm.name or \
                        k + 1 >= len(toks) or toks[k + 1].text != "(":
                    continue
                fi = f.func_at(t.start, prog.typedefs, lenient=True)
                if fi is None and any(lf.role != "unlock" for lf, _, _, _,
                                      _ in sm.calls):
                    # Outside any function the tool reads (a function
                    # body that is the expansion, as collectd's `int
                    # uc_meta_data_exists(...) UC_WRAP(meta_data_exists)`,
                    # whose locks are named below with no local in
                    # scope): a lock call there would begin a section no
                    # function holds.
                    sm.why = sm.why or (
                        "%s is expanded at %s:%d outside a function body "
                        "the tool reads, and takes a lock" % (
                            sm.where, f.display, f.line(k)))
                close = cparse.match(toks, k + 1)
                args = [find.join_tokens([x.text for x in toks[a:b]])
                        for a, b in cparse.split_args(toks, k + 1, close)]
                if len(args) != len(sm.params) and not (
                        not sm.params and args == [""]):
                    sm.why = sm.why or (
                        "%s is expanded at %s:%d with %d argument(s) for "
                        "its %d parameter(s)" % (sm.where, f.display,
                                                 f.line(k), len(args),
                                                 len(sm.params)))
                    continue
                sm.expansions.append((f, k, fi))
                names = []
                why = None
                for lf, cargs, _, _, _ in sm.calls:
                    expr = lf.expr([find.substitute(sm.params, a, args)
                                    if sm.params else a for a in cargs])
                    ns, w = prog.lock_keys(expr, f if fi else None, k)
                    if w or len(ns) != 1:
                        why = why or (
                            "%s, expanded at %s:%d, locks '%s': %s" % (
                                sm.where, f.display, f.line(k), expr,
                                w or "the tool cannot name that lock"))
                        if not sm.through_wrappers():
                            for n in ns:
                                prog.key(n).refuse(why)
                        names.append(None)
                        continue
                    names.append(ns[0])
                    sm.keys.add(ns[0])
                    prog.key(ns[0]).macro_calls.append((f, k, sm))
                sm.named.append((f, k, names, why))
                if why and sm.why is None:
                    sm.why = why
        if sm.why and not sm.through_wrappers():
            for n in sorted(sm.keys):
                prog.key(n).refuse(sm.why)


def sections(prog, report):
    """Each expansion's lock and trylock calls: held sections of the
    lock they name."""
    for sm in prog.section_macros.values():
        for f, k, names, why in sm.named:
            for (lf, _, _, _, _), n in zip(sm.calls, names):
                if lf.role == "unlock":
                    continue
                fi = f.func_at(f.src.toks[k].start, prog.typedefs,
                               lenient=True)
                line = f.line(k)
                report.found += 1
                if n is None:
                    report.refuse(f.display, line, why)
                    continue
                sec = analyse.Section(f.display, fi.name, line)
                sec.fi, sec.tok, sec.fileobj, sec.key = fi, k, f, n
                sec.stmt, sec.lf = fi.stmt_at.get(k), lf
                # a macro that takes several locks (cmus' player_lock():
                # consumer_lock(); producer_lock();) has a section per lock
                several = len({x for x in names if x is not None}) > 1
                sec.reason = ("%s in the body of macro %s%s (%s)" % (
                    "trylock" if lf.role == "trylock" else
                    "locked and unlocked" if any(
                        c[0].role == "unlock" for c in sm.calls)
                    else "locked", sm.where,
                    ", on %s" % n if several else "",
                    "through wrapper functions: it stays as written"
                    if sm.through_wrappers() else
                    "its calls become liblock's"))
                prog.key(n).sections.append(sec)


def decide(prog, converted):
    """One round of the fixpoint of rewrite.decide(): a macro whose locks
    are not all converted keeps them all POSIX.  Returns whether a lock
    was refused."""
    changed = False
    for sm in prog.section_macros.values():
        out = sorted(n for n in sm.keys if not converted(n))
        if not out or sm.through_wrappers():
            continue
        for n in sorted(sm.keys):
            key = prog.key(n)
            if key.why is None:
                key.refuse("locked in the body of macro %s, which also "
                           "locks %s at %s, and %s stays POSIX" % (
                               sm.where, out[0].lstrip("."),
                               _expanded_at(sm, out[0]),
                               out[0].lstrip(".")))
                changed = True
    return changed


def _expanded_at(sm, name):
    for f, k, names, _ in sm.named:
        if name in names:
            return "%s:%d" % (f.display, f.line(k))
    return "?"


def edits(prog, converted):
    """The #define of each macro whose locks are all converted: its lock
    calls become liblock's (a lock macro's call is replaced by the
    liblock call on the lock it names, casts to the mutex type
    following)."""
    types = "|".join(re.escape(n) for n, kd in sorted(prog.types.items())
                     if kd == "mutex")
    for sm in prog.section_macros.values():
        if sm.why or not sm.keys or not all(converted(n) for n in sm.keys):
            continue
        for d in sm.definitions():
            _edit_definition(d, types)


def _edit_definition(sm, types):
    """edits() of one definition of a section macro."""
    f = sm.file
    f.needs_include = True
    for lf, args, a, b, name_end in sm.calls:
        if named_wrapper(lf):
            continue  # its own body takes the liblock lock
        new = "liblock_" + lf.role
        if lf.params is None:
            f.edits.append((a, name_end, new))
            grew = len(new) - (name_end - a)
        else:
            # A parameter of the macro stands for any expression:
            # parenthesised, as the lock macro's own body had it
            # (`&(x)->mtx` with x the argument `&c`).
            params = sm.params or ()
            args = ["rcl_macro_param_" + a.strip()
                    if a.strip() in params else a for a in args]
            expr = re.sub(r"\brcl_macro_param_(\w+)", r"(\1)",
                          lf.expr(args))
            expr = re.sub(r"\b(%s)\b" % types, "liblock_lock_t",
                          expr)
            text = lf.liblock_call(expr)
            f.edits.append((a, b, text))
            grew = len(text) - (b - a)
        # Keep the line's continuation backslash where it was.
        m = re.compile(r";?([ \t]+)\\\n").match(f.src.text, b)
        if m and grew < 0:
            f.edits.append((m.start(1), m.end(1),
                            m.group(1) + " " * -grew))
        elif m and grew > 0:
            f.edits.append((m.start(1), m.end(1),
                            m.group(1)[:max(1, len(m.group(1)) - grew)]))


def named_wrapper(lf):
    """Whether lock function @lf is a wrapper function that computes its
    lock from its parameters (tor's tor_mutex_acquire(m), which asserts
    m and takes &m->mutex): the macro keeps calling it, since its body
    becomes liblock's with the lock, and what else it does stays."""
    return bool(lf.wrapper) and not lf.wrapper.get("param")


def nested_reason(prog, fi, t0, t1, dead):
    """Why a section spanning tokens [t0, t1) of @fi is not extracted
    when it expands a section macro (its lock calls would run on the
    server thread), else None."""
    toks = fi.src.toks
    for k in range(t0, t1):
        sm = prog.section_macros.get(toks[k].text) \
            if toks[k].kind == "id" else None
        if sm is None or k + 1 >= len(toks) or toks[k + 1].text != "(" or \
                any(a <= k < b for a, b in dead):
            continue
        return ("expands macro %s, whose body takes or releases a lock "
                "(nested sections are not extracted)" % sm.where)
    return None


def accounted(prog, f):
    """Token ranges of the arguments of the expansions in @f (a lock
    named there reaches the macro's lock calls)."""
    out = []
    for sm in prog.section_macros.values():
        for ef, k, _ in sm.expansions:
            if ef is f:
                out.append((k + 1, cparse.match(f.src.toks, k + 1)))
    return out
