# SPDX-License-Identifier: MIT
"""Stage 4, rewrite: decide which locks are converted, extract their
sections, rewrite declarations, initialisers and condition calls, and
produce the new text of every file."""
import bisect
import collections
import os
import re

from . import analyse, cond, cparse, extract, find, lift, macrobody, \
    safety, scoped


NOT_SELECTED = "not selected by --locks"
VARARGS = ("va_start", "va_arg", "va_end", "va_copy", "__builtin_va_start",
           "__builtin_va_arg", "__builtin_va_end", "__builtin_va_copy")


def discover(prog):
    """Turn Coccinelle's facts into Section objects attached to keys."""
    for f in prog.files:
        if f.facts is None:
            continue
        src, toks = f.src, f.src.toks
        occ = {}
        for fname, entries in f.facts.locals.items():
            for name, line, col in entries:
                k = src.tok_at(src.offset(line, col))
                if k is not None:
                    occ.setdefault(fname, []).append((name, k))
        f.occ = occ
        starts = {}
        for fn, l1, c1, _, _ in f.facts.cs:
            starts[(l1, c1)] = (fn, False)
        for fn, l1, c1 in f.facts.lonely:
            starts.setdefault((l1, c1), (fn, True))
        for (line, col), (fname, lonely) in sorted(starts.items()):
            k = src.tok_at(src.offset(line, col))
            fi = f.func_at(src.offset(line, col), prog.typedefs,
                           lenient=True) if k is not None else None
            if fi is None or any(find.in_wrapper(lf, f.path,
                                                 toks[k].start)
                                 for lf in prog.fns.values()):
                continue  # in a macro definition or a lock wrapper
            sec = analyse.Section(f.display, fi.name, line)
            sec.fi, sec.tok, sec.fileobj = fi, k, f
            lf = prog.fns.get(toks[k].text)
            if fi.unread:
                _unread_section(prog, f, k, sec, lf)
                continue
            stmt = fi.stmt_at.get(k) or analyse.checked_stmt(fi, k)
            call = analyse.call_of(toks, stmt) if stmt else None
            expr = lf.expr(call[1]) if (lf and call) else None
            names, why = prog.fn_keys(lf, call[1], f, k) if expr else \
                ([], None)
            sec.key = names[0] if names and not why else None
            sec.stmt, sec.lf = stmt, lf
            prog.report.found += 1
            if not call and lf is not None and toks[k + 1].text == "(":
                # The call is not a statement (its result is tested): it
                # stays in place, a held section, when its lock is named.
                names, why = prog.fn_keys(lf, find.call_args(toks, k), f, k)
                sec.key = names[0] if names and not why else None
                sec.reason = safety.not_statement_reason(toks, k)
                if sec.key and lf.role == "lock":
                    _tested_lock(prog, f, fi, k, sec)
                    if getattr(sec, "try_shape", None) is None:
                        _stored_lock(prog, f, fi, k, sec)
            if sec.key is None:
                sec.reason = (safety.not_statement_reason(toks, k) +
                              ("; " + why if why else "")
                              if not call else why or
                              "cannot name the lock '%s'" % (expr or "?"))
                if call and expr is None and lf and lf.wrapper and \
                        lf.wrapper.get("param"):
                    sec.reason = ("an argument of %s() has side effects "
                                  "(the transformed code would not "
                                  "evaluate it)" % lf.name)
            elif lonely and call:
                sec.reason = _cleanup_unlock(prog, f, fi, sec.key) or \
                    _other_unlock(prog, f, fi, k, sec.key, expr) or \
                    _taken_again(f, fi, stmt, expr, prog.fns) or \
                    ("unlock in another function (no unlock of %s "
                     "follows in %s())" % (expr, fi.name))
                se = safety.lonely_unlock(fi, k, prog.fns,
                                          lambda u: True)
                if se:
                    sec.reason = ("side effect in the lock expression '%s' "
                                  "of the unlock at line %d (the transformed "
                                  "code would evaluate it once)" % (se[1],
                                                                    se[0]))
            if sec.key and not sec.reason and expr:
                sec.reason = prog.handles.held_reason(f, k, expr)
            if sec.key:
                prog.key(sec.key).sections.append(sec)
            else:
                prog.report.refuse(sec.file, line, sec.reason)
                _refuse_named(prog, f, k, stmt, line)
        seen = {src.tok_at(src.offset(l, c)) for l, c in starts}
        for key in list(prog.keys.values()):
            for cf, k in key.calls["lock"]:
                if cf is f and k not in seen:
                    _unparsed(prog, f, k, key)
        _trylocks(prog, f)
        _timed_locks(prog, f)
    macrobody.sections(prog, prog.report)


def _tested_lock(prog, f, fi, k, sec):
    """A lock call whose result is tested, in a trylock's shapes
    (analyse.try_shape(): `if (pthread_mutex_lock(&m) != 0) return err;
    BODY unlock`, `if ((rc = lock(&m)) == 0) { BODY unlock }`, `rc =
    lock(&m); if (rc) ...`): locking a plain mutex gives 0, so its section
    is delegated as a trylock's is, by liblock_exec() in place of
    rcl_tryexec(), its result 0 where the call's was, and the failure
    code left in place.  Other shapes stay held (the call's result is
    used)."""
    lf = sec.lf
    if fi.unread or lf.called_wrapper() or lf.checks:
        # a wrapper function's result is its own (it may return 1 when
        # it locked), a checking macro's is its check's: only pthread's,
        # or a plain macro's of it, is known
        return
    if _owned_result(prog, sec):
        return
    try:
        ts = analyse.try_shape(fi, k, prog.fns,
                               lambda n: _hint_macro(prog, n))
    except analyse.Refused:
        return
    ts["blocking"] = True
    sec.try_shape = ts
    sec.stmt = ts["assign"]["stmt"] if ts["assign"] else ts["if"]
    sec.reason = prog.handles.held_reason(f, k, ts["expr"])


def _owned_result(prog, sec):
    """Whether the lock of @sec is recursive or error-checking (its
    owner matters): locking it may fail (EDEADLK when the thread holds
    it already), so its result is not always 0 and the section stays
    held, where liblock_lock() gives that result."""
    if prog.key(sec.key).owned:
        sec.reason = ("the lock call's result is used, and the lock is "
                      "error-checking or recursive (%s): it may fail" %
                      prog.key(sec.key).owned)
        return True
    return False


def _stored_lock(prog, f, fi, k, sec):
    """A lock call whose result is only stored, `int rc = lock(&m);`,
    untested by the next statement (`assert(rc == 0);` follows, or
    nothing): locking a plain mutex gives 0, so the section is delegated
    as a plain one, `rc = 0;` before it (extract.generate())."""
    lf, toks = sec.lf, fi.src.toks
    if fi.unread or lf.called_wrapper() or lf.checks:
        return  # a wrapper's result is its own (1 when it locked)
    if _owned_result(prog, sec):
        return
    stmt = None
    for s in fi.body.walk():
        if s.kind in ("expr", "decl") and s.t0 < k < s.t1:
            stmt = s  # the innermost statement around the call
    st = analyse.stored_call(toks, stmt) if stmt else None
    if st is None or analyse.call_tok(toks, st[2]) != k:
        return
    sec.stmt = stmt
    sec.reason = prog.handles.held_reason(
        f, k, lf.expr(analyse.call_of(toks, st[2])[1]))


def _taken_again(f, fi, stmt, expr, fns):
    """The reason of a lock statement @stmt whose next call on the same
    lock, in its block, takes it again (a recursive mutex taken twice):
    no section starts there, as no unlock follows before the next lock."""
    blk = stmt.parent if stmt is not None else None
    if blk is None or blk.kind != "block":
        return None
    ident = find.canon(expr)
    for s in blk.subs[blk.subs.index(stmt) + 1:]:
        o = analyse.op_shape(f.src.toks, s, fns)
        if o and o[1] == ident:
            if o[0].role != "lock":
                return None
            return "taken again at line %d before it is released" % \
                f.line(s.t0)
    return None


def _hint_macro(prog, name):
    """Whether @name is a function-like macro of the program whose body
    is a branch hint of its one parameter: `#define unlikely(x)
    __builtin_expect(!!(x), 0)`."""
    m = prog.macros.get(name)
    return bool(m) and find.branch_hint(m[0], m[1]) is not None


def _other_unlock(prog, f, fi, k, key, expr):
    """The reason for a lock at token @k of @fi whose unlock in the same
    function names the same key through another expression (zstd's
    `lock(&jobs[i].mu)` ... `unlock(&job->mu)`): the same field of the
    same structure type is the same key, but not provably the same
    object.  None when there is no such unlock."""
    toks = f.src.toks
    inside = None  # the same unlock, inside an expression
    for uf, u in prog.key(key).calls["unlock"]:
        if uf is not f or not k < u < fi.bc:
            continue
        close = find.cparse.match(toks, u + 1)
        args = [find.join_tokens([t.text for t in toks[a:b]])
                for a, b in find.cparse.split_args(toks, u + 1, close)]
        other = prog.fns[toks[u].text].expr(args)
        if other is None:
            continue
        if find.canon(other) == find.canon(expr):
            lk = analyse.call_of(toks, fi.stmt_at[k]) \
                if fi.stmt_at.get(k) else None
            if lk and [find.canon(a) for a in lk[1]] != \
                    [find.canon(a) for a in args]:
                return ("the unlock at line %d, %s(%s), does not take the "
                        "lock's arguments (%s): a lock and its unlock are "
                        "paired by their argument lists" % (
                            f.line(u), toks[u].text, ", ".join(args),
                            ", ".join(lk[1])))
            if inside is None and fi.stmt_at.get(u) is None:
                inside = u
            continue
        return ("the unlock at line %d names the lock through another "
                "expression ('%s', locked as '%s'): that both denote the "
                "same object cannot be proven (lock and unlock it through "
                "the same expression, or a pointer local assigned once)" % (
                    f.line(u), other, expr))
    if inside is not None:
        return ("its unlock at line %d is inside an expression, not a "
                "statement of its own: a section ends at an unlock "
                "statement" % f.line(inside))
    return None


def _cleanup_unlock(prog, f, fi, key):
    """The reason of a section of @key in function @fi of @f whose unlock
    is a cancellation cleanup handler pushed there (pthread_cleanup_pop(1)
    runs it), else None."""
    toks = f.src.toks
    for cf, a, _, name in prog.cleanup_unlocks:
        if cf is f and name == key and fi.bo < a < fi.bc:
            return "unlocked by the cleanup handler pushed at line %d " \
                "(pthread_cleanup_pop(1) or the thread's cancellation " \
                "runs it, in the section's thread)" % \
                f.src.line_of(toks[a].start)
    return None


def _unread_section(prog, f, k, sec, lf):
    """A lock call in a function whose statements the parser cannot cut
    (unread_function()): held when its lock is named, else its candidate
    locks stay POSIX; the other functions' sections go on."""
    toks = f.src.toks
    prog.report.found += 1
    names, why = prog.fn_keys(lf, find.call_args(toks, k), f, k) \
        if lf and toks[k + 1].text == "(" else ([], None)
    sec.key = names[0] if len(names) == 1 and not why else None
    sec.stmt, sec.lf = None, lf
    sec.reason = "rcl-refactor cannot cut the statements of %s() (%s)" % (
        sec.fi.name, sec.fi.unread)
    if sec.key:
        prog.key(sec.key).sections.append(sec)
    else:
        prog.report.refuse(sec.file, sec.line, why or sec.reason)
        _refuse_named(prog, f, k, None, sec.line)


def _refuse_named(prog, f, k, stmt, line):
    """A lock call whose lock cannot be named (`lock(c ? &a : &b)`): the
    mutexes named in its statement stay POSIX (converted, they would be
    passed to pthread)."""
    toks = f.src.toks
    end = stmt.t1 if stmt is not None else k + 1
    if toks[k + 1].text == "(" and stmt is None:
        end = find.cparse.match(toks, k + 1)
    for t in toks[k:end]:
        key = prog.keys.get(("mutex", t.text)) if t.kind == "id" else None
        if key is not None:
            key.refuse("named in a lock call the tool does not understand "
                       "at %s:%d" % (f.display, line))


