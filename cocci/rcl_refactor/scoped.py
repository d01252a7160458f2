# SPDX-License-Identifier: MIT
"""Stage 0b, scoped lock macros: `MACRO(m) STATEMENT` where MACRO expands
(through other macros) to `for` headers that take a lock on entry and
release it when the loop ends, as liblzma's mythread.h writes

    #define mythread_sync(mutex) mythread_sync_helper1(mutex, __LINE__)
    #define mythread_sync_helper1(mutex, line) \\
        mythread_sync_helper2(mutex, line)
    #define mythread_sync_helper2(mutex, line) \\
        for (unsigned int mythread_i_ ## line = 0; \\
             mythread_i_ ## line ? (mythread_mutex_unlock(&(mutex)), 0) \\
                                 : (mythread_mutex_lock(&(mutex)), 1); \\
             mythread_i_ ## line = 1) \\
            for (unsigned int mythread_j_ ## line = 0; \\
                 !mythread_j_ ## line; mythread_j_ ## line = 1)

or with one `for` and a flag (`for (int f_ = (lock(&m), 1); f_;
f_ = (unlock(&m), 0))`).  A *scoped macro* is a function-like macro whose
expansion is only `for` headers, made of constants, the loop variables
they declare and one lock and one unlock call of the same lock, derived
from its arguments.  Its headers are run (a small evaluator) with the
body ending normally, by `break` and by `continue`: ending normally it
must give lock, body once, unlock.

An object-like macro may be one too, used as `NAME STATEMENT`, as
collectd's ovs_events.c writes it:

    #define OVS_EVENTS_CTX_LOCK \\
      for (int __i = ovs_events_ctx_lock(); __i != 0; \\
           __i = ovs_events_ctx_unlock())

with lock and unlock wrappers that return 1 and 0 after the pthread
call.  A wrapper of a lock it names itself is worth, in the evaluator,
the integer constant the front end says it returns on every path
(find's wrapper record "returns"); one that returns anything else is
worth a value that cannot be tested.  The macro must have one
definition in the branches compiled, and its lock is fixed, not an
argument's: the names its lock and unlock calls read where it is used
(`ctx` of `pthread_mutex_lock(&ctx.mutex)`, nothing of `ctx_lock()`)
must be globals there, not locals or parameters of the function, nor
the loop variables of its headers.

Each use inside a function is rewritten, before anything else reads the
file, to the usual shape, on the same lines:

    mythread_sync(c->mu) { ... }  ->  {mythread_mutex_lock(&c->mu); { ... }
                                       mythread_mutex_unlock(&c->mu);}
    OVS_EVENTS_CTX_LOCK { ... }   ->  ovs_events_ctx_lock(); { ... }
                                      ovs_events_ctx_unlock();

A `break`/`continue` of the body that the macro's loops catch becomes a
`goto` to a label before the unlock (it ends the section: the two-`for`
form) or after it (it skips the unlock: the one-`for` form), as the
evaluator says; a `return`/`goto` out of the body skips the unlock in both
texts.  So the rewritten text behaves as the macro, and the sections are
found, delegated or held by the usual rules.  A use whose lock stays POSIX
gets its macro back when the file is rendered (restore()); a held section
keeps the rewritten text (the macro's own calls would act on a
pthread_mutex_t).  A use that cannot be rewritten (a `break` the macro
does not make end once) is left as it is, and its lock is refused with
the reason (safety.unseen_lock_calls).

Scope guards are the other scoped form: a statement macro that declares a
mutex pointer the compiler unlocks when the enclosing block ends, as
nbdkit's cleanup.h writes

    #define ACQUIRE_LOCK_FOR_CURRENT_SCOPE(mutex) \\
      CLEANUP_MUTEX_UNLOCK pthread_mutex_t *lock = mutex; \\
      do { int _r = pthread_mutex_lock (lock); assert (!_r); } while (0)

with `CLEANUP_MUTEX_UNLOCK` `__attribute__ ((cleanup (F)))` and F a
function of the program, taking `pthread_mutex_t **p`, whose body unlocks
`*p` (its result maybe checked).  The rest of the expansion may only
check the lock call's result (assert(), abort()).  A use `GUARD(m);`
becomes

    pthread_mutex_t *rcl_guard_N = (m); pthread_mutex_lock(rcl_guard_N);

with `{pthread_mutex_unlock(rcl_guard_N); ...}` around every statement
that leaves the block (return, a break or continue that the block does
not catch, a goto to a label outside it) and the unlock before the
block's `}` unless its last statement jumps.  The compiler runs the
cleanup after a return's value is computed, so a return whose value is
not a constant or a local (whose address is never taken) keeps the use
as it is (guard_use)."""
import bisect
import re

from . import cparse, find


class Scoped:
    """A scoped macro: @headers are (init, cond, step) token lists of the
    expansion for @args; built per use (the arguments differ).  @names:
    for an object-like macro, the names its lock and unlock calls take
    from where it is used (`ctx` of `pthread_mutex_lock(&ctx.mutex)`;
    none for `ctx_lock()`), which must be globals there."""

    def __init__(self, name, lock_call, unlock_call, ident, on_break,
                 on_continue, names=None):
        self.name = name
        self.lock_call, self.unlock_call = lock_call, unlock_call
        self.ident = ident
        self.names = names
        # "end" (the unlock runs), "skip" (it does not) or None (the
        # loops do not end once)
        self.on = {"break": on_break, "continue": on_continue}


