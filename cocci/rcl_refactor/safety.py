# SPDX-License-Identifier: MIT
"""Safety rules of a section that the shape analysis does not cover: what
would change meaning once the section runs as another function, on
another thread.  Each rule refuses the section with a reason, or tells
the extraction what to do so that the meaning is kept:

* alloca-like calls (strdupa, strndupa, __builtin_alloca*): memory on the
  stack of the thread that runs the section -- refused;
* side effects in the lock expression of the lock or an unlock
  (`pthread_mutex_unlock(&locks[i++])`): the transformed code evaluates
  the expression once -- refused;
* locals passed to a function-like macro (`FETCH(d)` expanding to
  `((d) = ...)`): they may be written there, so they are copied back;
* an object declared at the top level of the section whose address may
  be used after it (`char buf[32]; ... name = buf;`): its declaration
  moves to the caller, and the section reaches it by pointer;
* `__func__`, `__FUNCTION__`, `__PRETTY_FUNCTION__` and assert(): the
  extracted function keeps the original function's name for them;
* #define/#undef in the function before the section of a name it uses:
  replayed before the extracted function (push_macro/pop_macro), held
  under an #if; inside it, of a name the function uses or changes
  before it: the extracted function, placed before the function, would
  make another meaning there -- held;
* __LINE__, __builtin_LINE() (kept with #line), __COUNTER__ in the
  section and before it in its function (held), __builtin_FUNCTION()
  (as __func__);
* a local reached by pointer in an argument of a macro that stringizes
  or pastes it (#v, ##): it would spell (*v) -- held.
"""
import bisect
import os
import re

from . import analyse, cparse, find, frontend, macrobody

ALLOCA_LIKE = ("alloca", "__builtin_alloca", "__builtin_alloca_with_align",
               "__builtin_alloca_with_align_and_max", "strdupa", "strndupa",
               "__strdupa", "__strndupa")
FUNC_NAMES = ("__func__", "__FUNCTION__", "__PRETTY_FUNCTION__")
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
           ">>=", "++", "--"}
# Library calls that neither keep nor return a pointer they are given:
# an object of the section passed to them does not outlive the call.
# (Not strtol() and its kin: their end pointer points into the string.)
_NO_RETAIN = {"strlen", "strnlen", "strcmp", "strncmp", "strcasecmp",
              "strncasecmp", "memcmp", "snprintf", "sprintf", "vsnprintf",
              "vsprintf", "printf", "fprintf", "dprintf", "puts", "fputs",
              "sscanf", "atoi", "atol", "atoll", "fwrite", "fread", "write",
              "read", "qsort", "strspn", "strcspn", "memset_explicit",
              "explicit_bzero", "bzero"}
# ...or that return it: safe only when the result is not used.
_RETURN_ARG = {"memcpy", "memmove", "memset", "strcpy", "strncpy",
               "strcat", "strncat", "stpcpy", "stpncpy", "fgets", "mempcpy"}


def _live(sec, k):
    """Whether token @k is code of the section (not code moved after an
    early unlock, not a branch the preprocessor drops)."""
    return sec["t0"] <= k < sec["t1"] and not any(
        a <= k < b for a, b in sec["conts"] + sec["dead"])


def check(prog, fi, sec, lock_args, lock_expr=None):
    """Refusals: alloca-like calls, side effects in the lock expression.
    @lock_args: the lock call's argument texts; @lock_expr: the lock
    expression they give (through a macro's or wrapper's body)."""
    toks = fi.src.toks
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind == "id" and t.text in ALLOCA_LIKE and \
                toks[k + 1].text == "(" and _live(sec, k):
            raise analyse.Refused(
                "alloca in the section" if t.text in ("alloca",
                                                      "__builtin_alloca")
                else "%s() in the section (stack memory of the thread "
                "that runs it, like alloca)" % t.text)
    inner = {d.name for d in analyse.decls_of(fi)
             if sec["t0"] <= d.t0 < sec["t1"] and not d.is_static}
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind == "id" and t.text in inner and _live(sec, k) and \
                analyse.address_taken(toks, k) and _int_cast(toks, k - 1):
            raise analyse.Refused(
                "the address of '%s', declared in the section, is used as "
                "a number at line %d (a stack position: the extracted "
                "function's frame is on the thread that runs it)" % (
                    t.text, fi.src.line_of(t.start)))
    bad = side_effect(" ".join(lock_args))
    if bad:
        raise analyse.Refused("side effect in the lock expression '%s' "
                              "(the transformed code evaluates it once)"
                              % ", ".join(lock_args))
    for text in [" ".join(lock_args)] + ([lock_expr] if lock_expr else []):
        name = impure_call(prog, text)
        if name:
            raise analyse.Refused(
                "the lock expression '%s' calls %s, which may have a side "
                "effect (the lock and the unlock each evaluate it; the "
                "transformed code would once)" % (
                    text, name if " " in name else name + "()"))


_INT_TYPES = frozenset((
    "uintptr_t", "intptr_t", "size_t", "ssize_t", "ptrdiff_t", "long",
    "int", "unsigned", "uint64_t", "int64_t", "uint32_t", "int32_t",
    "__uintptr_t", "__intptr_t"))


def _int_cast(toks, k):
    """Whether the `&` at token @k follows a cast to an integer type:
    `(uintptr_t)&x`."""
    if toks[k - 1].text != ")":
        return False
    o = cparse.match_back(toks, k - 1)
    inner = toks[o + 1:k - 1] if o is not None else []
    return bool(inner) and all(t.kind == "id" for t in inner) and any(
        t.text in _INT_TYPES for t in inner)


# Functions of the C library that change nothing: a lock expression may
# call them (`&locks[hash(key) % N]` through strlen(), ...).
_PURE_LIBC = frozenset((
    "strlen", "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp",
    "memcmp", "strchr", "strrchr", "memchr", "abs", "labs", "llabs",
    "__builtin_expect", "__builtin_constant_p", "__builtin_offsetof",
    "__builtin_choose_expr", "__builtin_types_compatible_p"))
_NOT_CALLS = frozenset((
    "sizeof", "_Alignof", "alignof", "__alignof__", "typeof", "__typeof__",
    "_Generic", "offsetof", "defined", "if", "while", "for", "switch",
    "return", "__extension__", "__attribute__", "_Static_assert"))


def impure_call(prog, text):
    """The first function or macro that expression @text calls and that
    may change something (a write outside its own locals, a call of a
    function not known to change nothing, asm), else None: evaluating
    the expression once instead of twice would show."""
    return _impure_in(prog, text, set())


