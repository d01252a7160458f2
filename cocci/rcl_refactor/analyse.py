# SPDX-License-Identifier: MIT
"""Stage 2, analyse: the shape of each section (its block, its final
unlock, its early exits), what it must refuse, and which locals go in, come
out, or travel by pointer."""
import re

from . import cond, cparse
from .find import canon, join_tokens

EXITS = ("return", "goto", "break", "continue")
COND_WAITS = ("pthread_cond_wait", "pthread_cond_timedwait")
UNSAFE_WHY = {
    "errno": "errno in the section (it would be the server thread's)",
    "pthread_self": "pthread_self() in the section (it would run on the "
                    "server thread)",
    "pthread_getspecific": "thread-specific data in the section",
    "pthread_setspecific": "thread-specific data in the section",
    "gettid": "gettid() in the section (it would run on the server thread)",
    "alloca": "alloca in the section",
    "__builtin_alloca": "alloca in the section",
}


class Refused(Exception):
    pass


class _NestedRefused(Refused):
    """A refusal whose reason names the nested section already."""


def lock_name(ident):
    """How a reason names the lock of lock expression @ident (`&m` is
    m)."""
    return ident[1:] if ident.startswith("&") else ident


class Decl:
    """One declarator: name, its declaration text pieces, where it lives."""

    def __init__(self, name, spec, declarator, t0, block, is_param=False):
        self.name, self.spec, self.declarator = name, spec, declarator
        self.t0, self.block, self.is_param = t0, block, is_param
        words = spec.split()
        self.is_static = "static" in words
        self.is_array = "[" in declarator
        self.is_extern = "extern" in words

    def text(self, name_expr):
        """A declaration of @name_expr with this declarator's type."""
        spec = [w for w in self.spec.split() if w not in (
            "static", "register", "auto", "extern", "inline", "__thread",
            "_Thread_local", "thread_local")]
        decl = self.declarator
        byptr = name_expr in ("(*%s)" % self.name, "(*)")
        if byptr and not any(c in decl for c in "[("):
            name_expr = "*" + self.name if name_expr != "(*)" else "*"
        if "*" not in decl and not byptr:
            spec = [w for w in spec if w not in ("const", "volatile")]
        toks = cparse.lex(decl)
        out = []
        for k, t in enumerate(toks):
            if t.text == self.name and t.kind == "id":
                out.append(name_expr)
            elif t.text in ("const", "volatile") and k and \
                    toks[k - 1].text == "*" and not byptr:
                continue  # a copy need not be const itself
            else:
                out.append(t.text)
        d = "".join(x if x in ("*", "(", ")", "[", "]") else " " + x + " "
                    for x in out)
        return (" ".join(spec) + " " + " ".join(d.split())).replace(
            "* ", "*").replace("( ", "(").replace(" )", ")").replace(
            " [", "[").replace("[ ", "[").replace(" ]", "]")

    def pointer_type(self):
        """The type of `&name` as a type name (`struct entry *`, `long
        **`, `char (*)[16]`), for a compound literal that the compiler
        checks against what `&name` is; None for a structure, union or
        enumeration declared in place (a literal of its type would be of
        another), or a declaration with attributes."""
        text = self.spec + " " + self.declarator
        if "{" in self.spec or re.search(
                r"\b(_Alignas|alignas|__attribute__|__attribute|"
                r"__declspec)\b", text):
            return None  # attributes have no place in a type name
        return self.text("(*)")


SPEC_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed",
    "unsigned", "_Bool", "bool", "const", "volatile", "static", "register",
    "auto", "extern", "restrict", "__restrict", "_Atomic", "inline",
    "__thread", "_Thread_local", "thread_local", "__extension__",
}
BASIC = {"void", "char", "short", "int", "long", "float", "double",
          "signed", "unsigned", "_Bool", "bool"}


def parse_decl(toks, a, b, block):
    """Declarators of the declaration tokens [a, b) (without ';')."""
    j, typed = a, False
    while j < b:
        t = toks[j].text
        if t in ("struct", "union", "enum"):
            j += 2 if toks[j + 1].kind == "id" else 1
            if j < b and toks[j].text == "{":
                j = cparse.match(toks, j) + 1
            typed = True
            continue
        if t in SPEC_WORDS:
            typed = typed or t in BASIC
            j += 1
            continue
        if toks[j].kind == "id" and not typed:
            typed = True
            j += 1
            continue
        break
    spec = " ".join(t.text for t in toks[a:j])
    out = []
    for da, db in cparse.split_args(toks, j - 1, b):
        if da == j - 1:
            da = j
        e = da
        while e < db and toks[e].text != "=":
            if toks[e].text in ("(", "[", "{") and toks[e].kind == "punct":
                e = cparse.match(toks, e) + 1
                continue
            e += 1
        ids = [k for k in range(da, e) if toks[k].kind == "id"
               and toks[k].text not in SPEC_WORDS]
        if not ids:
            continue
        name = toks[ids[0]].text
        decl = " ".join(t.text for t in toks[da:e])
        d = Decl(name, spec, decl, da, block)
        d.range, d.init = (da, db), e < db
        out.append(d)
    for d in out:
        d.siblings = len(out)
        d.stmt = (a, b + 1)
    return out


def decl_from_type(fi, ld, k):
    """A Decl for the local @ld (frontend.LocalDecl) of @fi that the
    tool's reading of the declarations lacks, declared at token @k (the
    macro that declares it): its declaration text is made from the type
    the compiler gives it.  None when that type cannot be written as a
    declaration (an anonymous structure)."""
    if ld.anonymous or ld.type is None:
        return None
    ty = ld.type
    if "(*)" in ty:
        text = ty.replace("(*)", "(*%s)" % ld.name, 1)
    elif "(" in ty:
        return None
    elif "[" in ty:
        text = ty.replace("[", " %s[" % ld.name, 1)
    else:
        text = "%s %s" % (ty, ld.name)
    try:
        toks = cparse.lex(text)
        ds = [d for d in parse_decl(toks, 0, len(toks), None)
              if d.name == ld.name]
    except (cparse.ParseError, IndexError):
        return None
    if len(ds) != 1:
        return None
    d = ds[0]
    src = fi.src.toks
    d.t0, d.is_param, d.init = k, ld.is_param, ld.has_init
    d.is_static = ld.storage == "static"
    d.is_extern = ld.storage == "extern"
    d.is_array = ld.is_array
    d.by_macro = src[k].text
    blocks = [s for s in fi.body.walk() if s.kind == "block" and
              s.t0 <= k < s.t1]
    d.block = None if ld.is_param or not blocks else \
        max(blocks, key=lambda s: s.t0)
    st = fi.stmt_at.get(k)
    d.stmt = (st.t0, st.t1) if st is not None else (k, k + 1)
    d.range = (k, d.stmt[1])
    d.siblings = 1
    return d


def decls_of(fi):
    """The declarations of @fi: the tool's, and those only the compiler
    sees (made by a macro: fi.cdecls)."""
    return fi.decls + getattr(fi, "cdecls", [])


# The program's macros that check a call given as an argument
# (find.checker_macros(): name -> the argument's index), set by
# Program.lock_functions(): `VERIFY0(pthread_mutex_lock(&m));` is the call.
CHECKERS = {}
# The program's branch-hint macros, `#define unlikely(x)
# __builtin_expect(!!(x), 0)` (find.branch_hint()), set by
# Program.lock_functions().
HINTS = set()


def call_of(toks, stmt):
    """(name, [arg texts], name's token index) when @stmt is
    `name(args);` or `(void) name(args);` (or a CHECKERS macro around
    such a call), else None."""
    c = _call_of(toks, stmt)
    if c is None or c[0] not in CHECKERS:
        return c
    close = cparse.match(toks, c[2] + 1)
    spans = cparse.split_args(toks, c[2] + 1, close)
    i = CHECKERS[c[0]]
    if i >= len(spans):
        return c
    a, b = spans[i]
    inner = _call_of(toks, cparse.Stmt("expr", a, b))
    return inner if inner is not None and \
        cparse.match(toks, inner[2] + 1) == b - 1 else c


def checked_stmt(fi, k):
    """The statement `CHECK(name(args));` (a CHECKERS macro) whose
    checked call's name is token @k, or None."""
    if not CHECKERS:
        return None
    toks = fi.src.toks
    for s in fi.body.walk():
        if s.kind == "expr" and s.t0 < k < s.t1 and \
                toks[s.t0].text in CHECKERS:
            c = call_of(toks, s)
            if c is not None and c[2] == k:
                return s
    return None