def _trylocks(prog, f):
    """Every trylock starts a section.  In the shapes analyse.try_shape()
    knows, it is delegated through rcl_tryexec() when its body can be
    extracted as any section's; otherwise it is held: it is not
    extracted, its calls become liblock_trylock/liblock_unlock on the
    lock word.  A trylock whose lock cannot be told keeps every candidate
    POSIX."""
    src, toks = f.src, f.src.toks
    for fname, line, col in f.facts.trylock:
        k = src.tok_at(src.offset(line, col))
        fi = f.func_at(src.offset(line, col), prog.typedefs,
                       lenient=True) if k is not None else None
        if fi is None or prog._in_wrapper(f, k):
            continue  # a trylock wrapper's body: its calls are the sections
        names, unsure = prog.fn_keys(prog.fns[toks[k].text],
                                     find.call_args(toks, k), f, k)
        prog.report.found += 1
        if len(names) == 1 and not unsure:
            sec = analyse.Section(f.display, fi.name, line)
            sec.fi, sec.tok, sec.fileobj, sec.key = fi, k, f, names[0]
            sec.stmt, sec.lf = fi.stmt_at.get(k), prog.fns[toks[k].text]
            sec.trylock = True
            lf = sec.lf
            try:
                if fi.unread:
                    raise analyse.Refused(
                        "rcl-refactor cannot cut the statements of %s() "
                        "(%s)" % (fi.name, fi.unread))
                w = lf.called_wrapper()
                if w and not w.get("param"):
                    raise analyse.Refused(
                        "through the wrapper function %s(), whose lock the "
                        "call site does not name" % (
                            lf.name if lf.wrapper else lf.via.name))
                sec.try_shape = analyse.try_shape(
                    fi, k, prog.fns, lambda n: _hint_macro(prog, n))
                asg = sec.try_shape["assign"]
                sec.stmt = asg["stmt"] if asg else sec.try_shape["if"]
                sec.reason = prog.handles.held_reason(
                    f, k, sec.try_shape["expr"])
            except analyse.Refused as e:
                sec.reason = str(e)
            prog.key(names[0]).sections.append(sec)
            continue
        why = unsure or "cannot name the lock of the trylock"
        prog.report.refuse(f.display, line, why)
        for name in names:
            prog.key(name).refuse(unsure or "named in a trylock the tool "
                                  "does not understand at %s:%d" %
                                  (f.display, line))


TIMED_LOCKS = ("pthread_mutex_timedlock", "pthread_mutex_clocklock")


def _timed_locks(prog, f):
    """Every timed lock (pthread_mutex_timedlock/clocklock, or a project
    macro for one) starts a held section: waiting until a deadline is
    not a remote call's to make, so the call becomes liblock_timedlock/
    clocklock on the lock word (_call_renames()) and its section runs in
    place.  One whose lock cannot be named keeps the locks its statement
    names POSIX (they would reach pthread's call converted)."""
    toks = f.src.toks
    for k, t in enumerate(toks):
        api = prog.api.get(t.text) if t.kind == "id" else None
        if api is None or api.target not in TIMED_LOCKS or \
                k + 1 >= len(toks) or toks[k + 1].text != "(" or \
                api.in_place is not None:
            continue
        fi = f.func_at(t.start, prog.typedefs, lenient=True)
        if fi is None or prog._in_wrapper(f, k):
            continue  # a macro's or wrapper's body: its uses are them
        args = _api_args(prog, toks, k)
        names, why = prog.lock_keys(args[0], f, k) if args else ([], None)
        line = f.line(k)
        prog.report.found += 1
        if len(names) != 1 or why:
            prog.report.refuse(f.display, line, why or "cannot name the "
                               "lock of the %s() call" % api.target)
            _refuse_named(prog, f, k, None, line)
            continue
        sec = analyse.Section(f.display, fi.name, line)
        sec.fi, sec.tok, sec.fileobj, sec.key = fi, k, f, names[0]
        sec.stmt, sec.lf = None, None
        sec.reason = "taken with %s() (liblock_%s() waits for the lock " \
            "word in place)" % (api.target, api.target.split("_")[-1])
        prog.key(names[0]).sections.append(sec)


def _unparsed(prog, f, k, key):
    """A lock call Coccinelle did not report (it could not parse the
    function): refuse it, with the shape's reason when there is one."""
    fi = f.func_at(f.src.toks[k].start, prog.typedefs, lenient=True)
    if fi is None:
        return
    line = f.line(k)
    sec = analyse.Section(f.display, fi.name, line)
    sec.fi, sec.tok, sec.fileobj, sec.key = fi, k, f, key.name
    sec.stmt, sec.lf = None, prog.fns.get(f.src.toks[k].text)
    prog.report.found += 1
    sec.reason = "Coccinelle cannot parse %s() (see spatch --parse-c)" % \
        fi.name
    stmt = fi.stmt_at.get(k)
    if stmt is not None and analyse.call_of(f.src.toks, stmt):
        try:
            analyse.shape(fi, stmt, prog.fns, lambda *_: True, prog.api,
                          prog.ppenv)
        except analyse.Refused as e:
            sec.reason = str(e)
    key.sections.append(sec)


def analyse_all(prog, selection):
    """Shape and variables of every section of every selected key."""
    chosen = {name for (kind, name), key in prog.keys.items()
              if kind == "mutex" and selection.selected(
                  name, [(s[0].display, s[0].line(s[1])) for s in key.sites])}
    # A pointer that holds a lock's address is chosen with that lock, and
    # the lock with it (_pointee_tie()): their types change together.
    for p, ns in sorted(prog.ptr_pointees.items()):
        if p in chosen or chosen & set(ns):
            chosen |= {p} | set(ns)
    prog.chosen = chosen
    _cond_pointees(prog)
    tied = _tied_by_conditions(prog, chosen)
    for (kind, name), key in list(prog.keys.items()):
        if kind != "mutex":
            continue
        if name not in chosen and name not in tied:
            key.refuse(NOT_SELECTED)
            continue
        if not key.declared():
            key.refuse("no declaration of a pthread_mutex_t named '%s' "
                       "was found (add -I for its header)" % name.lstrip("."))
        if name in tied:
            key.tied = tied[name]
            for sec in key.sections:
                sec.reason = sec.reason or (
                    "not selected, converted with the posix algorithm for "
                    "the condition variable %s it shares with %s" % (
                        key.tied[0], key.tied[1].lstrip(".")))
            continue
        for sec in key.sections:
            if sec.reason or sec.analysed:
                continue
            analyse_section(prog, sec, selection)


def _cond_pointees(prog):
    """A pointer to a condition given the address of one (`{ &lock, &cv }`
    for a `pthread_cond_t *cv` member) is waited on, signalled and
    converted with it: each gets the other's mutexes as partners, so
    that _decide_keys() decides them together (_cond_pointee_tie())."""
    for p, ns in sorted(prog.cond_pointees.items()):
        pk = prog.keys.get(("cond", p))
        for n in sorted(ns):
            ck = prog.keys.get(("cond", n))
            if pk is None or ck is None:
                continue
            both = pk.partners | ck.partners
            pk.partners |= both
            ck.partners |= both
            for m in both:
                mk = prog.keys.get(("mutex", m))
                if mk is not None:
                    mk.partners |= {p, n}


def _cond_pointee_tie(prog, key):
    """A condition pointer and the conditions whose addresses it is given
    change type together: one that stays POSIX keeps the others so."""
    name = key.name
    ties = [(n, where) for n, where in
            prog.cond_pointees.get(name, {}).items()] + \
        [(p, ns[name]) for p, ns in prog.cond_pointees.items()
         if name in ns]
    for n, where in sorted(ties):
        other = prog.keys.get(("cond", n))
        if other is not None and other.why:
            key.refuse("pointer and condition %s and %s are tied (address "
                       "given at %s), and %s stays POSIX: %s" % (
                           name.lstrip("."), n.lstrip("."), where,
                           n.lstrip("."), other.why))
            return


def _tied_by_conditions(prog, chosen):
    """{mutex not selected: (condition, selected mutex)} of the mutexes a
    selected one shares a condition variable key with, directly or through
    others: xz's four coder and worker mutexes all wait on the member
    `cond` of struct mythread_cond, and a profile that selects three kept
    all four POSIX (the condition cannot be two types).  Such a mutex
    becomes a liblock lock too, on the posix algorithm (rcl-config.h), its
    sections held: it behaves as before, and the others move."""
    tied, todo = {}, sorted(chosen)
    while todo:
        m = todo.pop(0)
        key = prog.keys.get(("mutex", m))
        for c in sorted(key.partners) if key else ():
            ck = prog.keys.get(("cond", c))
            for m2 in sorted(ck.partners) if ck else ():
                if m2 not in chosen and m2 not in tied and \
                        ("mutex", m2) in prog.keys:
                    tied[m2] = (c, m)
                    todo.append(m2)
    return tied


def _section_at(prog, f, k):
    """The Section of a mutex whose lock call is at token @k of @f."""
    if prog.sec_at is None:
        prog.sec_at = {}
        for (kind, _), key in prog.keys.items():
            for s in key.sections if kind == "mutex" else ():
                prog.sec_at[(s.fileobj.path, s.tok)] = s
    return prog.sec_at.get((f.path, k))


def inner_sections(prog, sec, selection):
    """The sections of other selected locks nested in @sec (found by
    analyse.shape()), analysed first: [(Section, nest entry)].  Refused
    when one of them is not extracted itself (its lock calls would run
    on the server thread) or has early exits."""
    toks = sec.fi.src.toks
    out = []
    for n in sec.shape["nested"]:
        lock_s, _, name, line, _ = n
        inner = _section_at(prog, sec.fileobj,
                            analyse.call_tok(toks, lock_s))
        if inner is None or inner is sec:
            raise analyse.Refused("contains a section of %s at line %d "
                                  "that is not a section of its own" % (
                                      analyse.lock_name(name), line))
        if not inner.analysed and not inner.reason:
            analyse_section(prog, inner, selection)
        if inner.reason:
            raise analyse.Refused("contains a section of %s at line %d, "
                                  "which is not extracted: %s" % (
                                      analyse.lock_name(name), line,
                                      inner.reason))
        if inner.shape["exits"] or inner.shape.get("try"):
            raise analyse.Refused("contains a section of %s at line %d "
                                  "with early exits (nested sections with "
                                  "early exits are not extracted)" % (
                                      analyse.lock_name(name), line))
        inner.outer = sec
        out.append((inner, n))
    return out


def _nested_occ(sec, occ):
    """@occ without the occurrences, inside the sections nested in
    @sec, of the locals that do not travel to or from them (the nested
    section's own: its extracted function declares them).  On the nested
    section's lock and unlock calls, only the locals written there (in
    the lock expression) stay: a scoped lock macro's own loop variables
    are gone with the macro."""
    toks = sec.fi.src.toks
    for inner, (lock_s, unlock_s, _, _, _) in sec.inner:
        a, b = inner.shape["t0"], inner.shape["t1"]
        travel = {d.name for d, _, i, o in inner.vars if i or o}

        def keep(n, k):
            if a <= k < b:
                return n in travel
            if lock_s.t0 <= k < unlock_s.t1:
                return toks[k].text == n
            return True
        occ = [(n, k) for n, k in occ if keep(n, k)]
    return occ


def _nested_checks(sec):
    """Refuse what the extraction of the nested sections in @sec cannot
    carry: a local declared in one of them that this section must declare
    in its caller (used after it), or one declared there under the name
    of a local that travels with this section."""
    names = {d.name for d, _, _, _ in sec.vars}
    for inner, n in sec.inner:
        lock_s, unlock_s, name, line, _ = n
        for d, _, _, _ in sec.vars:
            h = getattr(d, "hoist", None)
            if h is not None and lock_s.t0 <= h.t0 < unlock_s.t1:
                raise analyse.Refused(
                    "'%s' is declared in the nested section of %s at line "
                    "%d and used after this section" % (
                        d.name, analyse.lock_name(name), line))
        for d, _, _, _ in inner.vars:
            if getattr(d, "hoist", None) is not None and d.name in names:
                raise analyse.Refused(
                    "'%s' is declared in the nested section of %s at line "
                    "%d and names a local of this section too" % (
                        d.name, analyse.lock_name(name), line))