def _calls_in(toks):
    """Names of the calls among @toks (id followed by '(', not after .
    or -> and not a keyword); None for a call through a pointer (a
    parenthesised or member callee)."""
    out = []
    for i, t in enumerate(toks[:-1]):
        if toks[i + 1].text != "(" or toks[i + 1].kind != "punct":
            continue
        if t.kind == "id" and t.text not in _NOT_CALLS:
            if i > 0 and toks[i - 1].text in (".", "->"):
                return None
            out.append(t.text)
        elif t.text in (")", "]"):
            # table[i](x), f(a)(b), (*fp)(x): a call through a pointer
            # (a cast's parentheses, `(T *)(p)`, follow no name)
            o = cparse.match_back(toks, i)
            if o is None or t.text == "]" or o > 0 and \
                    toks[o - 1].kind == "id" and \
                    toks[o - 1].text not in _NOT_CALLS:
                return None
            if _deref_call(toks, o, i):
                return None
    return out


def _deref_call(toks, o, c):
    """Whether toks[o..c], parentheses, hold a callee through a pointer:
    `(*fp)`, `(obj->fn)`, `(fp)`... anything but a type name (a cast)."""
    inner = [t for t in toks[o + 1:c]]
    return bool(inner) and (inner[0].text == "*" and len(inner) > 1 or
                            any(t.text in ("->", ".") for t in inner))


def _impure_in(prog, text, seen):
    try:
        toks = cparse.lex(text.replace("\\\n", " "))
    except cparse.ParseError:
        return "?"
    names = _calls_in(toks)
    if names is None:
        return "a function through a pointer"
    for n in names:
        if _impure_name(prog, n, seen):
            return n
    # and the object-like macros it names, which may call one (`#define
    # LEDGER (ledger())`, in `&LEDGER->lock`): named with the call
    for i, t in enumerate(toks):
        m = prog.macros.get(t.text) if t.kind == "id" else None
        if m is None or m[0] or t.text in seen or \
                i + 1 < len(toks) and toks[i + 1].text == "(":
            continue
        seen.add(t.text)
        body = m[1] or ""
        if side_effect(body):
            return "macro %s (%s)" % (t.text, body.strip())
        inner = _impure_in(prog, body, seen)
        if inner:
            return "%s in macro %s" % (
                inner if " " in inner else inner + "()", t.text)
    return None


def _impure_name(prog, name, seen):
    if name in seen or name in _PURE_LIBC:
        return False  # recursion: the other calls decide
    seen.add(name)
    m = prog.macros.get(name)
    if m is not None:
        body = m[1] or ""
        return bool(side_effect(body) or _impure_in(prog, body, seen))
    for f in prog.files:
        for fname, _, bo, bc in f.funcs:
            if fname == name:
                return _impure_body(prog, f, bo, bc, seen)
    return True  # not the program's: it may do anything


def _impure_body(prog, f, bo, bc, seen):
    """Whether the function whose body is tokens [bo, bc] of @f may
    change something besides its own locals."""
    toks = f.src.toks
    try:
        fi = f.func_at(toks[bo].start, prog.typedefs)
    except cparse.ParseError:
        return True
    if fi is None:
        return True
    body = toks[bo:bc + 1]
    if any(t.kind == "id" and t.text in ("asm", "__asm__", "__asm",
                                          "volatile") for t in body):
        return True
    for j in range(bo + 1, bc):
        t = toks[j]
        if t.kind != "punct" or t.text not in _ASSIGN:
            continue
        if t.text in ("++", "--"):
            cands = [toks[j - 1], toks[j + 1]]
            target = next((c for c in cands if c.kind == "id"), None)
            if target is None or toks[j - 2].text in (".", "->") or \
                    toks[j + 2].text in (".", "->", "["):
                return True
        else:
            target = toks[j - 1]
            if target.kind != "id" or toks[j - 2].text in (".", "->", "*"):
                return True
        d = analyse.visible_decl(fi, target.text, j)
        if d is None or d.is_static:
            return True  # a global, or a static local: it persists
    names = _calls_in(body[1:-1])
    if names is None:
        return True
    return any(_impure_name(prog, n, seen) for n in names)


def side_effect(expr):
    """The operator making @expr (text) change something, else None."""
    try:
        ts = cparse.lex(expr)
    except cparse.ParseError:
        return None
    for t in ts:
        if t.kind == "punct" and t.text in _ASSIGN:
            return t.text
    return None


def lonely_unlock(fi, k, fns, lock_role_fn):
    """For a lock at token @k whose unlock was not found: the line and
    text of an unlock call after it whose lock expression has a side
    effect (`pthread_mutex_unlock(&locks[i++])`), else None."""
    toks = fi.src.toks
    for j in range(k + 1, fi.bc):
        t = toks[j]
        lf = fns.get(t.text) if t.kind == "id" else None
        if lf is None or lf.role != "unlock" or toks[j + 1].text != "(":
            continue
        close = cparse.match(toks, j + 1)
        arg = analyse.join_tokens([x.text for x in toks[j + 2:close]])
        if side_effect(arg) and lock_role_fn(lf):
            return fi.src.line_of(t.start), arg
    return None


def macro_arg_tokens(prog, fi, sec):
    """Token indices of the section that are arguments of a call of a
    function-like macro of the program (FETCH(d)): the macro may assign
    them, as the compiler sees it and Coccinelle does not."""
    toks = fi.src.toks
    out = set()
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind != "id" or toks[k + 1].text != "(" or \
                t.text in prog.fns or not _live(sec, k):
            continue
        m = prog.macros.get(t.text)
        if not m or not m[0] or not _writes_param(m):
            continue
        out.update(range(k + 2, cparse.match(toks, k + 1)))
    return out


def _writes_param(macro):
    """Whether the body of function-like @macro (params, body) may write
    or take the address of one of its parameters."""
    params, body = macro
    try:
        ts = cparse.lex(body.replace("\\\n", " "))
    except cparse.ParseError:
        return True
    for i, t in enumerate(ts):
        if t.kind != "id" or t.text not in params:
            continue
        # Skip the parentheses around the parameter: ((d) = ...).
        a, b = i - 1, i + 1
        while a >= 0 and ts[a].text == "(" and b < len(ts) and \
                ts[b].text == ")":
            a, b = a - 1, b + 1
        before = ts[a].text if a >= 0 else ""
        after = ts[b].text if b < len(ts) else ""
        if before in ("&", "++", "--") or after in _ASSIGN or \
                after in ("[", ".", "->"):
            return True
    return False


def escaping(fi, sec, occ):
    """Names of the objects declared at the top level of the section
    (arrays, and locals whose address is taken) whose address may be used
    after it: the block goes on after the unlock and the section hands
    their address to something other than the library calls that forget
    it.  Their declarations move to the caller."""
    toks = fi.src.toks
    blk = sec["block"]
    if sec["j"] == len(blk.subs) - 1:
        return set()  # the objects' scope ends with the section
    tops = {s.t0 for s in blk.subs[sec["i"] + 1:sec["end"]]}
    out = set()
    for d in fi.decls:
        if d.block is not blk or d.stmt[0] not in tops:
            continue
        uses = [k for n, k in occ if n == d.name and _live(sec, k)]
        addr = [k for k in uses if analyse.address_taken(toks, k)]
        if not d.is_array and not addr:
            if d.name in sec.get("addr", ()):
                # its address is taken where the text shows no `&` (an
                # array member's decay, `keep(r.tag)`): the caller keeps it
                out.add(d.name)
            continue
        if d.is_static:
            continue  # static storage outlives the section anyway
        for k in (uses if d.is_array else addr):
            if not _forgotten(toks, k if d.is_array else k - 1, d.is_array):
                out.add(d.name)
                break
    return out