def _call_of(toks, stmt):
    a, b = stmt.t0, stmt.t1
    if stmt.kind != "expr" or b - a < 4:
        return None
    if toks[a].text == "(" and toks[a + 1].text == "void" and \
            toks[a + 2].text == ")":
        a += 3
    if toks[a].kind != "id" or toks[a + 1].text != "(":
        return None
    close = cparse.match(toks, a + 1)
    # `name(args)` without ';': a macro that supplies its own (SPLASH-2's
    # LOCK(l) expands to `pthread_mutex_lock(&(l));`).
    if not (close == b - 2 and toks[b - 1].text == ";") and close != b - 1:
        return None
    args = [join_tokens([t.text for t in toks[x:y]])
            for x, y in cparse.split_args(toks, a + 1, close)]
    return toks[a].text, args, a


# The start of the reason of a section in a branch the build skips (-p).
SKIPPED_CODE = "in code the build does not compile"


class Section:
    def __init__(self, file, func, line):
        self.file, self.func, self.line = file, func, line
        self.key = None
        self.reason = None
        self.analysed = False  # rewrite.analyse_section() ran on it
        # nested sections of other locks: [(Section, nest entry)], and the
        # section this one is nested in (rewrite.inner_sections())
        self.inner = []
        self.outer = None


class FuncInfo:
    """A parsed function: its body tree and its declarations."""

    def __init__(self, src, name, ni, bo, bc, parser):
        self.src, self.name = src, name
        self.ni, self.bo, self.bc = ni, bo, bc
        self.unread = None
        self.body = parser.block(bo)
        self.decls = []
        toks = src.toks
        close = cparse.match(toks, ni + 1)
        for a, b in cparse.split_args(toks, ni + 1, close):
            for d in parse_decl(toks, a, b, None):
                d.is_param = True
                _array_param(d)
                self.decls.append(d)
        for s in self.body.walk():
            if s.kind == "decl":
                self.decls.extend(parse_decl(toks, s.t0, s.t1 - 1, s.parent))
            elif s.kind == "for" and parser.is_decl(s.t0 + 2):
                # for (int x = 0; ...): x is visible in the loop only.
                e = s.t0 + 2
                while toks[e].text != ";":
                    if toks[e].text in ("(", "[", "{"):
                        e = cparse.match(toks, e)
                    e += 1
                for d in parse_decl(toks, s.t0 + 2, e, s):
                    d.stmt = (s.t0 + 2, e + 1)
                    self.decls.append(d)
        self.stmt_at = {}
        for s in self.body.walk():
            self.stmt_at.setdefault(s.t0, s)
            if s.kind == "expr" and s.t1 - s.t0 > 3 and \
                    toks[s.t0].text == "(" and toks[s.t0 + 1].text == "void":
                self.stmt_at.setdefault(s.t0 + 3, s)


def unread_function(src, name, ni, bo, bc, err):
    """A FuncInfo for a function whose statements the parser cannot cut
    (@err, a cparse.ParseError): no statements, no declarations, and
    @unread saying why.  Its lock calls are found by their tokens; its
    sections are held (Program.File.func_at(lenient=True))."""
    fi = FuncInfo.__new__(FuncInfo)
    fi.src, fi.name = src, name
    fi.ni, fi.bo, fi.bc = ni, bo, bc
    fi.unread = "line %d: %s" % (err.line, err.msg)
    fi.body = cparse.Stmt("block", bo, bc + 1, [])
    fi.decls, fi.stmt_at = [], {}
    return fi


def _array_param(d):
    """A parameter declared as an array (`char out[16]`, `int m[][4]`) is
    a pointer (`char *out`, `int (*m)[4]`): its declarator says so, so
    that it travels and is declared with its real type."""
    if not d.is_array:
        return
    toks = cparse.lex(d.declarator)
    for i, t in enumerate(toks):
        if t.kind == "id" and t.text == d.name:
            break
    else:
        return
    if i + 1 >= len(toks) or toks[i + 1].text != "[":
        return  # an array of pointers to functions, say: leave it
    close = cparse.match(toks, i + 1)
    rest = [x.text for x in toks[close + 1:]]
    inner = "* " + d.name
    if rest and rest[0] == "[":
        inner = "( * %s )" % d.name
    d.declarator = " ".join([x.text for x in toks[:i]] + [inner] + rest)
    d.is_array = False
    d.decayed = True


def decayed_param(d, ld):
    """The parameter @d is declared with a typedef of an array type
    (`vec3 v`, `uuid_t id`, `va_list ap`): it is a pointer (@ld, its
    frontend.LocalDecl, spells it: `long *`), declared and passed as one,
    as _array_param() does for `long v[3]`.  When that pointer's type
    cannot be spelled, @d is marked so that a section using it is held."""
    if getattr(d, "decayed", False) or not d.is_param or d.is_array:
        return  # _array_param() made it a pointer already
    toks = cparse.lex(d.declarator)
    if ld.type is None or [t.text for t in toks] != [d.name]:
        d.undecayed = True
        return
    spec = [w for w in d.spec.split() if w in ("register",)]
    d.spec = " ".join(spec + [ld.type.rstrip()[:-1].rstrip()])
    d.declarator = "* " + d.name
    d.decayed = True


def ancestors(s):
    while s.parent is not None:
        s = s.parent
        yield s


def inside(s, t0, t1):
    return s.t0 >= t0 and s.t1 <= t1


def jump_target_inside(s, t0, t1):
    """Whether the break/continue @s lands inside tokens [t0, t1)."""
    kinds = ("for", "while", "do", "switch") if s.kind == "break" else (
        "for", "while", "do")
    for a in ancestors(s):
        if a.kind in kinds:
            return inside(a, t0, t1)
    return False


def op_shape(toks, s, fns):
    """(LockFn, identity) when statement @s is a lock-function call."""
    c = call_of(toks, s)
    if not c or c[0] not in fns:
        return None
    f = fns[c[0]]
    e = f.expr(c[1])
    return (f, canon(e) if e else None)


def stored_call(toks, s):
    """When statement @s stores a call's result in a variable, `V =
    name(args);` or `T V = name(args);` (one declarator, neither static
    nor a pointer nor an array): (V, "T V" or None, the call as a
    statement of its own).  Else None."""
    if s is None or s.kind not in ("expr", "decl") or s.t1 - s.t0 < 6:
        return None
    k = next((x for x in range(s.t0, s.t1) if toks[x].text in
              ("=", "(", "{", "[", ",")), None)
    if k is None or toks[k].text != "=" or toks[k - 1].kind != "id" or \
            (s.kind == "expr" and k != s.t0 + 1):
        return None
    inner = cparse.Stmt("expr", k + 1, s.t1)
    if call_of(toks, inner) is None or toks[k + 1].text == "(":
        return None
    var, decl = toks[k - 1].text, None
    if s.kind == "decl":
        ds = parse_decl(toks, s.t0, s.t1 - 1, s.parent)
        if len(ds) != 1 or ds[0].name != var or ds[0].is_static or \
                ds[0].is_extern or "*" in ds[0].declarator or \
                "[" in ds[0].declarator:
            return None
        decl = join_tokens([t.text for t in toks[s.t0:k]])
    return var, decl, inner


def section_op(toks, s, fns):
    """op_shape() of a section's lock or unlock statement @s, also when it
    stores the call's result (stored_call())."""
    o = op_shape(toks, s, fns)
    if o is None:
        st = stored_call(toks, s)
        o = op_shape(toks, st[2], fns) if st else None
        if o and o[0].checks:
            return None  # a checking macro's value is not the call's
    return o


def returned_call(toks, s):
    """The expression statement inside return statement @s, without the
    parentheses around it (`return (unlock(&m));`, BSD's style)."""
    ret = cparse.Stmt("expr", s.t0 + 1, s.t1)
    while ret.t1 - ret.t0 >= 6 and toks[ret.t0].text == "(" and \
            cparse.match(toks, ret.t0) == ret.t1 - 2:
        ret = cparse.Stmt("expr", ret.t0 + 1, ret.t1 - 2)
    return ret


def returned_unlock(toks, s, fns, ident):
    """Whether statement @s is `return unlock(ident);` (or `return
    (unlock(ident));`): the section ends there and the function returns
    the unlock's result, 0 (the tool only converts plain mutexes, which
    their owner unlocks without error).  pthread_mutex_unlock() itself,
    or a macro of it: a wrapper function may return something else
    (`return 1;` after its call)."""
    if s.kind != "return" or s.t1 - s.t0 < 5:
        return False
    o = op_shape(toks, returned_call(toks, s), fns)
    return bool(o) and o[1] == ident and o[0].role == "unlock" and \
        o[0].called_wrapper() is None and not o[0].checks


def _unlock_at(toks, blk, start, ident, fns, stored=False):
    """Index of the first statement of @blk from @start that unlocks the
    mutex @ident (also `return unlock(ident);`, `if (unlock(ident) != 0)
    fail;`, and with @stored `rc = unlock(ident);`), or None."""
    for k in range(start, len(blk.subs)):
        o = (section_op if stored else op_shape)(toks, blk.subs[k], fns)
        if o and o[1] == ident and o[0].role == "unlock" or \
                returned_unlock(toks, blk.subs[k], fns, ident) or \
                checked_unlock(toks, blk.subs[k], fns) == ident:
            return k
    return None


