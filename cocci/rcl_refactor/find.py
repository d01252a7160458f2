# SPDX-License-Identifier: MIT
"""Stage 1, find: lock functions (pthread, project macros, wrappers) and
the raw facts Coccinelle reports (sections, lonely locks, trylocks, locals,
unsafe constructs)."""
import os
import re
import subprocess
import sys

from . import checked, cparse

PTHREAD = {"lock": "pthread_mutex_lock", "unlock": "pthread_mutex_unlock",
           "trylock": "pthread_mutex_trylock"}


def pthread_wrapper(fn):
    """Whether front-end Function @fn is a lock wrapper on its parameter:
    a body that is one pthread lock, trylock or unlock call, and checks
    (rrdtool's mutex_lock(mutex_t *m)), which may report and abort
    (`fprintf(stderr, ..., strerror(rc)); abort();`: the calls a sole
    call's checks may make, frontend._SoleCall)."""
    return fn.sole_call is not None and \
        sum(c.key in PTHREAD.values() for c in fn.calls) == 1


class LockFn:
    """A name that locks, unlocks or trylocks.  @expr(args) gives the mutex
    expression for a call with those argument texts.  @wrapper is set for
    functions (not macros) whose body is the only place naming the mutex:
    the driver then generates NAME_rcl_exec(args..., fn, ctx)."""

    def __init__(self, name, role, params=None, body=None, wrapper=None):
        self.name, self.role = name, role
        self.params, self.body = params, body
        self.wrapper = wrapper  # dict: file, static, proto, def range
        # For a macro: the wrapper function its body calls, if any
        # (`#define LOCK(m) my_lock(m)`), which the macro's uses call.
        self.via = None
        # ... and the arguments the macro's body passes it (texts of the
        # macro's parameters)
        self.via_args = None
        # A trylock macro that compares the call's result with 0:
        # "!= 0" (`(pthread_mutex_trylock(&(m)->lock) != 0)`, jemalloc's
        # MALLOC_MUTEX_TRYLOCK: true when busy, as the call) or "== 0"
        # (`(pthread_mutex_trylock(m) == 0)`, `!pthread_mutex_trylock(m)`:
        # true when taken); None for a plain call.
        self.test = None
        # A macro that checks the call's result, `(void)(lock(m) &&
        # (abort(), 0))` (checked.py): a statement of its own only, as
        # its value is not the call's.
        self.checks = False

    def called_wrapper(self):
        """The wrapper function a call of this name runs: its own, or the
        one a macro's body calls (self.via); None for pthread's calls and
        macros of them."""
        return self.wrapper or (self.via.wrapper if self.via else None)

    def liblock_call(self, expr):
        """The liblock call that replaces a call of this macro or wrapper
        on a converted lock named by @expr, its comparison kept."""
        call = "liblock_%s(%s)" % (self.role, expr)
        return "(%s %s)" % (call, self.test) if self.test else call

    def expr(self, args):
        if self.params is None:
            return args[0] if args else None
        if len(args) != len(self.params):
            return None
        if self.wrapper and self.wrapper.get("param") and any(
                p != self.body and _side_effects(a)
                for p, a in zip(self.params, args)):
            return None  # lock(&m, f()): f() would no longer be called
        return substitute(self.params, self.body, args)


def statement_call(toks, k):
    """Whether the call whose name is token @k is an expression statement
    of its own, its value unread: after `;`, `{`, `}`, `:`, `else`, `do`,
    or the `)` of an if/while/for head, or a `(void)` cast; followed by
    `;`."""
    close = cparse.match(toks, k + 1)
    if close is None or close + 1 >= len(toks) or \
            toks[close + 1].text != ";" or k == 0:
        return False
    p = toks[k - 1]
    if p.text in (";", "{", "}", ":", "else", "do"):
        return True
    if p.text != ")":
        return False
    j = cparse.match_back(toks, k - 1)
    if j is None or j < 1:
        return False
    if [t.text for t in toks[j + 1:k - 1]] == ["void"]:
        return toks[j - 1].text in (";", "{", "}", ":", "else", "do")
    return toks[j - 1].text in ("if", "while", "for")


def _side_effects(text):
    """Whether expression @text may have a side effect (a call, an
    assignment, an increment)."""
    try:
        toks = cparse.lex(text)
    except cparse.ParseError:
        return True
    return any(t.text in ("(", "=", "+=", "-=", "*=", "/=", "%=", "&=",
                          "|=", "^=", "<<=", ">>=", "++", "--")
               for t in toks)


def substitute(params, body, args):
    """@body with each of @params replaced by the argument text at the
    same position (parenthesised unless it is a primary expression)."""
    out = []
    for t in cparse.lex(body):
        if t.kind == "id" and t.text in params:
            a = args[params.index(t.text)].strip()
            out.append(a if _PRIMARY.fullmatch(a) else "(" + a + ")")
        else:
            out.append(t.text)
    return tidy(join_tokens(out))


# The pthread calls on mutexes and condition variables other than
# lock/unlock/trylock: the rewrite renames them for converted keys.
MUTEX_API = ("pthread_mutex_init", "pthread_mutex_destroy",
             "pthread_mutex_timedlock", "pthread_mutex_clocklock")
COND_API = ("pthread_cond_wait", "pthread_cond_timedwait",
            "pthread_cond_signal", "pthread_cond_broadcast",
            "pthread_cond_init", "pthread_cond_destroy")
# The liblock function each pthread mutex and condition function other
# than init becomes on a converted key (a timed lock is a held section's:
# it takes the lock word, as pthread_mutex_trylock's liblock_trylock).
LIBLOCK_NAMES = {"pthread_mutex_destroy": "liblock_destroy",
                 "pthread_mutex_timedlock": "liblock_timedlock",
                 "pthread_mutex_clocklock": "liblock_clocklock"}
LIBLOCK_NAMES.update((n, n.replace("pthread_cond_", "liblock_cond_"))
                     for n in COND_API)
PTHREAD_TYPES = {"pthread_mutex_t": "mutex", "pthread_cond_t": "cond"}