def _forgotten(toks, k, is_array):
    """Whether the array (or &x) at token @k is used in a way that cannot
    keep its address: indexed, a member taken, sizeof, or an argument of a
    library call that forgets it."""
    nxt = toks[k + 1].text if is_array else ""
    if is_array and nxt in ("[", "."):
        return True
    if toks[k - 1].text == "sizeof" or (
            toks[k - 1].text == "(" and toks[k - 2].text == "sizeof"):
        return True
    # A direct argument: `f(..., buf, ...)`.
    end = k + 1 if is_array else k + 2
    if toks[end].text not in (",", ")"):
        return False
    depth, j = 0, k - 1
    while j > 0:
        t = toks[j].text
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "["):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and t in (";", "{", "}"):
            return False
        j -= 1
    if toks[j].text != "(" or toks[j - 1].kind != "id":
        return False
    fn = toks[j - 1].text
    if fn in _NO_RETAIN:
        return True
    if fn in _RETURN_ARG:
        p = toks[j - 2].text
        return p in (";", "{", "}") or (p == ")" and toks[j - 3].text ==
                                        "void")
    return False


def names_function(prog, fi, sec):
    """Whether the section names its function (__func__ and its GNU
    spellings), directly, through assert() or a macro of the program."""
    toks = fi.src.toks
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind != "id" or not _live(sec, k):
            continue
        if t.text in FUNC_NAMES or t.text in ("assert", "__ASSERT_FUNCTION",
                                              "__builtin_FUNCTION"):
            return True
        if t.text in prog.macros and _expands_to_name(prog, t.text):
            return True
    return False


def _expands_to_name(prog, name, seen=None):
    seen = seen or set()
    if name in seen:
        return False
    seen.add(name)
    m = prog.macros.get(name)
    if not m:
        return False
    body = m[1]
    if any(re.search(r"\b%s\b" % n, body) for n in FUNC_NAMES + (
            "assert", "__builtin_FUNCTION")):
        return True
    return any(_expands_to_name(prog, w, seen)
               for w in re.findall(r"[A-Za-z_]\w*", body)
               if w in prog.macros)


def keep_function_name(prog, text, name):
    """@text (the generated code of a section of function @name) with the
    predefined names of the function meaning @name, as they did."""
    names = FUNC_NAMES
    push = "".join('#pragma push_macro("%s")\n#undef %s\n#define %s "%s"\n'
                   % (n, n, n, name) for n in FUNC_NAMES)
    if "__builtin_FUNCTION" in _expanded(prog, _ids(text), {}):
        # GCC's __builtin_FUNCTION() too (a builtin, no macro: the
        # pragmas give it back after).
        names += ("__builtin_FUNCTION",)
        push += '#pragma push_macro("__builtin_FUNCTION")\n' \
            '#undef __builtin_FUNCTION\n' \
            '#define __builtin_FUNCTION() ((const char *)"%s")\n' % name
    pop = "".join('#pragma pop_macro("%s")\n' % n for n in names)
    return "/* rcl-refactor: __func__ and assert() name %s() */\n%s%s%s" % (
        name, push, text if text.endswith("\n") else text + "\n", pop)


def not_statement_reason(toks, k):
    """Why the lock call at token @k is not a statement of its own."""
    j = k - 1
    voided = False
    while toks[j].text == "(" or (toks[j].text == ")" and
                                  toks[j - 1].text == "void"):
        voided = voided or toks[j].text == ")"
        j -= 1 if toks[j].text == "(" else 3
    if toks[j].text in ("?", ":") or voided and toks[j].text in (
            "&&", "||", ","):
        # `c ? (void)lock(&m) : (void)0;`: taken on one path only
        return ("the lock call is an operand of a conditional expression "
                "(taken on some paths only)")
    if toks[j].text in ("=", "return", "==", "!=", "&&", "||", "!",
                        ",", "if", "while") or \
            toks[j].text in _ASSIGN:
        return ("the lock call's result is used (the transformed code has "
                "no result to give: test it in a wrapper, or drop the "
                "test)")
    return "lock call is not a statement of its own"