def checked_unlock(toks, s, fns):
    """The identity of the mutex statement @s unlocks when it is `if
    (unlock(m)) FAIL` or `if (unlock(m) != 0) FAIL`, also under a branch
    hint (`__builtin_expect`, a HINTS macro), without an else; else None.
    A section may end there: its owner's unlock of a plain mutex gives 0,
    so FAIL never runs and goes with the unlock.  pthread_mutex_unlock()
    or a plain macro of it only (a wrapper function's result is its
    own)."""
    if s.kind != "if" or len(s.subs) != 1 or toks[s.t0 + 1].text != "(":
        return None
    a, b = s.t0 + 2, cparse.match(toks, s.t0 + 1)
    for _ in range(2):
        while toks[a].text == "(" and cparse.match(toks, a) == b - 1:
            a, b = a + 1, b - 1
        if toks[a].kind == "id" and toks[a + 1].text == "(" and \
                cparse.match(toks, a + 1) == b - 1 and (
                    toks[a].text in HINTS or
                    toks[a].text == "__builtin_expect"):
            # hint(X) or __builtin_expect(X, 0): X
            inner = cparse.split_args(toks, a + 1, b - 1)
            if toks[a].text == "__builtin_expect" and (
                    len(inner) != 2 or
                    "".join(t.text for t in toks[slice(*inner[1])]) != "0"):
                return None
            a, b = inner[0]
            while toks[a].text == "!" and toks[a + 1].text == "!":
                a += 2
            continue
        if b - a > 2 and toks[b - 2].text == "!=" and toks[b - 1].text == "0":
            b -= 2
        elif toks[a].text == "0" and toks[a + 1].text == "!=":
            a += 2
    while toks[a].text == "(" and cparse.match(toks, a) == b - 1:
        a, b = a + 1, b - 1
    o = op_shape(toks, cparse.Stmt("expr", a, b), fns)
    if not o or o[0].role != "unlock" or o[0].called_wrapper() or \
            o[0].checks:
        return None
    return o[1]


def shape(fi, lock_s, fns, is_selected, api, ppenv, trysh=None):
    """Check the section starting at @lock_s and return a dict describing
    it; raise Refused with the reason when it cannot be extracted.
    @is_selected(lock_fn, args, tok): whether that lock call may take a
    selected lock; @api: the pthread calls and their macros
    (find.pthread_api); @ppenv: the macros for the #if inside sections
    (cond.Env); @trysh: a trylock section's shape (try_shape()), whose
    body is checked as a section's."""
    toks = fi.src.toks
    if trysh is not None:
        return _shape_body(fi, trysh["f"], trysh["ident"], trysh["block"],
                           trysh["i"], trysh["j"], fns, is_selected, api,
                           ppenv, trysh)
    f, ident = section_op(toks, lock_s, fns)
    blk = lock_s.parent
    if blk is None or blk.kind != "block":
        raise Refused("lock taken conditionally (lock is the body of "
                      "an if or a loop)")
    i = blk.subs.index(lock_s)
    j = _unlock_at(toks, blk, i + 1, ident, fns, stored=True)
    tail = None
    if j is None:
        j = _tail_if(toks, blk, i + 1, ident, fns)
        tail = blk.subs[j] if j is not None else None
    if j is None:
        inner = [x for b in blk.subs[i + 1:] for x in b.walk()
                 if (op_shape(toks, x, fns) or (None, None))[1] == ident]
        if inner:
            raise Refused("unlocked inside a statement nested below the "
                          "level of the lock (at line %d)" % fi.src.line_of(
                              toks[inner[0].t0].start))
        if blk is not fi.body:
            raise Refused("lock taken conditionally (its unlock is outside "
                          "the block that takes it)")
        raise Refused("the lock is not released at the level where it is "
                      "taken (unlock only in branches or in another "
                      "function)")
    _alone_in_if(fi, blk, i)
    return _shape_body(fi, f, ident, blk, i, j, fns, is_selected, api,
                       ppenv, None, tail)


def _tail_if(toks, blk, start, ident, fns):
    """Index of the first statement of @blk from @start that is an if
    statement releasing mutex @ident in every branch (see _tail_blocks()),
    or None: the section ends there, each branch's code after its unlock
    runs after the section (Section.shape's "fall" exits)."""
    for k in range(start, len(blk.subs)):
        if _tail_blocks(toks, blk.subs[k], ident, fns):
            return k
    return None


def _tail_blocks(toks, s, ident, fns):
    """The branch blocks of if statement @s when it has an else and every
    branch is a block with an unlock of @ident among its own statements
    (`if (c) { a(); unlock(&m); b(); } else { unlock(&m); }`), or an if
    statement of that kind itself (else if): [block, ...], else []."""
    if s.kind != "if" or len(s.subs) != 2:
        return []
    out = []
    for b in s.subs:
        if b.kind == "if":
            inner = _tail_blocks(toks, b, ident, fns)
            if not inner:
                return []
            out += inner
        elif b.kind == "block" and any(
                (section_op(toks, x, fns) or (None, None))[1] == ident and
                section_op(toks, x, fns)[0].role == "unlock" or
                returned_unlock(toks, x, fns, ident) for x in b.subs):
            out.append(b)
        else:
            return []
    return out


def _shape_body(fi, f, ident, blk, i, j, fns, is_selected, api, ppenv,
                trysh, tail=None):
    """The checks of shape() on the section blk.subs[i + 1:j] (@i is -1
    for a section that starts its block: a trylock's if), or
    blk.subs[i + 1:j + 1] when @tail, blk.subs[j], is an if statement
    that releases the lock in each of its branches (_tail_if())."""
    toks = fi.src.toks
    end = j + 1 if tail is not None else j
    body = blk.subs[i + 1:end]
    t0 = body[0].t0 if body else blk.subs[j].t0
    t1 = body[-1].t1 if body else t0
    lock_s = trysh["if"] if trysh else blk.subs[i]
    sec = {"f": f, "ident": ident, "block": blk, "i": i, "j": j,
           "t0": t0, "t1": t1, "exits": [], "conds": [], "exit_vars": [],
           "lock_stmt": lock_s,
           # the top-level statements are blk.subs[i + 1:end]; with a
           # tail if, blk.subs[j] is that if, not an unlock
           "end": end, "tail": tail,
           "tail_blocks": _tail_blocks(toks, tail, ident, fns)
           if tail is not None else [],
           "fall": set(),
           "lock_t0": trysh["lock_t0"] if trysh else lock_s.t0,
           "try": trysh,
           # `int rc = lock(&m);` ... `rc = unlock(&m);`: what stores
           # the result (0, as a plain mutex's lock and unlock give)
           "stored": None if trysh else stored_call(toks, lock_s),
           "stored_unlock": None if tail is not None else
           stored_call(toks, blk.subs[j])}
    # Where the caller's locals the section names are looked up: after
    # the lock statement when it declares one (`int rc = lock(&m);`).
    sec["scope_t0"] = lock_s.t1 if sec["stored"] and sec["stored"][1] \
        else sec["lock_t0"]
    tops = {s.t0 for s in body}
    internal = {d.name for d in fi.decls if d.t0 >= t0 and d.t0 < t1 and
                not (d.block is blk and d.stmt[0] in tops)}
    labels = set()
    conts = []
    others = {}  # another mutex's depth inside the section
    ops = set()  # the call tokens of the lock-call statements seen
    # With the build's flags (-p), code libclang skips is code the build
    # does not compile; a file named alone may just lack its flags, and
    # its skipped branches are read as before (REFACTOR.md section 6).
    skipped = fi.src.skipped
    if ppenv.build_flags and skipped is not None and \
            fi.src.line_of(fi.src.toks[t0].start) in skipped.lines:
        raise Refused(SKIPPED_CODE + " (a branch of an #if its flags "
                      "skip): nothing there can be checked")
    # The section's #ifs read the macros as its function has left them
    # (safety.preprocessor_state() replays those #defines and #undefs
    # before the extracted function, or holds the section).
    local = [toks[k].text for k in range(fi.ni, t0) if toks[k].kind == "pp"
             and re.match(r"#\s*(define|undef)\b", toks[k].text) and (
                 skipped is None or fi.src.line_of(toks[k].start)
                 not in skipped.lines)]
    sec["build_dead"] = []
    sec["dead"] = pp_dead(fi, body, t0, t1,
                          ppenv.after(local) if local else ppenv,
                          sec["build_dead"])
    stmts = [s for b in body for s in b.walk()
             if not any(a <= s.t0 < b for a, b in sec["dead"])]
    for s in stmts:
        if s.kind == "label":
            labels.add(s.name)
    # Sections of other selected locks nested in this one, at statement
    # level (lock B; ... unlock B; inside the section, in the same block):
    # each is extracted on its own and its liblock_exec() call runs inside
    # this section's extracted function.  [lock stmt, unlock stmt, lock
    # expression, line, depth] (depth 1: directly in this section).
    nest = []
    sec["nested"] = []
    for s in stmts:
        if any(c[0] <= s.t0 < c[1] for c in conts):
            continue
        within = [n for n in nest if n[0].t0 <= s.t0 < n[1].t1]
        try:
            _section_stmt(fi, s, sec, ident, fns, is_selected, t0, t1,
                          labels, internal, conts, others, ops, nest,
                          within)
        except Refused as e:
            if not within or isinstance(e, _NestedRefused):
                raise
            n = within[-1]
            raise Refused("%s (in the nested section of %s at line %d)" % (
                e, lock_name(n[2]), n[3]))
    if sec["nested"] and trysh:
        raise Refused("contains a section of another selected lock "
                      "(nested sections of trylock sections are not "
                      "extracted)")
    for k in range(t0, t1):
        if toks[k].text in fns and k + 1 < t1 and \
                toks[k + 1].text == "(" and \
                toks[k - 1].text not in (".", "->") and \
                not any(a <= k < b for a, b in sec["dead"]) and \
                k not in ops and not _after_exit(toks, k, conts, ident, fns):
            raise Refused("%s() called inside an expression at line %d "
                          "(its mutex would be taken or released on the "
                          "server thread)" % (toks[k].text,
                                              fi.src.line_of(toks[k].start)))
    for name, (depth, line) in others.items():
        if depth:
            raise Refused("takes %s at line %d and does not release it in "
                          "the section (on a server, another thread would "
                          "hold it)" % (name, line))
    sec["conts"] = conts
    for s in fi.body.walk():
        if s.kind == "goto" and s.name in labels and not t0 <= s.t0 < t1:
            raise Refused("jump into the section (goto %s at line %d)" % (
                s.name, fi.src.line_of(toks[s.t0].start)))
    _scan_tokens(fi, sec, ident, api)
    return sec