class ApiCall:
    """A name that calls the pthread function @target: the function
    itself, or a project macro whose body is one call to it (zstd's
    ZSTD_pthread_cond_wait(a, b)).  @args maps the call's argument texts
    to those @target receives."""

    def __init__(self, name, target, params=None, bodies=None):
        self.name, self.target = name, target
        self.params, self.bodies = params, bodies
        self.wrapper = None  # a function: dict file, start, static
        # (before, after): the text of a macro's body around its call
        # when that call's result is negated (libmicrohttpd's
        # MHD_mutex_init_(m) is (! (pthread_mutex_init ((m), NULL)))):
        # pthread_mutex_init only, whose call site is rebuilt whole.
        self.wrap = None
        # A function whose condition is a structure's field (see
        # find.in_place_wrapper): its call sites stay, its body calls liblock.
        self.in_place = None
        # A function whose body checks pthread's result: what it returns
        # need not be that result (lrzip's cond_wait() gives true), so a
        # call whose value is read is no pthread call.
        self.checked = False

    @property
    def identity(self):
        """Whether the macro passes its arguments through unchanged (so a
        call of it can be renamed in place)."""
        return self.params is None or self.wrap is None and (
            len(self.bodies) == len(self.params) and
            all(tidy(b) == p for b, p in zip(self.bodies, self.params)))

    def kept(self):
        """The indexes of the parameters the body passes on, in order,
        when the body passes some of its parameters unchanged and drops
        the others (lrzip's `cond_wait(control, cond, mutex)` calls
        `pthread_cond_wait(cond, mutex)`, @control only reported on a
        failure): a call can then be renamed in place once the dropped
        arguments are deleted.  None for any other body."""
        if self.params is None or self.wrap is not None or \
                not self.bodies:
            return None
        out, i = [], 0
        for b in self.bodies:
            b = tidy(b)
            while i < len(self.params) and self.params[i] != b:
                i += 1
            if i == len(self.params):
                return None
            out.append(i)
            i += 1
        return out

    def template(self):
        """[T0, ..., Tn] when this is a macro (not a function) whose body
        hands pthread each of its n parameters once, in order, inside
        other text: `pthread_mutex_destroy(&((p)->_mutex))` gives
        ["&((", ")->_mutex)"].  A call `M(a1, ..., an)` is then
        `pthread_fn(T0 a1 T1 ... an Tn)`, what the preprocessor makes of
        it, so it can be rewritten around its arguments (their own edits
        still apply).  None for any other body."""
        if self.params is None or self.wrap is not None or \
                self.wrapper is not None or not self.bodies or \
                not self.params:
            return None
        try:
            ts = cparse.lex(", ".join(self.bodies))
        except cparse.ParseError:
            return None
        out, cur, i = [], [], 0
        for t in ts:
            if t.kind == "id" and t.text in self.params:
                if i >= len(self.params) or t.text != self.params[i]:
                    return None  # twice, or out of order
                out.append(join_tokens(cur) if cur else "")
                cur, i = [], i + 1
            else:
                cur.append(t.text)
        if i != len(self.params):
            return None
        out.append(join_tokens(cur) if cur else "")
        return out

    def template_edits(self, toks, k):
        """The edits that put the template()'s texts around the arguments
        of the call at token @k (the name is renamed apart), or None
        when the call's arguments do not match the parameters."""
        tpl = self.template()
        close = cparse.match(toks, k + 1)
        spans = cparse.split_args(toks, k + 1, close)
        if tpl is None or len(spans) != len(self.params):
            return None
        out = [(toks[k + 1].end, toks[k + 1].end, tpl[0])]
        for i, (a, b) in enumerate(spans[:-1]):
            out.append((toks[b].start, toks[b].end, tpl[i + 1].rstrip()))
        out.append((toks[close].start, toks[close].start, tpl[-1]))
        return out

    def droppable(self, toks, k):
        """Whether the call whose name is token @k of @toks can be renamed
        in place (kept()), each argument pthread does not get cast to
        void beside the next one (it has no side effect, and one follows
        it), and its value is not read (a statement of its own: the
        wrapper's result need not be pthread's; lrzip's gives true)."""
        kept = self.kept()
        close = cparse.match(toks, k + 1)
        spans = cparse.split_args(toks, k + 1, close)
        if kept is None or len(spans) != len(self.params) or \
                not spans or len(spans) - 1 not in kept or \
                not statement_call(toks, k):
            return False
        return all(i in kept or not _side_effects(
            join_tokens([t.text for t in toks[a:b]]))
            for i, (a, b) in enumerate(spans))

    def drop_edits(self, toks, k):
        """The edits that turn the arguments of the call at token @k that
        pthread does not get into `(void)` casts beside the next argument
        (`w(ctx, c, m)` to `w(((void)(ctx), c), m)`), so that a local
        only they name stays used; the name is renamed apart."""
        kept = self.kept()
        close = cparse.match(toks, k + 1)
        spans = cparse.split_args(toks, k + 1, close)
        out = []
        for i, (a, b) in enumerate(spans):
            if i in kept:
                continue
            out.append((toks[a].start, toks[a].start, "((void)("))
            out.append((toks[b].start, toks[b].end, "),"))  # its comma
            nxt = next(j for j in kept if j > i)
            end = toks[spans[nxt][1] - 1].end
            out.append((end, end, ")"))
        return out

    def args(self, texts):
        if self.params is None:
            return texts
        if len(texts) != len(self.params):
            return None
        return [substitute(self.params, b, texts) for b in self.bodies]


# The calls of the API that give 0 whenever the program is correct (not
# pthread_cond_timedwait(), whose ETIMEDOUT is a result, nor the inits,
# which may lack memory): a macro may check them (checked.py).
ZERO_API = frozenset(("pthread_cond_wait", "pthread_cond_signal",
                         "pthread_cond_broadcast", "pthread_cond_destroy",
                         "pthread_mutex_destroy"))