def unseen_lock_calls(prog):
    """Lock calls the sections do not account for, each held or refused
    with a reason (never "0 sections found" when there are lock calls):
    calls in functions that neither Coccinelle nor the driver reads (K&R
    definitions, braces that come from macros), held in place when they
    name one lock (_in_place()), and calls of macros whose expansion
    locks but is more than the lock call (`(void)(pthread_mutex_lock(m)
    && (abort(), 0))`).  The mutexes a refused call names stay POSIX."""
    locks = {n for n, lf in prog.fns.items() if lf.role in ("lock",
                                                           "trylock")}
    unlocks = {n for n, lf in prog.fns.items() if lf.role == "unlock"}
    elsewhere = _wrappers_not_rewritten(prog)
    for f in prog.files:
        toks = f.src.toks
        bodies = [(bo, bc) for _, _, bo, bc in f.funcs]
        for k, t in enumerate(toks):
            # (not after a type or declarator word: `int lock(...)`; a
            # macro that brings its own `;`, rsyslog's CODESTARTdoHUP, may
            # come before a call)
            if t.kind != "id" or k + 1 >= len(toks) or \
                    toks[k - 1].text in (".", "->") or \
                    toks[k - 1].kind == "id" and \
                    toks[k - 1].text not in ("return", "else", "do") and \
                    not (toks[k - 1].text in prog.macros and
                         _compiled_call(prog, f, k)):
                continue
            if toks[k + 1].text != "(":
                if any(bo < k < bc for bo, bc in bodies):
                    _object_macro(prog, f, k, locks)
                continue
            inside = any(bo < k < bc for bo, bc in bodies)
            if t.text in locks and not inside and \
                    t.text not in prog.section_macros and \
                    (_knr_function(toks, k) or _compiled_call(prog, f, k)):
                fn = _knr_function(toks, k) if not f.is_header else None
                why = ("in the K&R function definition %s() (old-style "
                       "parameter declarations are not read: give it a "
                       "prototype-style definition)" % fn) if fn else (
                    "in a function whose braces come from macros: neither "
                    "Coccinelle nor the tool's parser sees where it begins "
                    "and ends")
                lf = prog.fns[t.text]
                if _in_place(prog, f, k, lf, why):
                    continue
                # else the locks it may name stay POSIX, fields included
                for n in _call_keys(prog, lf, f, k):
                    prog.key(n).refuse("locked at %s:%d %s" % (
                        f.display, f.line(k), why))
            elif t.text in unlocks and not inside and \
                    t.text not in prog.section_macros and \
                    (_knr_function(toks, k) or _compiled_call(prog, f, k)):
                lf = prog.fns[t.text]
                if not _in_place(prog, f, k, lf, None):
                    for n in _call_keys(prog, lf, f, k):
                        prog.key(n).refuse(
                            "unlocked at %s:%d in a function the tool does "
                            "not read, by a call it cannot rename" % (
                                f.display, f.line(k)))
                continue
            elif inside and t.text in elsewhere and \
                    t.text not in prog.fns and t.text not in prog.macros:
                why = "%s() locks its argument, and is defined " \
                    "in %s, which is not being rewritten: name it too (or " \
                    "name no file: -p then picks it)" % (
                        t.text, elsewhere[t.text])
            elif inside and t.text not in prog.fns and \
                    t.text not in prog.section_macros and \
                    t.text in prog.macros and _locks(prog, t.text, locks) \
                    and _through_wrappers(prog, t.text):
                # Its text needs no change (Tor's SPIN(), which expands
                # SPIN_UNTIL()): the section stays, on its wrappers' lock.
                prog.report.found += 1
                prog.report.hold(f.display, f.line(k), (
                    "locked through the wrapper functions of the expansion "
                    "of macro %s(), which stays as written" % t.text))
                continue
            elif inside and t.text not in prog.fns and \
                    t.text not in prog.section_macros and \
                    t.text in prog.macros and _locks(prog, t.text, locks):
                why = getattr(prog, "scoped_why", {}).get(
                    (f.path, f.line(k))) or (
                    "lock macro %s() is not understood (its expansion "
                    "does more than lock or unlock, even once the call "
                    "gives 0): give a plain definition with --macro-file, "
                    "or wrap it in a function and use --lock-fn" % t.text)
                defs = find.AMBIGUOUS_MACROS.get(t.text)
                if defs:
                    differ = "lock macro %s() has definitions that %s " \
                        "different locks (%s)" % (
                            t.text, defs[0].role, ", ".join(sorted(
                                str(d.body) for d in defs)))
                    why = differ + ": a use does not say which one it " \
                        "expands"
                    close = cparse.match(toks, k + 1)
                    args = [find.join_tokens([x.text for x in toks[a:b]])
                            for a, b in cparse.split_args(toks, k + 1,
                                                          close)]
                    for d in defs:
                        expr = d.expr(args)
                        for n in (prog.lock_keys(expr, f, k)[0]
                                  if expr else ()):
                            prog.key(n).refuse(
                                "%s() at %s:%d: %s: which one a use "
                                "expands is not read" % (
                                    t.text, f.display, f.line(k), differ))
            else:
                continue
            line = f.line(k)
            prog.report.found += 1
            prog.report.refuse(f.display, line, why)
            close = cparse.match(toks, k + 1)
            for x in toks[k + 2:close]:
                key = prog.keys.get(("mutex", x.text)) \
                    if x.kind == "id" else None
                if key is not None:
                    key.refuse("locked at %s:%d by a call the tool does not "
                               "understand" % (f.display, line))


# Lock calls on locks the tool does not convert, each a section it will
# not move: name -> (what the lock is, its type, why it stays or what to
# do to move it).
_NOT_A_MUTEX = "the tool moves pthread mutexes only; make it a " \
    "pthread_mutex_t to move it"
UNSUPPORTED_LOCKS = dict(
    [(n, ("a spinlock", "pthread_spinlock_t", _NOT_A_MUTEX))
     for n in ("pthread_spin_lock", "pthread_spin_trylock")] +
    [(n, ("a C11 mutex", "mtx_t", _NOT_A_MUTEX))
     for n in ("mtx_lock", "mtx_trylock", "mtx_timedlock")] +
    [(n, ("a read-write lock", "pthread_rwlock_t",
          "its readers run together, and a server "
          "runs one section at a time (a reader waiting for another reader "
          "would wait forever)"))
     for n in ("pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
               "pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock",
               "pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
               "pthread_rwlock_clockrdlock", "pthread_rwlock_clockwrlock")])


def unsupported_lock_calls(prog, sel):
    """Sections of locks other than pthread mutexes (spinlocks, C11
    mutexes, read-write locks), as the compiler reads the program, macro
    expansions included: each acquiring call is a section found and
    refused with what the lock is (never "0 sections found" for a program
    that locks), or left alone when the selection does not name its lock
    (the name is its call's first argument, when the call is spelled
    there).  With -p and no file named, the whole program's; else the
    files given."""
    fe = prog.frontend
    files = {os.path.realpath(f.path): f for f in prog.files}
    whole = prog.opts.commands is not None and not prog.opts.files
    # A line where the text takes a mutex, through a lock macro the tool
    # read in both branches of a condition nobody gives (a platform
    # without rwlocks taking a mutex instead), has its section already.
    seen = {(p, f.line(k)) for p, f in files.items()
            for k, t in enumerate(f.src.toks)
            if t.kind == "id" and t.text in prog.fns and
            prog.fns[t.text].role in ("lock", "trylock")}
    for u in fe.units:
        for fn in u.functions.values():
            for c in fn.calls:
                why = UNSUPPORTED_LOCKS.get(c.callee)
                at = (c.loc.path, c.loc.line)
                if why is None or at in seen or not (
                        at[0] in files or whole and
                        not at[0].startswith("/usr/")):
                    continue
                seen.add(at)
                f = files.get(at[0])
                name, via = _first_arg_key(prog, f, c) if f is not None \
                    else (None, None)
                prog.report.found += 1
                if not (sel.all or name is not None and
                        sel.selected(name)):
                    prog.report.skipped += 1
                    continue
                kind, typ, rest = why
                prog.report.refuse(
                    f.display if f is not None else frontend.display(at[0]),
                    at[1], "%s() takes %s (%s%s): %s" % (
                        c.callee, kind, typ, ", in macro %s()" % via
                        if via else "", rest))


_LOCK_FNS = ("pthread_mutex_lock", "pthread_mutex_trylock",
             "pthread_mutex_timedlock", "pthread_mutex_clocklock")


def lock_fn_pointers(prog, sel):
    """Where the program takes pthread's lock functions as values
    (`static lockop_t acquire = pthread_mutex_lock;`): the sections
    locked through such a pointer are not seen, so each place is a
    section found and refused, never nothing said (the mutexes given to
    the pointer stay POSIX: they are used outside lock calls).  Left
    alone as unselected unless --locks all: the locks are unknown."""
    for f in prog.files:
        toks = f.src.toks
        dead = f.skipped.lines if f.skipped is not None else ()
        for k, t in enumerate(toks[:-1]):
            # (not a call, `(pthread_mutex_lock)(&m)` included, nor a
            # test of a weak symbol, `if (pthread_mutex_lock != NULL)`)
            if t.kind != "id" or t.text not in _LOCK_FNS or \
                    toks[k + 1].text in ("(", "==", "!=") or \
                    toks[k - 1].text in (".", "->", "==", "!=", "!") or \
                    toks[k - 1].text == "(" and toks[k + 1].text == ")" or \
                    f.line(k) in dead:
                continue
            prog.report.found += 1
            if not sel.all:
                prog.report.skipped += 1
                continue
            prog.report.refuse(f.display, f.line(k), (
                "%s() is taken as a function pointer: the sections locked "
                "through it are not seen, and the mutexes it is given stay "
                "POSIX (call %s() where it locks, or a function of the "
                "program that does)" % (t.text, t.text)))