def _after_exit(toks, k, conts, ident, fns):
    """Whether the lock call at token @k is in the code after an early
    unlock, which runs in the caller after the section, and is a call of
    a statement of its own on another mutex than @ident: unbound's
    ub_wait() releases rrpipe_lock there (`unlock(&cfglock);
    unlock(&rrpipe_lock); break;`)."""
    if not any(a <= k < b for a, b in conts) or \
            toks[k - 1].text not in (";", "{", "}"):
        return False
    close = cparse.match(toks, k + 1)
    if close + 1 >= len(toks) or toks[close + 1].text != ";":
        return False
    o = op_shape(toks, cparse.Stmt("expr", k, close + 2), fns)
    return o is not None and o[1] != ident


def _section_stmt(fi, s, sec, ident, fns, is_selected, t0, t1, labels,
                  internal, conts, others, ops, nest, within):
    """The checks of _shape_body() on statement @s of the section; @nest:
    the nested sections of other selected locks found so far, @within:
    those that contain @s."""
    toks = fi.src.toks
    o = op_shape(toks, s, fns)
    if o and o[1] == ident:
        ops.add(call_tok(toks, s))
        if o[0].role != "unlock":
            raise Refused("the lock is taken again inside its section")
        if within:
            raise Refused("releases the lock inside a nested section")
        conts.append(_early_exit(fi, s, t0, t1, labels, internal, sec))
        return
    if o and is_selected(o[0], call_of(toks, s)[1], s.t0):
        if any(n[1] is s for n in within):
            ops.add(call_tok(toks, s))  # the end of a nested section
            return
        if o[0].role == "unlock" and any(n[2] == o[1] for n in within):
            n = [n for n in within if n[2] == o[1]][-1]
            raise _NestedRefused(
                "the nested section of %s at line %d unlocks it early at "
                "line %d (nested sections with early exits are not "
                "extracted)" % (lock_name(n[2]), n[3],
                                fi.src.line_of(toks[s.t0].start)))
        n = _nested(fi, s, o, fns, t1, nest, within)
        if n is None:
            raise Refused("contains a section of another selected lock "
                          "(only sections nested at statement level, "
                          "lock and unlock in the same block, are "
                          "extracted)")
        ops.add(call_tok(toks, s))
        nest.append(n)
        if not within:
            sec["nested"].append(n)
        return
    if o:
        ops.add(call_tok(toks, s))
        _other_lock_op(others, o, fi.src.line_of(toks[s.t0].start))
    if returned_unlock(toks, s, fns, ident):
        if within:
            raise Refused("releases the lock inside a nested section")
        ops.add(call_tok(toks, returned_call(toks, s)))
        conts.append(_early_exit(fi, s, t0, t1, labels, internal, sec))
        return
    st = stored_call(toks, s) if o is None else None
    so = section_op(toks, s, fns) if st else None
    if so and so[1] == ident and so[0].role == "unlock":
        # `err = unlock(&m); assert(err == 0); return 1;`: an early
        # exit whose code after the section starts with `err = 0;`,
        # what unlocking a plain mutex gives (_dispatch()).
        if within:
            raise Refused("releases the lock inside a nested section")
        if st[1] is not None or visible_decl(fi, st[0], t0) is None and \
                any(x.name == st[0] and t0 <= x.t0 < t1
                    for x in decls_of(fi)):
            raise Refused("the result of the unlock at line %d goes to "
                          "'%s', declared inside the section" % (
                              fi.src.line_of(toks[s.t0].start), st[0]))
        ops.add(call_tok(toks, st[2]))
        conts.append(_early_exit(fi, s, t0, t1, labels, internal, sec))
        sec.setdefault("exit_stored", {})[len(sec["exits"])] = st[0]
        return
    if s.kind == "return":
        raise Refused("returns with the lock held")
    if s.kind == "goto" and s.name not in labels:
        raise Refused("jumps out of the section with the lock held "
                      "(goto %s)" % s.name if s.name != "*" else
                      "computed goto in the section")
    if s.kind in ("break", "continue") and \
            not jump_target_inside(s, t0, t1):
        # The loop may come from a macro the text does not show
        # (TAILQ_FOREACH(it, &head, link) if (...) break;): the
        # compiler's facts decide (rewrite._clang_locals()).
        sec.setdefault("loose_jumps", []).append(s.t0)
    if s.kind == "case" and not any(
            a.kind == "switch" and inside(a, t0, t1)
            for a in ancestors(s)):
        raise Refused("a case label of an outer switch is inside the "
                      "section (jump into the section)")


def _nested(fi, s, o, fns, t1, nest, within):
    """[lock stmt, unlock stmt, lock expression, line, depth] when the
    lock statement @s (of the selected lock @o) starts a section nested
    at statement level in the section that ends before token @t1 (and in
    the nested sections @within): its unlock follows in the same block,
    inside them.  Else None (hand-over-hand: lock A; lock B; unlock A;
    ...; unlock B is not nesting)."""
    toks = fi.src.toks
    lf, name = o
    blk = s.parent
    if lf.role != "lock" or name is None or blk is None or \
            blk.kind != "block" or any(n[2] == name for n in within):
        return None
    end = within[-1][1].t0 if within else t1
    j = _unlock_at(toks, blk, blk.subs.index(s) + 1, name, fns)
    if j is None or blk.subs[j].t1 > end:
        return None
    u = blk.subs[j]
    if call_of(toks, u) is None:
        return None
    return [s, u, name, fi.src.line_of(toks[s.t0].start), len(within) + 1]


def call_tok(toks, s):
    """The token of the called name in lock-call statement @s."""
    name = call_of(toks, s)[0]
    return next((k for k in range(s.t0, s.t1) if toks[k].text == name and
                 toks[k + 1].text == "("), s.t0)


def _other_lock_op(others, o, line):
    """Follow a lock call of another mutex @o (LockFn, lock expression)
    in a section: it may take and release that mutex (on the server, as
    the section's own thread would), but not release one taken before the
    section, take one it leaves held, or try one (the server thread would
    own it, or not, for the caller)."""
    lf, name = o
    if name is None:
        raise Refused("a lock call at line %d whose mutex cannot be named"
                      % line)
    depth, _ = others.get(name, (0, line))
    if lf.role == "trylock":
        raise Refused("trylock of %s at line %d (the server thread would "
                      "own it, not the caller)" % (name, line))
    if lf.role == "unlock":
        if depth == 0:
            raise Refused("releases %s at line %d, taken before the section "
                          "(the server thread does not hold it)" % (
                              name, line))
        others[name] = (depth - 1, line)
    else:
        others[name] = (depth + 1, line)