def analyse_section(prog, sec, selection):
    fi, f = sec.fi, sec.fileobj
    sec.analysed = True
    sec.inner = []

    def is_sel(lf, args, k):
        """Whether the lock @lf(@args) at token @k may be a selected one
        (by name, or a key chosen by its sites: analyse_all())."""
        return any(n in prog.chosen or selection.selected(n) for n in
                   prog.fn_keys(lf, args, f, k)[0])
    try:
        trysh = getattr(sec, "try_shape", None)
        sec.shape = analyse.shape(fi, sec.stmt, prog.fns, is_sel, prog.api,
                                  prog.ppenv, trysh)
        sec.inner = inner_sections(prog, sec, selection)
        call = None if trysh else analyse.call_of(fi.src.toks, sec.stmt)
        args = call[1] if call else find.call_args(fi.src.toks, sec.tok)
        safety.check(prog, fi, sec.shape, args,
                     sec.lf.expr(args) if sec.lf and args else None)
        dead = sec.shape["dead"]
        nested = macrobody.nested_reason(prog, fi, sec.shape["t0"],
                                         sec.shape["t1"], dead)
        if nested:
            raise analyse.Refused(nested)
        occ = f.occ.get(fi.name, [])
        occ = [(n, k) for n, k in occ if fi.bo < k < fi.bc and
               not any(a <= k < b for a, b in dead)]
        # Coccinelle's "local idexpression" leaves out static locals.
        statics = {d.name for d in fi.decls if d.is_static}
        toks = fi.src.toks
        occ += [(toks[k].text, k) for k in range(fi.bo, fi.bc)
                if toks[k].text in statics and toks[k].kind == "id" and
                toks[k - 1].text not in (".", "->") and
                (toks[k].text, k) not in set(occ) and
                not any(d.t0 <= k < d.range[1] for d in fi.decls
                        if d.name == toks[k].text)]
        # Coccinelle does not read inside the argument of a macro that
        # takes statements (squeezelite's `#define IF_DIRECT(x) { x }`,
        # `IF_DIRECT( wp = outputbuf->writep; );`): the locals named
        # there are occurrences too, written or read, and become (*name)
        # when they travel by pointer.
        seen, args = set(occ), []
        for k in range(sec.shape["t0"], sec.shape["t1"]):
            if toks[k].kind == "id" and toks[k].text in prog.macros and \
                    toks[k + 1].text == "(":
                try:
                    args.append((k + 1, cparse.match(toks, k + 1)))
                except cparse.ParseError:
                    pass
        occ += [(toks[k].text, k)
                for k in range(sec.shape["t0"], sec.shape["t1"])
                if toks[k].kind == "id" and
                (toks[k].text, k) not in seen and
                toks[k - 1].text not in (".", "->") and
                toks[k + 1].text != "(" and
                not any(a <= k < b for a, b in dead) and
                any(a < k < b for a, b in args) and
                analyse.visible_decl(fi, toks[k].text, k) is not None]
        for fn, line, col, what in f.facts.unsafe:
            k = f.src.tok_at(f.src.offset(line, col))
            if k is not None and sec.shape["t0"] <= k < sec.shape["t1"] \
                    and not any(a <= k < b for a, b in
                                sec.shape["conts"] + dead):
                if what == "errno" and getattr(prog, "frontend", None):
                    sec.shape["errno"] = True  # carried (extract.py)
                    continue
                raise analyse.Refused(analyse.UNSAFE_WHY.get(
                    what, "%s in the section" % what))
        for k in range(sec.shape["t0"], sec.shape["t1"]):
            t = fi.src.toks[k]
            if any(a <= k < b for a, b in dead):
                continue
            if t.kind == "id" and t.text in VARARGS:
                raise analyse.Refused("%s() in the section (the variadic "
                                      "arguments are the caller's)" % t.text)
            why = _frame_bound(fi.src.toks, k, prog.macros)
            if why:
                raise analyse.Refused("%s at %s:%d" % (
                    why, f.display, f.line(k)))
        hazards, errno = _hazards(prog, f, sec.shape)
        if hazards:
            # held; one that may end its thread (THREAD_EXITS) leaves
            # the word held, and its waiters wait as POSIX's do
            raise analyse.Refused(next(
                (h for h in hazards if h.ends_thread), hazards[0]))
        k0 = _def_token(f, fi)
        why, sec.shape["keep_line"] = safety.source_position(
            prog, fi, sec.shape, k0)
        if why:
            raise analyse.Refused(why)
        if errno:
            sec.shape["errno"] = True
        cl = _clang_locals(prog, f, fi, sec.shape, occ)
        if cl is None and sec.shape.get("loose_jumps"):
            raise analyse.Refused("%s leaves the section with the lock "
                                  "held" % fi.src.toks[
                                      sec.shape["loose_jumps"][0]].text)
        if cl is None:
            # No compiler facts for this function (code libclang does not
            # see with these flags): the #define texts are read instead.
            sec.shape["hidden"] = macro_locals(prog, fi, sec.shape, occ)
        else:
            sec.shape.update(cl)
        sec.shape["macro_args"] = safety.macro_arg_tokens(prog, fi,
                                                          sec.shape)
        sec.shape["escape"] = safety.escaping(fi, sec.shape, occ)
        # Locals that macros used before the section name in their bodies
        # (they may set them there).
        lock_t0 = sec.shape["lock_t0"]
        sec.shape["named_before"] = {
            n for k in range(fi.bo, lock_t0) if toks[k].kind == "id" and
            toks[k].text in prog.macros
            for n in _macro_names(prog, {}, toks[k].text)}
        # Locals declared with a cleanup attribute (systemd's
        # _cleanup_free_): their cleanup reads them where their scope
        # ends, after the section.
        cleanup = set()
        for d in analyse.decls_of(fi):
            a = d.stmt[0]  # the declaration's first word (a macro too)
            while a > fi.bo + 1 and toks[a - 1].text not in (";", "{", "}"):
                a -= 1
            ids = {t.text for t in toks[a:d.stmt[1]] if t.kind == "id"}
            if {"cleanup", "__cleanup__"} & safety.expanded_names(prog, ids):
                cleanup.add(d.name)  # (declared in the section: held)
        sec.shape["cleanup"] = cleanup
        if sec.inner:
            occ = _nested_occ(sec, occ)
        # Locals whose copy into the context the compile check found may
        # read an indeterminate value (cli.check_outputs()): the section
        # reaches the caller's object instead.
        sec.shape["addr"] = set(sec.shape.get("addr", ())) | {
            k[3] for k in prog.forced
            if k[0] == "byptr" and k[1:3] == (sec.file, sec.func)}
        sec.vars = analyse.variables(fi, sec.shape, occ)
        _nested_checks(sec)
        # The extracted function goes before the function's definition:
        # the macros there must mean what they meant at the section (its
        # context's types included), and the #defines it carries must not
        # change the code before it.
        why, sec.shape["replay"] = safety.preprocessor_state(
            prog, fi, sec.shape, k0, {
                w for d, _, _, _ in sec.vars
                for w in re.findall(r"[A-Za-z_]\w*", d.text(d.name))})
        if why:
            raise analyse.Refused(why)
        why = safety.stringized_byptr(prog, fi, sec.shape, extract._Plan(
            sec.vars, sec.shape["exit_vars"], sec.shape.get("hidden", ()),
            (sec.shape["t0"], sec.shape["t1"])).byptr)
        if why:
            raise analyse.Refused(why)
        # Inputs read only as macro arguments (memcached's dtrace probes,
        # empty without dtrace) would be unused in the extracted function.
        sec.shape["macro_args_only"] = {
            d.name for d, _, is_in, _ in sec.vars if is_in and all(
                analyse.in_call_of(toks, k, prog.macros) for n, k in occ
                if n == d.name and sec.shape["t0"] <= k < sec.shape["t1"])}
        occset = set(occ)
        outer = {d.name: d for d, _, _, _ in sec.vars}

        def is_local_occ(name, k):
            # the caller's local, not one the section declares under the
            # same name (an inner block's, a for loop's): only the
            # caller's becomes (*name) when it travels by pointer
            return (name, k) in occset and (
                name not in outer or
                analyse.visible_decl(fi, name, k) is outer[name])
        sec.shape["is_local_occ"] = is_local_occ
    except analyse.Refused as e:
        sec.reason = str(e)


_NOT_LITERAL_BEFORE = ("if", "while", "for", "switch", "sizeof",
                       "_Alignof", "__typeof__", "typeof", "return")


def _frame_bound(toks, k, macros):
    """Why the storage that token @k of a section starts cannot move into
    the extracted function, whose frame ends with the section: a
    compound literal whose address is taken (`&(struct opt){ ... }`, or
    an array one, which decays to its address) may be used after the
    section; a variable with __attribute__((cleanup)) declared in the
    section would be cleaned up at its end instead of its block's (also
    through a macro of @macros, systemd's `_cleanup_free_`).  None for
    anything else."""
    t = toks[k]
    mac = macros.get(t.text) if t.kind == "id" else None
    if t.kind == "id" and t.text in ("cleanup", "__cleanup__") and \
            k >= 3 and toks[k - 1].text == "(" and \
            toks[k - 2].text == "(" and \
            toks[k - 3].text in ("__attribute__", "__attribute") or \
            mac and re.search(r"__attribute(__)?\s*\(\(\s*(__)?cleanup\b",
                              mac[1]):
        return "a variable with __attribute__((cleanup)) declared in " \
            "the section (its cleanup would run when the section ends)"
    if t.text != "{" or k < 2 or toks[k - 1].text != ")":
        return None
    try:
        o = find.cparse.match_back(toks, k - 1)
    except IndexError:
        return None
    if o is None or o == 0:
        return None
    before = toks[o - 1]
    if before.kind == "id" and before.text not in ("return",) or \
            before.text in (")", "]") or before.text in _NOT_LITERAL_BEFORE:
        return None  # a statement's head, a function or an iterator macro
    array = any(x.text == "[" for x in toks[o:k])
    if before.text == "&" or array:
        return "a compound literal whose address is taken (its storage " \
            "would end with the extracted function)"
    return None


def _hazards(prog, f, shape):
    """What the front end sees the section (or a function of the program
    it calls) do that cannot run on another thread, and whether errno is
    used there (then it travels with the section)."""
    fe = getattr(prog, "frontend", None)
    span = _clang_span(f, shape)
    if fe is None or span is None:
        return [], False
    toks = f.src.toks
    # Not the early unlocks and the code after them (conts, each from its
    # unlock to its jump): the caller runs that code once the lock is
    # released (`unlock; pthread_exit(NULL);`).
    after = [(scoped.clang_pos(f, toks[a].start),
              scoped.clang_pos(f, toks[b - 1].end))
             for a, b in shape["conts"] if b > a]
    # Nor the calls of a function that checks a pthread call which gives 0
    # on a correct program (a condition wait, signal or broadcast, a
    # destroy: find._CHECK_DROPPABLE) and reports or ends the process
    # when it fails (lrzip's cond_wait() calls fatal(), which may exit()):
    # that code is reached only on the failure.
    for k in range(shape["t0"], shape["t1"]):
        api = prog.api.get(toks[k].text) if toks[k].kind == "id" else None
        if api is None or api.wrapper is None or \
                api.in_place is not None or \
                api.target not in find._CHECK_DROPPABLE or \
                k + 1 >= len(toks) or toks[k + 1].text != "(":
            continue
        close = find.cparse.match(toks, k + 1)
        if any(find._side_effects(find.join_tokens(
                [t.text for t in toks[a:b]]))
               for a, b in find.cparse.split_args(toks, k + 1, close)):
            continue  # its arguments' calls run on the server too
        after.append((scoped.clang_pos(f, toks[k].start),
                      scoped.clang_pos(f, toks[close].end)))
    return fe.hazards(f.path, *span, skip=after), \
        fe.errno_reached(f.path, *span)


def _clang_span(f, shape):
    """libclang's (line, 1-based column) of the start and the end of the
    section @shape of @f, or None for an empty section."""
    toks = f.src.toks
    if shape["t1"] <= shape["t0"]:
        return None
    return (scoped.clang_pos(f, toks[shape["t0"]].start),
            scoped.clang_pos(f, toks[min(shape["t1"],
                                         len(toks) - 1)].start))


def macro_locals(prog, fi, shape, occ):
    """Locals that macros used in the section name in their bodies
    (memcached's APPEND_STAT uses the caller's add_stats and c), through
    macros of macros and the #defines of the section itself (memcached's
    X-macros: THREAD_STATS_FIELDS expands X, defined just before):
    Coccinelle does not see them, so they are added as occurrences at the
    macro."""
    toks = fi.src.toks
    local = {}  # name -> the definition the section has made last
    hidden = set()
    for k in range(shape["t0"], shape["t1"]):
        t = toks[k]
        m = re.match(r"#\s*(define|undef)\s+(\w+)(?:\(([^)]*)\))?(.*)",
                     t.text, re.S) if t.kind == "pp" else None
        if m:
            local[m.group(2)] = ([p.strip() for p in (m.group(3) or "").
                                  split(",")], m.group(4)) \
                if m.group(1) == "define" else None
            continue
        if t.kind != "id" or t.text in prog.fns or \
                t.text not in prog.macros and not local.get(t.text) or \
                any(a <= k < b for a, b in shape["dead"]):
            continue
        # Sorted: the context's fields follow the occurrences' order, and
        # a set's order changes from run to run (PYTHONHASHSEED).
        for name in sorted(_macro_names(prog, local, t.text)):
            if analyse.visible_decl(fi, name, shape["scope_t0"]) is not None:
                hidden.add(name)
                occ.append((name, k))
    return hidden


def _clang_function(prog, f, fi):
    """The front end's Function of @fi (a function of File @f), or None."""
    fe = getattr(prog, "frontend", None)
    if fe is None:
        return None
    src = f.src
    line = src.line_of(src.toks[fi.bo].start)
    return next((fn for fn, _ in fe.functions_at(f.path, line)
                 if fn.name == fi.name), None)


def _tok_of(f, loc):
    """Index of the token of File @f at the front end's Loc @loc."""
    if loc.path != os.path.realpath(f.path):
        return None
    off = scoped.read_offset(f, loc.line, loc.col)
    return None if off is None else f.src.tok_at(off)