class _Fail(Exception):
    pass


_MAX_DEPTH = 16


def expand(macros, name, args, line, depth=0, defn=None):
    """The text of macro @name's expansion with argument texts @args at
    @line, following a body that is one call of another function-like
    macro; None when not followed.  @defn: the (params, body) of @name
    to use instead of @macros'."""
    if depth > _MAX_DEPTH:
        return None
    m = defn or macros.get(name)
    if m is None or m[0] is None or (defn is None and
                                     not _one_definition(name)):
        return None
    params, body = m
    if any(not re.fullmatch(r"[A-Za-z_]\w*", p) for p in params) or \
            len(params) != len(args):
        return None
    body = re.sub(r"/\*.*?\*/|//[^\n]*", " ", body.replace("\\\n", " "),
                  flags=re.S)
    body = re.sub(r"\b__LINE__\b", str(line), body)
    args = [re.sub(r"\b__LINE__\b", str(line), a) for a in args]
    if "#" in body.replace("##", ""):
        return None  # stringising: not followed
    try:
        toks = cparse.lex(body)
    except cparse.ParseError:
        return None
    out = []
    for t in toks:
        if t.kind == "id" and t.text in params:
            out.append(args[params.index(t.text)].strip())
        else:
            out.append(t.text)
    text = " ".join(out)
    text = re.sub(r"\s*##\s*", "", text)
    try:
        toks = cparse.lex(text)
    except cparse.ParseError:
        return None
    if len(toks) > 2 and toks[0].kind == "id" and toks[1].text == "(" and \
            toks[0].text in macros and macros[toks[0].text][0] is not None:
        try:
            close = cparse.match(toks, 1)
        except cparse.ParseError:
            return None
        if close == len(toks) - 1:
            inner = [" ".join(t.text for t in toks[a:b])
                     for a, b in cparse.split_args(toks, 1, close)]
            return expand(macros, toks[0].text, inner, line, depth + 1)
    return text


def headers(text):
    """[(init, cond, step)] token lists when @text is only `for` headers,
    else None."""
    try:
        toks = cparse.lex(text)
    except cparse.ParseError:
        return None
    out, i = [], 0
    while i < len(toks):
        if toks[i].text != "for" or i + 1 >= len(toks) or \
                toks[i + 1].text != "(":
            return None
        close = cparse.match(toks, i + 1)
        parts, start, j = [], i + 2, i + 2
        while j < close:
            if toks[j].text in ("(", "[", "{"):
                j = cparse.match(toks, j) + 1
                continue
            if toks[j].text == ";":
                parts.append(toks[start:j])
                start = j + 1
            j += 1
        parts.append(toks[start:close])
        if len(parts) != 3:
            return None
        out.append(tuple(parts))
        i = close + 1
    return out or None


_TYPE = {"int", "unsigned", "signed", "char", "short", "long", "_Bool",
         "bool", "const", "volatile", "register", "size_t"}


class _Unknown:
    """The value of a call the evaluator cannot tell: it may be stored,
    or dropped (`,`, a `(void)` cast, a statement of the head), not
    tested or computed with."""

    def __repr__(self):
        return "unknown"


_UNKNOWN = _Unknown()


def _known(v):
    if v is _UNKNOWN:
        raise _Fail()
    return v