def pthread_api(macros, checkers=None):
    """{name: ApiCall} for the pthread functions and the function-like
    macros (MACROS as in add_macros) that expand to one call of them, or
    to a checker macro (@checkers, checker_macros()) around one: unbound's
    `#define lock_basic_init(lock) LOCKRET(pthread_mutex_init(lock,
    NULL))`, whose init is rewritten inside the check,
    `LOCKRET(liblock_init(...))`."""
    api = {n: ApiCall(n, n) for n in MUTEX_API + COND_API}

    hint = macro_hint(macros)
    if checkers is None:
        checkers = checker_macros(macros, hint)

    def resolve(name, params, body):
        alias = _alias_of(params, body, api)
        if alias is not None:
            # `#define x264_pthread_cond_wait pthread_cond_wait`
            call = ApiCall(name, alias.target, alias.params, alias.bodies)
            call.wrap = alias.wrap
            return call
        m, wrap = _one_call(body), None
        if m is None and params is not None:
            neg = _negated(body)
            m = _one_call(neg[1]) if neg else None
            wrap = (neg[0], neg[2]) if m else None
        if m is None and params is not None:
            # `(void)(pthread_cond_wait(c, m) && (abort(), 0))`: a call
            # that gives 0 in a correct program, checked (checked.py)
            call = checked.checked_call(
                body, lambda n: n in ZERO_API or n in api and
                api[n].target in ZERO_API and api[n].params is None,
                hint)
            m = _one_call(call) if call else None
        if m and m.group(1) in checkers and params is not None and \
                wrap is None:
            m, wrap = _checked_arg(m, checkers[m.group(1)], params)
            if m and m.group(1) in api and \
                    api[m.group(1)].target in ZERO_API:
                wrap = None  # gives 0: the check does nothing
        inner = api.get(m.group(1)) if m else None
        if inner is not None and wrap is not None and (
                inner.target != "pthread_mutex_init" or
                inner.wrap is not None):
            return None
        args = inner.args(_split_text_args(m.group(2))) if inner else None
        if args is None:
            return None
        call = ApiCall(name, inner.target, params, args)
        call.wrap = wrap or inner.wrap
        return call
    _fixpoint(api, macros, resolve)
    return api


def type_aliases(preferred, others):
    """{name: "mutex"|"cond"} for the pthread types and the object-like
    macros that name one (#define ZSTD_pthread_mutex_t pthread_mutex_t).
    @preferred and @others: [(name, body)] from --macro-file and from the
    sources; a --macro-file definition decides for its name."""
    out = dict(PTHREAD_TYPES)
    decided = set()
    for defs, strong in ((preferred, True), (others, False)):
        for name, body in defs:
            if name in decided or name in PTHREAD_TYPES:
                continue
            kind = PTHREAD_TYPES.get(body.strip())
            if strong:
                decided.add(name)
                out.pop(name, None)
            if kind:
                out[name] = kind
    return out


_PRIMARY = re.compile(r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*|"
                      r"\[[^][]*\])*|[0-9]\w*")


def join_tokens(texts):
    """Join token texts with blanks around binary operators and commas."""
    out = ""
    for t in texts:
        prev = out[-1:] if out else ""
        operand = prev.isalnum() or prev in ("_", ")", "]")
        if operand and (t[0].isalnum() or t[0] == "_"):
            out += " "
        elif operand and t in _BINARY:
            t = " " + t + " "
        elif t == ",":
            t = ", "
        out += t
    return out


_BINARY = {"=", "+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=",
           "&&", "||", "&", "|", "^", "<<", ">>", "?", ":", "+=", "-=",
           "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


def tidy(expr):
    """Drop parentheses around identifiers, member chains and the whole
    expression, as left by macro expansion: &(l) -> &l."""
    prev = None
    while prev != expr:
        prev = expr
        expr = re.sub(r"(?<![\w\])])\(([A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*)"
                      r"\)", r"\1", expr)
    return _strip_parens(expr)


def canon(text):
    """Canonical form of a lock expression: no blanks, redundant parens
    around identifiers and member chains removed."""
    s = re.sub(r"\s+", "", text)
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"(?<![\w\])])\(([A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*|"
                   r"\[[^][()]*\])*)\)", r"\1", s)
    return s


def lock_key(expr):
    """The name that identifies a lock across the program: a variable
    ("m", "item_locks") or a structure field (".lock")."""
    s = _strip_parens(canon(expr))
    if s.startswith("&"):
        s = _strip_parens(canon(s[1:]))
    s = _strip_subscripts(s)
    m = re.fullmatch(r"[A-Za-z_]\w*", s)
    if m:
        return s
    m = re.search(r"(?:->|\.)([A-Za-z_]\w*)$", s)
    if m:
        return "." + m.group(1)
    return None