def _first_arg_key(prog, f, c):
    """(lock key, None) of the first argument of call @c (frontend.Call)
    when @f spells the call on its line (find.lock_key); else (the key of
    the first argument of a macro called on that line, which expands to
    the call, its name); else (None, None)."""
    toks = f.src.toks
    via = name = None
    for k, t in enumerate(toks):
        if t.kind != "id" or k + 1 >= len(toks) or \
                toks[k + 1].text != "(" or f.line(k) != c.loc.line:
            continue
        if t.text == c.callee:
            args = find.call_args(toks, k)
            return (find.lock_key(args[0]) if args else None), None
        if via is None and t.text in prog.macros:
            via = t.text
            args = find.call_args(toks, k)
            name = find.lock_key(args[0]) if args else None
    return (name, via) if via else (None, None)


def _call_keys(prog, lf, f, k):
    """The locks the call at token @k of @f of lock function @lf may
    name (none for a wrapper of a named lock: its body is read)."""
    if lf.wrapper and not lf.wrapper.get("param"):
        return []
    return prog.fn_keys(lf, find.call_args(f.src.toks, k), f, k)[0]


def _in_place(prog, f, k, lf, why):
    """Keep the call at token @k of @f of lock function @lf (a lock,
    trylock or unlock), in a function the tool does not read (@why: its
    braces come from macros, rsyslog's BEGINdoAction ... ENDdoAction, or
    it is a K&R definition), in place on its lock's word: renamed to
    liblock's when the lock is converted (Key.skipped_calls), nothing when
    it is a wrapper of a named lock (its body calls liblock).  A lock or
    trylock is a held section of its lock (Key.in_place, reported by
    rewrite.decide()).  False when the call names no one lock, or is a
    wrapper's trylock, whose result the wrapper may give another meaning:
    the caller keeps its locks POSIX."""
    toks = f.src.toks
    named = lf.wrapper and not lf.wrapper.get("param")
    if named:
        names, nwhy = prog.fn_keys(lf, [], f, k)
        expr = None
    else:
        expr = lf.expr(find.call_args(toks, k))
        names, nwhy = prog.lock_keys(expr, f, k) if expr else ([], None)
    if len(names) != 1 or nwhy:
        return False
    key = prog.key(names[0])
    t = toks[k]
    if named:
        pass  # its body calls liblock (rewrite.wrappers())
    elif t.text in _RENAMED:
        key.skipped_calls.append((f, t.start, t.end, _RENAMED[t.text]))
    elif lf.role in ("lock", "unlock"):
        close = cparse.match(toks, k + 1)
        key.skipped_calls.append((f, t.start, toks[close].end,
                                  lf.liblock_call(expr)))
    else:
        return False
    if lf.role != "unlock":
        prog.report.found += 1
        key.in_place.append((f.display, f.line(k), "%s: its lock and unlock "
                             "calls stay in place" % why))
    return True


def _wrappers_not_rewritten(prog):
    """With -p: the lock wrappers on their parameter (a body that is one
    pthread lock or trylock call, and checks: rrdtool's
    mutex_lock(mutex_t *m)) defined in units not being rewritten, name
    -> that unit.  Their callers' sections cannot be seen, and a lock
    converted here would reach pthread's call there."""
    fe = getattr(prog, "frontend", None)
    if fe is None or prog.opts.commands is None:
        return {}
    worked = {os.path.realpath(f.path) for f in prog.files}
    out = {}
    for u in fe.units:
        if u.path in worked:
            continue
        for fn in u.functions.values():
            # (one report per section: the lock calls, not the unlocks)
            # (a static one of the unit's own file: no call here reaches
            # it)
            if fn.is_static and fn.loc.path == u.path:
                continue
            if find.pthread_wrapper(fn) and fn.loc.path not in worked and \
                    any(c.key in find.PTHREAD.values() and
                        c.key != find.PTHREAD["unlock"] for c in fn.calls):
                out.setdefault(fn.name, os.path.relpath(fn.loc.path))
    return out


def _compiled_call(prog, f, k):
    """Whether the compiler reads a call of the function named at token
    @k of @f on its line, in a function body (not a prototype)."""
    fe = getattr(prog, "frontend", None)
    return fe is not None and \
        f.src.toks[k].text in fe.called_on(f.path, f.line(k))


_SKIPPED_CALL = re.compile(r"\b(pthread_(?:mutex|cond)_\w+)[ \t]*\(")
_RENAMED = {"pthread_mutex_lock": "liblock_lock",
            "pthread_mutex_unlock": "liblock_unlock",
            "pthread_mutex_trylock": "liblock_trylock",
            "pthread_mutex_destroy": "liblock_destroy",
            "pthread_mutex_timedlock": "liblock_timedlock",
            "pthread_mutex_clocklock": "liblock_clocklock"}


def skipped_lock_calls(prog):
    """The pthread mutex and condition calls in the branches the compiler
    skips (libclang's skipped ranges), which no other stage reads: in a
    configuration that compiles them, a call on a converted lock would
    be handed a liblock_lock_t.  A lock, unlock, trylock, timed lock or
    destroy of one lock the text names (a variable, or a field of the
    structure the text tells, through the program's macros too) is
    renamed with the converted lock's calls (Key.skipped_calls,
    rewrite.py); any other call naming a lock keeps the locks it may name
    POSIX."""
    for f in prog.files:
        if f.skipped is None or not f.skipped.lines:
            continue
        text = f.src.text
        for ln in sorted(f.skipped.lines):
            if ln >= len(f.src.line_starts):
                continue
            a = f.src.line_starts[ln - 1]
            b = f.src.line_starts[ln]
            for m in _SKIPPED_CALL.finditer(text, a, b):
                args = _text_args(text, m.end() - 1)
                args = args and [_macros_expanded(prog, x) for x in args]
                var_type = _skipped_var_type(prog, f, m.start(1))
                names = [n for x in (args or [text[m.end():b]])
                         for n in _named_keys(prog, x, var_type)]
                if not names:
                    continue
                first = _named_keys(prog, args[0], var_type) if args else []
                if m.group(1) in _RENAMED and len(first) == 1 and \
                        first[0][0] == "mutex" and len(names) == 1:
                    prog.key(first[0][1]).skipped_calls.append(
                        (f, m.start(1), m.end(1), _RENAMED[m.group(1)]))
                    continue
                split = call_split(text, m.end() - 1)
                end = split[1] if split else None
                if m.group(1) == "pthread_mutex_init" and end and \
                        len(args) == 2 and len(first) == 1 and \
                        first[0][0] == "mutex" and len(names) == 1 and \
                        re.fullmatch(r"0|NULL|\(\s*void\s*\*\s*\)\s*0",
                                     args[1]):
                    # A default mutex (SQLite's `pthread_mutex_init(&p->
                    # mutex, 0)` #ifdef SQLITE_HOMEGROWN_RECURSIVE_MUTEX):
                    # liblock's defaults, as a build enabling the branch
                    # compiles it (the lock's sites name the algorithm
                    # only in the code compiled here).
                    prog.key(first[0][1]).skipped_calls.append(
                        (f, m.start(1), end, "liblock_init(%s, NULL)" %
                         args[0]))
                    continue
                for kind, n in names:
                    prog.keys[(kind, n)].refuse(
                        "named by %s() at %s:%d, in code this build does "
                        "not compile, which the tool cannot convert with "
                        "it" % (m.group(1), f.display, ln))