class _Eval:
    """Runs the headers on ints: loop variables, constants, `! ?: , = ==
    != < > <= >= && || + -`, parentheses, and calls of lock functions
    (recorded in @events).  A call is worth 0 (pthread's success, as a
    lock macro's), a wrapper's the integer constant it returns on every
    path (the wrapper record's "returns": `return 1;` after the lock
    call); a wrapper of a lock it names itself that returns anything
    else is worth a value that cannot be tested (_UNKNOWN)."""

    def __init__(self, fns):
        self.fns, self.env, self.events = fns, {}, []

    def run(self, hdrs, body_ends):
        self.env, self.events = {}, []
        self.bodies = 0
        self._loop(hdrs, 0, body_ends)
        return self.events

    def _loop(self, hdrs, level, body_ends):
        init, cond, step = hdrs[level]
        self._init(init)
        n = 0
        while True:
            n += 1
            if n > 4:
                raise _Fail()
            if cond and not _known(self.expr(cond)):
                return
            if level == len(hdrs) - 1:
                self.events.append(("body",))
                self.bodies += 1
                if self.bodies > 2:
                    raise _Fail()
                how = body_ends if self.bodies == 1 else "normal"
                if how == "break":
                    return
            else:
                self._loop(hdrs, level + 1, body_ends)
            if step:
                self.expr(step)

    def _init(self, toks):
        if not toks:
            return
        if toks[0].kind == "id" and toks[0].text in _TYPE:
            j = 0
            while j < len(toks) and toks[j].text in _TYPE:
                j += 1
            k = j
            for a, b in _split(toks, j, len(toks)):
                if b - a < 3 or toks[a].kind != "id" or \
                        toks[a + 1].text != "=":
                    raise _Fail()
                self.env[toks[a].text] = self.expr(toks[a + 2:b])
                k = b
            if k != len(toks):
                raise _Fail()
            return
        self.expr(toks)

    def expr(self, toks):
        self.t, self.i = toks, 0
        v = self._comma()
        if self.i != len(toks):
            raise _Fail()
        return v

    def _peek(self):
        return self.t[self.i].text if self.i < len(self.t) else None

    def _take(self, text=None):
        if self.i >= len(self.t) or (text and self.t[self.i].text != text):
            raise _Fail()
        self.i += 1
        return self.t[self.i - 1]

    def _comma(self):
        v = self._assign()
        while self._peek() == ",":
            self._take()
            v = self._assign()
        return v

    def _assign(self):
        if self.i + 1 < len(self.t) and self.t[self.i].kind == "id" and \
                self.t[self.i + 1].text == "=":
            name = self._take().text
            if name not in self.env:
                raise _Fail()
            self._take("=")
            self.env[name] = self._assign()
            return self.env[name]
        return self._ternary()

    def _ternary(self):
        c = self._binary(0)
        if self._peek() != "?":
            return c
        _known(c)
        self._take()
        # Both branches are parsed; only the chosen one runs.
        a0 = self.i
        self._skip_to(":")
        self._take(":")
        b0 = self.i
        self._skip_to(None)
        end = self.i
        saved = self.t
        if c:
            v = self._sub(saved[a0:b0 - 1])
        else:
            v = self._sub(saved[b0:end])
        self.t, self.i = saved, end
        return v

    def _sub(self, toks):
        t, i = self.t, self.i
        v = self.expr(toks)
        self.t, self.i = t, i
        return v

    def _skip_to(self, stop):
        depth = 0
        while self.i < len(self.t):
            x = self.t[self.i].text
            if x in ("(", "?"):
                depth += 1
            elif x == ")" or (x == ":" and depth > 0):
                if depth == 0:
                    return
                depth -= 1
            elif depth == 0 and (x == stop or x == ","):
                return
            self.i += 1

    _PREC = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="),
             ("+", "-")]

    def _binary(self, level):
        if level == len(self._PREC):
            return self._unary()
        v = self._binary(level + 1)
        while self._peek() in self._PREC[level]:
            _known(v)
            op = self._take().text
            if op in ("||", "&&"):
                if (op == "||" and v) or (op == "&&" and not v):
                    self._skip_operand(level + 1)
                    v = int(bool(v))
                    continue
            w = _known(self._binary(level + 1))
            v = int({"||": lambda: bool(v or w), "&&": lambda: bool(v and w),
                     "==": lambda: v == w, "!=": lambda: v != w,
                     "<": lambda: v < w, ">": lambda: v > w,
                     "<=": lambda: v <= w, ">=": lambda: v >= w,
                     "+": lambda: v + w, "-": lambda: v - w}[op]())
        return v

    def _skip_operand(self, level):
        events, env = list(self.events), dict(self.env)
        self._binary(level)
        self.events, self.env = events, env  # not evaluated

    def _unary(self):
        x = self._peek()
        if x == "!":
            self._take()
            return int(not _known(self._unary()))
        if x == "-":
            self._take()
            return -_known(self._unary())
        if x == "(":
            if self.i + 2 < len(self.t) and self.t[self.i + 1].text in (
                    "void",) and self.t[self.i + 2].text == ")":
                self.i += 3
                self._unary()
                return 0
            self._take()
            v = self._comma()
            self._take(")")
            return v
        t = self._take()
        if t.kind == "num":
            try:
                return int(t.text.rstrip("uUlL"), 0)
            except ValueError:
                raise _Fail()
        if t.kind == "id" and self._peek() == "(":
            return self._call(t)
        if t.kind == "id" and t.text in self.env:
            return self.env[t.text]
        raise _Fail()

    def _call(self, t):
        lf = self.fns.get(t.text)
        if lf is None or lf.role not in ("lock", "unlock"):
            raise _Fail()
        open_i = self.i
        close = cparse.match(self.t, open_i)
        args = [find.join_tokens([x.text for x in self.t[a:b]])
                for a, b in cparse.split_args(self.t, open_i, close)]
        self.i = close + 1
        expr = lf.expr(args)
        if expr is None:
            raise _Fail()
        call = find.tidy(find.join_tokens(
            [x.text for x in self.t[open_i - 1:close + 1]]))
        self.events.append((lf.role, find.canon(expr), call))
        w = lf.wrapper
        if w and isinstance(w.get("returns"), int):
            return w["returns"]
        return _UNKNOWN if w and not w.get("param") else 0


def _split(toks, a, b):
    out, j, start = [], a, a
    while j < b:
        if toks[j].text in ("(", "[", "{"):
            j = cparse.match(toks, j) + 1
            continue
        if toks[j].text == ",":
            out.append((start, j))
            start = j + 1
        j += 1
    out.append((start, b))
    return out


_CANDS = [{}]


def _one_definition(name):
    """Whether the macro has one definition the compiler may read (not
    two in #if branches the tool cannot decide)."""
    cands = _CANDS[0].get(name)
    if isinstance(cands, list) and len(cands) > 1:
        return len({" ".join(b.split()) for _, b in cands}) == 1
    return True


def object_like(prog, name):
    """Whether @name is an object-like macro of the program (a
    function-like one has its candidates in prog.macro_cands, even
    without parameters)."""
    m = prog.macros.get(name)
    return m is not None and m[0] == [] and \
        not getattr(prog, "macro_cands", {}).get(name)