def _alone_in_if(fi, blk, i):
    """Refuse the section whose lock statement (blk.subs[@i]) is alone
    between an #if and its #endif (libmicrohttpd's #if
    defined(MHD_USE_POSIX_THREADS) around each lock and unlock call): the
    statements after it do not depend on the condition, and extracting
    them would put them under it."""
    toks = fi.src.toks
    if i == 0 or i + 1 >= len(blk.subs) or \
            blk.subs[i - 1].kind != "pp" or blk.subs[i + 1].kind != "pp":
        return
    opens = re.match(r"#\s*(\w*)", toks[blk.subs[i - 1].t0].text).group(1)
    closes = re.match(r"#\s*(\w*)", toks[blk.subs[i + 1].t0].text).group(1)
    if opens in ("if", "ifdef", "ifndef") and closes == "endif":
        raise Refused("the lock call is alone in its own #if block (line "
                      "%d): extracting the section would put the code after "
                      "it under that condition" % fi.src.line_of(
                          toks[blk.subs[i - 1].t0].start))


def pp_dead(fi, body, t0, t1, env, build_dead):
    """Token ranges of the section that the preprocessor drops, for a
    section with #if/#ifdef/#else/#endif between its statements (memcached's
    get_stats()): the directives are kept as they are, and the analysis
    looks at the branches compiled with the -D/-U given.  Refused when a
    condition is unknown, the conditionals are not balanced inside the
    section, or another directive is there.  The dead ranges of a group
    that only the build's flags decided (_build_reading()) are also added
    to @build_dead: another configuration compiles them."""
    toks = fi.src.toks
    pps = [s for b in body for s in b.walk() if s.kind == "pp"]
    at = {s.t0 for s in pps}
    for k in range(t0, t1):
        if toks[k].kind == "pp" and k not in at:
            raise Refused("preprocessor directive inside a statement of "
                          "the section")
    # stack: [taken so far, this branch live, start, build decided]
    dead, stack = [], []
    for s in pps:
        m = re.match(r"#\s*(\w*)\s*(.*)", toks[s.t0].text, re.S)
        word, rest = m.group(1), re.sub(r"\\\n", " ", m.group(2)).strip()
        if word in ("if", "ifdef", "ifndef", "elif", "else"):
            _agrees(fi.src, toks[s.t0], stack, word, rest, env)
        if word in ("if", "ifdef", "ifndef", "elif"):
            if word == "if" or word == "elif":
                v = cond.evaluate(rest, env)
            else:
                v = env.defined(rest.split()[0]) if rest else None
                v = v if word == "ifdef" or v is None else not v
            by_build = False
            if v is None and env.build_flags:
                v = _build_reading(fi.src, toks[s.t0])
                by_build = v is not None
            if v is None:
                raise Refused("#%s %s inside the section: give -D or -U for "
                              "it" % (word, rest))
            if word == "elif":
                if not stack:
                    raise Refused("#elif without #if inside the section")
                _close_branch(stack[-1], s, dead, build_dead)
                v = v and not stack[-1][0]
                stack[-1][:] = [stack[-1][0] or v, v, s.t1,
                                stack[-1][3] or by_build]
            else:
                stack.append([v, v, s.t1, by_build])
        elif word == "else" and stack:
            _close_branch(stack[-1], s, dead, build_dead)
            stack[-1][:3] = [True, not stack[-1][0], s.t1]
        elif word == "endif" and stack:
            _close_branch(stack.pop(), s, dead, build_dead)
        elif word in ("define", "undef"):
            pass  # kept in place (X-macros); see rewrite.macro_locals
        else:
            raise Refused("#%s inside the section" % (word or "") if word
                          in ("include", "pragma", "error", "line") else
                          "an #%s without its #if inside the section" % word)
    if stack:
        raise Refused("an #if inside the section ends after it")
    return dead


def _build_reading(src, tok):
    """With the build's flags (-p): whether the branch the directive @tok
    opens is compiled, when the tool cannot tell from the macros it read:
    libclang's skipped ranges, the compiler's reading with the build's
    flags, whatever the condition (`#ifdef X`, `#if defined(SIGPIPE) &&
    !defined(_WIN32)`, `#if DB_VERSION_CHECK(4, 7, 0)`).  A macro no
    flag, file or header of the unit defines is undefined in that build,
    as one that autoconf's config.h leaves as `/* #undef X */`
    (tinyproxy's HAVE_VSYSLOG_H).  Another configuration of the source
    may compile the other branch: each branch that build skips gets an
    #error in the extracted function (extract.py, sec["build_dead"]).
    None when the directive is itself in skipped code."""
    if src.skipped is None:
        return None
    dead = src.skipped.branch_dead(src.line_of(tok.start))
    return None if dead is None else not dead


def _agrees(src, tok, stack, word, rest, env):
    """Refuse when the tool's reading of the conditional @tok (the -D/-U
    given and the macros of the files, cond.Env @env) and the compiler's
    (libclang's skipped ranges, src.skipped) decide its branch
    differently: the context would be computed for code the compiler does
    not build.  Nothing to compare when either does not know."""
    if src.skipped is None:
        return
    dead = src.skipped.branch_dead(src.line_of(tok.start))
    if dead is None:
        return
    if word == "else":
        v = None if not stack else not stack[-1][0]
    elif word in ("if", "elif"):
        v = cond.evaluate(rest, env)
    else:
        v = env.defined(rest.split()[0]) if rest else None
        v = v if word == "ifdef" or v is None else not v
    if word == "elif" and v is not None and stack:
        v = v and not stack[-1][0]
    if v is not None and v == dead:
        raise Refused("#%s %s at line %d: the compiler %s this branch, the "
                      "tool's reading of the macros does not (give -D or -U "
                      "for it)" % (word, rest, src.line_of(tok.start),
                                   "skips" if dead else "compiles"))


def _close_branch(frame, s, dead, build_dead):
    """End the current branch of #if @frame at directive @s."""
    if not frame[1]:
        dead.append((frame[2], s.t0))
        if frame[3]:
            build_dead.append((frame[2], s.t0))


def _early_exit(fi, u, t0, t1, labels, internal, sec):
    """An unlock inside the section: what follows it in its block must
    leave the section; that code moves after liblock_exec()."""
    toks = fi.src.toks
    p = u.parent
    if u.kind == "return":
        # `return unlock(&m);`: the exit is the statement itself, its
        # code after the section returns_value() (no statements follow).
        sec["exits"].append((u, []))
        sec["exit_vars"].append([])
        return (u.t0, u.t1)
    if p is None or p.kind != "block":
        raise Refused("conditional unlock (unlock is the body of an if)")
    k = p.subs.index(u)
    cont = p.subs[k + 1:]
    # The path from the unlock ends at the first jump of its block; what
    # follows is reached only through a label (the next case of a switch)
    # and stays in the section.
    def leaves(c):  # a jump, or a call that ends the thread or process
        call = call_of(toks, c) if c.kind == "expr" else None
        return c.kind in EXITS or (call is not None and
                                   call[0] in ENDS_PROCESS)
    ends = [n for n, c in enumerate(cont) if leaves(c)]
    if ends:
        cont = cont[:ends[0] + 1]
    elif any(p is b for b in sec["tail_blocks"]):
        # A branch of the if that ends the section: after its unlock,
        # the rest of the branch, then what follows the if -- the code
        # after the section.  It runs after liblock_exec() too.
        for c in cont:
            for s in c.walk():
                if s.kind in ("label", "case"):
                    raise Refused("label after an early unlock")
                if s.kind in ("break", "continue") and \
                        not jump_target_inside(s, c.t0, c.t1):
                    raise Refused("break/continue after an early unlock")
                if s.kind == "goto" and s.name in labels:
                    raise Refused("goto back into the section after an "
                                  "unlock")
        sec["exits"].append((u, cont))
        sec["fall"].add(len(sec["exits"]))
        sec["exit_vars"].append(_exit_vars(fi, u, cont, internal, sec)
                                if cont else [])
        return (u.t0, (cont[-1] if cont else u).t1)
    if not cont or not leaves(cont[-1]):
        raise Refused("an unlock at line %d is not followed by return, "
                      "goto, break, continue or a call that does not "
                      "return" % fi.src.line_of(toks[u.t0].start))
    last = cont[-1]
    for c in cont:
        for s in c.walk():
            if s.kind in ("label", "case"):
                raise Refused("label after an early unlock")
            if s.kind in ("break", "continue") and s is not last and \
                    not jump_target_inside(s, c.t0, c.t1):
                raise Refused("break/continue after an early unlock")
            if s.kind == "goto" and s.name in labels:
                raise Refused("goto back into the section after an unlock")
    if last.kind == "goto" and last.name in labels:
        raise Refused("goto back into the section after an unlock")
    if last.kind in ("break", "continue") and \
            jump_target_inside(last, t0, t1):
        raise Refused("%s after an unlock stays inside the section" %
                      last.kind)
    sec["exits"].append((u, cont))
    sec["exit_vars"].append(_exit_vars(fi, u, cont, internal, sec))
    return (u.t0, last.t1)