def _strip_subscripts(s):
    """@s without its trailing subscripts: `locks[i][j]` is `locks`
    (balanced brackets: `locks[idx[i]]` too)."""
    while s.endswith("]"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += s[i] == "]"
            depth -= s[i] == "["
            if depth == 0:
                break
        if depth or i == 0:
            return s
        s = s[:i].rstrip()
    return s


def _strip_parens(s):
    while s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, c in enumerate(s):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(s) - 1:
                return s
        s = s[1:-1]
    return s


_CALL_BODY = re.compile(
    r"^\s*(?:do\s*\{)?\s*\(?\s*(?:\(void\)\s*)?([A-Za-z_]\w*)\s*\((.*)\)\s*\)?"
    r"\s*;?\s*(?:\}\s*while\s*\(\s*0\s*\))?\s*$", re.S)
_CALL_BODY_SHORT = re.compile(_CALL_BODY.pattern.replace(r"\((.*)\)",
                                                         r"\((.*?)\)"),
                              re.S)


# Lock macros with several definitions that lock or unlock different
# things (squeezelite's stream.c and output.c each `#define LOCK()` on
# their own buffer's mutex): name -> [LockFn] of those definitions.  A use does not say which one it expands, so none is
# taken for a lock macro (safety.py refuses their sections and locks).
AMBIGUOUS_MACROS = {}


def add_macros(fns, macros, checkers=None, rivals=None):
    """Add macros whose body is one call to a known lock function.
    MACROS maps a name to its (params, body) or to a list of candidate
    definitions (cond.scan): the first that resolves wins.  @rivals:
    name -> other definitions of it that other uses expand (an earlier
    one, before an #undef; another file's): when one of those resolves
    to a different call, the name is no lock macro (AMBIGUOUS_MACROS).
    @checkers: checker_macros() of them (computed when not given)."""
    hint = macro_hint(macros)
    if checkers is None:
        checkers = checker_macros(macros, hint)
    rivals = rivals or {}

    def resolve(name, params, body):
        if rivals.get(name):
            seen, plain = {}, False
            for ps, b in [(params, body)] + rivals[name]:
                e = macro_fn(fns, name, ps, b, hint, checkers)
                plain |= not e  # a definition that is no lock call
                if e:
                    # the lock expression up to the parameters' names
                    # (`lock(&(x))` and `lock(&(m))` are one macro)
                    expr = re.sub(r"\s+", "", str(e.body))
                    for i, p in enumerate(ps or ()):
                        expr = re.sub(r"\b%s\b" % re.escape(p.strip()),
                                      "\x00%d" % i, expr)
                    seen[(e.role, expr, e.via.name if e.via else None,
                          e.test)] = e
            if len(seen) > 1 or seen and plain:
                AMBIGUOUS_MACROS[name] = list(seen.values())
                return None
        return macro_fn(fns, name, params, body, hint, checkers)
    _fixpoint(fns, macros, resolve)


def _fixpoint(table, macros, resolve):
    """Add to @table each macro of @macros that @resolve(name, params,
    body) maps to an entry, until nothing changes (macros of macros)."""
    changed = True
    while changed:
        changed = False
        for name, cands in macros.items():
            if name in table:
                continue
            for params, body in cands if isinstance(cands, list) else \
                    [cands]:
                entry = resolve(name, params, body)
                if entry:
                    table[name] = entry
                    changed = True
                    break


def _negated(body):
    """(before, call, after) when @body is a call negated and
    parenthesised, `(!(f(x)))`, `!f(x)`: the text around the call is only
    '(', '!' and the ')' that close them; else None."""
    try:
        toks = cparse.lex(body)
    except cparse.ParseError:
        return None
    a, b, neg = 0, len(toks), False
    while a < b:
        if toks[a].text == "!":
            a, neg = a + 1, True
            continue
        try:
            closes = toks[a].text == "(" and cparse.match(toks, a) == b - 1
        except cparse.ParseError:
            return None
        if not closes:
            break
        a, b = a + 1, b - 1
    if not neg or a >= b:
        return None
    return (body[:toks[a].start], body[toks[a].start:toks[b - 1].end],
            body[toks[b - 1].end:])


def _one_call(body):
    """The match of _CALL_BODY when @body is one call (its '(' closes at
    the end), not `f(a); if (x) g(b)` as in c-blosc's WAIT_INIT."""
    # One blank for each run of them: the pattern's adjacent \s* would
    # otherwise try every split of a long run (a body aligned with tabs and
    # spaces before its continuation backslashes took minutes to fail).
    body = re.sub(r"\s+", " ", body)
    for rx in (_CALL_BODY, _CALL_BODY_SHORT):
        # The greedy form first; the short one for `do { f(x); } while
        # (0)`, where the greedy one swallows up to the 0.
        m = rx.match(body)
        if not m:
            continue
        try:
            toks = cparse.lex("(" + m.group(2) + ")")
            if cparse.match(toks, 0) == len(toks) - 1:
                return m
        except cparse.ParseError:
            pass
    return None


def branch_hint(params, body):
    """Whether a function-like macro is a branch hint of its one
    parameter, `#define unlikely(x) __builtin_expect(!!(x), 0)`: "!!"
    when it gives its parameter's truth, "" when the parameter itself;
    else None."""
    if not params or len(params) != 1:
        return None
    m = re.fullmatch(r"\(?\s*__builtin_expect\s*\(\s*(!!\s*)?\(?\s*%s"
                     r"\s*\)?\s*,\s*[01]L?\s*\)\s*\)?" %
                     re.escape(params[0]), body.strip())
    return None if m is None else "!!" if m.group(1) else ""


def macro_hint(macros):
    """branch_hint() of a name through @macros (as in add_macros)."""
    def hint(name):
        c = macros.get(name)
        for params, body in c if isinstance(c, list) else [c] if c else []:
            h = branch_hint(params, body)
            if h is not None:
                return h
        return None
    return hint


def _checked_arg(m, i, params):
    """(match of the call, (text before it, text after it)) when argument
    @i of the checker macro call matched by @m (_one_call()) is one call
    and the checker's other arguments name none of @params (the text
    around the call is written at every use as it is); else (None,
    None)."""
    args = _split_text_args(m.group(2))
    inner = _one_call(args[i]) if i < len(args) else None
    others = args[:i] + args[i + 1:]
    if inner is None or any(
            re.search(r"\b%s\b" % re.escape(p), a)
            for a in others for p in params):
        return None, None
    return inner, ("%s(%s" % (m.group(1), "".join(a + ", " for a in
                                                    args[:i])),
                   "%s)" % "".join(", " + a for a in args[i + 1:]))


def checker_macros(macros, hint=lambda name: None):
    """{name: argument index} of the function-like macros that check a
    call given as one of their arguments, `VERIFY0(x)`, `CHECK(x, what)`:
    `do { if ((x) != 0) die(what); } while (0)`.  With that call giving
    0, the macro does nothing but evaluate it, once, and gives no value
    (checked.py): `CHECK(pthread_mutex_lock(&m));` is that call."""
    out = {}
    for name, cands in macros.items():
        for params, body in cands if isinstance(cands, list) else [cands]:
            if not params or "..." in params:
                continue
            for i in range(len(params)):
                args = ["rcl_other_"] * len(params)
                args[i] = "rcl_checked_()"
                if checked.checked_call(substitute(params, body, args),
                                        lambda n: n == "rcl_checked_",
                                        hint):
                    out[name] = i
                    break
            if name in out:
                break
    return out


def macro_fn(fns, name, params, body, hint=lambda name: None, checkers=None):
    """The LockFn of macro @name when its body calls one lock function:
    only that call, the call compared with 0 (a trylock's), or the call
    checked by code that does nothing once it gives 0 (checked.py; @hint
    names the branch-hint macros), there or through a checker macro
    (@checkers, checker_macros(): unbound's `#define lock_basic_lock(lock)
    LOCKRET(pthread_mutex_lock(lock))`)."""
    alias = _alias_of(params, body, fns)
    if alias is not None:
        # `#define x264_pthread_mutex_lock pthread_mutex_lock`: its uses
        # are calls of the function it names (not of a wrapper, whose
        # sections call its own NAME_rcl_exec())
        if alias.called_wrapper() is not None:
            return None
        lf = LockFn(name, alias.role, alias.params, alias.body)
        lf.test, lf.checks = alias.test, alias.checks
        return lf
    m, test, checks = _one_call(body), None, False
    if not m and params is not None:
        tested = _tested_call(body)
        m = _one_call(tested[0]) if tested else None
        test = tested[1] if m else None
    if not m and params is not None:
        call = checked.checked_call(
            body, lambda n: n in fns and fns[n].role in ("lock", "unlock")
            and fns[n].called_wrapper() is None, hint)
        m = _one_call(call) if call else None
        checks = m is not None
    if m and checkers and m.group(1) in checkers and params is not None:
        # CHECK(lock_call): the checker does nothing once the call gives
        # 0 and gives no value, so the macro is that call
        args = _split_text_args(m.group(2))
        i = checkers[m.group(1)]
        inner_m = _one_call(args[i]) if i < len(args) else None
        m, checks = (inner_m, True) if inner_m and \
            inner_m.group(1) in fns and \
            fns[inner_m.group(1)].called_wrapper() is None else (None, False)
    if not m or m.group(1) not in fns:
        return None
    inner = fns[m.group(1)]
    via_args = _split_text_args(m.group(2))
    if inner.wrapper and not inner.wrapper.get("param") and (
            test is not None or checks or params is None or
            not _of_params(inner)):
        # A wrapper that names its lock: only through a macro that passes
        # it the arguments its lock is made of (pigz's `#define
        # possess(a) possess_(a, __FILE__, __LINE__)`, possess_() taking
        # &(bolt->mutex)); its sections call its NAME_rcl_exec().
        return None
    if test is not None and (inner.role != "trylock" or inner.test):
        return None  # a comparison only means something on a trylock
    body_expr = inner.expr(via_args)
    if body_expr is None:
        return None
    lf = LockFn(name, inner.role, params, body_expr)
    lf.test = test or inner.test
    lf.via = inner if inner.wrapper else inner.via
    lf.via_args = via_args if inner.wrapper else inner.via_args
    lf.checks = checks or inner.checks
    return lf


def _of_params(lf):
    """Whether wrapper function @lf's lock expression is made of its
    parameters (`&(bolt->mutex)`), not of a name of its own file."""
    try:
        ts = cparse.lex(lf.wrapper["lock_expr"])
    except cparse.ParseError:
        return False
    ids = {t.text for k, t in enumerate(ts) if t.kind == "id" and
           (k == 0 or ts[k - 1].text not in (".", "->"))}
    return bool(ids & set(lf.params or ())) and \
        ids <= set(lf.params or ()) | {"sizeof"}


def _alias_of(params, body, table):
    """The entry of @table that an object-like alias names: a macro
    without parameters (@params None), whose @body is that name
    (Program._aliases(): x264's `#define x264_pthread_mutex_lock
    pthread_mutex_lock`); else None."""
    return table.get(body) if params is None else None


def _tested_call(body):
    """(call text, "!= 0" or "== 0") when @body, within parentheses, is
    one call compared with 0 or negated: `(f(x) != 0)`, `0 == f(x)`,
    `!f(x)`; else None."""
    try:
        toks = cparse.lex(body)
        while len(toks) > 2 and toks[0].text == "(" and \
                cparse.match(toks, 0) == len(toks) - 1:
            toks = toks[1:-1]
    except cparse.ParseError:
        return None
    if len(toks) < 4:
        return None
    if toks[0].text == "!":
        call, test = toks[1:], "== 0"
    elif toks[-2].text in ("!=", "==") and toks[-1].text == "0":
        call, test = toks[:-2], toks[-2].text + " 0"
    elif toks[1].text in ("!=", "==") and toks[0].text == "0":
        call, test = toks[2:], toks[1].text + " 0"
    else:
        return None
    if any(t.text in ("?", ",", "&&", "||", "=") for t in call):
        return None
    return body[call[0].start:call[-1].end], test


def call_args(toks, k):
    """The argument texts of the call whose name is at token @k."""
    close = cparse.match(toks, k + 1)
    return [join_tokens([t.text for t in toks[a:b]])
            for a, b in cparse.split_args(toks, k + 1, close)]


def _split_text_args(text):
    toks = cparse.lex("(" + text + ")")
    return [join_tokens([t.text for t in toks[a:b]])
            for a, b in cparse.split_args(toks, 0, len(toks) - 1)]


def wrapper_spans(w):
    """(file, start, end) offsets of the definition of wrapper @w (a
    LockFn's or ApiCall's .wrapper) and of its static copies in other
    files."""
    return [(w["file"], w["start"], w["end"])] + [
        (c["file"], c["start"], c["end"]) for c in w.get("copies", ())]


def in_wrapper(fn, path, off):
    """Whether offset @off of file @path is in the definition of the
    wrapper function of LockFn or ApiCall @fn (or of a copy)."""
    return bool(fn.wrapper) and any(
        p == path and a <= off < b for p, a, b in wrapper_spans(fn.wrapper))


def find_wrappers(src, fns, api=None, sole=None, returns=None,
                  funcs=None, ambiguous=(), expand=None, handlers=(),
                  copies=None):
    """Trivial wrapper functions: a body that only locks/unlocks/trylocks a
    mutex derived from the parameters, e.g. memcached's
    void item_lock(uint32_t hv) { mutex_lock(&item_locks[hv & mask]); }
    or the parameter itself (a parameter wrapper: liblzma's
    mythread_mutex_lock(mythread_mutex *mutex), whose call sites name the
    lock), with checks on the call's result (_wrapper_call).  With @api
    ({name: ApiCall}), functions whose body is one call of a pthread
    init/destroy/condition function on their parameters are added to it
    (mythread_mutex_init(mythread_mutex *mutex)).  Returns whether
    anything was added (a wrapper of a wrapper defined before it is found
    by calling again).  @sole(name, line) gives where the compiler sees
    the one call of a body that otherwise only declares, asserts and
    checks (frontend.Program.sole_call), and whether the body is that
    call alone (sole_plain): Tor's tor_mutex_acquire()
    declares its result, asserts on its argument and ends the process
    when the call fails, behind macros of its own.  @returns(name, line)
    gives the integer constant such a body returns on every path
    (frontend.Program.sole_return), kept as the wrapper's "returns" (a
    scoped lock macro's `for` head may test it), else None.  Names in
    @ambiguous (defined in several files) are no wrappers.  @expand(word)
    gives an object-like macro's expansion as the compiler reads it (the
    argument of an init wrapper's call, OpenLDAP's
    LDAP_INT_THREAD_MUTEXATTR_DEFAULT, NULL in this build).  A function in
    @handlers (pushed as a cancellation cleanup handler somewhere) may
    unlock its `void *` parameter through a cast to a mutex pointer
    (_void_param_cast()); any other such function is handles.py's, which
    follows the pointers its callers pass (memcached's
    item_trylock_unlock()).  @copies: name -> [(File, name token,
    closing brace token)] of a function that several files define as
    static copies of one text (Program._same_statics()): it may be a
    parameter wrapper, whose copies are all its definition (the calls
    name the lock, whichever copy they reach), not a wrapper of a named
    lock nor of an init or condition call (each copy's body would name
    its own file's objects)."""
    toks = src.toks
    added = False
    # @funcs: the file's functions when the caller has them (they may
    # need the compiler's extents: cparse.find_functions()).
    for name, ni, bo, bc in funcs if funcs is not None else \
            cparse.find_functions(src):
        if name in fns or (api is not None and name in api) or \
                name in ambiguous:
            continue
        body = _wrapper_call(toks[bo + 1:bc])
        checked = len(body) != bc - bo - 1
        if sole is not None:
            # The compiler's one call, when the text shows none, or shows
            # a macro around it (OpenLDAP's `return ERRVAL(
            # pthread_mutex_lock(mutex));`: the compiler's call is the
            # argument's, not the macro's); the body checks its result
            # unless, compiled, it is that call alone.
            loc, plain = sole(name, src.line_of(toks[ni].start))
            found = _sole_call(src, loc, bo, bc)
            if found is not None and (
                    not _call_body(body) or
                    found[0] is not body[1 if body[0].text == "return"
                                         else 0]):
                body, checked = found, not plain
        if body and body[0].text == "return":
            body = body[1:]
        if len(body) < 4 or body[-1].text != ";" or body[0].kind != "id":
            continue
        inner = fns.get(body[0].text)
        if body[1].text != "(" or cparse.match(body, 1) != len(body) - 2:
            continue
        args = [join_tokens([t.text for t in body[a:b]])
                for a, b in cparse.split_args(body, 1, len(body) - 2)]
        params = _params(toks, ni + 1)
        if params is None:
            continue
        names = [p[1] for p in params]
        head, static, inline = definition_head(toks, ni)
        copied = (copies or {}).get(name)
        if inner is None and copied:
            continue
        if inner is None:
            added |= _api_wrapper(api, name, body[0].text, names, args,
                                  checked, expand, {
                                      "file": src.path, "start":
                                      toks[head].start, "end":
                                      toks[bc].end, "static": static,
                                      "inline": inline,
                                      "call": body[0].start,
                                      "ptypes": _param_types(toks, ni + 1)})
            continue
        if inner.wrapper and not inner.wrapper.get("param"):
            continue
        expr = inner.expr(args)
        if expr is None:
            continue
        if name in handlers:
            expr = _void_param_cast(expr, params)
        param = canon(expr) in names
        if lock_key(expr) is None or (lock_key(expr) in names and
                                      not param) or (copied and not param):
            continue
        ret = " ".join(t.text for t in toks[head:ni]
                       if t.text not in ("static", "inline"))
        fns[name] = LockFn(name, inner.role, names,
                           canon(expr) if param else expr, wrapper={
                               "file": src.path, "static": static,
                               "inline": inline,
                               "params": params, "ret": ret,
                               "end": toks[bc].end,
                               "start": toks[head].start,
                               "call": body[0].start, "lock_expr": expr,
                               "param": param,
                               "returns": returns(
                                   name, src.line_of(toks[ni].start))
                               if returns is not None else None,
                               "copies": [
                                   {"file": cf.path,
                                    "start": cf.src.toks[definition_head(
                                        cf.src.toks, cni)[0]].start,
                                    "end": cf.src.toks[cbc].end}
                                   for cf, cni, cbc in copied or ()
                                   if cf.path != src.path]})
        added = True
    return added


def definition_head(toks, ni):
    """(first token, static, inline) of the words before the name at
    token @ni of a function definition (`static inline int`)."""
    j = ni - 1
    while j >= 0 and toks[j].kind == "id":
        j -= 1
    words = {t.text for t in toks[j + 1:ni]}
    return j + 1, "static" in words, bool(
        words & {"inline", "__inline", "__inline__"})


def cleanup_pushes(toks):
    """(handler start, handler end, argument start, argument end) token
    ranges of each two-argument pthread_cleanup_push() call of token list
    @toks, the handler without its casts and parentheses: `(void (*)(void
    *))pthread_mutex_unlock`, squashfs-tools' `(void *)
    pthread_mutex_unlock`, `(unlock_fn)`."""
    for k, t in enumerate(toks):
        if t.kind != "id" or t.text != "pthread_cleanup_push" or \
                k + 1 >= len(toks) or toks[k + 1].text != "(":
            continue
        close = cparse.match(toks, k + 1)
        spans = cparse.split_args(toks, k + 1, close) \
            if close is not None else []
        if len(spans) != 2:
            continue
        (a0, b0), (a1, b1) = spans
        while b0 - a0 > 1 and toks[a0].text == "(":
            c = cparse.match(toks, a0)
            if c == b0 - 1:
                a0, b0 = a0 + 1, b0 - 1
            elif c is not None and c < b0 - 1:
                a0 = c + 1
            else:
                break
        yield a0, b0, a1, b1


def cleanup_handlers(toks):
    """The names of the functions that the pthread_cleanup_push() calls
    of token list @toks push (through any cast)."""
    return {toks[a0].text for a0, b0, _, _ in cleanup_pushes(toks)
            if b0 - a0 == 1 and toks[a0].kind == "id"}


def _void_param_cast(expr, params):
    """@expr without its cast when it is a `void *` parameter cast to a
    pointer (`pthread_mutex_unlock((pthread_mutex_t *) arg)` in a cleanup
    handler `void unlock_cleanup(void *arg)`): the argument at a call is
    then the lock, as for a parameter of the mutex type; else @expr."""
    m = re.fullmatch(r"\(\s*(?:const\s+)?[A-Za-z_]\w*\s*\*\s*\)\s*"
                     r"(\(\s*)?([A-Za-z_]\w*)(?(1)\s*\))", expr.strip())
    if m is None:
        return expr
    for decl, name in params:
        if name == m.group(2):
            return name if decl.split() in (
                ["void", "*", name], ["const", "void", "*", name]) else expr
    return expr


def _call_body(body):
    """Whether tokens @body are `[return] NAME(...);`."""
    if body and body[0].text == "return":
        body = body[1:]
    return len(body) >= 4 and body[-1].text == ";" and \
        body[0].kind == "id" and body[1].text == "(" and \
        cparse.match(body, 1) == len(body) - 2


def _sole_call(src, loc, bo, bc):
    """The tokens `NAME(...);` of the call the front end found at @loc
    (frontend.Loc) inside the body from token @bo to @bc, or None when
    it is not spelled there as a call (a macro's expansion)."""
    if loc is None or os.path.realpath(src.path) != loc.path:
        return None
    k = src.tok_at(src.offset(loc.line, loc.col - 1))
    toks = src.toks
    if k is None or not bo < k < bc - 2 or toks[k].kind != "id" or \
            toks[k + 1].text != "(":
        return None
    close = cparse.match(toks, k + 1)
    if close >= bc:
        return None
    return toks[k:close + 1] + [_Semi(toks[close])]


# The calls whose failure a wrapper may check and the rewrite drop (they
# do not fail on an object the program uses correctly); a check on the
# others (init: memory, the algorithm asked for; timedwait: the time out)
# must stay, so their wrappers are not followed when they check.
_CHECK_DROPPABLE = ("pthread_mutex_destroy", "pthread_cond_destroy",
                    "pthread_cond_signal", "pthread_cond_broadcast",
                    "pthread_cond_wait")


# Functions left out for that: name -> the pthread function they check.
CHECKED_API = {}


def _api_wrapper(api, name, callee, names, args, checked, expand, where):
    """Add function @name(@names) whose body calls @callee(@args) to @api
    when @callee is a pthread init/destroy/condition function (or a
    wrapper of one) and the call's arguments are made of the parameters
    and constants only (the call site then says which object it acts on):
    a converted lock's call site calls liblock instead.  A condition
    function given a member of a parameter (liblzma's
    mythread_cond_wait(mythread_cond *cond, ...) waits on &cond->cond)
    is an in-place wrapper (ApiCall.in_place): its body calls liblock
    when that field is converted.  @checked: the body checks the call's
    result; @where: the definition (file, start, static, call, ptypes)."""
    inner = api.get(callee) if api is not None else None
    targs = inner.args(args) if inner else None
    if targs is None:
        return False
    if expand is not None:
        # The other names, as the compiler reads them: constants of this
        # build, which the call sites can be given instead
        targs = [re.sub(r"[A-Za-z_]\w*", lambda m: m.group()
                        if m.group() in names else expand(m.group()), a)
                 for a in targs]
    place = in_place_wrapper(inner.target, targs, names)
    # An in-place wrapper keeps its checks, on liblock's result.
    if checked and inner.target not in _CHECK_DROPPABLE and place is None:
        CHECKED_API[name] = inner.target
        return False
    for a in targs:
        ts = cparse.lex(a)
        for i, t in enumerate(ts):
            if t.kind == "id" and t.text not in names and \
                    t.text not in ("NULL",) and not (
                        place is not None and i and
                        ts[i - 1].text in ("->", ".")):
                return False
    api[name] = ApiCall(name, inner.target, names, targs)
    api[name].wrapper = where
    api[name].in_place = place
    api[name].checked = checked or inner.checked
    return True


def in_place_wrapper(target, targs, names):
    """ApiCall.in_place of a wrapper whose body calls pthread's @target
    with @targs (made of parameters @names): when @target is a condition
    function and its condition is a member of a parameter (`&c->cv`: the
    same structure field whatever the call site passes), {"mutex": the
    index of the parameter passed as the mutex of a wait, or None (a
    member too, or no wait)}; None otherwise."""
    if target not in COND_API or not targs:
        return None
    try:
        ts = cparse.lex(targs[0])
    except cparse.ParseError:
        return None
    if not any(t.text in ("->", ".") for t in ts):
        return None
    mutex = None
    if target in COND_API[:2] and len(targs) > 1:
        m = canon(targs[1])
        if m in names:
            mutex = names.index(m)
        elif not any(t.text in ("->", ".") for t in cparse.lex(targs[1])):
            return None
    return {"mutex": mutex}


def _param_types(toks, open_i):
    """For each parameter of the list opening at token @open_i: (start,
    end, text) of its one type name when it is `[const] NAME *name` (or
    without the pointer), else None."""
    close = cparse.match(toks, open_i)
    out = []
    quals = ("const", "volatile", "restrict", "__restrict", "__restrict__")
    for a, b in cparse.split_args(toks, open_i, close):
        ids = [k for k in range(a, b) if toks[k].kind == "id" and
               toks[k].text not in quals]
        if len(ids) == 2 and all(toks[k].kind == "id" or toks[k].text == "*"
                                 for k in range(a, b)):
            t = toks[ids[0]]
            out.append((t.start, t.end, t.text))
        else:
            out.append(None)
    return out


# What a wrapper may do with the pthread call's result besides the call:
# assert on it and silence the unused-variable warning (liblzma's
# mythread.h), or report it and end the process (`if (rc != 0) {
# fprintf(stderr, ...); abort(); }`).  A wrapper that names its lock keeps
# its checks (on liblock_lock()'s result, for the callers it still has);
# extracted sections call NAME_rcl_exec() or liblock_exec(), which have
# no result to check: the checks only run when the lock call fails.
_CHECK_IDS = frozenset(("assert", "void", "if", "abort", "exit", "_exit",
                        "fprintf", "perror", "fputs", "strerror", "stderr",
                        "__func__", "__FUNCTION__", "__FILE__", "__LINE__",
                        "EXIT_FAILURE", "__builtin_trap"))


def _wrapper_call(body):
    """The call of a wrapper body, as `CALL(...);`, when the body is that
    call and checks on its result: `[T] v = CALL(...); CHECKS` where
    CHECKS only look at v, or `if (CALL(...) [!= 0]) CHECKS`; any other
    body unchanged."""
    if len(body) > 5 and body[0].text == "if" and body[1].text == "(":
        close = cparse.match(body, 1)
        cond = body[2:close]
        if cond and cond[0].kind == "id" and len(cond) > 2 and \
                cond[1].text == "(":
            end = cparse.match(cond, 1)
            rest = cond[end + 1:]
            if [t.text for t in rest] in ([], ["!=", "0"], ["<", "0"]) \
                    and _only_checks(body[close + 1:], None):
                return cond[:end + 1] + [_Semi(body[close])]
        return body
    return _checked_call(body)


class _Semi:
    """A ';' token after a call taken out of an `if` condition."""

    kind = "punct"
    text = ";"

    def __init__(self, after):
        self.start = self.end = after.start


def _only_checks(rest, var):
    """Whether tokens @rest only report or assert on @var and end the
    process (no other name, no assignment)."""
    return not any(t.kind == "id" and t.text != var and
                   t.text not in _CHECK_IDS or t.text in (
                       "=", "+=", "-=", "++", "--") for t in rest)


def _checked_call(body):
    """The call of a wrapper body `[T] v = CALL(...); CHECKS` where CHECKS
    only look at v (assert(v == 0); (void)v;), as `CALL(...);`; any other
    body unchanged."""
    semi = next((k for k, t in enumerate(body) if t.text == ";"), None)
    if semi is None or semi + 1 >= len(body):
        return body
    eq = next((k for k in range(semi) if body[k].text == "="), None)
    if eq is None or eq < 2 or body[eq - 1].kind != "id" or \
            body[eq + 1].kind != "id" or body[eq + 2].text != "(" or \
            cparse.match(body, eq + 2) != semi - 1:
        return body
    var = body[eq - 1].text
    # a declaration of var: type words (and const) before it, no operator
    if any(t.kind != "id" for t in body[:eq - 1]):
        return body
    rest = body[semi + 1:]
    if not any(t.text == var for t in rest) or not _only_checks(rest, var):
        return body
    return body[eq + 1:semi + 1]


def _params(toks, open_i):
    """[(decl_text, name)] of a parameter list, or None if unusual."""
    close = cparse.match(toks, open_i)
    out = []
    for a, b in cparse.split_args(toks, open_i, close):
        ids = [k for k in range(a, b) if toks[k].kind == "id"]
        if b - a == 1 and toks[a].text == "void":
            continue
        if not ids or toks[ids[-1]].text in ("void",):
            return None
        out.append((" ".join(t.text for t in toks[a:b]), toks[ids[-1]].text))
    return out


def run_spatch(cocci, path, env, opts):
    """Run one .cocci in report mode on @path; return its output lines."""
    # The .cocci files have Python rules: name the interpreter running
    # this driver (the one configure found), or spatch looks python3 up
    # on PATH and asks it for its version and library on every run (a
    # third of a second through a pyenv shim, three runs per file).
    cmd = [opts.spatch, "--very-quiet", "-D", "report", "--no-show-diff"]
    if sys.executable:
        cmd += ["--python", sys.executable]
    cmd += ["--sp-file", cocci]
    for d in opts.include:
        cmd += ["-I", d]
    for m in opts.macro_file:
        cmd += ["--macro-file", m]
    cmd.append(path)
    res = subprocess.run(cmd, capture_output=True, text=True, env=env,
                         timeout=opts.spatch_timeout)
    if res.returncode != 0:
        raise RuntimeError("spatch failed on %s: %s" % (
            path, (res.stderr.strip().splitlines() or ["?"])[-1]))
    return res.stdout.splitlines()


class Facts:
    """What Coccinelle reported for one file."""

    def __init__(self):
        self.cs = []       # (func, lock_line, lock_col, unlock_line, col)
        self.lonely = []   # (func, line, col)
        self.trylock = []  # (func, line, col)
        self.locals = {}   # func -> [(name, line, col)]
        self.unsafe = []   # (func, line, col, what)


def spatch_facts(path, fns, opts, checkers=(), hints=()):
    env = dict(os.environ)
    env["RCL_LOCK_FNS"] = ",".join(n for n, f in fns.items()
                                   if f.role == "lock")
    env["RCL_UNLOCK_FNS"] = ",".join(n for n, f in fns.items()
                                     if f.role == "unlock")
    env["RCL_TRYLOCK_FNS"] = ",".join(n for n, f in fns.items()
                                      if f.role == "trylock")
    env["RCL_CHECK_MACROS"] = ",".join(sorted(checkers))
    env["RCL_HINT_MACROS"] = ",".join(sorted(hints))
    facts = Facts()
    for line in run_spatch(os.path.join(opts.datadir, "sections.cocci"),
                           path, env, opts):
        w = line.split("\t")
        if w[0] == "CS" and len(w) >= 6:
            facts.cs.append((w[1], int(w[2]), int(w[3]), int(w[4]),
                             int(w[5])))
        elif w[0] == "LONELY" and len(w) >= 4:
            facts.lonely.append((w[1], int(w[2]), int(w[3])))
        elif w[0] == "TRY" and len(w) >= 4:
            facts.trylock.append((w[1], int(w[2]), int(w[3])))
    for line in run_spatch(os.path.join(opts.datadir, "locals.cocci"),
                           path, env, opts):
        w = line.split("\t")
        if w[0] == "LOC" and len(w) >= 5:
            facts.locals.setdefault(w[1], []).append(
                (w[2], int(w[3]), int(w[4])))
    for line in run_spatch(os.path.join(opts.datadir, "unsafe.cocci"),
                           path, env, opts):
        w = line.split("\t")
        if w[0] == "UNSAFE" and len(w) >= 5:
            facts.unsafe.append((w[1], int(w[2]), int(w[3]), w[4]))
    return facts