def call_split(text, i):
    """(argument texts, offset after the closing ')') of the call whose
    '(' is at offset @i of @text, or None when its parentheses do not
    close on a few lines."""
    depth, j, start, out = 0, i, i + 1, []
    end = min(len(text), i + 2000)
    while j < end:
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:j])
                return [x.strip() for x in out], j + 1
        elif c == "," and depth == 1:
            out.append(text[start:j])
            start = j + 1
        j += 1
    return None


def _text_args(text, i):
    """The argument texts of call_split()."""
    split = call_split(text, i)
    return split[0] if split else None


def _skipped_var_type(prog, f, off):
    """The structure tag of a variable named at offset @off of @f, in a
    branch the compiler skips (which has no tokens): its declaration
    visible at the last token before it in the same function body (a
    parameter, an earlier local), or a global's; None when the skipped
    text before the call may declare the name again (`struct b *p =`,
    `int p;`: any word or `*` before it and `=`, `;`, `,`, `[` or `)`
    after)."""
    span = f._span_at(off)
    if span is None:
        return _skipped_function_type(prog, f, off)
    k = max(span[2], bisect.bisect_left(f.src.tok_starts, off) - 1)
    between = f.src.text[f.src.toks[k].end:off]

    def var_type(name):
        if re.search(r"[\w*]\s*\b%s\s*[=;,\[)]" % re.escape(name),
                     between):
            return None
        return prog.var_type(f, k, name)
    return var_type


_DECL_END = (",", ")", ";", "=", "[")
_DECL_STOP = ("(", ",", ";", "{", "}")


def _skipped_function_type(prog, f, off):
    """_skipped_var_type() for a call outside every function the
    compiler reads: in a function the build skips whole (lrzip's
    lzma/C/Threads.c under DEBUG_SYNCHRO, `void Event_Set(CEvent *p)`).
    A name's type is that of its last declaration in the skipped text
    since the end of the function before (a parameter, a local:
    `TYPE *name` before `,`, `)`, `;`, `=` or `[`); a name declared
    nowhere there is a global."""
    src = f.src
    ln = src.line_of(off)
    while ln - 1 in f.skipped.lines:
        ln -= 1
    toks = cparse.lex(src.text[src.line_starts[ln - 1]:off])
    depth, cut = 0, 0
    for i, t in enumerate(toks):
        if t.text == "{":
            depth += 1
        elif t.text == "}":
            depth -= 1
            if depth <= 0:
                depth, cut = 0, i + 1
    toks = toks[cut:]

    def var_type(name):
        tag = None
        for i in range(1, len(toks) - 1):
            if toks[i].text != name or toks[i + 1].text not in _DECL_END:
                continue
            j = i - 1
            while j >= 0 and toks[j].text in ("*", "const", "volatile",
                                               "restrict"):
                j -= 1
            if j < 0 or toks[j].kind != "id" or toks[j].text in (
                    "return", "case", "goto", "sizeof", "else", "do"):
                continue  # not a declarator: a use
            a = j
            while a > 0 and toks[a - 1].kind == "id" or \
                    a > 0 and toks[a - 1].text == "*":
                a -= 1
            if a > 0 and toks[a - 1].text not in _DECL_STOP:
                continue
            tag = prog.decl_type(toks[a:j + 1], name)
            if tag is None:
                return None  # declared with a type the tool cannot tell
        return tag if tag is not None else prog.fields.global_type(name)
    return var_type


def _macros_expanded(prog, expr):
    """Expression text @expr of skipped code with the program's
    function-like macros expanded, when every macro it reaches has one
    definition: the member a macro names, not the words of its arguments
    (apr's skipped `&proc_pthread_mutex_cond(mutex)` names a field
    `cond`, no field `mutex`).  A macro the compiled code does not define
    has the definitions of the skipped lines (with -p, that macro is
    defined under the same #if as its use).  Else @expr as it is."""
    seen, todo, more = set(), set(re.findall(r"[A-Za-z_]\w*", expr)), {}
    while todo:
        w = todo.pop()
        cands = prog.macro_cands.get(w)
        if not cands and w not in prog.macros:
            cands = sorted(prog.skipped_functions.get(w, ()))
            if cands:
                more[w] = (list(cands[0][0]), cands[0][1])
        if w in seen or not cands:
            continue
        seen.add(w)
        if len({(tuple(p or ()), b) for p, b in cands}) > 1:
            return expr
        todo |= set(re.findall(r"[A-Za-z_]\w*", cands[0][1] or ""))
    return prog.expand_accessors(expr, every=True, more=more) if seen \
        else expr


def _named_keys(prog, expr, var_type):
    """(kind, name) of the mutex and condition keys expression text @expr
    may name: a variable by its name, a field by its structure's key when
    the text tells the structure (a cast, a variable whose tag
    @var_type(name) gives), else by every key of that field name."""
    e = re.sub(r"\s+", "", expr)
    m = re.fullmatch(r"&?\(*([A-Za-z_]\w*)\)*", e)
    if m:
        return [(kind, n) for kind, n in prog.keys if n == m.group(1)]
    m = re.search(r"(?:\.|->)([A-Za-z_]\w*)\)*$", e)
    if m:
        # the structure, when the text tells it
        out = []
        for kind in ("mutex", "cond"):
            try:
                names, unsure = prog.fields.keys(cparse.lex(expr), kind,
                                                 var_type)
            except cparse.ParseError:
                names, unsure = [], True
            out += [(kind, n) for n in names if (kind, n) in prog.keys] \
                if not unsure else \
                [(kd, n) for kd, n in prog.keys
                 if kd == kind and n.endswith("." + m.group(1))]
        return out
    words = set(re.findall(r"[A-Za-z_]\w*", e))
    return [(kind, n) for kind, n in prog.keys
            if n in words or n.rpartition(".")[2] in words and "." in n]


