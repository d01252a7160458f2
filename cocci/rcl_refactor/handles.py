# SPDX-License-Identifier: MIT
"""Lock handles: a mutex's address carried between functions.

memcached's `void *item_trylock(uint32_t hv)` returns the address of the
striped lock it took (or NULL), its callers keep it in a `void *` local
and release it with `item_trylock_unlock(void *lock)`, which unlocks
through `(pthread_mutex_t *) lock`.  Such a lock can be converted when
every place its address flows to is followed: a *slot* is a local or a
parameter declared `void *` or as a pointer to a mutex type, or the
return value of a function of the program returning one.  Values flow
into a slot from a lock expression (`&locks[i]`), another slot (`h = l`,
`return l`, `release(h)`, `h = take(x)`) or NULL; a slot may be used
only in a lock, trylock, unlock or init call (optionally through a cast
to a mutex pointer), tested (`if (h)`, `h == NULL`) or passed on to
another slot.  The keys that reach a slot are propagated over the whole
program (every file given); a lock whose address reaches a slot that is
used any other way, that also receives other pointers, or that carries
more than one lock, stays POSIX with the reason.  A slot whose value only
reaches pthread_mutex_init() (an init function's parameter: fio's
mutex_init_pshared()) may carry several locks, which are then converted
together or not at all (rewrite._shared_init_fn()).  Functions are told
apart by name: a name defined more than once, or used other than by
calling it, is not followed."""
import re

from . import analyse, cparse
from .find import canon, join_tokens

NULLS = ({"NULL"}, {"0"}, {"(", "void", "*", ")", "0"})
QUALS = ("const", "volatile", "register", "restrict", "__restrict")
# A pointer compared with another (_use()): the operators, and the tokens
# that may stand before and after an operand that is the pointer alone.
_COMPARE = ("==", "!=", "<", ">", "<=", ">=")
_OPERAND_START = ("(", "&&", "||", "=", ",", "return", "?", ":")
_OPERAND_END = (")", ";", "&&", "||", "?", ",", ":")


class Slot:
    def __init__(self, label, f, tok):
        self.label, self.file, self.tok = label, f, tok
        self.keys = set()
        self.escape = None   # (why) its value goes where it is not followed
        self.opaque = None   # (why) it also receives another pointer
        self.out = set()     # slots its value flows into
        self.typetoks = []   # (File, token) of its mutex type, to retype
        self.decl = None     # analyse.Decl of a variable slot
        self.direct = False  # a lock expression flows into it
        self.followed = False  # a pointer local program.py follows
        self.fi = None
        self.origin = {}     # key -> (text, where) of a lock expression
        self.ins = []        # (Slot, where) flowing into it
        self.uses = []       # (path, token) of its value's other uses
        self.carriers = set()  # pointer keys it is stored into (program.py)
        self.stored = set()  # (path, token) of those stores
        self.inits = []      # (File, token) of pthread_mutex_init(slot, ..)
        self.tied = False    # only initialises what reaches it (Handles.run)

    def fault(self):
        if self.escape:
            return self.escape
        if self.opaque:
            return self.opaque
        # Several locks: converted together or not at all
        # (rewrite._slot_tie()); a section through it is held, on
        # whichever lock it holds.
        return None


def _text_invocations(text):
    """(name, [argument texts]) of each call-like `NAME(...)` in the text
    of a macro's body (arguments split at the commas outside
    parentheses)."""
    out = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
        depth, args, cur = 1, [], []
        for ch in text[m.end():]:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            if ch == "," and depth == 1:
                args.append("".join(cur))
                cur = []
            else:
                cur.append(ch)
        else:
            continue
        args.append("".join(cur))
        out.append((m.group(1), [" ".join(a.replace("\\\n", " ").split())
                                 for a in args]))
    return out