def _exit_vars(fi, u, cont, internal, sec):
    """Locals declared inside the section (in a nested block) that the
    code after an early unlock reads, as in zstd's `unlock; return buf;`:
    the extracted function hands their values back through the context at
    that exit."""
    toks = fi.src.toks
    names = []
    for tk in toks[cont[0].t0:cont[-1].t1]:
        if tk.kind == "id" and tk.text in internal and tk.text not in names:
            names.append(tk.text)
    out = []
    for name in names:
        d = visible_decl(fi, name, u.t0)
        if d is None or d.t0 < sec["t0"] or d.is_static or d.is_array or \
                any(address_taken(toks, k) for k in range(fi.bo, fi.bc)
                    if toks[k].text == name):
            raise Refused("code after an early unlock uses '%s', declared "
                          "inside the section" % name)
        if any(o.name == name and o is not d
               for ds in sec["exit_vars"] for o in ds):
            raise Refused("early exits use two variables named '%s'" % name)
        out.append(d)
    return out


def _scan_tokens(fi, sec, ident, api):
    """Token-level refusals: computed gotos, label addresses, condition
    waits on another mutex."""
    toks = fi.src.toks
    conts = sec["conts"] + sec["dead"]
    k = sec["t0"]
    while k < sec["t1"]:
        if any(a <= k < b for a, b in conts):
            k += 1
            continue
        t = toks[k]
        if t.text == "goto" and toks[k + 1].text == "*":
            raise Refused("computed goto in the section")
        if t.text == "&&" and toks[k + 1].kind == "id" and \
                toks[k - 1].text in ("(", "=", ",", "return", "?", ":"):
            raise Refused("label address (&&label) in the section")
        if t.kind == "id" and t.text in api and \
                api[t.text].target in COND_WAITS and toks[k + 1].text == "(":
            close = cparse.match(toks, k + 1)
            args = api[t.text].args(
                ["".join(x.text for x in toks[a:b])
                 for a, b in cparse.split_args(toks, k + 1, close)]) or []
            if len(args) < 2 or canon(args[1]) != ident:
                raise Refused("waits on a condition variable with another "
                              "mutex")
            sec["conds"].append((k, args[0]))
        k += 1


_READ_NEXT = {")", ";", ",", "]", "?", ":", "+", "-", "*", "/", "%", "<",
              ">", "<=", ">=", "==", "!=", "&&", "||", "&", "|", "^", "<<",
              ">>", "->", "(", "["}


def _writes(toks, k):
    """Whether the occurrence at token @k may modify the variable."""
    prev = toks[k - 1].text
    nxt = toks[k + 1].text if k + 1 < len(toks) else ";"
    if prev in ("++", "--"):
        return nxt not in ("->", "[")  # --p->n changes *p, not p
    return nxt not in _READ_NEXT or nxt in ("++", "--")


def _named_in_value(toks, k0, name):
    """Whether the value assigned at `name = ...` (token @k0) names
    @name: `cur = step(cur);` reads it first."""
    depth = 0
    for j in range(k0 + 2, len(toks)):
        t = toks[j]
        if t.kind == "punct" and t.text in ("(", "[", "{"):
            depth += 1
        elif t.kind == "punct" and t.text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return False
        elif depth == 0 and t.text in (";", ","):
            return False
        elif t.kind == "id" and t.text == name and \
                toks[j - 1].text not in (".", "->"):
            return True
    return False


def address_taken(toks, k):
    """&x or &x.f (the address of the local itself or of a part of it);
    &p->f and &p[i] take the address of what p points to."""
    if toks[k - 1].text != "&":
        return False
    if k + 1 < len(toks) and toks[k + 1].text in ("->", "["):
        return False
    p = toks[k - 2]
    if p.text == ")" and p.kind == "punct":
        # `(struct rec *)&r`: a cast's parentheses follow no operand (an
        # operator, an opening parenthesis, a comma), a call's or a
        # parenthesised operand's do (`f(x) & r`); `(a) & r` after an
        # operator reads as a cast too: the address counts as taken
        o = cparse.match_back(toks, k - 2)
        return o is not None and o > 0 and not (
            toks[o - 1].kind in ("id", "num") and toks[o - 1].text not in (
                "return", "sizeof", "case") or
            toks[o - 1].text in (")", "]"))
    return not (p.kind in ("id", "num") or p.text in (")", "]")) or \
        p.text in ("return", "sizeof")


def variables(fi, sec, occ):
    """Classify the locals the section uses.  @occ: [(name, token index)]
    of every local occurrence in the function (from locals.cocci).
    Returns [(Decl, byptr, is_in, is_out)] in order of first use."""
    toks = fi.src.toks
    t0, t1 = sec["t0"], sec["t1"]
    conts = sec["conts"]

    def in_region(k):
        return t0 <= k < t1 and not any(a <= k < b for a, b in conts)

    lock_t0 = sec["lock_t0"]
    order, uses = [], {}
    for name, k in sorted(occ, key=lambda x: x[1]):
        if in_region(k):
            if name not in uses:
                order.append(name)
            uses.setdefault(name, []).append(k)
    # Where a top-level statement of the section unconditionally starts
    # with an assignment: `x = ...;` or `for (x = ...; ...)`.
    tops = set()
    for s in sec["block"].subs[sec["i"] + 1:sec["end"]]:
        tops.add(s.t0)
        if s.kind == "for":
            tops.add(s.t0 + 2)
    lock_s = sec["lock_stmt"]
    # In a loop, or after a label (a goto may run the section again).
    in_loop = any(a.kind in ("for", "while", "do") for a in
                  ancestors(lock_s)) or any(
        s.kind == "label" and s.t0 < lock_t0 for s in fi.body.walk())
    out = []
    hoisted = _hoist(fi, sec, occ, in_region)
    out.extend(hoisted)
    for name in order:
        d = visible_decl(fi, name, sec["scope_t0"])
        if d is None:
            if any(x.name == name and t0 <= x.t0 < t1
                   for x in decls_of(fi)) or any(
                       n == name and in_region(k)
                       for n, k in getattr(fi, "unwritten", ())):
                continue  # declared in the section (by a macro there)
            raise Refused("cannot find the declaration of local '%s'" % name)
        if all(visible_decl(fi, name, k) is not d for k in uses[name]):
            continue  # only the section's own locals of that name
        if getattr(d, "variable", False):
            raise Refused("'%s' is a variable-length array (its size would "
                          "be computed again, on the server, in the "
                          "extracted function)" % name)
        if d.is_extern:
            raise Refused("local extern declaration of '%s'" % name)
        if getattr(d, "undecayed", False):
            raise Refused("parameter '%s' of an array type whose pointer "
                          "type cannot be written" % name)
        byptr = d.is_array or d.is_static or any(
            address_taken(toks, k) for n, k in occ if n == name) or any(
            address_taken(toks, k) for k in range(fi.bo, fi.bc)
            if toks[k].text == name) or name in sec.get("addr", ())
        inner = next((x for x in decls_of(fi) if x.name == name and
                      t0 <= x.t0 < t1 and x is not d), None)
        if byptr and inner is not None:
            # its uses become (*name): the inner one's would too
            raise Refused("'%s' travels to the section by pointer, and the "
                          "section declares another '%s' (line %d)" % (
                              name, name, fi.src.line_of(
                                  toks[inner.t0].start)))
        hidden = name in sec.get("hidden", ())
        written = any(_writes(toks, k) or k in sec.get("macro_args", ())
                      for k in uses[name]) or (hidden and name in sec.get(
                          "hidden_rw", sec.get("hidden", ()))) or \
            name in sec.get("written", ())
        # Used outside the section: this local, not another of the same
        # name in a sibling block (`if (a) { int c; lock; for (c = 0; ...)
        # ...; unlock; } else { int c; ... }`), whose uses would make
        # this one come back to a caller that never reads it.
        outside = any(n == name and fi.bo < k < fi.bc and not in_region(k)
                      and visible_decl(fi, name, k) is d for n, k in occ) \
            or name in sec.get("cleanup", ())  # read where its scope ends
        k0 = uses[name][0]
        # ... and nothing before it leaves the section or jumps: an early
        # exit (unlock; return x;) or a goto past the assignment reads the
        # local as it was before the section.
        skipped = any(a < k0 for a, b in conts) or any(
            toks[k].text == "goto" for k in range(t0, k0))
        assigned_first = k0 in tops and toks[k0 + 1].text == "=" and \
            not skipped and not _named_in_value(toks, k0, name)
        is_in = byptr or not assigned_first or (
            (d.init or d.is_param) and not outside)
        # In a loop (or after a label), what the section leaves in a
        # local it reads on entry is what its next run reads: it comes
        # back as well (`n = 0; for (...) { lock; n++; g += n; unlock; }`).
        is_out = not byptr and written and (outside or (in_loop and is_in))
        if is_in and not byptr and not d.init and not d.is_param and \
                not in_loop and name not in sec.get("named_before", ()) \
                and not any(n == name and fi.bo < k < lock_t0
                            for n, k in occ) and \
                not (sec.get("stored") and sec["stored"][0] == name):
            # Never set before the section (`int ret; lock; ... ret = 0;
            # ... out: unlock; return ret;`): its value on entry is
            # indeterminate; copying it in would read it.  The local
            # that stores the lock call's result (`err = lock(&m);
            # assert(err == 0);`) is set: to 0, just before the section.
            is_in = False
        if hidden:
            # Named inside a macro's body, whose text stays as it is: the
            # extracted function declares the local under its own name
            # (from the context) and hands it back when the section may
            # write it and the caller may read it after (hidden_rw: the
            # compiler's facts; every such local without them).  Reached
            # by pointer, it would have to be written (*x): the macro
            # cannot be rewritten for one expansion.
            if byptr:
                by = sec.get("hidden_by", {}).get(name)
                raise Refused("%s in the section names local '%s', "
                              "which would travel by pointer (%s): the "
                              "macro's text cannot be made to reach the "
                              "caller's object" % (
                                  "macro %s" % by if by else "a macro",
                                  name, "an array" if d.is_array else
                                  "a static local" if d.is_static else
                                  "its address is taken"))
            is_out = written and (outside or (in_loop and is_in))
        elif not outside and not byptr and not d.init and \
                not d.is_param and not is_out:
            # Only the section uses it: its value on entry is
            # indeterminate, so it becomes a local of the extracted
            # function (copying it in would read an uninitialised value).
            is_in = False
        out.append((d, byptr, is_in, is_out))
    return out