def _object_macro(prog, f, k, locks):
    """Token @k, in a function body and not called, names an object-like
    macro whose expansion locks and that scoped.py did not rewrite there
    (it is no scoped lock, as when its `for` head tests what a wrapper
    returns that is not a constant, or this use of it cannot be read:
    scoped_why says why): refuse it, and keep POSIX the mutexes its
    expansion names, directly or through the wrappers it calls."""
    name = f.src.toks[k].text
    m = prog.macros.get(name)
    if m is None or m[0] or name in prog.fns or \
            name in prog.section_macros or not _locks(prog, name, locks):
        return
    line = f.line(k)
    prog.report.found += 1
    prog.report.refuse(f.display, line, getattr(prog, "scoped_why", {}).get(
        (f.path, line)) or (
        "lock macro %s is not understood (an object-like macro whose "
        "expansion locks, not a call, and not a scoped lock the tool can "
        "run): write these sections with lock and unlock calls, or give "
        "it a for head the tool runs (scoped lock macros, "
        "rcl-refactor(1))" % name))
    why = "locked at %s:%d by macro %s, which the tool does not " \
        "understand" % (f.display, line, name)
    for w in _expansion_words(prog, name):
        lf = prog.fns.get(w)
        if lf is not None and lf.wrapper and not lf.wrapper.get("param"):
            names, _ = prog.fn_keys(lf, [], f, k)
            for n in names:
                prog.key(n).refuse(why)
        key = prog.keys.get(("mutex", w))
        if key is not None:
            key.refuse(why)


def _expansion_words(prog, name, seen=None):
    """The identifiers of macro @name's expansion, through other
    macros."""
    seen = seen if seen is not None else set()
    if name in seen or name not in prog.macros:
        return set()
    seen.add(name)
    words = set(re.findall(r"[A-Za-z_]\w*", prog.macros[name][1]))
    for w in list(words):
        words |= _expansion_words(prog, w, seen)
    return words


def _through_wrappers(prog, name):
    """Whether every lock function or section macro that macro @name's
    expansion names is a wrapper function naming its lock itself, or a
    section macro calling only such (macrobody.named_wrapper): nothing in
    the expansion is rewritten, whatever becomes of its lock."""
    lockish = [w for w in _expansion_words(prog, name)
               if w in prog.fns or w in prog.section_macros]
    return bool(lockish) and all(
        prog.section_macros[w].through_wrappers()
        if w in prog.section_macros else
        macrobody.named_wrapper(prog.fns[w]) for w in lockish)


def _locks(prog, name, locks):
    """Whether macro @name expands (through other macros) to a call of a
    lock function."""
    return any(w in locks for w in _expansion_words(prog, name))


def _knr_function(toks, k):
    """The name of the K&R definition whose body holds token @k
    (`int f(a, b) int a; long b; { ... }`), else None."""
    depth, j, o = 0, k, None
    while j >= 0:  # the outermost '{' before @k that is still open
        t = toks[j]
        if t.kind == "punct" and t.text == "}":
            depth += 1
        elif t.kind == "punct" and t.text == "{":
            if depth == 0:
                o = j
            depth = max(depth - 1, 0)
        j -= 1
    if o is None:
        return None
    j = o - 1
    if toks[j].text != ";":
        return None
    while j > 0 and toks[j].text != ")":  # the parameter declarations
        if toks[j].text in ("{", "}", "="):
            return None
        j -= 1
    depth = 0
    while j > 0:
        if toks[j].text == ")":
            depth += 1
        elif toks[j].text == "(":
            depth -= 1
            if depth == 0:
                break
        j -= 1
    return toks[j - 1].text if toks[j - 1].kind == "id" else None


# The directive lines of the program that change what a name means.
_DIRECTIVE = re.compile(r"#\s*(define|undef|include|include_next|import)\b"
                        r"\s*(\w*)(?:\(([^)]*)\))?(.*)", re.S)
# Names whose value depends on where the code is (the line, the order in
# the file): __LINE__ is kept with #line; __COUNTER__ cannot be.
LINE_NAMES = ("__LINE__", "__builtin_LINE")


def _ids(text):
    """The identifiers of @text (a directive or a macro's body)."""
    try:
        return [t.text for t in cparse.lex(text.replace("\\\n", " "))
                if t.kind == "id"]
    except cparse.ParseError:
        return re.findall(r"[A-Za-z_]\w*", text)


def _used(toks, a, b, dead=()):
    """The names tokens [a, b) use: identifiers, those of #if conditions
    and of the bodies of #defines (not the names they define)."""
    out = set()
    for k in range(a, b):
        t = toks[k]
        if any(x <= k < y for x, y in dead):
            continue
        if t.kind == "id":
            out.add(t.text)
        elif t.kind == "pp":
            m = _DIRECTIVE.match(t.text)
            if m and m.group(1) in ("define", "undef"):
                params = {p.strip() for p in (m.group(3) or "").split(",")}
                out.update(n for n in _ids(m.group(4)) if n not in params)
            else:
                # an #if's condition: lexed without its directive word (a
                # line that starts with '#' is one "pp" token to lex())
                out.update(_ids(re.sub(r"^\s*#\s*\w*", "", t.text)))
    return out


def expanded_names(prog, names):
    """@names and every name the program's macros among them reach."""
    return _expanded(prog, names, {})


def _expanded(prog, names, local):
    """@names and every name the macros among them reach (bodies of the
    program's macros and of @local {name: [bodies]}), transitively."""
    out, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n in out:
            continue
        out.add(n)
        bodies = list(local.get(n, ()))
        if n in prog.macros:
            bodies.append(prog.macros[n][1])
        for body in bodies:
            todo += [w for w in _ids(body) if w not in out]
    return out


def _directives(toks, a, b):
    """[(token, word, name, body)] of the #define/#undef/#include lines
    among tokens [a, b)."""
    out = []
    for k in range(a, b):
        m = _DIRECTIVE.match(toks[k].text) if toks[k].kind == "pp" else None
        if m:
            out.append((k, m.group(1), m.group(2), m.group(4)))
    return out