def _object_body(prog, name):
    """The body of object-like macro @name the compiler reads: its one
    definition in the branches it compiles (every such definition the
    same), else None."""
    pat = re.compile(r"^[ \t]*#[ \t]*define[ \t]+%s(?![\w(])"
                     r"((?:[^\n\\]|\\\n|\\.)*)" % re.escape(name), re.M)
    bodies = set()
    for f in prog.files:
        for m in pat.finditer(f.src.text):
            line = f.src.line_of(m.start())
            if line in f.dead_defines or (
                    f.skipped is not None and line in f.skipped.lines):
                continue
            bodies.add(" ".join(re.sub(r"/\*.*?\*/|//[^\n]*", " ",
                                       m.group(1).replace("\\\n", " "),
                                       flags=re.S).split()))
    return bodies.pop() if len(bodies) == 1 else None


def recognise(prog, name, args, line):
    """The Scoped for a use of macro @name with argument texts @args at
    @line, or None when its expansion is not a scoped lock.  The lock of
    a function-like macro must come from its arguments; an object-like
    macro's is a fixed expression, which must not name the loop
    variables of its headers (Scoped.names: the names the use site
    resolves)."""
    _CANDS[0] = getattr(prog, "macro_cands", {})
    obj = object_like(prog, name)
    if obj:
        body = _object_body(prog, name)
        text = expand(prog.macros, name, [], line, defn=([], body)) \
            if body is not None else None
    else:
        text = expand(prog.macros, name, args, line)
    try:
        hdrs = headers(text) if text else None
    except cparse.ParseError:
        hdrs = None
    if not hdrs:
        return None
    ev = _Eval(prog.fns)
    try:
        normal = ev.run(hdrs, "normal")
    except (_Fail, cparse.ParseError, IndexError, KeyError):
        return None
    if len(normal) != 3 or normal[1] != ("body",) or \
            normal[0][0] != "lock" or normal[2][0] != "unlock" or \
            normal[0][1] != normal[2][1]:
        return None
    ident = normal[0][1]
    names = None
    if obj:
        names = _call_names(normal[0][2]) | _call_names(normal[2][2])
        if names & set(ev.env):
            return None  # a lock named by the loop's own variables
    elif not any(a.strip() and find.canon(a) in ident for a in args):
        return None  # the lock is not the macro's argument's
    on = {}
    for how in ("break", "continue"):
        try:
            ev2 = _Eval(prog.fns)
            got = ev2.run(hdrs, how)
        except (_Fail, cparse.ParseError, IndexError, KeyError):
            got = None
        if got is not None and [e[:2] for e in got] == [e[:2]
                                                        for e in normal]:
            on[how] = "end"
        elif got is not None and [e[:2] for e in got] == [e[:2] for e in
                                                          normal[:2]]:
            on[how] = "skip"
        else:
            on[how] = None
    return Scoped(name, normal[0][2], normal[2][2], ident, on["break"],
                  on["continue"], names)


def _call_names(call):
    """The names the arguments of call text @call read where it is
    written (not members after `.` or `->`)."""
    toks = cparse.lex(call)
    return {t.text for i, t in enumerate(toks)
            if i > 1 and t.kind == "id" and
            toks[i - 1].text not in (".", "->") and t.text != "sizeof"}


def is_scoped_name(prog, name):
    """Whether macro @name (any arguments) expands to a scoped lock."""
    m = prog.macros.get(name)
    if m is None or m[0] is None or name in prog.fns:
        return False
    args = ["rcl_arg%d" % i for i in range(len(m[0]))]
    return recognise(prog, name, args, 1) is not None


_CLEANUP_ATTR = re.compile(
    r"__attribute__\s*\(\s*\(\s*(?:__)?cleanup(?:__)?\s*\(\s*"
    r"([A-Za-z_]\w*)\s*\)\s*\)\s*\)")
# What a scope guard may do besides its lock call and the cleanup
# function besides its unlock: check the call's result.
_CHECK_WORDS = {"do", "while", "if", "int", "assert", "abort", "return"}


class Guard:
    """A use of a scope guard macro: the declaration's mutex type, the
    lock and unlock functions, the lock expression and the cleanup
    function."""

    def __init__(self, name, mtype, lock_fn, unlock_fn, init, cleanup,
                 var):
        self.name, self.mtype, self.var = name, mtype, var
        self.lock_fn, self.unlock_fn = lock_fn, unlock_fn
        self.init, self.cleanup = init, cleanup


def _cleanup_objects(prog):
    """The object-like macros whose bodies (the compiler's, maybe through
    other object-like macros) mention `cleanup`: the only ones a scope
    guard's expansion needs expanded (computed once per run)."""
    got = getattr(prog, "_cleanup_objects", None)
    if got is not None:
        return got
    bodies = getattr(prog, "live_objects", {})
    got = {n for n, bs in bodies.items() if any("cleanup" in b for b in bs)}
    for _ in range(4):
        more = {n for n, bs in bodies.items() if n not in got and any(
            set(re.findall(r"[A-Za-z_]\w*", b)) & got for b in bs)}
        if not more:
            break
        got |= more
    prog._cleanup_objects = got
    return got


def _expand_objects(prog, text):
    """@text with the object-like macros it names replaced by their one
    body (a few rounds: CLEANUP_MUTEX_UNLOCK, then what it names)."""
    for _ in range(4):
        changed = False
        for name in set(re.findall(r"[A-Za-z_]\w*", text)):
            if object_like(prog, name):
                body = _object_body(prog, name)
                if body is not None and body != name:
                    text = re.sub(r"\b%s\b" % name, " %s " % body, text)
                    changed = True
        if not changed:
            break
    return text