def visible_decl(fi, name, at):
    best = None
    for d in decls_of(fi):
        if d.name != name or d.t0 >= at:
            continue
        if d.is_param or d.block is None:
            vis = True
        else:
            vis = d.block.t0 <= at < d.block.t1
        if at >= getattr(d, "scope_end", at + 1):
            vis = False  # a macro's, used in its expansion only
        if vis and (best is None or d.t0 > best.t0):
            best = d
    return best


def _hoist(fi, sec, occ, in_region):
    """Variables declared at the top level of the section and used after
    it (`lock; T x = f(); unlock; use(x);`): the caller declares them, the
    extracted function assigns them and copies them out.  Arrays and
    locals whose address is taken, used after the section by name or
    through an address the section hands out (safety.escaping()), are
    declared by the caller and reached by pointer: they must outlive the
    extracted function."""
    toks = fi.src.toks
    blk = sec["block"]
    tops = {s.t0: s for s in blk.subs[sec["i"] + 1:sec["end"]]}
    esc = sec.get("escape", set())
    out = []
    for d in decls_of(fi):
        if d.block is not blk or d.stmt[0] not in tops:
            continue
        refs = getattr(d, "refs", None)  # the compiler's (a macro's)
        after = [k for k in refs if not in_region(k) and k > d.t0] \
            if refs is not None else \
            [k for n, k in occ if n == d.name and not in_region(k)
             and k > d.t0]
        if not after and d.name not in esc:
            continue
        if getattr(d, "by_macro", None):
            raise Refused("'%s' is declared by macro %s inside the section "
                          "and used after it (a macro's declaration cannot "
                          "be split)" % (d.name, d.by_macro))
        addr = any(address_taken(toks, k) for n, k in occ
                   if n == d.name) or d.name in sec.get("addr", ())
        if d.is_static or d.is_extern or (d.is_array and d.init):
            raise Refused("'%s' is declared inside the section and %s after "
                          "it, in a declaration the tool cannot split" % (
                              d.name, "used" if after else
                              "its address may be used"))
        early = next((k for k in range(sec["t0"], d.t0)
                      if toks[k].kind == "id" and toks[k].text == d.name and
                      toks[k - 1].text not in (".", "->")), None)
        if early is not None:
            # the extracted function declares it at its top, where it
            # would take that use from the global or outer local
            raise Refused("'%s' is declared inside the section and used "
                          "after it, and the section names another '%s' "
                          "before the declaration (line %d)" % (
                              d.name, d.name, fi.src.line_of(
                                  toks[early].start)))
        d.hoist = tops[d.stmt[0]]
        # Read after the section only by assert(): unused under NDEBUG.
        d.only_asserted = bool(after) and all(
            in_call_of(toks, k, ("assert",)) for k in after)
        if d.is_array or addr:
            out.append((d, True, True, False))
        else:
            out.append((d, False, False, True))
    sec["lifted"] = _lifted(fi, sec, tops, out) if out else []
    return out


def _lifted(fi, sec, tops, hoisted):
    """The other declarations at the top level of the section that come
    after a hoisted one, which has become an assignment: `unsigned u;`
    after `nbWorkers = pool->total;` (zstd's ZSTDMT_sizeof_CCtxPool()),
    a declaration after a statement, which -Wdeclaration-after-statement
    reports.  The extracted function declares them at its top and their
    initialisers become assignments in place (extract._hoist_edit()).
    One that cannot move (static, an array, a const scalar, a brace
    initialiser, a macro's, a name the section uses before it) stays:
    the compile check decides."""
    toks = fi.src.toks
    first = min(d.hoist.t0 for d, _, _, _ in hoisted)
    names = {d.name for d, _, _, _ in hoisted}
    out = []
    for d in decls_of(fi):
        if d.block is not sec["block"] or d.stmt[0] not in tops or \
                d.name in names or d.stmt[0] < first:
            continue
        words = d.spec.split()
        if d.is_static or d.is_extern or d.is_array or \
                getattr(d, "by_macro", None) or not hasattr(d, "range") or \
                ("const" in words and "*" not in d.declarator) or \
                re.search(r"\*\s*const\b", d.declarator):
            continue
        a, b = d.range
        if any(toks[k].text == "=" and toks[k + 1].text == "{"
               for k in range(a, b - 1)):
            continue
        if any(toks[k].kind == "id" and toks[k].text == d.name and
               toks[k - 1].text not in (".", "->")
               for k in range(sec["t0"], d.t0)):
            continue
        if any(x.name == d.name and x is not d and
               sec["t0"] <= x.t0 < sec["t1"] for x in decls_of(fi)):
            continue
        d.lift_stmt = tops[d.stmt[0]]
        out.append(d)
    return out


def in_call_of(toks, k, names):
    """Whether token @k is inside the parentheses of a call of one of
    @names (outermost call of its statement included)."""
    depth = 0
    while k > 0 and toks[k].text not in (";", "{", "}"):
        k -= 1
        if toks[k].text == ")":
            depth += 1
        elif toks[k].text == "(":
            if depth == 0 and toks[k - 1].text in names:
                return True
            depth = max(depth - 1, 0)
    return False


def _strip(toks, a, b):
    """Tokens [a, b) without the parentheses around all of them."""
    while b - a >= 2 and toks[a].text == "(" and \
            cparse.match(toks, a) == b - 1:
        a, b = a + 1, b - 1
    return a, b


# The C library's calls that never return (the process, or the thread,
# ends there): like a jump, nothing after them runs.
ENDS_PROCESS = frozenset(("abort", "exit", "_exit", "_Exit", "quick_exit",
                          "err", "errx", "verr", "verrx", "pthread_exit",
                          "__builtin_trap", "__builtin_unreachable"))


def _ends_in_jump(s, toks):
    """Whether statement @s cannot fall through to the next one: a
    return, goto, break or continue, a call of ENDS_PROCESS, or a block
    ending with one (with no label or case inside, which could be entered
    by a jump)."""
    def ends(x):
        c = call_of(toks, x) if x.kind == "expr" else None
        return x.kind in EXITS or (c is not None and c[0] in ENDS_PROCESS)
    if ends(s):
        return True
    if s.kind != "block" or not s.subs or not ends(s.subs[-1]):
        return False
    return not any(x.kind in ("label", "case") for x in s.walk())


def _strip_hints(rest, hint):
    """@rest (the condition's tokens, "@" for the call) without branch
    hints around it: `__builtin_expect(X, 0)`, a macro for which
    @hint(name) says its body is one (`unlikely(X)`), and `!!X`, which
    such macros write: they do not change X's truth."""
    while True:
        if len(rest) >= 4 and rest[1] == "(" and rest[-1] == ")" and \
                (rest[0] == "__builtin_expect" or hint(rest[0])):
            inner = rest[2:-1]
            if rest[0] == "__builtin_expect":
                if len(inner) < 3 or inner[-2] != "," or \
                        inner[-1] not in ("0", "1", "0L", "1L"):
                    return rest
                inner = inner[:-2]
            rest = inner
        elif rest[:2] == ["!", "!"]:
            rest = rest[2:]
        elif len(rest) >= 3 and rest[0] == "(" and rest[-1] == ")" and \
                rest.count("(") == 1:
            rest = rest[1:-1]
        else:
            return rest