def _clang_locals(prog, f, fi, shape, occ):
    """The locals of the function that the section uses, from the
    compiler's facts (frontend.LocalRef): those its code names through
    the body of a macro (rsyslog's ABORT_FINALIZE() assigns the caller's
    iRet and jumps to finalize_it; memcached's APPEND_STAT() reads the
    caller's add_stats and c), where Coccinelle sees the macro only.  Their
    uses, in the section and after it, are added to @occ at the macro's
    name; a local only a macro declares (rsyslog's DEFiRet) gets a Decl
    made from its type (fi.cdecls).  Also refuses what a macro's body
    hides that leaves the section: a return, a goto to a label outside it,
    a break or continue of a loop around it, or a goto into it from
    outside.  None when the front end does not know the function; else
    the entries for the section's shape: hidden (names used in a macro's
    body), hidden_rw (those of them a macro may write), hidden_by (name ->
    the first such macro), addr (names whose address the function takes,
    by its text or in a macro), macro_jumps."""
    fn = _clang_function(prog, f, fi)
    if fn is None:
        return None
    toks = fi.src.toks
    t0, t1 = shape["t0"], shape["t1"]
    skip = shape["conts"] + shape["dead"]

    def in_region(k):
        return t0 <= k < t1 and not any(a <= k < b for a, b in skip)
    _clang_decls(f, fi, fn)
    have = set(occ)
    hidden, rw, by, addr = set(), set(), {}, set()
    written = set()  # written in the section, as the compiler reads it
    for r in fn.local_refs:
        k = _tok_of(f, r.loc)
        if k is None or not fi.bo < k < fi.bc:
            continue
        if r.access == "addr":
            addr.add(r.name)
        if r.access in ("write", "rw") and in_region(k):
            # (n) += x, v[0] = x on a vector, an asm output: writes the
            # text's reading does not see
            written.add(r.name)
        plain = toks[k].text == r.name and r.spell == r.loc
        if not plain and r.spell != r.loc and \
                r.spell.path == r.loc.path:
            # A macro's argument: Coccinelle sees the name in the text.
            ka = _tok_of(f, r.spell)
            plain = ka is not None and toks[ka].text == r.name
        if plain:
            if toks[k].text == r.name and (r.name, k) not in have:
                occ.append((r.name, k))
                have.add((r.name, k))
            continue
        if (r.name, k) not in have:
            occ.append((r.name, k))
            have.add((r.name, k))
        if in_region(k):
            hidden.add(r.name)
            by.setdefault(r.name, toks[k].text)
            if r.access != "read":
                rw.add(r.name)
    labels = {s.name for b in shape["block"].subs[shape["i"] + 1:
                                                   shape["end"]]
              for s in b.walk() if s.kind == "label"}
    loose = set(shape.get("loose_jumps", ()))
    for j in fn.jumps:
        k = _tok_of(f, j.loc)
        if k in loose and j.target:
            # a break whose loop the text does not show: inside the
            # section when the compiler's loop starts there (a FOREACH
            # macro's expansion)
            kt = _tok_of(f, j.target[0])
            if kt is not None and t0 <= kt < t1 and in_region(k):
                loose.discard(k)
            continue
        if k is None or not fi.bo < k < fi.bc or toks[k].text in (
                "break", "continue", "goto", "return"):
            # Written in the text: analyse.shape() saw it.  Any jump
            # keyword, not only j.kind: a scoped lock macro's use is read
            # rewritten (scoped.py), its break a goto to the section's end.
            continue
        where = "in the body of macro %s at line %d" % (
            toks[k].text, fi.src.line_of(toks[k].start))
        if not in_region(k):
            if j.kind == "goto" and j.label in labels and \
                    not t0 <= k < t1:
                raise analyse.Refused("jump into the section (goto %s %s)"
                                      % (j.label, where))
            continue
        if j.kind == "return":
            raise analyse.Refused("returns with the lock held (return %s)"
                                  % where)
        if j.kind == "goto" and j.label not in labels:
            raise analyse.Refused("jumps out of the section with the lock "
                                  "held (goto %s %s)" % (j.label, where))
        if j.kind in ("break", "continue") and j.target:
            kt = _tok_of(f, j.target[0])
            if kt is None or not t0 <= kt < t1:
                raise analyse.Refused("%s %s leaves the section with the "
                                      "lock held" % (j.kind, where))
    if loose:
        k = min(loose)
        raise analyse.Refused("%s leaves the section with the lock held" %
                              toks[k].text)
    # The context's fields follow the occurrences' order.
    occ.sort(key=lambda x: (x[1], x[0]))
    return {"hidden": hidden, "hidden_rw": rw, "hidden_by": by,
            "addr": addr, "written": written}


def _clang_decls(f, fi, fn):
    """fi.cdecls: a Decl for each local of @fn (frontend.Function) that
    the tool's reading of the declarations lacks (one a macro declares:
    rsyslog's `DEFiRet;`), made from the type the compiler gives it."""
    if hasattr(fi, "cdecls"):
        return
    fi.cdecls = []
    # (name, token) of the locals a macro declares whose type cannot be
    # written (`__typeof__(a) _a = (a);` in a min() macro's statement
    # expression): a section that expands the macro declares them itself
    fi.unwritten = []
    for ld in fn.locals.values():
        k = _tok_of(f, ld.loc)
        if k is None or not fi.bo - 1 <= k < fi.bc and not ld.is_param:
            continue
        same = [d for d in fi.decls
                if d.name == ld.name and d.range[0] <= k < d.range[1]]
        for d in same:
            _array_size(d, ld)
            d.variable = ld.variable
            if ld.decayed:
                analyse.decayed_param(d, ld)
        if same:
            continue
        d = analyse.decl_from_type(fi, ld, k)
        if d is not None:
            # Where the compiler uses this declaration: the same name
            # may be another macro expansion's own (each
            # `CHECK(pthread_cond_signal(&c));` declares its `_e` in the
            # block of its do/while), which is no use of this one.
            d.refs = sorted({j for j in (_tok_of(f, r.loc) for r in
                                         fn.local_refs
                                         if r.name == ld.name and
                                         r.decl == ld.loc)
                             if j is not None})
            if all(j == k for j in d.refs):
                # Used inside its own expansion only (the do/while
                # block of a checking macro): seen by no other token.
                d.scope_end = d.stmt[1]
            fi.cdecls.append(d)
        elif not ld.is_param:
            fi.unwritten.append((ld.name, k))


def _array_size(d, ld):
    """An array declared without its size, which its initialiser gives
    (`const int caps[] = { 50, 20 };`), is declared again in the
    extracted function or reached through a pointer to it: there it
    needs the size the compiler counted (@ld, its frontend.LocalDecl:
    `const int[2]`), or sizeof(caps) would not compile."""
    m = re.search(r"\[(\d+)\]", ld.type or "")
    if d.is_array and m and re.search(r"\[\s*\]", d.declarator):
        d.declarator = re.sub(r"\[\s*\]", "[%s]" % m.group(1),
                              d.declarator, count=1)


def _macro_names(prog, local, name):
    """The identifiers the expansion of macro @name contains, with the
    definitions @local (of the section, None: #undef) made before."""
    seen, todo, out = set(), [name], set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        d = local[n] if n in local else prog.macros.get(n)
        if d is None:
            continue  # #undef'd in the section: a plain name again
        params, body = d
        try:
            btoks = find.cparse.lex(body.replace("\\\n", " "))
        except find.cparse.ParseError:
            continue
        for b in btoks:
            if b.kind != "id" or b.text in params:
                continue
            if local.get(b.text) or (b.text in prog.macros and
                                     b.text not in local):
                todo.append(b.text)
            else:
                out.add(b.text)
    return out


def _shared_macro_decl(prog, kind, key):
    """A field declared in a macro's body changes type in every structure
    that expands the macro: @key is converted only with all of them."""
    for f, start, _, where in key.macro_decls:
        for (k2, n2), other in prog.keys.items():
            if k2 == kind and other is not key and other.why and any(
                    d[0] is f and d[1] == start for d in other.macro_decls):
                key.refuse("declared in macro %s with %s, which stays "
                           "POSIX" % (where, n2))
                return


def _shared_decl(prog, kind, key):
    """`static pthread_mutex_t stats_lock, tree_lock;`: one type token
    declares both, so neither can change type while the other stays
    POSIX."""
    for f, k in key.decls:
        for (k2, n2), other in prog.keys.items():
            if k2 == kind and other is not key and other.why and any(
                    d[0] is f and d[1] == k for d in other.decls):
                key.refuse("declared with %s, which stays POSIX, in one "
                           "declaration at %s:%d" % (n2.lstrip("."),
                                                     f.display, f.line(k)))
                return


def _shared_init_macro(prog, kind, key):
    """`#define MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER` used for
    several mutexes: its body becomes liblock's initialiser for all of
    them, so none is converted while another stays POSIX.  So with the
    conditions a macro initialises beside its mutexes
    (Program.init_macro_conds): all are converted or none."""
    tied = [(macro, [("mutex", n) for n in names])
            for macro, names in prog.shared_init_macros.values()]
    tied += [(macro, [("mutex", n) for n in mks] +
              [("cond", n) for n in cks])
             for macro, mks, cks, _ in prog.init_macro_conds.values()]
    for macro, members in sorted(tied):
        if (kind, key.name) not in members:
            continue
        for kd, n in members:
            other = prog.keys.get((kd, n))
            if other is None and kd == "cond":
                key.refuse("initialised by macro %s, which also "
                           "initialises condition %s, which is never "
                           "waited on" % (macro, n.lstrip(".")))
                return
            if other is not None and other is not key and other.why:
                key.refuse("initialised by macro %s, which also "
                           "initialises %s, which stays POSIX" % (
                               macro, n.lstrip(".")))
                return


def _shared_init_fn(prog, kind, key):
    """An init function (fio's mutex_init_pshared(pthread_mutex_t *m),
    handles.Handles._init_only()) initialises every lock its callers
    give it, through one parameter whose type becomes liblock_lock_t *:
    all of them are converted or none."""
    if kind != "mutex":
        return
    for slot, names in prog.shared_init_sites.values():
        if key.name not in names:
            continue
        for n in names:
            other = prog.keys.get(("mutex", n))
            if other is not None and other is not key and other.why:
                key.refuse("initialised through %s, which also "
                           "initialises %s, which stays POSIX" % (
                               slot.label, n.lstrip(".")))
                return


def decide(prog):
    """Fixpoint: a mutex is converted unless its address reaches what is
    not rewritten (its condition variables must be converted too).  Each
    section of a converted mutex is delegated (extracted) or, when it has
    a reason not to be, held: it stays in place on the lock word."""
    _own_lock_callees(prog)
    _no_compiled_section(prog)
    while True:
        _decide_keys(prog)
        _nested_decide(prog)
        if not _owned_decide(prog):
            break
    _in_moved_code(prog)
    for (kind, name), key in prog.keys.items():
        if kind != "mutex":
            continue
        for sec in key.sections:
            if key.why == NOT_SELECTED:
                prog.report.skipped += 1
            elif key.why:
                sec.reason = "lock %s stays POSIX: %s" % (name, key.why)
                prog.report.refuse(sec.file, sec.line, sec.reason)
            elif sec.reason:
                if getattr(sec, "trylock", False) and \
                        not sec.reason.startswith("trylock section"):
                    sec.reason = "trylock section: " + sec.reason
                prog.report.hold(sec.file, sec.line, sec.reason)
            else:
                prog.report.transformed += 1
        for file, line, why in key.in_place:
            if key.why == NOT_SELECTED:
                prog.report.skipped += 1
            elif key.why:
                prog.report.refuse(file, line, "lock %s stays POSIX: %s" % (
                    name, key.why))
            else:
                prog.report.hold(file, line, why)


def _in_moved_code(prog):
    """A section that starts in the code after another section's early
    unlock (`if (e) { unlock(&a); lock(&b); ...; unlock(&b); continue;
    }`) is held when that one is delegated: the code moves after the
    outer liblock_exec() as it is written, with the small edits of held
    sections only (extract._dispatch())."""
    moved = {}  # path -> [(first token, end token, outer section)]
    for (kind, _), key in prog.keys.items():
        if kind != "mutex" or key.why:
            continue
        for sec in key.sections:
            shape = getattr(sec, "shape", None)
            if sec.reason or not shape:
                continue
            for _, cont in shape.get("exits", ()):
                if cont:
                    moved.setdefault(sec.fileobj.path, []).append(
                        (cont[0].t0, cont[-1].t1, sec))
    if not moved:
        return
    for (kind, _), key in prog.keys.items():
        if kind != "mutex":
            continue
        for sec in key.sections:
            f = getattr(sec, "fileobj", None)
            if sec.reason or f is None or sec.tok is None:
                continue
            for a, b, outer in moved.get(f.path, ()):
                if outer is not sec and a <= sec.tok < b:
                    sec.reason = (
                        "starts after the early unlock of %s's section at "
                        "line %d, in code that moves out of that section "
                        "as it is written" % (outer.key.lstrip("."),
                                              outer.line))
                    break