def _checked_call(toks, fns, role, arg):
    """The name of the one call in @toks of a lock function of role @role
    (pthread's or its alias) on argument tokens @arg, when everything else
    only checks its result; else None."""
    hits = []
    for i, t in enumerate(toks):
        lf = fns.get(t.text) if t.kind == "id" else None
        if lf is None or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        close = cparse.match(toks, i + 1)
        if lf.role != role or lf.params is not None or \
                [x.text for x in toks[i + 2:close]] != arg:
            return None
        hits.append((i, close))
    if len(hits) != 1:
        return None
    i, close = hits[0]
    rest = toks[:i] + toks[close + 1:]
    result = None
    if i >= 3 and toks[i - 1].text == "=" and toks[i - 2].kind == "id" and \
            toks[i - 3].text == "int":
        result = toks[i - 2].text
    for t in rest:
        if t.kind == "id" and t.text not in _CHECK_WORDS and \
                t.text != result:
            return None
        if t.kind not in ("id", "punct", "num"):
            return None
    return toks[i].text


def _cleanup_unlock(prog, name):
    """The unlock function that cleanup function @name calls on `*p`,
    its parameter a pointer to a mutex pointer, when its body does nothing
    else but check the result; else None."""
    for f in prog.files:
        toks = f.src.toks
        for fn, ni, bo, bc in f.funcs:
            if fn != name:
                continue
            close = cparse.match(toks, ni + 1)
            ps = [x.text for x in toks[ni + 2:close]]
            if len(ps) != 4 or ps[1:3] != ["*", "*"] or \
                    prog.types.get(ps[0]) != "mutex" and \
                    ps[0] != "pthread_mutex_t":
                return None
            return _checked_call(toks[bo + 1:bc], prog.fns, "unlock",
                                 ["*", ps[3]])
    return _cleanup_unlock_elsewhere(prog, name)


def _cleanup_unlock_elsewhere(prog, name):
    """_cleanup_unlock() of a function that another unit of the program
    defines (nbdkit's cleanup.c, not rewritten: it names no lock), from
    the compiler's facts: one parameter of type pointer to a mutex
    pointer, one lock call, an unlock of `*p`, and no call but checks."""
    fe = getattr(prog, "frontend", None)
    fns = [fn for fn in getattr(fe, "defs", {}).values()
           if fn.name == name and not fn.is_static]
    if len(fns) != 1:
        return None
    fn = fns[0]
    params = [d for d in fn.locals.values() if d.is_param]
    if len(params) != 1:
        return None
    p = params[0]
    base = p.type.replace(" ", "")
    if not base.endswith("**") or (
            prog.types.get(base[:-2]) != "mutex" and
            base[:-2] != "pthread_mutex_t"):
        return None
    unlocks = [c for c in fn.calls if c.callee in prog.fns and
               prog.fns[c.callee].role == "unlock" and
               prog.fns[c.callee].params is None]
    if len(unlocks) != 1 or any(
            c.callee not in (unlocks[0].callee, "__assert_fail", "abort")
            for c in fn.calls):
        return None
    # its argument, as written: `*p`
    loc = unlocks[0].loc
    try:
        with open(loc.path, encoding="latin-1") as fh:
            text = fh.read().split("\n")[loc.line - 1][loc.col - 1:]
    except (OSError, IndexError):
        return None
    m = re.match(r"([A-Za-z_]\w*)\s*\(\s*\*\s*%s\s*\)" % re.escape(p.name),
                 text)
    return m.group(1) if m and m.group(1) == unlocks[0].callee else None


def guard(prog, name, args, line):
    """The Guard of a use of macro @name with argument texts @args at
    @line, or None when its expansion is not a scope guard."""
    _CANDS[0] = getattr(prog, "macro_cands", {})
    text = expand(prog.macros, name, args, line)
    if not text or "cleanup" not in text and not (
            set(re.findall(r"[A-Za-z_]\w*", text)) & _cleanup_objects(prog)):
        return None
    text = _expand_objects(prog, text)
    m = _CLEANUP_ATTR.search(text)
    if m is None:
        return None
    try:
        toks = cparse.lex(text[:m.start()] + " " + text[m.end():])
    except cparse.ParseError:
        return None
    # TYPE * VAR = INIT ; REST
    if len(toks) < 6 or toks[1].text != "*" or \
            prog.types.get(toks[0].text) != "mutex" and \
            toks[0].text != "pthread_mutex_t":
        return None
    eq = next((i for i, t in enumerate(toks) if t.text == "="), None)
    semi = next((i for i, t in enumerate(toks) if t.text == ";"), None)
    if eq is None or semi is None or not 2 < eq < semi:
        return None
    var = [t.text for t in toks[2:eq]]
    init = find.join_tokens([t.text for t in toks[eq + 1:semi]])
    if not any(a.strip() and find.canon(a) in find.canon(init)
               for a in args):
        return None  # the lock is not the macro's argument's
    lock_fn = _checked_call(toks[semi + 1:], prog.fns, "lock", var)
    unlock_fn = _cleanup_unlock(prog, m.group(1))
    if lock_fn is None or unlock_fn is None:
        return None
    return Guard(name, toks[0].text, lock_fn, unlock_fn, init, m.group(1),
                 var)


def is_guard_name(prog, name):
    """Whether function-like macro @name (any arguments) is a scope
    guard."""
    m = prog.macros.get(name)
    if m is None or not m[0] or name in prog.fns:
        return False
    args = ["rcl_arg%d" % i for i in range(len(m[0]))]
    return guard(prog, name, args, 1) is not None