class Handles:
    def __init__(self, prog):
        self.prog = prog
        self.vars = {}       # (path, decl t0) -> Slot
        self.rets = {}       # function name -> Slot
        self.params = {}     # (function name, index) -> Slot
        self.defs = {}       # function name -> [(File, ni, bo, bc)]
        self.ok = {}         # path -> [(a, b)] token ranges accounted for
        self.oks = []        # (Slot, File, a, b) before the verdicts
        self.deferred = set()  # slots left to program.py's scan
        self.casts = []      # (File, token, Slot) mutex type tokens of casts
        self.ptr_args = []   # (text, File, token, Slot): _value()'s others
        self.held = {}       # (path, token of a lock call) -> Slot
        self.fis = {}
        self.called = set()
        self.outside_files = {}  # function name -> units not rewritten
        self._define_cache = None  # _defines(), read on first use

    # -- helpers -----------------------------------------------------------
    def _mutex_type(self, text):
        return self.prog.types.get(text) == "mutex"

    def _ptr_type(self, toks, a, b):
        """The token of `void` or of the mutex type when toks[a:b] is such
        a type followed by one '*' (qualifiers allowed), else None."""
        words = [k for k in range(a, b) if toks[k].text not in QUALS and
                 toks[k].text not in ("static", "extern", "inline")]
        if len(words) != 2 or toks[words[1]].text != "*":
            return None
        t = toks[words[0]]
        if t.text == "void" or self._mutex_type(t.text):
            return words[0]
        return None

    def _fi(self, f, bo):
        if (f.path, bo) not in self.fis:
            try:
                self.fis[(f.path, bo)] = f.func_at(f.src.toks[bo].start,
                                                   self.prog.typedefs)
            except cparse.ParseError:
                self.fis[(f.path, bo)] = None
        return self.fis[(f.path, bo)]

    def _core(self, toks, a, b, casts=None):
        """[a, b) without enclosing parentheses and casts to `void *` or
        a mutex pointer (whose type tokens go to @casts)."""
        while a < b:
            if toks[a].text == "(" and cparse.match(toks, a) == b - 1:
                a, b = a + 1, b - 1
                continue
            if toks[a].text == "(":
                c = cparse.match(toks, a)
                t = self._ptr_type(toks, a + 1, c) if c < b - 1 else None
                if t is not None:
                    if casts is not None and toks[t].text != "void":
                        casts.append(t)
                    a = c + 1
                    continue
            break
        return a, b

    def _slot_at(self, f, fi, k):
        """The variable slot named by identifier token @k, or None."""
        d = analyse.visible_decl(fi, f.src.toks[k].text, k + 1)
        return self.vars.get((f.path, d.t0)) if d is not None else None

    def _where(self, f, k):
        return "%s:%d" % (f.display, f.line(k))

    def _ok(self, f, a, b, slot):
        self.oks.append((slot, f, a, b))

    # -- finding slots -----------------------------------------------------
    def run(self):
        prog = self.prog
        for f in prog.files:
            for name, ni, bo, bc in f.funcs:
                self.defs.setdefault(name, []).append((f, ni, bo, bc))
        called = self.called = self._called()
        outside = self._outside_callers()
        for name, defs in self.defs.items():
            if len(defs) != 1 or name in prog.fns or name in prog.api:
                continue  # lock, init and destroy wrappers: find.py's
            f, ni, bo, bc = defs[0]
            toks = f.src.toks
            a = _decl_start(toks, ni)
            static = any(toks[j].text == "static" for j in range(a, ni))
            t = self._ptr_type(toks, a, ni)
            # A function of the program that no file given calls (an
            # interface for others) or that a unit not rewritten calls
            # (-p) hands its result out of the files given: not followed.
            if t is not None and (static or name in called) and \
                    name not in outside:
                s = Slot("the value %s() returns" % name, f, ni)
                if toks[t].text != "void":
                    s.typetoks.append((f, t))
                self.rets[name] = s
            fi = self._fi(f, bo)
            if fi is None:
                continue
            for d in fi.decls:
                if d.is_param and name in outside:
                    continue
                self._var(f, fi, d, name)
        for f in prog.files:
            for name, ni, bo, bc in f.funcs:
                fi = self._fi(f, bo)
                if fi is None or len(self.defs[name]) != 1 or \
                        name in prog.fns or name in prog.api:
                    continue
                for d in fi.decls:
                    if (f.path, d.t0) not in self.vars:
                        continue
                    self._var_uses(f, fi, self.vars[(f.path, d.t0)])
                if name in self.rets:
                    self._returns(f, fi, self.rets[name])
        self.param_fns = {n for n, _ in self.params}
        for f in prog.files:
            self._fn_uses(f)
            self._macro_uses(f)
        self._propagate()
        held, slots = set(self.held.values()), set(self.vars.values())
        for s in slots:
            s.tied = self._init_only(s, held, slots, set())
        # A slot that a lock expression reaches directly and that goes
        # wrong itself leaves the verdict to program.py's own scan (the
        # lock expression is then a use it does not account for, with
        # the reason it gives today); past the first step, the reason is
        # where the address went.
        deferred = self.deferred
        for s in self._all():
            why = s.fault() if s.keys else None
            if why and s.direct and not any(s in o.out for o in self._all()):
                deferred.add(s)
                continue
            for key in sorted(s.keys):
                if why:
                    prog.key(key).refuse(why)
        for s, f, a, b in self.oks:
            if s not in deferred:
                self.ok.setdefault(f.path, []).append((a, b))

    def _called(self):
        """Names of the functions some file given calls."""
        out = set()
        for f in self.prog.files:
            toks = f.src.toks
            for k in range(1, len(toks) - 1):
                t = toks[k]
                if t.kind == "id" and t.text in self.defs and \
                        toks[k + 1].text == "(" and not (
                            toks[k - 1].kind == "id" and toks[k - 1].text
                            not in ("return", "else", "do", "case") or
                            toks[k - 1].text == "*") and \
                        toks[k - 1].text not in (".", "->"):
                    out.add(t.text)
        return out

    def _outside_callers(self):
        """With -p, the functions that units of the build not being
        rewritten call (libclang's call graph)."""
        fe = getattr(self.prog, "frontend", None)
        if fe is None or self.prog.opts.commands is None:
            return set()
        import os
        worked = {os.path.realpath(f.path) for f in self.prog.files
                  if not f.is_header}
        for u in fe.units:
            if u.path in worked:
                continue
            for fn in u.functions.values():
                for c in fn.calls:
                    self.outside_files.setdefault(c.key, set()).add(u.path)
        return set(self.outside_files)

    def _all(self):
        return list(self.vars.values()) + list(self.rets.values())

    def _init_only(self, s, held, slots, seen):
        """Whether slot @s (a parameter: fio's mutex_init_pshared(
        pthread_mutex_t *mutex)) is only given to pthread_mutex_init() or
        passed on to slots that are: an init function, which may then
        initialise several locks, converted together or not at all
        (rewrite._shared_init_fn()), since its parameter's type is one."""
        if s in seen:
            return True
        seen.add(s)
        if s.followed or s.escape or s.opaque or s in held or \
                s.carriers or not (s.inits or s.out):
            return False
        return all(o in slots and self._init_only(o, held, slots, seen)
                   for o in s.out)

    def shared(self, key):
        """The slots that carry lock @key with others (each may hold any
        of its locks: they are converted together or not at all)."""
        return [s for s in self._all() if key in s.keys and
                len(s.keys) > 1]

    def tied_slot(self, f, k, expr):
        """The init-only slot (_init_only()) lock expression @expr at token
        @k of @f names, when it may carry several locks, else None."""
        s = self.var_for(f, k, expr)
        return s if s is not None and s.tied and len(s.keys) > 1 else None

    def _var(self, f, fi, d, fname):
        toks = f.src.toks
        decl = [t.text for t in cparse.lex(d.declarator)]
        if decl not in (["*", d.name], ["*", "const", d.name]) or \
                d.is_static or d.siblings != 1 and not d.is_param:
            return
        t = self._ptr_type(toks, d.stmt[0], d.t0 + 1)
        if t is None:
            return
        what = "parameter" if d.is_param else "local"
        s = Slot("%s '%s' of %s() at %s" % (what, d.name, fname,
                                            self._where(f, d.t0)), f, d.t0)
        s.decl, s.fi = d, fi
        if toks[t].text != "void":
            s.typetoks.append((f, t))
        self.vars[(f.path, d.t0)] = s
        pl = self.prog.ptr_locals.get((f.path, d.t0))
        s.followed = pl is not None and pl.why is None
        if d.is_param:
            idx = [x for x in fi.decls if x.is_param].index(d)
            self.params[(fname, idx)] = s

    # -- what flows in -----------------------------------------------------
    def _value(self, f, fi, a, b, dst):
        """The expression toks[a:b] flows into slot @dst."""
        toks = f.src.toks
        casts = []
        a, b = self._core(toks, a, b, casts)
        self.casts += [(f, c, dst) for c in casts]
        texts = [t.text for t in toks[a:b]]
        if set(texts) in NULLS and len(texts) <= 5:
            return
        if b - a == 1 and toks[a].kind == "id":
            src = self._slot_at(f, fi, a)
            if src is not None:
                src.out.add(dst)
                dst.ins.append((src, self._where(f, a)))
                self._ok(f, a, b, src)
                return
        if toks[a].kind == "id" and a + 1 < b and toks[a + 1].text == "(" \
                and cparse.match(toks, a + 1) == b - 1 and \
                toks[a].text in self.rets:
            self.rets[toks[a].text].out.add(dst)
            dst.ins.append((self.rets[toks[a].text], self._where(f, a)))
            return
        text = canon(" ".join(texts))
        if toks[a].text == "&":
            names, why = self.prog.lock_keys(
                "".join(t.text + " " for t in toks[a:b]), f, a)
            known = [n for n in names if ("mutex", n) in self.prog.keys and
                     self.prog.keys[("mutex", n)].decls]
            if known:
                self._given(dst, known, text, f, a, b)
                if why or len(known) != len(names):
                    dst.opaque = dst.opaque or why or \
                        "%s receives '%s' at %s" % (
                            dst.label, text, self._where(f, a))
                return
        if toks[a].kind == "id":
            # the value of a pointer key (`add(w->lock, ...)`, a field
            # `pthread_mutex_t *lock` assigned `&mu`): the slot carries
            # that pointer's lock, converted with the others it carries
            names, why = self.prog.lock_keys(text, f, a)
            ptrs = [n for n in names if ("mutex", n) in self.prog.keys
                    and self.prog.pointer_key(self.prog.keys[("mutex", n)])]
            if ptrs and not why and len(ptrs) == len(names):
                self._given(dst, ptrs, text, f, a, b)
                return
        if not dst.opaque:
            dst.opaque = "%s also receives '%s' at %s" % (
                dst.label, text, self._where(f, a))
        # a pointer key's value (`locked_add(j->lock, ...)`) given to a
        # slot that goes wrong: the pointer must stay POSIX with what it
        # points to (Program.ptr_arg_faults)
        self.ptr_args.append((text, f, a, dst))

    def _given(self, dst, names, text, f, a, b):
        """Slot @dst is given locks @names by the expression toks[a:b] of
        @f (@text)."""
        dst.keys |= set(names)
        for n in names:
            dst.origin.setdefault(n, (text, self._where(f, a)))
        dst.direct = True
        self._ok(f, a, b, dst)

    def ptr_args_into(self):
        """(text, File, token, Slot) of the values other than lock
        expressions that flow into a slot: a pointer key's, perhaps."""
        return list(self.ptr_args)

    def _returns(self, f, fi, slot):
        toks = f.src.toks
        for k in range(fi.bo, fi.bc):
            if toks[k].text == "return" and toks[k].kind == "id":
                e = k + 1
                while toks[e].text != ";":
                    if toks[e].text in ("(", "[", "{"):
                        e = cparse.match(toks, e)
                    e += 1
                if e > k + 1:
                    self._value(f, fi, k + 1, e, slot)

    def _fn_uses(self, f):
        """Calls of functions with slots: their arguments flow into the
        parameters, their results somewhere followed."""
        toks = f.src.toks
        for k, t in enumerate(toks):
            if t.kind != "id" or k + 1 >= len(toks) or \
                    toks[k - 1].text in (".", "->"):
                continue
            name = t.text
            ret = self.rets.get(name)
            if ret is None and name not in self.param_fns:
                continue
            if any(ni == k for _, ni, _, _ in f.funcs):
                continue  # its definition
            decl = toks[k - 1].kind == "id" and toks[k - 1].text not in (
                "return", "else", "do", "case") or \
                toks[k - 1].text == "*" and toks[k - 2].kind == "id" \
                and toks[k - 2].text not in ("return", "case")
            if decl and toks[k + 1].kind == "id" and \
                    toks[k + 2].text == "(" and toks[k + 3].text == "(" and \
                    cparse.match(toks, k + 3) + 1 == \
                    cparse.match(toks, k + 2):
                # A prototype through a macro for pre-ANSI compilers,
                # `int f __P((pthread_mutex_t *, int));`.
                if ret and toks[k - 1].text == "*" and \
                        self._mutex_type(toks[k - 2].text):
                    ret.typetoks.append((f, k - 2))
                self._proto(f, k + 3, name)
                continue
            if toks[k + 1].text != "(" and self._thread_start(f, k, name):
                continue
            if toks[k + 1].text != "(":
                why = "the address of %s() is taken at %s (calls through " \
                    "it are not followed)" % (name, self._where(f, k))
                if ret:
                    ret.escape = ret.escape or why
                for (n, _), p in self.params.items():
                    if n == name:
                        p.opaque = p.opaque or why
                continue
            if decl:
                if ret and toks[k - 1].text == "*" and \
                        self._mutex_type(toks[k - 2].text):
                    ret.typetoks.append((f, k - 2))
                self._proto(f, k + 1, name)
                continue  # a declaration
            close = cparse.match(toks, k + 1)
            fi = self._fi_around(f, k)
            args = cparse.split_args(toks, k + 1, close)
            if toks[k + 2].text == ")":
                args = []
            for i, (a, b) in enumerate(args):
                p = self.params.get((name, i))
                if p is not None:
                    if fi is None:
                        p.opaque = p.opaque or "%s() is called at %s " \
                            "outside a function" % (name, self._where(f, k))
                    else:
                        self._value(f, fi, a, b, p)
            if ret is not None:
                if fi is None:
                    ret.escape = ret.escape or "%s() is called at %s " \
                        "outside a function" % (name, self._where(f, k))
                else:
                    self._use(f, fi, k, close + 1, ret)

    def _thread_start(self, f, k, name):
        """Whether the function @name named at token @k of @f is the start
        routine of a pthread_create() (`pthread_create(&t, NULL, worker,
        &mtx)`): the fourth argument then flows into its parameter, as a
        call's argument does, and the value it returns goes to
        pthread_join(), which is not followed."""
        toks = f.src.toks
        fi = self._fi_around(f, k)
        call = _enclosing_call(toks, k, fi.bo) if fi is not None else None
        if call is None or _start_routine(toks, call[0]) != name or \
                call[2][1] != k + 1:
            return False
        close = cparse.match(toks, call[0] + 1)
        args = cparse.split_args(toks, call[0] + 1, close)
        p = self.params.get((name, 0))
        if p is not None:
            self._value(f, fi, args[3][0], args[3][1], p)
        ret = self.rets.get(name)
        if ret is not None:
            ret.escape = ret.escape or "%s() starts a thread at %s: the " \
                "value it returns is the thread's result, which the tool " \
                "does not follow" % (name, self._where(f, k))
        return True

    def _macro_uses(self, f):
        """A function with slots named in a macro definition: its calls
        there are not seen, so neither is where its values go."""
        names = set(self.rets) | self.param_fns
        for t in f.src.toks:
            if t.kind != "pp" or not re.match(r"#\s*define\b", t.text):
                continue
            found = set(re.findall(r"[A-Za-z_]\w*", t.text)) & names
            # A name pasted together (take_##n) may be any of them that
            # the chain can spell: its fragments in order, a parameter of
            # the macro standing for any word (`d_ ## f` makes only names
            # that start with d_).
            m = re.match(r"#\s*define\s+(\w+)(?:\(([^)]*)\))?", t.text)
            params = re.findall(r"\w+", m.group(2) or "")
            for chain in re.findall(r"\w+(?:\s*##\s*\w+)+",
                                    t.text[m.end():]):
                spell = "".join(
                    self._arg_spelling(m.group(1), params.index(x), 0)
                    if x in params else re.escape(x)
                    for x in re.split(r"\s*##\s*", chain))
                found |= {n for n in names if re.fullmatch(spell, n)}
            for name in sorted(found):
                why = "%s() is named in a macro at %s:%d (its calls there " \
                    "are not followed)" % (name, f.display,
                                           f.src.line_of(t.start))
                if name in self.rets:
                    self.rets[name].escape = self.rets[name].escape or why
                for (n, _), p in self.params.items():
                    if n == name:
                        p.opaque = p.opaque or why

    def _defines(self):
        """Every function-like macro of the files given: name ->
        [(parameters, body)], and the invocations of each as
        (name, [argument texts], enclosing macro's (name, parameters) or
        None)."""
        if self._define_cache is not None:
            return self._define_cache
        defs, calls = {}, []
        for f in self.prog.files:
            toks = f.src.toks
            for k, t in enumerate(toks):
                if t.kind == "pp":
                    m = re.match(r"#\s*define\s+(\w+)\(([^)]*)\)",
                                 t.text)
                    if m is None:
                        continue
                    params = re.findall(r"\w+", m.group(2))
                    body = t.text[m.end():]
                    defs.setdefault(m.group(1), []).append((params, body))
                    for name, args in _text_invocations(body):
                        calls.append((name, args, (m.group(1), params)))
                elif t.kind == "id" and k + 1 < len(toks) and \
                        toks[k + 1].text == "(":
                    try:
                        close = cparse.match(toks, k + 1)
                    except cparse.ParseError:
                        continue
                    args = [join_tokens(x.text for x in toks[a:b])
                            for a, b in cparse.split_args(toks, k + 1, close)]
                    calls.append((t.text, args, None))
        self._define_cache = (defs, calls)
        return self._define_cache

    def _arg_spelling(self, macro, index, depth):
        """A regular expression for what argument @index of macro @macro
        may be where the files given invoke it: the arguments' words,
        through the parameters of the macros that pass theirs on
        (`compiletime_assert(c, m)` gives `_compiletime_assert(c, m,
        __compiletime_assert_, __LINE__)`), __LINE__ and __COUNTER__ as
        numbers.  Any word when an argument is not one word or when no
        invocation is seen (a unit not read may invoke it)."""
        defs, calls = self._defines()
        spells = set()
        for name, args, within in calls:
            if name != macro or name not in defs:
                continue
            if index >= len(args) or depth > 8:
                return r"\w*"
            a = args[index].strip()
            if within is not None and a in within[1]:
                spells.add(self._arg_spelling(within[0], within[1].index(a),
                                              depth + 1))
            elif a in ("__LINE__", "__COUNTER__"):
                spells.add(r"\d+")
            elif re.fullmatch(r"\w*", a):
                spells.add(re.escape(a))
            else:
                return r"\w*"
        if not spells or r"\w*" in spells:
            return r"\w*"
        return "(?:%s)" % "|".join(sorted(spells))

    def _proto(self, f, o, name):
        """A prototype of @name whose parameter list opens at token @o:
        the mutex types of its slot parameters."""
        toks = f.src.toks
        close = cparse.match(toks, o)
        for i, (a, b) in enumerate(cparse.split_args(toks, o, close)):
            p = self.params.get((name, i))
            if p is None:
                continue
            for j in range(a, b):
                if self._mutex_type(toks[j].text) and \
                        (f, j) not in p.typetoks:
                    p.typetoks.append((f, j))

    def _fi_around(self, f, k):
        for _, ni, bo, bc in f.funcs:
            if bo < k < bc:
                return self._fi(f, bo)
        return None

    # -- where a value goes ------------------------------------------------
    def _var_uses(self, f, fi, slot):
        toks = f.src.toks
        d = slot.decl
        if d.init:
            e = d.t0
            while toks[e].text != "=":
                e += 1
            self._value(f, fi, e + 1, d.range[1], slot)
        for k in range(fi.ni, fi.bc):
            t = toks[k]
            if t.kind != "id" or t.text != d.name or \
                    toks[k - 1].text in (".", "->") or \
                    d.range[0] <= k < d.range[1]:
                continue
            if analyse.visible_decl(fi, d.name, k + 1) is not d:
                continue
            if toks[k + 1].text == "=":
                e = k + 2
                while toks[e].text not in (";", ",", ")"):
                    if toks[e].text in ("(", "[", "{"):
                        e = cparse.match(toks, e)
                    e += 1
                self._value(f, fi, k + 2, e, slot)
                self._use(f, fi, k, e, None)
                continue
            self._use(f, fi, k, k + 1, slot)

    def _use(self, f, fi, a, b, src):
        """The expression toks[a:b] (slot @src's value, None for an
        assignment whose value is only tested) is used: followed or not."""
        toks = f.src.toks
        where = self._where(f, a)
        # Widen over parentheses and casts to pointers around it.
        while True:
            if toks[a - 1].text == "(" and toks[b].text == ")" and not (
                    toks[a - 2].kind == "id" and toks[a - 2].text not in (
                        "return",)):
                a, b = a - 1, b + 1
                continue
            if toks[a - 1].text == ")":
                o = a - 2
                while o > fi.bo and toks[o].text != "(":
                    o -= 1
                if self._ptr_type(toks, o + 1, a - 1) is not None:
                    a = o
                    continue
            break
        pre, nxt = toks[a - 1].text, toks[b].text
        if nxt == ";" and (pre in (";", "{", "}", "else", ":") or
                           pre == ")" and control(toks, a - 1)):
            return  # a statement: an assignment, a dropped value
        if pre in ("!", "&&", "||") or nxt in ("&&", "||", "?") or \
                nxt in ("==", "!=") and toks[b + 1].text in ("NULL", "0") or \
                pre in ("==", "!=") and toks[a - 2].text in ("NULL", "0") or \
                pre == "(" and nxt == ")" and toks[a - 2].text in (
                    "if", "while"):
            return  # tested
        if nxt in _COMPARE and pre in _OPERAND_START or \
                pre in _COMPARE and nxt in _OPERAND_END:
            # Compared with another address (lock ordering by address,
            # "the same lock twice?"): a converted lock keeps its place,
            # so the comparison reads the same.
            return
        if src is None:
            return self._escape(None, "an assignment used as a value at %s"
                                % where)
        src.uses.append((f.path, a))
        if src.followed and (pre != "return" and pre != "=" and
                             _enclosing_call(toks, a, fi.bo) is None or
                             self._pthread_call(toks, a, fi.bo)):
            return  # program.py checks its other uses, as it always has
        if pre == "return" and nxt == ";":
            ret = self.rets.get(fi.name)
            if ret is not None and len(self.defs.get(fi.name, ())) == 1:
                src.out.add(ret)
                self._ok(f, a, b, src)
                return
            return self._escape(src, "returned by %s() at %s" % (fi.name,
                                                                  where))
        if pre == "=" and nxt in (";", ",", ")") and \
                toks[a - 2].kind == "id" and toks[a - 3].text not in (
                    ".", "->"):
            dst = self._slot_at(f, fi, a - 2)
            if dst is None:
                d = analyse.visible_decl(fi, toks[a - 2].text, a)
                if d is not None and d.range[0] <= a - 2 < d.range[1]:
                    dst = self.vars.get((f.path, d.t0))
            if dst is not None:
                return  # _value() of @dst follows it
        # An argument of a call.
        call = _enclosing_call(toks, a, fi.bo)
        if call is not None:
            ck, idx, (x, y) = call
            cx, cy = self._core(toks, x, y)
            if (cx, cy) == (a, b) or self._core(toks, a, b) == (cx, cy):
                name = toks[ck].text
                lf = self.prog.fns.get(name)
                if lf is not None and src.decl is None:
                    # lock(take(x)): the lock expression is a call, which
                    # program.py cannot name: not followed.
                    return self._escape(src, "passed straight to %s() at "
                                        "%s" % (name, where))
                if lf is not None:
                    self.held[(f.path, ck)] = src
                    self._ok(f, x, y, src)
                    casts = []
                    self._core(toks, x, y, casts)
                    self.casts += [(f, c, src) for c in casts]
                    return
                if (name, idx) in self.params and \
                        len(self.defs.get(name, ())) == 1:
                    return  # _fn_uses() follows it into the parameter
                if name == "pthread_create" and idx == 3:
                    r = _start_routine(toks, ck)
                    if (r, 0) in self.params and \
                            len(self.defs.get(r, ())) == 1:
                        return  # _thread_start() follows it
                api = self.prog.api.get(name)
                if api is not None and api.identity and idx == 0 and \
                        api.target == "pthread_mutex_init":
                    # initialised through it: an init site of each lock
                    # that reaches it (Program._api_call())
                    src.inits.append((f, ck))
                    self._ok(f, x, y, src)
                    return
                return self._escape(src, "passed to %s() at %s" % (
                    name, where))
        if pre == "=":
            j = a - 1
            while toks[j - 1].text not in (";", "{", "}", "(", ",", ")"):
                j -= 1
            return self._escape(src, "stored in '%s' at %s" % (
                join_tokens([t.text for t in toks[j:a - 1]]), where))
        return self._escape(src, "used at %s" % where)

    def _pthread_call(self, toks, a, lo):
        """Whether token @a is an argument of a pthread mutex or
        condition call (or of a project macro for one)."""
        call = _enclosing_call(toks, a, lo)
        return call is not None and (toks[call[0]].text in self.prog.api or
                                     toks[call[0]].text in self.prog.fns)

    def _escape(self, src, why):
        if src is not None and not src.escape:
            src.escape = "%s is %s, where the tool does not follow it" % (
                src.label, why)

    def _propagate(self):
        todo = [s for s in self._all() if s.keys]
        while todo:
            s = todo.pop()
            for o in s.out:
                if not s.keys <= o.keys:
                    o.keys |= s.keys
                    todo.append(o)
        # A slot given another pointer passes it on: what it flows into
        # may hold that pointer too (`bump(&mtx); bump(heap_mutex);` with
        # bump(void *p) locking through p: converted for mtx, it would
        # take the heap mutex as a liblock lock).
        todo = [s for s in self._all() if s.opaque]
        while todo:
            s = todo.pop()
            for o in s.out:
                if not o.opaque:
                    o.opaque = "%s receives the value of %s, which %s" % (
                        o.label, s.label, _after_label(s.opaque, s.label))
                    todo.append(o)

    # -- answers -----------------------------------------------------------
    def var_for(self, f, k, expr, faulty=False):
        """The slot lock expression @expr (at token @k of @f) names,
        through a cast or not, when it carries a lock, else None; with
        @faulty, also one whose verdict is left to program.py's scan (a
        fault of its own: it receives other pointers too)."""
        try:
            ts = cparse.lex(expr)
        except cparse.ParseError:
            return None
        a, b = self._core(ts, 0, len(ts))
        if b - a != 1 or ts[a].kind != "id":
            return None
        fi = self._fi_around(f, k)
        if fi is None:
            return None
        d = analyse.visible_decl(fi, ts[a].text, k)
        s = self.vars.get((f.path, d.t0)) if d is not None else None
        if s is not None and faulty and s.fault():
            return s
        return s if s is not None and s.keys and \
            s not in self.deferred else None

    def held_reason(self, f, k, expr):
        """Why a section locked through lock expression @expr at token
        @k of @f is held: the lock is named through a slot (not a pointer
        local assigned once, which sections are extracted through)."""
        s = self.var_for(f, k, expr)
        if s is None or s.fault():
            return None
        pl = self.prog.pointer_local(f, k, s.decl.name)
        if pl is not None and pl.why is None:
            return None
        return "locked through %s, which carries the lock's address " \
            "between functions" % s.label

    def field_param(self, f, a, b):
        """The value toks[a:b] of @f of an assignment statement to a
        pointer key (`new->db_lock = lock;`), when it is a parameter of
        its function (through parentheses and casts to a mutex pointer):
        (slot, casts, why), where why is None when the only value that
        reaches the parameter from the calls of the program is NULL
        (see _value()), else why the key cannot follow it.  None when it
        is not a parameter."""
        toks = f.src.toks
        casts = []
        a, b = self._core(toks, a, b, casts)
        if b - a != 1 or toks[a].kind != "id":
            return None
        fi = self._fi_around(f, a)
        if fi is None:
            return None
        d = analyse.visible_decl(fi, toks[a].text, a)
        if d is None or not d.is_param:
            return None
        name = fi.name
        label = "parameter '%s' of %s()" % (d.name, name)
        s = self.vars.get((f.path, d.t0))
        if name in self.outside_files:
            return None, [], "%s() is also called from %s, not being " \
                "rewritten" % (name, ", ".join(sorted(
                    self.outside_files[name])))
        if len(self.defs.get(name, ())) != 1:
            return None, [], "%s() is defined more than once (not " \
                "followed)" % name
        if s is None:
            return None, [], "%s is not followed (only a parameter " \
                "declared alone as a pointer to the mutex type or void " \
                "is)" % label
        if name not in self.called and not any(
                toks[j].text == "static"
                for j in range(_decl_start(toks, fi.ni), fi.ni)):
            return s, casts, "no file given calls %s(), which is not " \
                "static (an interface for other code: what it is passed " \
                "is not known)" % name
        seen, todo = {s}, [s]
        while todo:
            u = todo.pop()
            if u.opaque:
                return s, casts, u.opaque
            for v, where in u.ins:
                if v in seen:
                    continue
                if v.typetoks:
                    return s, casts, "%s is given %s by the call at %s " \
                        "(whose type would have to change too: not " \
                        "followed)" % (u.label, v.label, where)
                seen.add(v)
                todo.append(v)
        for key in sorted(s.keys):
            for u in sorted(seen, key=lambda x: x is not s):
                if key in u.origin:
                    text, where = u.origin[key]
                    return s, casts, "%s receives '%s' at %s%s" % (
                        label, text, where, "" if u is s else
                        " (through %s)" % u.label)
        return s, casts, None

    def carrier_faults(self):
        """(slot, why) of the parameters stored into a pointer key whose
        value also goes elsewhere, or into more than one key."""
        for s in self.vars.values():
            if not s.carriers:
                continue
            other = [u for u in s.uses if u not in s.stored]
            if len(s.carriers) > 1:
                yield s, "%s is stored into %s" % (
                    s.label, " and ".join(sorted(s.carriers)))
            elif other:
                path, k = other[0]
                f = next(x for x in self.prog.files if x.path == path)
                yield s, "%s is also used at %s (only tests of it and " \
                    "its stores into the pointer are followed)" % (
                        s.label, self._where(f, k))

    def _carries(self, s, converted):
        return not s.keys and len(s.carriers) == 1 and \
            converted(next(iter(s.carriers))) and \
            all(u in s.stored for u in s.uses)

    def accounted(self, f):
        return self.ok.get(f.path, [])

    def retype(self, converted):
        """(File, token) of mutex type names to become liblock_lock_t:
        slots that carry only a converted lock, and casts to them."""
        out = set()
        for s in self._all():
            if s.keys and not s.fault() and \
                    all(converted(n) for n in s.keys) or \
                    self._carries(s, converted):
                out |= set(s.typetoks)
                if s.decl is not None and s.typetoks:
                    s.decl.spec = " ".join(
                        "liblock_lock_t" if self._mutex_type(w) else w
                        for w in s.decl.spec.split())
        for f, c, s in self.casts:
            if s.keys and not s.fault() and \
                    all(converted(n) for n in s.keys) or \
                    self._carries(s, converted):
                out.add((f, c))
        return sorted(out, key=lambda x: (x[0].path, x[1]))