def _no_compiled_section(prog):
    """A mutex with no section in the code the build compiles (-p: outside
    the branches libclang skips) stays POSIX.  Converting it gains nothing,
    and its uses in branches of an #if that this build skips may not all
    be found (with -p, files with no other lock code are not read; a
    wrapper's call under #elif is not renamed): a configuration that
    compiles them would hand a pthread call a liblock_lock_t (mbuffer's
    LogMut, privoxy's localtime_mutex)."""
    def compiled(key):
        return any(not (s.reason or "").startswith(analyse.SKIPPED_CODE)
                   for s in key.sections)
    for (kind, name), key in prog.keys.items():
        if kind != "mutex" or key.why or compiled(key) or key.in_place:
            continue
        # A lock whose sections all go through a pointer to it, or such a
        # pointer (_pointee_tie()): the sections of either count.
        tied = set(prog.ptr_pointees.get(name, ())) | set(
            prog.pointers_to(name))
        # or through a pointer that carries it with others (_slot_tie())
        for s in prog.handles.shared(name):
            tied |= s.keys
        if any(compiled(prog.keys[("mutex", n)]) for n in tied
               if ("mutex", n) in prog.keys):
            continue
        key.refuse("no critical section of it in the code this build "
                   "compiles%s" % (
                       " (only in branches of an #if its flags skip)"
                       if key.sections or key.skipped_calls else ""))


def _owned_decide(prog):
    """A recursive or error-checking mutex (Key.owned) becomes a liblock
    lock of the same type (liblock_mutexattr_flags(), LIBLOCK_ATTR_*):
    the thread that holds it through a held section takes it again, or is
    refused, as with pthreads, and runs a delegated section of it in
    place.  What only a delegated section cannot do is take it again from
    the server thread: analyse_section() and the front end hold a section
    that reaches a lock call of it, through pointers and callbacks of the
    program too, and here a delegated section of it that calls what the
    tool cannot read (a library that may call back into the program) is
    held as well.  Without the front end nothing says what the sections
    call: the mutex stays POSIX.  Returns whether a decision changed (the
    others depend on it)."""
    changed = False
    fe = getattr(prog, "frontend", None)
    for (kind, name), key in prog.keys.items():
        if kind != "mutex" or key.why or not key.owned:
            continue
        for sec in key.sections:
            if sec.reason:
                continue
            span = _clang_span(sec.fileobj, sec.shape) \
                if getattr(sec, "shape", None) else None
            call = fe.foreign_call(sec.fileobj.path, *span) \
                if fe is not None and span else None
            if fe is None:
                key.refuse("%s; its section at %s:%d may call what the "
                           "tool cannot read, which may take it again"
                           % (key.owned, sec.file, sec.line))
                changed = True
                break
            if call:
                sec.reason = ("it calls %s, which may call back into the "
                              "program and take %s again (%s): the server "
                              "thread is not its owner" % (
                                  call, name.lstrip("."), key.owned))
                changed = True
    return changed


def _decide_keys(prog):
    """The fixpoint of decide() over keys: a mutex stays POSIX with its
    condition variables, and they with it."""
    changed = True
    while changed:
        changed = False
        for (kind, name), key in prog.keys.items():
            if key.why:
                continue
            if kind == "mutex":
                for c in key.partners:
                    ck = prog.keys.get(("cond", c))
                    if ck and ck.why and not key.why:
                        key.refuse("its condition variable %s stays POSIX: "
                                   "%s" % (c, ck.why))
            else:
                cancel = prog.cancel_for_cond(key)
                if cancel:
                    key.refuse("the program cancels threads (%s): "
                               "pthread_cond_wait() is a cancellation point,"
                               " liblock_cond_wait() is not" % (
                                   cancel if cancel.startswith("pthread_")
                                   else "pthread_cancel() at " + cancel))
                if not key.partners:
                    key.refuse("never waited on")
                if not key.declared():
                    key.refuse("no declaration found")
                for m in key.partners:
                    mk = prog.keys.get(("mutex", m))
                    if (mk is None or mk.why) and not key.why:
                        key.refuse("waits with mutex %s, which stays POSIX"
                                   % m)
            if not key.why:
                _shared_macro_decl(prog, kind, key)
            if not key.why:
                _shared_decl(prog, kind, key)
            if not key.why:
                _shared_init_macro(prog, kind, key)
            if not key.why:
                _shared_init_fn(prog, kind, key)
            if not key.why and kind == "mutex":
                _pointee_tie(prog, key)
            if not key.why and kind == "mutex":
                _slot_tie(prog, key)
            if not key.why and kind == "cond":
                _cond_pointee_tie(prog, key)
            if key.why:
                changed = True
        if macrobody.decide(prog, lambda n: converted(prog, "mutex", n)):
            changed = True


def _pointee_tie(prog, key):
    """A pointer assigned the address of a lock (`args[i].lock =
    &count_lock;`, Program._ptr_assign()) and that lock change type
    together: one stays POSIX with the other.  A pointer assigned the
    addresses of several locks is converted with all of them: a section
    through it runs on whichever it holds (liblock_exec() reads the
    algorithm and server from the lock), as pthreads took whichever it
    held."""
    pointees = prog.ptr_pointees.get(key.name, {})
    for n, where in sorted(pointees.items()):
        pk = prog.keys.get(("mutex", n))
        if pk is not None and pk.owned:
            # The sections through the pointer are not checked as a
            # recursive mutex's are (_owned_decide()).
            key.refuse("pointer '%s' is assigned the address of %s at %s, "
                       "a recursive or error-checking mutex" % (
                           key.name.lstrip("."), n.lstrip("."), where))
            return
        if pk is not None and pk.why:
            key.refuse("pointer '%s' is assigned the address of %s at %s, "
                       "which stays POSIX: %s" % (
                           key.name.lstrip("."), n.lstrip("."), where,
                           pk.why))
            return
    for p, ns in prog.ptr_pointees.items():
        pk = prog.keys.get(("mutex", p))
        if key.name in ns and pk is not None and pk.why:
            key.refuse("its address is stored in pointer '%s' at %s, "
                       "which stays POSIX: %s" % (
                           p.lstrip("."), ns[key.name], pk.why))
            return


def _slot_tie(prog, key):
    """A pointer that carries the address of several locks between
    functions (handles.py: a helper `reduce_add(pthread_mutex_t *l, ...)`
    given &ex_lock and &ey_lock) changes type with all of them: one stays
    POSIX with another."""
    for s in prog.handles.shared(key.name):
        for n in sorted(s.keys):
            other = prog.keys.get(("mutex", n))
            if other is not None and other is not key and other.why:
                key.refuse("%s may hold the address of %s too, which stays "
                           "POSIX" % (s.label, n.lstrip(".")))
                return


def _nested_decide(prog):
    """A section that contains a section of another lock is extracted
    only when that one is extracted too (its liblock_exec() call then
    runs in the outer section's function); otherwise the inner section's
    lock calls would run on the server thread: the outer one is held."""
    changed = True
    while changed:
        changed = False
        for (kind, _), key in prog.keys.items():
            if kind != "mutex" or key.why:
                continue
            for sec in key.sections:
                if sec.reason:
                    continue
                for inner, n in sec.inner:
                    ik = prog.keys.get(("mutex", inner.key))
                    if ik is None:
                        why = "stays POSIX"
                    elif ik.why:
                        why = "stays POSIX: %s" % ik.why
                    elif inner.reason:
                        why = "is held: %s" % inner.reason
                    else:
                        why = None
                    if why:
                        sec.reason = "contains a section of %s at line " \
                            "%d, which %s" % (analyse.lock_name(n[2]), n[3],
                                              why)
                        changed = True
                        break


def delegated(sec):
    """Whether section @sec of a converted lock is extracted (else it is
    held: it runs in place on the lock word)."""
    return not sec.reason


def _own_lock_callees(prog):
    """A section whose calls reach a function of the program that takes
    or releases the section's own lock (`lock; release_and_log(); ...`,
    the callee unlocks) cannot run on the server: it is held.  Calls
    through function pointers are not followed."""
    bodies = {}  # function name -> [(File, bo, bc)]
    for f in prog.files:
        for fname, _, bo, bc in f.funcs:
            bodies.setdefault(fname, []).append((f, bo, bc))
    owned = {}  # function name -> {mutex key name: (File, token)}
    for (kind, name), key in prog.keys.items():
        if kind != "mutex":
            continue
        for calls in list(key.calls.values()) + [
                [(cf, k) for cf, k, _ in key.macro_calls]]:
            for cf, k in calls:
                for fname, _, bo, bc in cf.funcs:
                    if bo < k < bc:
                        owned.setdefault(fname, {}).setdefault(name,
                                                               (cf, k))
    callees = {}

    def called(f, a, b, dead=()):
        toks = f.src.toks
        return {toks[k].text for k in range(a, b)
                if toks[k].kind == "id" and k + 1 < len(toks) and
                toks[k + 1].text == "(" and toks[k].text in bodies and
                not any(x <= k < y for x, y in dead)}
    for (kind, name), key in prog.keys.items():
        if kind != "mutex" or key.why:
            continue
        for sec in key.sections:
            if sec.reason:
                continue
            # not the early unlocks and the code after them (conts), which
            # the caller runs once the lock is released (`unlock; return
            # fill(k);`, fill() taking the lock again)
            todo = [(n, None) for n in sorted(called(
                sec.fileobj, sec.shape["t0"], sec.shape["t1"],
                list(sec.shape["dead"]) + list(sec.shape["conts"])))]
            seen = set()
            while todo:
                fn, via = todo.pop(0)
                if fn in seen:
                    continue
                seen.add(fn)
                hit = owned.get(fn, {}).get(name)
                if hit:
                    sec.reason = (
                        "%s() takes or releases %s itself (at %s:%d%s)"
                        % (fn, name.lstrip("."), hit[0].display,
                           hit[0].line(hit[1]),
                           ", through %s()" % via if via else ""))
                    break
                if fn not in callees:
                    callees[fn] = set().union(*[called(f, bo, bc) for
                                                f, bo, bc in bodies[fn]])
                todo += [(c, via or fn) for c in sorted(callees[fn])]


def converted(prog, kind, name):
    key = prog.keys.get((kind, name))
    return key is not None and key.why is None


def _site_name(name, f, k):
    """The rcl-config.h name of a site of @name at token @k of @f: by the
    file's name, or by its path when another file of the run has the
    same name (site_bases())."""
    base = re.sub(r"\W", "_", getattr(f, "site_base",
                                      f.display.split("/")[-1]))
    return "RCL_%s_%s_%d" % (name, base, f.line(k))


def site_bases(prog):
    """File.site_base: the file's name, or its path when two files of
    the run share a name (a/util.c and b/util.c, each with a static
    `lock` on line 3, had one rcl-config.h entry between them)."""
    names = collections.Counter(f.display.split("/")[-1]
                                for f in prog.files)
    for f in prog.files:
        base = f.display.split("/")[-1]
        f.site_base = f.src.rel if names[base] > 1 else base


def site_macro(key, f, k):
    return _site_name(key.name.rpartition(".")[2], f, k)