class Use:
    """One use rewritten: offsets in the rewritten text."""

    def __init__(self, name, line):
        self.name, self.line = name, line
        self.lock_off = None  # where the lock call starts
        self.restore = []     # (start, end, original text)


def desugar(prog):
    """Rewrite the uses of scoped macros in the functions of the source
    files of @prog (not headers: Coccinelle reads those)."""
    prog.scoped_why = {}    # (path, line) -> why a use is left as it is
    names = {n for n in prog.macros if is_scoped_name(prog, n)}
    guards = {n for n in prog.macros if is_guard_name(prog, n)}
    prog.scoped_names = names | guards
    prog.guard_names = guards
    prog.guard_cleanups = set()  # cleanup functions of rewritten guards
    if not names and not guards:
        return
    for f in prog.files:
        # (a header's for-scoped uses stay; its scope guards are read, as
        # Coccinelle reads the header's text: nbdkit's log.h get_id())
        if f.is_header and not guards:
            continue
        _desugar_file(prog, f, set() if f.is_header else names, guards)


def _desugar_file(prog, f, names, guards=frozenset()):
    src, toks = f.src, f.src.toks
    pieces = []  # (start, end, new text) in the original text
    uses = []
    n = 0
    for _, _, bo, bc in f.funcs:
        k = bo
        while k < bc:
            t = toks[k]
            if t.kind == "id" and t.text in guards and \
                    toks[k + 1].text == "(" and toks[k - 1].text not in (
                        ".", "->"):
                n += 1
                k = _guard_use(prog, f, k, bo, bc, n, pieces, uses)
                continue
            if t.kind != "id" or t.text not in names or toks[k - 1].text in (
                    ".", "->"):
                k += 1
                continue
            obj = object_like(prog, t.text)
            if not obj and toks[k + 1].text != "(":
                k += 1
                continue
            line = f.line(k)
            sc, why = None, None
            if obj:
                # `NAME STATEMENT`: the head is the name alone
                close = k
                if toks[k + 1].text == "(":
                    why = ("it is followed by '(' (the tool reads an "
                           "object-like scoped macro before a statement "
                           "that does not start with one)")
                elif toks[k - 1].kind != "pp" and toks[k - 1].text not in (
                        ";", "{", "}", ")", ":", "else", "do"):
                    why = "it does not start a statement here"
                else:
                    sc = recognise(prog, t.text, [], line)
                    local = _locals_named(prog, f, line, sc.names) \
                        if sc is not None and sc.names else []
                    if local is None:
                        why = ("the compiler's front end does not give the "
                               "function around it (the names its lock "
                               "expression reads are not known to be "
                               "globals)")
                    elif local:
                        why = ("its lock expression names %s, %s of the "
                               "function here, not the global lock every "
                               "use of an object-like macro must take" % (
                                   ", ".join(local), "locals or parameters"
                                   if len(local) > 1 else
                                   "a local or parameter"))
            else:
                close = cparse.match(toks, k + 1)
                args = [find.join_tokens([x.text for x in toks[a:b]])
                        for a, b in cparse.split_args(toks, k + 1, close)]
                sc = recognise(prog, t.text, args, line)
            try:
                if close + 1 >= bc:
                    raise cparse.ParseError(line, "no statement")
                body = cparse.Parser(src, prog.typedefs).stmt(close + 1, bc)
            except cparse.ParseError:
                body = None
                why = why or "its statement cannot be parsed"
            if sc is None and why is None:
                why = "its expansion here is not a scoped lock"
            jumps = []
            if why is None:
                for s in body.walk():
                    if s.kind not in ("break", "continue") or \
                            _caught_inside(s, body):
                        continue
                    how = sc.on[s.kind]
                    if how is None:
                        why = ("%s at line %d: the macro's loops do not end "
                               "once on it" % (s.kind, f.line(s.t0)))
                        break
                    jumps.append((s, how))
            if why is not None:
                prog.scoped_why[(f.path, line)] = (
                    "lock macro %s at line %d is a scoped lock but %s "
                    "(write the section with lock and unlock calls)" % (
                        t.text if obj else t.text + "()", line, why))
                k = close + 1
                continue
            n += 1
            use = Use(t.text, line)
            end_label = after_label = None
            for s, how in jumps:
                if how == "end":
                    end_label = "rcl_section_end_%d" % n
                else:
                    after_label = "rcl_keeps_lock_%d" % n
            head = src.text[t.start:toks[close].end]
            # In a block the calls are statements of it; elsewhere (the
            # body of an if, a loop, a label's) they need a block.
            block = toks[k - 1].kind == "pp" or toks[k - 1].text in (
                ";", "{", "}")
            pieces.append((t.start, toks[close].end,
                           ("%s;" if block else "{%s;") % sc.lock_call, head,
                           use, "lock"))
            for s, how in jumps:
                label = end_label if how == "end" else after_label
                a, b = toks[s.t0].start, toks[s.t1 - 1].end
                pieces.append((a, b, "goto %s;" % label, src.text[a:b], use,
                               None))
            tail = " "
            if end_label:
                tail += "%s: ; " % end_label
            tail += "%s;" % sc.unlock_call
            if after_label:
                tail += " %s: ;" % after_label
            tail += "" if block else "}"
            e = toks[body.t1 - 1].end
            # inner uses close first: later heads sort first at one offset
            pieces.append((e, e, tail, "", use, -t.start))
            uses.append(use)
            k = close + 1
    if not pieces:
        return
    pieces.sort(key=lambda p: (p[0], p[1] != p[0],
                               p[5] if isinstance(p[5], int) else 0))
    out, pos, new_pos = [], 0, 0
    segs = []  # (new start, orig start, length) of text kept
    for a, b, new, old, use, what in pieces:
        keep = src.text[pos:a]
        segs.append((new_pos, pos, len(keep)))
        out.append(keep)
        new_pos += len(keep)
        if what == "lock":
            use.lock_off = new_pos + (new[0] == "{")
        elif isinstance(what, tuple):  # ("lock", offset of the call)
            use.lock_off = new_pos + what[1]
        use.restore.append((new_pos, new_pos + len(new), old))
        # the inserted text stands for the text it replaces
        segs.append((new_pos, a, 0))
        out.append(new)
        new_pos += len(new)
        pos = b
    segs.append((new_pos, pos, len(src.text) - pos))
    out.append(src.text[pos:])
    f.input_text = src.text
    f.input_src = src
    f.scoped_map = segs
    f.scoped_uses = uses
    f.retext("".join(out))