def _decl_start(toks, ni):
    """The first token of the declaration of the function named at @ni."""
    a = ni
    while a > 0 and toks[a - 1].text not in (";", "}", "{") and \
            toks[a - 1].kind != "pp":
        a -= 1
    return a


def _after_label(why, label):
    """@why (a slot's reason, which starts with its @label) without that
    label."""
    return why[len(label):].lstrip() if why.startswith(label) else why


def _start_routine(toks, ck):
    """The name of the function a pthread_create() call at token @ck
    starts, when its third argument is that name (or its address) and it
    has four arguments, else None."""
    if toks[ck].text != "pthread_create" or toks[ck + 1].text != "(":
        return None
    close = cparse.match(toks, ck + 1)
    args = cparse.split_args(toks, ck + 1, close)
    if len(args) != 4:
        return None
    a, b = args[2]
    if b - a == 2 and toks[a].text == "&":
        a += 1
    return toks[a].text if b - a == 1 and toks[a].kind == "id" else None


def _enclosing_call(toks, k, lo):
    """(name token, argument index, argument range) of the call whose
    argument list token @k is directly in, or None."""
    depth = 0
    j = k - 1
    while j > lo:
        t = toks[j].text
        if t in (";", "{", "}"):
            return None
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "["):
            if depth == 0:
                if t != "(" or toks[j - 1].kind != "id":
                    return None
                close = cparse.match(toks, j)
                for i, (a, b) in enumerate(cparse.split_args(toks, j,
                                                             close)):
                    if a <= k < b:
                        return j - 1, i, (a, b)
                return None
            depth -= 1
        j -= 1
    return None


def control(toks, j):
    """Whether the ')' at @j closes the condition of if, while or for."""
    o = cparse.match_back(toks, j)
    return bool(o) and toks[o - 1].text in ("if", "while", "for")