def small_edits(prog, selection):
    """Type, initialiser, init/destroy and condition-call rewrites; returns
    the config entries [(macro, algo, comment)]."""
    entries = []
    site_bases(prog)
    shared_done = set()  # shared initialiser macro sites already written
    for (kind, name), key in sorted(prog.keys.items()):
        if key.why and kind == "mutex":
            for f, k, how in key.sites:
                # No line numbers: they move when sections are extracted,
                # and a second run must write the same file.
                entries.append((None, None, "%s (%s): %s" % (
                    name.lstrip("."), f.src.rel,
                    re.sub(r"(\S+?):\d+", r"\1", key.why))))
        if key.why:
            continue
        for f, k in key.decls:
            t = f.src.toks[k]
            f.edits.append((t.start, t.end, "liblock_lock_t" if kind ==
                            "mutex" else "liblock_cond_t"))
            f.needs_include = True
        for f, start, end, text in key.call_decls:
            f.edits.append((start, end, text))
            f.needs_include = True
        for f, start, end, _ in key.macro_decls:
            edit = (start, end, "liblock_lock_t" if kind == "mutex" else
                    "liblock_cond_t")
            if edit not in f.edits:  # shared by several structures
                f.edits.append(edit)
            f.needs_include = True
        if kind == "cond":
            continue
        comment = selection.comment(name, [(s[0].display, s[0].line(s[1]))
                                           for s in key.sites])
        for f, k, how in key.sites:
            toks = f.src.toks
            macro = site_macro(key, f, k)
            shared = prog.shared_init_macros.get((f.path, k)) \
                if how == "macro" else None
            if shared:
                if (f.path, k) in shared_done:
                    continue
                shared_done.add((f.path, k))
                macro = _site_name(shared[0], f, k)  # the macro's name
                entries.append((macro, "rcl", "%s: %s:%d, static "
                                "initializer macro %s, one for all of them" % (
                                    ", ".join(n.lstrip(".")
                                              for n in shared[1]),
                                    f.src.rel, f.line(k), shared[0])))
                f.needs_include = True
                f.needs_config = True
                start, end = key.macro_inits[(f.path, k)]
                f.edits.append((start, end, _initializer(
                    macro, f.src.text[start:end])))
                _other_macro_inits(key, f, k, macro)
                continue
            owned = None  # of the locks of an init function's site
            fn_shared = prog.shared_init_sites.get((f.path, k)) \
                if how == "init" else None
            if fn_shared:
                # an init function's pthread_mutex_init(): one site for
                # the locks it initialises (_shared_init_fn())
                if (f.path, k) in shared_done:
                    continue
                shared_done.add((f.path, k))
                slot, names = fn_shared
                # _shared_init_fn() keeps them together: a lock of the
                # parameter left POSIX would get liblock_init()
                assert all(converted(prog, "mutex", n) for n in names), \
                    "init function site %s:%d of locks converted apart" % (
                        f.display, f.line(k))
                macro = _site_name(slot.decl.name, f, k)
                entries.append((macro, "rcl", "%s: %s:%d, pthread_mutex_init"
                                "() on parameter '%s' of %s(), one for all "
                                "of them" % (
                                    ", ".join(n.lstrip(".") for n in names),
                                    f.src.rel, f.line(k), slot.decl.name,
                                    slot.fi.name)))
                owned = any(prog.keys[("mutex", n)].owned for n in names)
            elif how == "init":
                what = "pthread_mutex_init()"
            elif how == "static":
                what = "static initializer"
            else:
                what = "static initializer in macro %s" % re.match(
                    r"#\s*define\s+(\w+)", toks[k].text).group(1)
            if not fn_shared:
                ndel = sum(1 for s in key.sections if delegated(s))
                tied = getattr(key, "tied", None)
                entries.append((macro, "posix" if tied else "rcl",
                                "%s: %s:%d, %s, %d section(s): "
                                "%d delegated, %d held%s%s" % (
                                    name.lstrip("."), f.src.rel, f.line(k),
                                    what, len(key.sections), ndel,
                                    len(key.sections) - ndel,
                                    "; profile: " + comment if comment
                                    else "",
                                    "; not selected: shares condition %s "
                                    "with %s" % (tied[0], tied[1].lstrip("."))
                                    if tied else "")))
            f.needs_include = True
            f.needs_config = True
            if how == "init":
                _keep_unused(prog, prog.api[toks[k].text])
            if how != "init":
                start, end = (toks[k].start, toks[k].end) if how == "static" \
                    else key.macro_inits[(f.path, k)]
                f.edits.append((start, end, _initializer(
                    macro, f.src.text[start:end])))
                if how == "macro":
                    _other_macro_inits(key, f, k, macro)
            else:
                close = find.cparse.match(toks, k + 1)
                attr = "&(liblock_attr_t){ %s_ALGO, %s_SERVER, %s }" % (
                    macro, macro, _init_type_flags(prog, key, toks, k,
                                                   owned))
                raw = find.cparse.split_args(toks, k + 1, close)
                if prog.api[toks[k].text].identity and len(raw) == 2:
                    # Only the name and the attribute change: other edits
                    # inside the first argument still apply.
                    a, b = raw[1]
                    f.edits.append((toks[k].start, toks[k].end,
                                    "liblock_init"))
                    f.edits.append((toks[a].start, toks[b - 1].end, attr))
                else:  # a macro that supplies the attribute itself
                    m = prog.macros.get(toks[k].text)
                    semi = ";" if m and m[1].rstrip().endswith(";") and \
                        toks[close + 1].text != ";" else ""
                    # and what it does with the result: (!(...))
                    before, after = prog.api[toks[k].text].wrap or ("", "")
                    f.edits.append((toks[k].start, toks[close].end,
                                    "%sliblock_init(%s, %s)%s%s" % (
                                        before.strip(),
                                        _api_args(prog, toks, k)[0], attr,
                                        after.strip(), semi)))
    for pl in prog.ptr_locals.values():
        # pthread_mutex_t *l = &locks[h % N]: the type of its pointee.
        if pl.why is None and pl.pointees and all(
                converted(prog, "mutex", n) for n in pl.pointees):
            t = pl.file.src.toks[pl.decl_tok]
            pl.file.edits.append((t.start, t.end, "liblock_lock_t"))
            # and its copies in the sections' contexts
            pl.decl.spec = " ".join("liblock_lock_t" if w == t.text else w
                                    for w in pl.decl.spec.split())
    # Locals that save a converted lock by value and put it back.
    for f, k, kind, name, _ in prog.value_copies:
        t = f.src.toks[k]
        new = "liblock_lock_t" if kind == "mutex" else "liblock_cond_t"
        if converted(prog, kind, name) and \
                (t.start, t.end, new) not in f.edits:
            f.edits.append((t.start, t.end, new))
            f.needs_include = True
    # Pointers that carry a converted lock between functions, and casts
    # to them (handles.py).
    for f, k in prog.handles.retype(lambda n: converted(prog, "mutex", n)):
        t = f.src.toks[k]
        if (t.start, t.end, "liblock_lock_t") not in f.edits:
            f.edits.append((t.start, t.end, "liblock_lock_t"))
            f.needs_include = True
    _in_place_wrappers(prog)
    for f in prog.files:
        _call_renames(prog, f)
        _held_calls(prog, f)
        _guard_cleanups(prog, f)
    for (kind, name), key in prog.keys.items():
        if kind == "mutex" and not key.why:
            for f, start, end, new in key.skipped_calls:
                f.edits.append((start, end, new))
    macrobody.edits(prog, lambda n: converted(prog, "mutex", n))
    return entries


def _in_place_wrappers(prog):
    """The in-place condition wrappers (find.in_place_wrapper) of converted
    condition fields: their pthread call is renamed with the others
    (_call_renames()), and the parameter they wait with becomes a
    liblock_lock_t pointer (every mutex waited with through them is
    converted: Program._in_place_call())."""
    for api in prog.api.values():
        if api.in_place is None:
            continue
        cks, why = prog.in_place_cond(api)
        i = api.in_place["mutex"]
        if why or len(cks) != 1 or not converted(prog, "cond", cks[0]) or \
                i is None:
            continue
        start, end, text = api.wrapper["ptypes"][i]
        if text == "void":
            continue
        f = [x for x in prog.files if x.path == api.wrapper["file"]][0]
        f.edits.append((start, end, "liblock_lock_t"))
        f.needs_include = True


def _guard_cleanups(prog, f):
    """Mark a static cleanup function of a scope guard (scoped.py) in @f
    `__attribute__((unused))`: the rewritten uses no longer name it."""
    toks = f.src.toks
    for name, ni, _, _ in f.funcs:
        if name not in getattr(prog, "guard_cleanups", ()):
            continue
        head, static, inline = find.definition_head(toks, ni)
        edit = (toks[head].start, toks[head].start,
                "__attribute__((unused)) ")
        if static and not inline and edit not in f.edits:
            f.edits.append(edit)


def _held_calls(prog, f):
    """The lock, trylock and unlock calls of converted mutexes in file @f
    that no delegated section removes (those of held sections, and the
    unlocks of sections that end elsewhere) become liblock_lock,
    liblock_trylock and liblock_unlock on the same lock: directly, and
    for a lock macro or a wrapper of the mutex given in place of its call.
    The calls of a wrapper that names its lock stay: its body calls
    liblock (wrappers())."""
    toks = f.src.toks
    for (kind, name), key in sorted(prog.keys.items()):
        if kind != "mutex" or key.why:
            continue
        spans = [(s.stmt.t0, s.shape["block"].subs[s.shape["j"]].t1)
                 for s in key.sections if delegated(s) and s.fileobj is f]
        # a delegated trylock's call sits in the if before its section
        spans += [(s.tok, s.tok + 1) for s in key.sections
                  if delegated(s) and s.fileobj is f and
                  getattr(s, "try_shape", None)]
        for role, calls in sorted(key.calls.items()):
            for cf, k in calls:
                if cf is not f or any(a <= k < b for a, b in spans):
                    continue
                lf = prog.fns[toks[k].text]
                w = lf.called_wrapper()
                if w and not w.get("param"):
                    continue  # directly or through a macro (pigz's possess())
                # A wrapper of the mutex given (liblzma's
                # mythread_mutex_lock(m)) stays pthread's for the locks
                # that stay POSIX: its call is replaced like a macro's.
                new = "liblock_" + role
                f.needs_include = True
                if lf.params is None:  # the pthread function itself
                    f.edits.append((toks[k].start, toks[k].end, new))
                    continue
                close = find.cparse.match(toks, k + 1)
                m = prog.macros.get(toks[k].text)
                semi = ";" if m and m[1].rstrip().endswith(";") and \
                    toks[close + 1].text != ";" else ""
                # A cast to the mutex type in the lock expression
                # (`(pthread_mutex_t *) lock`) names the new type too.
                expr = re.sub(r"\b(%s)\b" % "|".join(
                    re.escape(n) for n, kd in sorted(prog.types.items())
                    if kd == "mutex"), "liblock_lock_t",
                    lf.expr(find.call_args(toks, k)))
                _keep_unused(prog, lf)  # it may have no caller left
                call = lf.liblock_call(expr)
                w = lf.called_wrapper()
                ret = w.get("returns") if w else None
                if ret is not None and not (
                        toks[k - 1].text in (";", "{", "}", ":", "else",
                                             ")") and
                        toks[close + 1].text == ";"):
                    # its value is used, and the wrapper returns a
                    # constant after its call (`return 1;`): keep it
                    call = "(%s, %d)" % (call, ret)
                f.edits.append((toks[k].start, toks[close].end,
                                call + semi))


def _static_type_flags(initializer):
    """The LIBLOCK_ATTR_* flag of glibc's recursive or error-checking
    static initialiser @initializer, or None (a plain mutex's)."""
    if initializer.startswith("PTHREAD_RECURSIVE_MUTEX_INITIALIZER"):
        return "LIBLOCK_ATTR_RECURSIVE"
    if initializer.startswith("PTHREAD_ERRORCHECK_MUTEX_INITIALIZER"):
        return "LIBLOCK_ATTR_ERRORCHECK"
    return None


def _other_macro_inits(key, f, k, macro):
    """The initialiser macro's definitions in branches the compiler skips
    (Key.macro_inits_other) get the site @macro of the one it reads."""
    for of, start, end in key.macro_inits_other.get((f.path, k), ()):
        edit = (start, end, _initializer(macro, of.src.text[start:end]))
        if edit not in of.edits:  # shared by several keys
            of.edits.append(edit)
            of.needs_include = True
            of.needs_config = True


def _initializer(macro, initializer):
    """The liblock static initialiser of site @macro (its rcl-config.h
    name) that replaces pthread's @initializer, keeping its type."""
    flags = _static_type_flags(initializer)
    if flags:
        return "LIBLOCK_INITIALIZER_FLAGS(%s_ALGO, %s_SERVER, %s)" % (
            macro, macro, flags)
    return "LIBLOCK_INITIALIZER_ALGO(%s_ALGO, %s_SERVER)" % (macro, macro)


def _init_type_flags(prog, key, toks, k, owned=None):
    """The flags of the liblock attribute that replaces the pthread one of
    the init call at token @k: a recursive or error-checking mutex
    (Key.owned, or @owned for the site of several) keeps the type its
    attribute gives it, read when the program runs
    (liblock_mutexattr_flags()); any other gets 0."""
    args = _api_args(prog, toks, k)
    if not (key.owned if owned is None else owned) or len(args) < 2 or \
            find.canon(args[1]) in ("NULL", "0", "(void*)0"):
        return "0"
    return "liblock_mutexattr_flags(%s)" % args[1]


def _api_args(prog, toks, k):
    """The arguments pthread receives from the call (of a pthread function
    or of a macro for one) whose name is at token @k."""
    close = find.cparse.match(toks, k + 1)
    return prog.api[toks[k].text].args(
        [find.join_tokens([x.text for x in toks[a:b]])
         for a, b in find.cparse.split_args(toks, k + 1, close)])