def _guard_use(prog, f, k, bo, bc, n, pieces, uses):
    """Rewrite the use of a scope guard at token @k of @f (in the function
    body between tokens @bo and @bc), the @n-th rewritten use of the file,
    into @pieces and @uses (_desugar_file()); or record why it stays.
    Returns the token after it."""
    src, toks = f.src, f.src.toks
    t = toks[k]
    line = f.line(k)
    close = cparse.match(toks, k + 1)
    nxt = close + 1
    args = [find.join_tokens([x.text for x in toks[a:b]])
            for a, b in cparse.split_args(toks, k + 1, close)]
    g = guard(prog, t.text, args, line)
    why = None
    if g is None:
        why = "its expansion here is not a scope guard"
    elif nxt >= bc or toks[nxt].text != ";":
        why = "it is not a statement of its own"
    # the block it is in: the first unmatched `{` before it
    depth, open_ = 0, None
    for j in range(k - 1, bo - 1, -1):
        if toks[j].text == "}":
            depth += 1
        elif toks[j].text == "{":
            if depth == 0:
                open_ = j
                break
            depth -= 1
    stmts = []
    if why is None:
        try:
            end = cparse.match(toks, open_)
            parser = cparse.Parser(src, prog.typedefs)
            i = nxt + 1
            while i < end:
                st = parser.stmt(i, end)
                stmts.append(st)
                i = st.t1
        except (cparse.ParseError, TypeError, IndexError):
            why = "the rest of its block cannot be parsed"
    exits = []
    temps = []  # (return statement, of a void function) computed first
    if why is None and len(g.var) == 1 and any(
            toks[j].text == g.var[0] for j in range(nxt + 1, end)):
        # (a condition wait on it, say): the rewrite renames it
        why = "the block names the guard's variable '%s'" % g.var[0]
    if why is None:
        inside = {x.name for st in stmts for x in st.walk()
                  if x.kind == "label"}
        for st in stmts:
            for x in st.walk():
                if x.kind in ("break", "continue") and \
                        not _caught_inside(x, st) or \
                        x.kind == "goto" and x.name not in inside:
                    exits.append(x)
                elif x.kind == "return":
                    v = toks[x.t0 + 1:x.t1 - 1]
                    if v and not _plain_value(prog, f, line, v, bo, bc):
                        fn = _function_at(prog, f, line)
                        if fn is None:
                            why = ("the return at line %d computes its "
                                   "value while the guard holds the lock, "
                                   "and the compiler does not give the "
                                   "function" % f.line(x.t0))
                            break
                        temps.append((x, fn.returns_void))
                    exits.append(x)
            if why:
                break
    if why is not None:
        prog.scoped_why[(f.path, line)] = (
            "lock macro %s() at line %d is a scope guard but %s (write the "
            "section with lock and unlock calls)" % (t.text, line, why))
        return nxt
    use = Use(t.text, line)
    prog.guard_cleanups.add(g.cleanup)
    var = "rcl_guard_%d" % n
    decl = "%s *%s = (%s); " % (g.mtype, var, g.init)
    pieces.append((t.start, toks[nxt].end,
                   decl + "%s(%s);" % (g.lock_fn, var),
                   src.text[t.start:toks[nxt].end], use, ("lock", len(decl))))
    unlock = "%s(%s);" % (g.unlock_fn, var)
    done = getattr(f, "guard_temps", None)
    if done is None:
        done = f.guard_temps = set()
    for x, void in temps:
        # The compiler unlocks after the value is computed: compute it
        # first, once for all the guards that return there (a piece no
        # restore takes back: it means the same with the macro).
        if x.t0 in done:
            continue
        done.add(x.t0)
        a, b = toks[x.t0 + 1].start, toks[x.t1 - 2].end
        value = src.text[a:b]
        tmp = "rcl_ret_%d" % len(done)
        head = "{(void) (%s); " % value if void else \
            "{__typeof__ (0 ? (%s) : (%s)) %s = (%s); " % (
                value, value, tmp, value)  # (an array's value decays)
        keep = Use(t.text, line)
        pieces.append((toks[x.t0].start, toks[x.t0].start, head, "", keep,
                       -len(src.text) - 1))
        pieces.append((a, b, "" if void else tmp, value, keep, None))
        e = toks[x.t1 - 1].end
        pieces.append((e, e, "}", "", keep, 0))
    for x in exits:
        a, b = toks[x.t0].start, toks[x.t1 - 1].end
        # inner guards unlock first: later heads sort first at one offset;
        # a statement of the block itself needs no braces (and the
        # section's unlock then stays at the level of its lock)
        top = any(x is st for st in stmts)
        pieces.append((a, a, unlock + " " if top else "{" + unlock + " ",
                       "", use, -t.start))
        if not top:
            pieces.append((b, b, "}", "", use, 0))
    if not stmts or stmts[-1].kind not in ("return", "goto", "break",
                                           "continue"):
        e = toks[end].start
        pieces.append((e, e, unlock, "", use, -t.start))
    uses.append(use)
    return nxt + 1