def try_shape(fi, k, fns, hint=lambda name: False):
    """The shape of the trylock section whose call (of the trylock
    function fns[toks[k]]) is at token @k, when rcl_tryexec() can run it:

    1. `if (trylock(&m) == 0) { BODY unlock(&m); REST } [else ELSE]`
       (also `!trylock(&m)`): BODY is the section; REST and ELSE stay;
    2. `if (trylock(&m) != 0) EXIT; BODY unlock(&m);` (also
       `if (trylock(&m))`), EXIT a return, goto, break or continue, or a
       block that ends with one.

    A blocking lock's call (its result 0, or a positive error number)
    may also be compared with 0 by sign: `lock(&m) < 0` and `lock(&m) >
    0` test failure as != 0 does (libgit2's `if (git_mutex_lock(&l) <
    0) { ...; return -1; }`), `lock(&m) >= 0` success as == 0 does; the
    output tests the 0 in the call's place as kind 2 (or 1) does.  Not a
    trylock's: `trylock(&m) < 0` is false when the lock is busy.

    Returns a dict (kind 1 or 2, the if statement, the section's block
    and the indices of its first statement minus one and of its unlock,
    the lock function and its lock expression), or raises Refused."""
    toks = fi.src.toks
    lf = fns[toks[k].text]
    ifs = None
    for s in fi.body.walk():
        if s.kind == "if" and s.t0 + 1 < k < s.subs[0].t0:
            ifs = s  # the innermost if whose condition holds the call
    close = cparse.match(toks, k + 1)
    assign = None
    if ifs is None:
        assign = _try_assign(fi, k, close)
        ifs = assign["if"]
    args = [join_tokens([t.text for t in toks[x:y]])
            for x, y in cparse.split_args(toks, k + 1, close)]
    e = lf.expr(args)
    if e is None:
        raise Refused("cannot name the trylock's lock")
    ident = canon(e)
    a, b = _strip(toks, ifs.t0 + 2, cparse.match(toks, ifs.t0 + 1))
    # The call, with the parentheses around it, at either end.
    ca, cb = k, close + 1
    if assign is not None:  # the variable that holds its result
        ca = next((x for x in range(a, b) if toks[x].text ==
                   assign["var"]), a)
        cb = ca + 1
    while ca > a and cb < b and toks[ca - 1].text == "(" and \
            toks[cb].text == ")":
        ca, cb = ca - 1, cb + 1
    rest = [t.text for t in toks[a:ca]] + ["@"] + \
        [t.text for t in toks[cb:b]]
    rest = _strip_hints(rest, hint)
    held_in = None  # `if ((rc = lock(&m)) != 0)`: rc gets the result
    if assign is None and len(rest) >= 5 and rest[:1] + rest[2:5] == [
            "(", "=", "@", ")"] and toks[ca - 2].kind == "id":
        held_in = rest[1]
        rest = ["@"] + rest[5:]
    blocking = lf.role == "lock"
    # A trylock of the mutexes converted (robust and process-shared ones
    # stay POSIX: Program._attr_uses()) gives 0 or EBUSY, as rcl_tryexec()
    # does: testing for EBUSY is testing for failure.
    busy = not blocking and not lf.test
    if rest in (["@", "==", "0"], ["0", "==", "@"], ["!", "@"]) or (
            blocking and rest in (["@", ">=", "0"], ["0", "<=", "@"])) or (
            busy and rest in (["@", "!=", "EBUSY"], ["EBUSY", "!=", "@"])):
        kind = 1
    elif rest in (["@", "!=", "0"], ["0", "!=", "@"], ["@"]) or (
            blocking and rest in (["@", "<", "0"], ["0", ">", "@"],
                                  ["@", ">", "0"], ["0", "<", "@"])) or (
            busy and rest in (["@", "==", "EBUSY"], ["EBUSY", "==", "@"])):
        kind = 2
    else:
        raise Refused("the trylock's result is tested as '%s' (the shapes "
                      "delegated test it == 0, != 0, alone, or a "
                      "trylock's == EBUSY or != EBUSY)" %
                      join_tokens([t.text for t in toks[a:b]]))
    if lf.test == "== 0":
        kind = 3 - kind  # the macro is true when the lock was taken
    if lf.test and assign is not None:
        # rcl_tryexec() gives 0 or EBUSY, not the macro's comparison
        raise Refused("the result of trylock macro %s() is kept in '%s'"
                      % (lf.name, assign["var"]))
    then = ifs.subs[0]
    if lf.test and held_in is not None:
        raise Refused("the result of trylock macro %s() is kept in '%s'"
                      % (lf.name, held_in))
    out = {"kind": kind, "if": ifs, "f": lf, "ident": ident, "expr": e,
           "else": ifs.subs[1] if len(ifs.subs) > 1 else None,
           "lock_t0": ifs.t0, "tok": k, "assign": assign,
           "held_in": held_in}
    if assign is not None:
        out["lock_t0"] = assign["stmt"].t0
    if kind == 1:
        if then.kind != "block":
            raise Refused("the if that succeeds on the trylock has no block "
                          "ending the section")
        blk, i = then, -1
    else:
        if out["else"] is not None:
            raise Refused("the if that fails on the trylock has an else")
        if not _ends_in_jump(then, toks):
            raise Refused("the code run when the trylock fails does not end "
                          "with a return, goto, break, continue or abort()")
        if any(toks[x].text in fns and toks[x + 1].text == "(" and
               toks[x - 1].text not in (".", "->")
               for x in range(then.t0, then.t1)):
            raise Refused("the code run when the trylock fails calls a lock "
                          "function")
        blk = ifs.parent
        if blk is None or blk.kind != "block":
            raise Refused("the if of the trylock is the body of another "
                          "statement")
        i = blk.subs.index(ifs)
    j = _unlock_at(toks, blk, i + 1, ident, fns)
    if j is None:
        raise Refused("no unlock of %s follows at the level of the "
                      "section's block" % e)
    if blk.subs[j].kind == "return":
        raise Refused("the section ends in `return %s`, which the "
                      "trylock's shapes do not extract" % join_tokens(
                          [t.text for t in toks[blk.subs[j].t0 + 1:
                                                blk.subs[j].t1 - 1]]))
    var = assign["var"] if assign is not None else held_in
    if var is not None and any(
            toks[x].text == var and toks[x].kind == "id"
            for s in blk.subs[i + 1:j] for x in range(s.t0, s.t1)):
        raise Refused("the section reads '%s', which holds the trylock's "
                      "result" % var)
    out.update({"block": blk, "i": i, "j": j})
    return out


def _try_assign(fi, k, close):
    """`rc = trylock(&m);` or `int rc = trylock(&m);` (one declarator)
    directly followed by an if on rc: {stmt, var, decl (the declaration's
    text before ' = ', or None), if}; else raise Refused."""
    toks = fi.src.toks
    st = None
    for s in fi.body.walk():
        if s.kind in ("expr", "decl") and s.t0 <= k < s.t1:
            st = s
    why = "the trylock's result is not the condition of an if, nor " \
        "assigned to a local the next statement tests"
    if st is None or st.parent is None or st.parent.kind != "block" or \
            close != st.t1 - 2 or toks[st.t1 - 1].text != ";" or \
            toks[k - 1].text != "=" or toks[k - 2].kind != "id":
        raise Refused(why)
    var = toks[k - 2].text
    if st.kind == "expr" and k - 2 != st.t0:
        raise Refused(why)
    decl = None
    if st.kind == "decl":
        ds = parse_decl(toks, st.t0, st.t1 - 1, st.parent)
        if len(ds) != 1 or ds[0].name != var or ds[0].is_static or \
                "*" in ds[0].declarator or "[" in ds[0].declarator:
            raise Refused(why)
        decl = fi.src.text[toks[st.t0].start:toks[k - 2].end]
    elif visible_decl(fi, var, st.t0) is None:
        raise Refused("the trylock's result goes to '%s', not a local" % var)
    subs = st.parent.subs
    n = subs.index(st)
    if n + 1 >= len(subs) or subs[n + 1].kind != "if":
        raise Refused(why)
    ifs = subs[n + 1]
    a, b = _strip(toks, ifs.t0 + 2, cparse.match(toks, ifs.t0 + 1))
    if not any(toks[x].text == var for x in range(a, b)):
        raise Refused(why)
    return {"stmt": st, "var": var, "decl": decl, "if": ifs}