def _call_renames(prog, f):
    """pthread_mutex_destroy, pthread_mutex_timedlock/clocklock,
    pthread_cond_* (or the project's macros for them),
    sizeof(pthread_mutex_t) and PTHREAD_COND_INITIALIZER of
    converted keys, in file @f."""
    toks = f.src.toks
    for k, t in enumerate(toks):
        if t.kind != "id" or k + 1 >= len(toks) or \
                toks[k + 1].text != "(":
            continue
        api = prog.api.get(t.text)
        if api and api.in_place is not None:
            continue  # its body calls liblock: _in_place_wrappers()
        if api and api.target != "pthread_mutex_init":
            args = _api_args(prog, toks, k)
            kind = "mutex" if api.target.startswith("pthread_mutex") \
                else "cond"
            names, why = prog.lock_keys(args[0], f, k, kind) if args \
                else ([], None)
            if len(names) == 1 and not why and \
                    converted(prog, kind, names[0]):
                new = find.LIBLOCK_NAMES[api.target]
                _keep_unused(prog, api)
                if api.identity:
                    f.edits.append((t.start, t.end, new))
                elif api.template_edits(toks, k) is not None:
                    # the macro's text around the arguments, as the
                    # preprocessor expands it: edits inside them apply
                    f.edits.append((t.start, t.end, new))
                    f.edits += api.template_edits(toks, k)
                elif api.droppable(toks, k):
                    # the name, and the arguments pthread does not get
                    # cast to void: other edits inside every argument
                    # still apply
                    f.edits.append((t.start, t.end, new))
                    f.edits += api.drop_edits(toks, k)
                else:  # cond_init: outside sections (no other edits)
                    close = find.cparse.match(toks, k + 1)
                    f.edits.append((t.start, toks[close].end, "%s(%s)" % (
                        new, ", ".join(args))))
    # A cancellation cleanup handler that unlocks a converted lock
    # (Program._cleanup_unlocks()): liblock's.
    for cf, a, b, name in prog.cleanup_unlocks:
        if cf is f and converted(prog, "mutex", name):
            f.edits.append((toks[a].start, toks[b].end,
                            "liblock_cleanup_unlock"))
            f.needs_include = True
            _keep_unused(prog, prog.fns.get(toks[b].text))
    # Heap storage of a converted pointer key: its allocation's size and
    # cast (Program._ptr_assign()).
    for name, af, retype in prog.ptr_allocs:
        if af is f and converted(prog, "mutex", name):
            for k in retype:
                x = toks[k]
                if (x.start, x.end, "liblock_lock_t") not in f.edits:
                    f.edits.append((x.start, x.end, "liblock_lock_t"))
    for k, t in enumerate(toks):
        if t.text == "PTHREAD_COND_INITIALIZER" or \
                _cond_initializer_macro(prog, t.text):
            j = k
            while j > 0 and toks[j].text != "pthread_cond_t":
                j -= 1
            names = [toks[x].text for x in range(j, k)
                     if toks[x].kind == "id"]
            if any(converted(prog, "cond", n) for n in names):
                f.edits.append((t.start, t.end,
                                "LIBLOCK_COND_INITIALIZER"))
    for (path, _), (_, _, cks, offs) in sorted(
            prog.init_macro_conds.items()):
        # (_shared_init_macro(): all of them are converted, or none)
        if path == f.path and all(converted(prog, "cond", n) for n in cks):
            f.edits += [(a, b, "LIBLOCK_COND_INITIALIZER") for a, b in offs]
    for cf, k, name in prog.cond_inits:
        if cf is not f:
            continue  # (k is a token of that file)
        t = toks[k]
        edit = (t.start, t.end, "LIBLOCK_COND_INITIALIZER")
        if converted(prog, "cond", name) and edit not in f.edits:
            f.edits.append(edit)


def _cond_initializer_macro(prog, name, seen=()):
    """Whether @name is an object-like macro that stands for
    PTHREAD_COND_INITIALIZER in every definition the compiler reads, maybe
    through other such macros (cmus' `#define CMUS_COND_INITIALIZER
    PTHREAD_COND_INITIALIZER`): its use in a converted condition's
    declaration becomes LIBLOCK_COND_INITIALIZER, the macro stays."""
    bodies = prog.live_objects.get(name)
    if not bodies or name in seen:
        return False
    return all(b == "PTHREAD_COND_INITIALIZER" or
               _cond_initializer_macro(prog, b, seen + (name,))
               for b in bodies)


def wrappers(prog):
    """Wrapper functions of converted locks: their bodies call liblock, and
    the lock wrapper gets a NAME_rcl_exec() companion."""
    helpers = {}
    for name, lf in prog.fns.items():
        w = lf.wrapper
        if not w or w.get("param"):
            continue  # a parameter wrapper: see sections()
        names, why = prog.fn_keys(lf, None, None, None)
        if len(names) != 1 or why or not converted(prog, "mutex", names[0]):
            continue
        f = [x for x in prog.files if x.path == w["file"]][0]
        toks = f.src.toks
        k = f.src.tok_at(w["call"])  # the pthread (or inner) call
        new = {"lock": "liblock_lock", "unlock": "liblock_unlock",
               "trylock": "liblock_trylock"}[lf.role]
        inner = prog.fns.get(toks[k].text)
        if inner is not None and inner.params is not None:
            # a lock macro (CACHE_UNLOCK()) or a wrapper taking the mutex
            # (xlock(&t->mu)): the call, not only its name
            close = find.cparse.match(toks, k + 1)
            f.edits.append((toks[k].start, toks[close].end,
                            inner.liblock_call(w["lock_expr"])))
        else:
            f.edits.append((toks[k].start, toks[k].end, new))
        if inner and inner.wrapper and inner.wrapper.get("param"):
            _keep_unused(prog, inner)  # xlock(&t->mu) became liblock_lock
        if w["static"]:
            f.edits.append((w["start"], w["start"],
                            "__attribute__((unused)) "))
        f.needs_include = True
        if lf.role != "lock" or not any(
                s.lf and (s.lf is lf or s.lf.via is lf) and delegated(s)
                for s in prog.keys[("mutex", names[0])].sections):
            continue  # no companion for held sections only (unused)
        params = ", ".join(p for p, _ in w["params"])
        # Static like its wrapper, and as unused where a header that
        # defines it is included by a file without sections of its own.
        proto = "%svoid *%s_rcl_exec(%s%sliblock_fn_t rcl_fn, void *rcl_arg)" \
            % ("__attribute__((unused)) static " if w["static"] else "",
               name, params,
               ", " if params else "")
        # A parameter of a type the file declares (struct table *t) is not
        # declared yet where the includes end: the companion is declared
        # just before its definition (for -Wmissing-prototypes) and the
        # sections below it need no prototype (sections()).
        local = any(t in ("struct", "union", "enum") or t in prog.typedefs
                    for p, _ in w["params"] for t in re.findall(r"\w+", p))
        body = ("\n\n/* rcl-refactor: runs rcl_fn(rcl_arg) as a critical "
                "section of the lock %s() takes. */\n%s%s\n{\n"
                "\treturn liblock_exec(%s, rcl_fn, rcl_arg);\n}" %
                (name, proto + ";\n" if local and not w["static"] else "",
                 proto, w["lock_expr"]))
        f.before.setdefault(w["end"], []).append(body)
        helpers[name] = (proto, f, w["static"], local, w["end"])
    return helpers


def sections(prog, helpers):
    """Extract every section of every converted lock.  A section that
    contains sections of other locks (nested) is extracted after them: its
    function calls theirs through liblock_exec()."""
    used_helpers = {}  # path -> {companion: offset of its first caller}
    counters = {}
    done = set()

    def emit(name, sec):
        if id(sec) in done:
            return
        done.add(id(sec))
        for inner, _ in sec.inner:
            emit(inner.key, inner)
        _emit(prog, helpers, name, sec, counters, used_helpers)
    for (kind, name), key in sorted(prog.keys.items()):
        if kind != "mutex" or key.why:
            continue
        for sec in key.sections:
            if delegated(sec):
                emit(name, sec)
    for f in prog.files:
        for (_, (a, b)), dead in getattr(f, "dead", {}).items():
            _drop_declarators(f, a, b, dead)
    # a non-static companion is declared before its definition, once
    # (-Wmissing-prototypes; -Wredundant-decls forbids two): at the top
    # of its file if sections there call it, else just before it
    for nm, (proto, hf, static, local, end) in helpers.items():
        if not static and not local and \
                nm not in used_helpers.get(hf.path, ()):
            texts = hf.before[end]
            for i, t in enumerate(texts):
                if "\n" + proto + "\n{" in t:
                    texts[i] = t.replace("\n" + proto + "\n{", "\n%s;\n%s\n{"
                                         % (proto, proto), 1)
    for path, names in used_helpers.items():
        f = [x for x in prog.files if x.path == path][0]
        for nm, first in sorted(names.items()):
            proto, hf, static, local, _ = helpers[nm]
            if local:
                # Its parameters' types are declared in the file, maybe
                # below the includes: declared just before the first
                # function that calls it (libwget's wrappers, defined
                # after their callers: at the top, `struct counter *`
                # was a new type there and the call did not match).
                f.before.setdefault(first, []).insert(0, proto + ";\n")
            else:
                f.protos = getattr(f, "protos", []) + [proto + ";"]


def _emit(prog, helpers, name, sec, counters, used_helpers):
    """Extract the delegated section @sec of lock @name."""
    f, fi = sec.fileobj, sec.fi
    n = counters.get((f.path, fi.name), 0) + 1
    while re.search(r"\brcl_cs_%s_%d\b" % (fi.name, n), f.src.text):
        n += 1
    counters[(f.path, fi.name)] = n
    names = ("rcl_cs_%s_%d" % (fi.name, n),
             "rcl_ctx_%s_%d" % (fi.name, n))
    sec.gen = names[0]
    lf = sec.lf
    if sec.shape.get("try"):
        _try_section(prog, sec, names, name)
        return
    lock_s = sec.shape["block"].subs[sec.shape["i"]]
    call = analyse.call_of(f.src.toks, sec.shape["stored"][2]
                           if sec.shape["stored"] else lock_s)
    wrapped = lf.called_wrapper()
    if wrapped and wrapped.get("param"):
        # The call site names the lock: liblock_exec() on it, as
        # for pthread_mutex_lock().  The wrappers themselves stay
        # for the locks that stay POSIX (they may have no caller
        # left).
        _keep_unused(prog, lf)
    # So do the unlock wrappers ending the section, whatever took the lock
    # (pthread_mutex_lock(&m); ...; unlock_it(&m);).
    su = sec.shape["stored_unlock"]
    for u in [su[2] if su else sec.shape["block"].subs[
            sec.shape["j"]]] + [u for u, _ in sec.shape["exits"]]:
        uc = analyse.call_of(f.src.toks, u)
        _keep_unused(prog, prog.fns.get(uc[0]) if uc else None)
    if wrapped and not wrapped.get("param"):
        # the wrapper function, called directly or through a macro
        wf = lf if lf.wrapper else lf.via
        args = call[1] if lf.wrapper else [
            find.substitute(lf.params, a, call[1]) for a in lf.via_args]
        if not (wrapped["file"] == f.path and
                wrapped["end"] <= def_start(f, fi) and
                helpers[wf.name][3]):
            at = used_helpers.setdefault(f.path, {})
            at[wf.name] = min(at.get(wf.name, def_start(f, fi)),
                              def_start(f, fi))

        def exec_text(fn, ctx, wf=wf, args=args):
            return "%s_rcl_exec(%s%s%s, %s)" % (
                wf.name, ", ".join(args), ", " if args else "",
                fn, ctx)
    else:
        expr = lf.expr(call[1])

        def exec_text(fn, ctx, expr=expr):
            return "liblock_exec(%s, %s, %s)" % (expr, fn, ctx)
    nested = [inner.nested_edit for inner, _ in sec.inner]
    small = [e for e in f.edits
             if not any(x[0] <= e[0] < x[1] for x in nested)]
    if sec.shape.get("errno"):
        f.needs_errno = True  # includes_edit()
    before, repl, (a, b) = extract.generate(
        fi, sec.shape, sec.vars, names, small, exec_text, name, nested)
    _unregister(f, sec)
    outer = sec.outer
    if outer is not None and delegated(outer) and \
            converted(prog, "mutex", outer.key):
        # Its call goes in the outer section's function, not the caller.
        sec.nested_edit = (a, b, repl)
    else:
        f.big.append((a, b, repl))
    _place_extracted(prog, f, fi, sec, before)


def _unregister(f, sec):
    """A local or parameter of the caller declared `register` whose
    address the section's call now passes (`&k`: "address of register
    variable requested") loses the keyword, a hint the compiler is free
    to ignore and whose only other effect is to forbid taking the
    address.  One declared inside the section, or by a macro, is left
    as it is (the compile check then holds the section)."""
    toks = f.src.toks
    done = f.__dict__.setdefault("unregistered", set())
    for d in sec.shape.get("addressed", ()):
        if "register" not in d.spec.split() or \
                sec.shape["t0"] <= d.t0 < sec.shape["t1"]:
            continue
        j = d.t0 - 1
        while j >= 0 and toks[j].text not in (";", "{", "}", "(") and \
                toks[j].kind != "pp":
            if toks[j].text == "register":
                if j not in done:
                    done.add(j)
                    f.edits.append((toks[j].start, toks[j + 1].start, ""))
                break
            j -= 1


def _place_extracted(prog, f, fi, sec, before):
    """After a section of @fi in @f is replaced by its call: put the
    extracted function (@before) ahead of @fi's definition, under the same
    #if conditions, and mark the declarations the section alone used (now
    the extracted function's) to be dropped from the caller."""
    for d, _, is_in, is_out in sec.vars:
        if not is_in and not is_out and not d.is_param:
            f.dead = getattr(f, "dead", {})
            f.dead.setdefault((fi.ni, d.stmt), []).append(d)
    if safety.names_function(prog, fi, sec.shape):
        before = safety.keep_function_name(prog, before, fi.name)
    if sec.shape.get("replay"):
        before = safety.replay_directives(before, sec.shape["replay"])
    start = def_start(f, fi)
    f.before.setdefault(start, []).append(
        _same_conditions(f, start, sec.tok, before) + "\n" +
        (extract.LINE_RESTORE + "\n" if sec.shape.get("keep_line") else ""))
    f.needs_include = True
    f.needs_config = True