def _function_at(prog, f, line):
    """The front end's Function of @f at @line, or None: of the unit of
    @f, or for a header of the first unit that compiles it there."""
    fe = getattr(prog, "frontend", None)
    if fe is None:
        return None
    return next((fn for fn, _ in fe.functions_at(f.path, line)), None)


def _plain_value(prog, f, line, v, bo, bc):
    """Whether return value tokens @v read nothing the lock protects: a
    constant, or a local of the function whose address it never takes."""
    if len(v) == 2 and v[0].text in ("-", "+") and v[1].kind == "num":
        v = v[1:]  # return -1;
    if len(v) != 1:
        return False
    x = v[0]
    if x.kind in ("num", "chr", "str") or x.text in ("NULL", "true",
                                                      "false"):
        return True
    if x.kind != "id" or _locals_named(prog, f, line, {x.text}) != [x.text]:
        return False
    fn = _function_at(prog, f, line)
    toks = f.src.toks
    return x.text not in fn.addr_taken and not any(
        toks[j].text == "&" and toks[j + 1].text == x.text
        for j in range(bo, bc))


def orig_offset(f, off):
    """The offset in the input of @f of offset @off of the text read (the
    text lifts moved and scoped uses rewrote)."""
    lifts = getattr(f, "lifts", [])
    off -= 2 * sum(1 for x in lifts if off >= x.insert_off + 2)
    segs = getattr(f, "scoped_map", None)
    if not segs:
        return off
    i = bisect.bisect_right([s[0] for s in segs], off) - 1
    ns, os_, ln = segs[max(i, 0)]
    return os_ + min(off - ns, ln)


def read_offset(f, line, col):
    """The offset in the text read of @f (scoped uses rewritten, lifts
    moved) of the front end's @line and 1-based @col, which name a place
    in the input; None when the input has no such line.  A place in text
    a rewritten use kept is where that text went; one in text it replaced
    is where the replacement starts, and text inserted before a statement
    (a guard's unlock) does not hide the statement."""
    segs = getattr(f, "scoped_map", None)
    src = getattr(f, "input_src", None) if segs else None
    if src is None:  # nothing rewritten: the lines and columns are its
        src = f.src
        if not 0 < line <= len(src.line_starts):
            return None
        return src.offset(line, col - 1)
    if not 0 < line <= len(src.line_starts):
        return None
    o = src.offset(line, col - 1)
    new = None
    for ns, os_, ln in segs:
        if os_ <= o < os_ + ln:
            new = ns + o - os_
            break
        if os_ <= o and ln == 0:
            new = ns  # in a replaced span: its replacement's start
    return _lifted(f, o if new is None else new)


def clang_pos(f, off):
    """libclang's (line, 1-based column) of offset @off of the text read."""
    src = getattr(f, "input_src", None)
    if src is None:
        line = f.src.line_of(off)
        return line, off - f.src.offset(line, 0) + 1
    o = orig_offset(f, off)
    line = src.line_of(o)
    return line, o - src.offset(line, 0) + 1


def _locals_named(prog, f, line, names):
    """The sorted names of @names that are locals or parameters of the
    function of @f at @line, as the compiler declares them; None when
    the front end does not give that function."""
    fn = _function_at(prog, f, line)
    if fn is None:
        return None
    return sorted(names & {d.name for d in fn.locals.values()})


def _caught_inside(s, body):
    """Whether break/continue @s lands in a loop (or, for break, a switch)
    inside @body."""
    kinds = ("for", "while", "do", "switch") if s.kind == "break" else (
        "for", "while", "do")
    a = s
    while a is not body and a.parent is not None:
        a = a.parent
        if a.kind in kinds:
            return True
    return False


def restore(prog, converted):
    """Edits giving their macro back to the uses whose lock is not
    converted (@converted(key name) is false) or that name no lock."""
    for f in prog.files:
        for use in getattr(f, "scoped_uses", []):
            off = _lifted(f, use.lock_off)
            k = f.src.tok_at(off)
            key = None
            for kk in prog.keys.values():
                if kk.kind == "mutex" and any(
                        cf is f and ck == k for cf, ck in kk.calls["lock"]):
                    key = kk
            if key is not None and converted(key.name):
                continue
            for a, b, old in use.restore:
                f.edits.append((_lifted(f, a), _lifted(f, b), old))


def _lifted(f, off):
    """Offset @off of the rewritten text in the text lift.py moved."""
    lifts = getattr(f, "lifts", [])
    return off + 2 * sum(1 for n, x in enumerate(lifts)
                         if off >= x.insert_off - 2 * n)