def preprocessor_state(prog, fi, sec, k0, extra=()):
    """(why the section cannot move to token @k0, or None; the directives
    to replay there): the extracted function goes where its function's
    definition starts.  The #defines and #undefs of the function before
    the section that change a name it uses (@extra: more names the
    extracted function uses, the types of its context) are replayed
    around it, between push_macro and pop_macro of their names; held
    when they are under an #if there (which branch is unknown), after an
    #include there (which may define anything), when one inside the
    section changes a name the function uses before it (that code would
    see the new meaning) or one the function changes before it (the code
    after the section would see the function's)."""
    toks, src = fi.src.toks, fi.src
    t0, t1 = sec["t0"], sec["t1"]
    before = _directives(toks, k0, t0)
    inside = _directives(toks, t0, t1)
    if not before and not inside:
        return None, []
    local = {}
    for _, word, name, body in before + inside:
        if word == "define":
            local.setdefault(name, []).append(body)
    for k, word, name, _ in before:
        if word != "define" and word != "undef":
            return ("#%s at line %d in %s() before the section: the "
                    "extracted function, placed before %s(), would not see "
                    "what it defines" % (word, src.line_of(toks[k].start),
                                         fi.name, fi.name)), []
    changed = {name for _, _, name, _ in before}
    for k, word, name, _ in inside:
        if name in changed:
            return ("#%s %s at line %d inside the section: %s() changes %s "
                    "before it, and the code after the section would see "
                    "that meaning once the section moves before %s()" % (
                        word, name, src.line_of(toks[k].start), fi.name,
                        name, fi.name)), []
    if inside:
        earlier = _expanded(prog, _used(toks, k0, t0), local)
        for k, word, name, _ in inside:
            if name in earlier:
                return ("#%s %s at line %d inside the section: %s() uses %s "
                        "before it, and the extracted function, placed "
                        "before %s(), would change it there" % (
                            word, name, src.line_of(toks[k].start), fi.name,
                            name, fi.name)), []
    uses = _expanded(prog, _used(toks, t0, t1) | set(extra), local)
    hit = [(k, word, name) for k, word, name, _ in before if name in uses]
    if not hit:
        return None, []
    for k in range(k0, t0):
        if toks[k].kind == "pp" and re.match(
                r"#\s*(if|ifdef|ifndef|elif|else|endif)\b", toks[k].text):
            k, word, name = hit[0]
            return ("#%s %s at line %d in %s() before the section, which "
                    "uses %s, with #if there: the extracted function, placed "
                    "before %s(), may not see it" % (
                        word, name, src.line_of(toks[k].start), fi.name,
                        name, fi.name)), []
    return None, [toks[k].text for k, _, _, _ in before]


def replay_directives(text, directives):
    """@text (an extracted function and its context) with @directives
    (#define and #undef lines of its function before the section) in
    effect, and the macros they name as they were after it."""
    names = []
    for d in directives:
        m = _DIRECTIVE.match(d)
        if m.group(2) not in names:
            names.append(m.group(2))
    push = "".join('#pragma push_macro("%s")\n' % n for n in names)
    pop = "".join('#pragma pop_macro("%s")\n' % n for n in names)
    return "/* rcl-refactor: the #defines of the function before the " \
        "section */\n%s%s\n%s%s" % (
            push, "\n".join(d.rstrip("\n") for d in directives),
            text if text.endswith("\n") else text + "\n", pop)


def line_names(prog, names):
    """Whether @names read the line number: __LINE__, __builtin_LINE, a
    macro whose expansion reads it (the compiler's facts,
    Unit.line_macros; without them assert()), directly or through the
    program's macros."""
    fe = getattr(prog, "frontend", None)
    known = set(LINE_NAMES) | ({m for u in fe.units for m in u.line_macros}
                               if fe is not None else {"assert"})
    return bool(_expanded(prog, names, {}) & known)


def source_position(prog, fi, sec, k0):
    """(why the section cannot move, or None; whether it uses the line
    number): __COUNTER__ in the section and in its function before it
    (their order would swap), __LINE__ and __builtin_LINE() (kept with
    #line, refused in a file with #line directives of its own)."""
    toks, src = fi.src.toks, fi.src
    uses = _expanded(prog, _used(toks, sec["t0"], sec["t1"], sec["dead"]),
                     {})
    if "__COUNTER__" in uses and "__COUNTER__" in _expanded(
            prog, _used(toks, k0, sec["t0"]), {}):
        return ("__COUNTER__ in the section and before it in %s(): the "
                "extracted function, placed before %s(), would take the "
                "earlier values" % (fi.name, fi.name)), False
    keep = line_names(prog, uses)
    if keep and re.search(r"(?m)^[ \t]*#[ \t]*(line\b|\d)", src.text):
        return ("__LINE__ in the section of a file with #line directives "
                "(the section's line could not be kept)"), False
    return None, keep


def stringized_byptr(prog, fi, sec, byptr):
    """Why the section cannot be extracted: a local it reaches by pointer
    (@byptr: names), written (*name) there, is in an argument of a macro
    of the program that stringizes or pastes that parameter (#v, ##,
    also through the macros it hands it to): it would spell the new
    text.  None if none."""
    toks = fi.src.toks
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind != "id" or t.text not in byptr or \
                toks[k - 1].text in (".", "->") or not _live(sec, k):
            continue
        for name, idx in enclosing_calls(toks, k):
            if name in prog.macros and _spells_param(prog, name, idx, set()):
                return ("'%s', reached by pointer, is in an argument of "
                        "macro %s at line %d, which stringizes or pastes it "
                        "(it would spell (*%s))" % (
                            t.text, name, fi.src.line_of(t.start), t.text))
    return None


def enclosing_calls(toks, k):
    """[(callee name, argument index)] of the calls whose parentheses hold
    token @k in its statement, innermost first."""
    out, depth, idx, j = [], 0, 0, k
    while j > 0:
        j -= 1
        x = toks[j].text
        if depth == 0 and (x in (";", "{", "}") or toks[j].kind == "pp"):
            break
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth:
                depth -= 1
                continue
            if x == "(" and j and toks[j - 1].kind == "id":
                out.append((toks[j - 1].text, idx))
            idx = 0
        elif x == "," and depth == 0:
            idx += 1
    return out


def _spells_param(prog, name, idx, seen):
    """Whether macro @name stringizes or pastes its parameter number @idx
    (a variadic one: __VA_ARGS__), itself or through the macros of the
    program its body hands it to."""
    if name in seen:
        return False
    seen.add(name)
    params, body = prog.macros[name]
    params = [p.strip() for p in params]
    if not params:
        return False
    if idx < len(params):
        p = params[idx]
    elif params[-1].endswith("..."):
        p = params[-1]
    else:
        return False
    if p.endswith("..."):
        p = p[:-3].strip() or "__VA_ARGS__"
    q = re.escape(p)
    if params[-1].endswith("...") and p == (
            params[-1][:-3].strip() or "__VA_ARGS__"):
        # GNU's `, ## __VA_ARGS__` only drops the comma when no variable
        # argument is given; given, they follow the comma unpasted
        # (squeezelite's LOG_WARN(fmt, ...)): no spelling is made.
        body = re.sub(r",\s*##\s*(%s)\b" % q, r", \1", body)
    if re.search(r"#\s*%s\b|\b%s\s*##" % (q, q), body):
        return True
    try:
        bt = cparse.lex(body.replace("\\\n", " "))
    except cparse.ParseError:
        return True
    for i, b in enumerate(bt):
        if b.kind == "id" and b.text == p:
            for inner, j in enclosing_calls(bt, i):
                if inner in prog.macros and \
                        _spells_param(prog, inner, j, seen):
                    return True
    return False