def _try_section(prog, sec, names, lockname):
    """Extract the trylock section @sec: rcl_tryexec() runs it."""
    f, fi, lf = sec.fileobj, sec.fi, sec.lf
    wrapped = lf.called_wrapper()
    if wrapped and wrapped.get("param"):
        _keep_unused(prog, lf)
    u = analyse.call_of(f.src.toks, sec.shape["block"].subs[sec.shape["j"]])
    _keep_unused(prog, prog.fns.get(u[0]) if u else None)
    expr = re.sub(r"\b(%s)\b" % "|".join(
        re.escape(n) for n, kd in sorted(prog.types.items())
        if kd == "mutex"), "liblock_lock_t", sec.shape["try"]["expr"])
    small = [e for e in f.edits]
    if sec.shape.get("errno"):
        f.needs_errno = True  # includes_edit()
    before, edits = extract.generate_try(fi, sec.shape, sec.vars, names,
                                         small, expr, lockname)
    _unregister(f, sec)
    a, b, repl = edits[0]
    f.big.append((a, b, repl))
    for e in edits[1:]:
        f.before.setdefault(e[0], []).append(e[2])
    _place_extracted(prog, f, fi, sec, before)
    f.needs_rcl = True


def _keep_unused(prog, fn):
    """Mark the static parameter wrapper @fn (a LockFn or an ApiCall)
    `__attribute__((unused))`: its callers may all have become liblock
    calls (an inline one needs nothing)."""
    if fn is not None and fn.wrapper is None and getattr(fn, "via", None):
        fn = fn.via  # a macro that calls the wrapper
    w = fn.wrapper if fn is not None else None
    if w is None or not w["static"] or w["inline"] or w.get("unused"):
        return  # pthread itself, a macro, or done
    for path, start, _ in find.wrapper_spans(w):
        f = [x for x in prog.files if x.path == path][0]
        f.edits.append((start, start, "__attribute__((unused)) "))
    w["unused"] = True


def _same_conditions(f, start, k, text):
    """@text (placed at offset @start) under the #if conditions that the
    section at token @k is in and @start is not: memcached compiles its
    TLS sections only #ifdef TLS."""
    outer = cond.conditions_at(f.src.text, f.src.line_of(start))
    inner = cond.conditions_at(f.src.text, f.line(k))
    extra = inner[len(outer):] if inner[:len(outer)] == outer else inner
    if not extra:
        return text
    return "#if %s\n%s#endif\n" % (" && ".join(
        c if len(extra) == 1 else "(%s)" % c for c in extra), text)


def unlift(prog):
    """Put back the braces lift.py moved for sections not transformed."""
    done = {(s.fileobj.path, s.fileobj.src.toks[s.stmt.t0].start)
            for key in prog.keys.values() if not key.why
            for s in key.sections if delegated(s)}
    for f in prog.files:
        f.edits += lift.undo_edits(f, getattr(f, "lifts", []), {
            off for path, off in done if path == f.path})


def _drop_declarators(f, a, b, dead):
    """Remove the declarators @dead (now only used inside extracted
    sections) from the declaration statement at tokens [a, b)."""
    toks, text = f.src.toks, f.src.text
    decls = analyse.parse_decl(toks, a, b - 1, None)
    names = {d.name for d in dead}
    kept = [d for d in decls if d.name not in names]
    start, end = toks[a].start, toks[b - 1].end
    if not kept:
        ls = text.rfind("\n", 0, start) + 1
        le = text.find("\n", end)
        if not text[ls:start].strip() and (le < 0 or
                                           not text[end:le].strip()):
            start, end = ls, (le + 1 if le >= 0 else len(text))
            if text[ls - 2:ls] == "{\n" and text[end:end + 1] == "\n":
                end += 1
        f.edits.append((start, end, ""))
        return
    first = toks[decls[0].range[0]].start
    parts = [text[toks[d.range[0]].start:toks[d.range[1] - 1].end]
             for d in kept]
    f.edits.append((start, end, text[start:first] + ", ".join(parts) + ";"))


def _def_token(f, fi):
    """Index of the first token at or after def_start(@f, @fi)."""
    off, toks, k = def_start(f, fi), f.src.toks, fi.ni
    while k > 0 and toks[k - 1].start >= off:
        k -= 1
    return k


def def_start(f, fi):
    """Offset where text can go before the definition of @fi: the start of
    the line of its first token, above a comment that precedes it.  A
    macro that closes the function before (File.closing_macros) is not
    part of the head."""
    toks = f.src.toks
    j = fi.ni
    while j > 0 and toks[j - 1].kind == "id" and \
            toks[j - 1].text not in f.closing_macros or (
                j > 0 and toks[j - 1].text == "*"):
        j -= 1
    text = f.src.text
    off = text.rfind("\n", 0, toks[j].start) + 1
    prev_end = toks[j - 1].end if j > 0 else 0
    gap = text[prev_end:off]
    m = re.search(r"/\*(?:[^*]|\*(?!/))*\*/\s*$", gap)
    if m:
        off = text.rfind("\n", 0, prev_end + m.start()) + 1
        if off < prev_end:
            off = prev_end + m.start()
    return off


# Feature-test macros: a system header read before the file defines them
# is read without them for the rest of the unit (glibc's <features.h>).
_FEATURE_MACRO = re.compile(
    r"#\s*define\s+(_[A-Z0-9_]*_SOURCE(_EXTENDED)?|_FILE_OFFSET_BITS|"
    r"_TIME_BITS|_LARGEFILE\w*|_REENTRANT|_THREAD_SAFE|_FORTIFY_SOURCE|"
    r"__STDC_\w+)\b")


def includes_edit(f, config_rel):
    """Insert our includes after the file's leading #include lines: after
    the last directive of its leading run of directives that ends, at the
    file's top level (inside a header's guard), what an #include or a
    feature-test macro began, as `#ifdef HAVE_CONFIG_H #include "config.h"
    #endif` or `#if !defined(_WIN32) #define _GNU_SOURCE #endif` do.
    <stdint.h> and <liblock.h> read <pthread.h>, which must see the
    feature-test macros the file asks for (civetweb defines _GNU_SOURCE
    in a platform #if, before a first declaration and its includes)."""
    toks = f.src.toks
    last, depth, pending = None, 0, False
    # An include guard: `#ifndef NAME` (or `#if !defined(NAME)`) then
    # `#define NAME`; not any #if that opens the file (libwebsockets'
    # protocol_lws_minimal.c, included by a unit with LWS_PLUGIN_STATIC
    # defined, opens with `#if !defined (LWS_PLUGIN_STATIC)` around its
    # own includes: ours went inside, which that unit skips).
    pps = [t for t in toks[:3] if t.kind == "pp"]
    m = re.match(r"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+))",
                 pps[0].text) if f.is_header and len(pps) > 1 else None
    guard = 1 if m and re.match(r"#\s*define\s+%s\b" % (
        m.group(1) or m.group(2)), pps[1].text) else 0
    for t in toks:
        if t.kind != "pp":
            break
        d = re.match(r"#\s*(\w*)", t.text).group(1)
        if d in ("if", "ifdef", "ifndef"):
            depth += 1
        elif d == "endif":
            depth -= 1
        elif d == "include" or _FEATURE_MACRO.match(t.text):
            pending = True
        if pending and depth == guard:
            last, pending = t, False
    lines = []
    if not f.is_header:
        lines.append("#include <stdint.h>")
    lines.append("#include <liblock.h>")
    if f.needs_errno and not re.search(
            r"^\s*#\s*include\s*<errno\.h>", f.src.text, re.M):
        lines.append("#include <errno.h>")  # errno carried (extract.py)
    if getattr(f, "needs_rcl", False):
        lines.append("#include <rcl.h>")  # rcl_tryexec()
    if getattr(f, "needs_config", False):
        lines.append('#include "%s"' % config_rel)
    lines += getattr(f, "protos", [])
    text = "\n".join(lines) + "\n"
    # First at that offset: an extracted function that goes before a
    # definition written on the line after the last #include goes there
    # too, and uses what these declare (errno, liblock_exec()).
    off = (toks[0].start if toks else 0) if last is None else last.end + 1
    f.before.setdefault(off, []).insert(0, text)


def render_file(f, keep_lines=False):
    """The new text of @f (latin-1 string).  @keep_lines (lines_read()):
    after each edit that changes how many lines there are, a #line gives
    the lines below it their numbers of the input."""
    text = f.src.text
    edits = list(f.big)
    # What goes before an offset (includes, extracted functions) comes
    # first there, then the zero-width edits of the text at it: an
    # `__attribute__((unused)) ` that starts the definition written on
    # the line after the last #include (the sort below is stable).
    for off, texts in f.before.items():
        edits.append((off, off, "".join(texts)))
    for e in f.edits:
        if not any(a <= e[0] < b for a, b, _ in f.big):
            edits.append(e)
    edits.sort(key=lambda e: (e[0], e[1] != e[0], e[1]))
    applied, pos = [], 0
    for s, e, r in edits:
        if s >= pos:
            applied.append((s, e, r))
            pos = e
    if keep_lines:
        # a directive after the zero-width edits at its offset, before
        # the one that replaces text there
        marks = _line_marks(f, applied)
        applied = sorted(applied + marks, key=lambda e: (
            e[0], e[1] != e[0], len(e) > 3, e[1]))
    out, pos = [], 0
    for e in applied:
        s, r = e[0], e[2]
        out.append(text[pos:s])
        last = next((x[-1] for x in reversed(out) if x), "\n")
        if len(e) > 3 and last != "\n":
            r = "\n" + r  # after an insertion that ends mid-line
        out.append(r)
        pos = e[1]
    out.append(text[pos:])
    out = "".join(out)
    if extract.LINE_RESTORE not in out:
        return out
    lines = out.split("\n")
    if keep_lines:
        # the #line after the extracted function gives the input's number
        return "\n".join(ln for ln in lines if ln != extract.LINE_RESTORE)
    # After an extracted function that kept its section's line numbers:
    # the next line is numbered as it is in the output.
    for i, ln in enumerate(lines):
        if ln == extract.LINE_RESTORE:
            lines[i] = "#line %d %s" % (i + 2, extract.LINE_MARK)
    return "\n".join(lines)


def lines_read(prog, f):
    """Whether the code of @f reads its own line numbers: __LINE__ or
    __builtin_LINE() in its text, or a macro expanded there whose
    expansion does (assert(), a TRACE() of the program: the compiler's
    facts), so that lines moved by the rewrite would change what it does.
    Not in a file with #line directives of its own (the numbers it gives
    are not the file's)."""
    if re.search(r"(?m)^[ \t]*#[ \t]*(line\b|\d)", f.src.text):
        return False
    if any(t.kind == "id" and t.text in safety.LINE_NAMES
           for t in f.src.toks):
        return True
    fe = getattr(prog, "frontend", None)
    if fe is not None:
        return bool(fe.line_macro_lines(f.path))
    ids = {t.text for t in f.src.toks if t.kind == "id"}
    return safety.line_names(prog, ids)


def _line_marks(f, edits):
    """[(offset, offset, "#line N", True)]: after each of @edits that
    changes how many lines follow it, where a directive may stand, the
    number the input gives the line there."""
    text, toks = f.src.text, f.src.toks
    starts = [t.start for t in toks]
    depth, d = [], 0
    for t in toks:
        if t.kind == "punct" and t.text in ("(", "["):
            d += 1
        elif t.kind == "punct" and t.text in (")", "]") and d:
            d -= 1
        depth.append(d)
    skipped = f.skipped.lines if f.skipped is not None else frozenset()
    spans = [(s, e) for s, e, _ in edits if e > s]
    out = []
    for s, e, r in edits:
        if r.count("\n") == text.count("\n", s, e) and \
                extract.LINE_MARK not in r:
            continue
        # at the end of the edit (on a line of its own), else at the
        # start of the first line below it where a directive may stand
        nl = text.find("\n", e)
        p = nl + 1 if nl >= 0 and not text[e:nl].strip() else e
        while 0 < p < len(text):
            j = bisect.bisect_left(starts, p) - 1
            prev = toks[j] if j >= 0 else None
            nxt = toks[j + 1] if j + 1 < len(toks) else None
            gap = text[prev.end if prev else 0:p]
            if prev is not None and prev.end > p:
                p = prev.end  # inside a token: a directive's continuations
            elif nxt is not None and nxt.kind == "pp" and \
                    f.src.line_of(nxt.start) == f.src.line_of(p) and \
                    re.match(r"#\s*(else|elif|endif)\b", nxt.text):
                p = nxt.end  # it may end a skipped group: after it
            elif not (gap.rfind("/*") > gap.rfind("*/") or
                      prev is not None and depth[j] or
                      f.src.line_of(p) in skipped):
                break
            # in a comment, a macro's arguments, or a group the
            # preprocessor skips: the next line
            p = text.find("\n", p) + 1
        if 0 < p < len(text) and not any(a < p < b for a, b in spans):
            out.append((p, p, "#line %d %s\n" % (f.src.line_of(p),
                                                 extract.LINE_MARK), True))
    return out
