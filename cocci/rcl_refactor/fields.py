# SPDX-License-Identifier: MIT
"""Which structure a lock field belongs to.  A field lock is keyed
"TAG.field": TAG is the structure's tag, or the typedef name of an
anonymous typedef'd structure (a nested anonymous structure member is
"OUTER.member").  When one structure of the loaded files declares the
field, every X->field and X.field is that structure's; when several do,
the type of X is inferred from the declarations of locals, parameters,
globals, typedefs and structure members (member chains, subscripts,
casts); when it cannot be, the use names every candidate."""
import re

from . import analyse, cparse
from .find import lock_key

_NOT_CALLS = ("if", "while", "for", "switch", "return", "sizeof", "case")
_QUALIFIERS = ("const", "volatile", "static", "extern", "__extension__",
               "register")


class Fields:
    """Structures, typedefs and globals of the loaded files."""

    def __init__(self, files, lock_types, decl_macros=()):
        self.lock_types = lock_types  # type name -> "mutex" | "cond"
        # function-like macros whose body ends with its own ';' (SPLASH-2's
        # `#define LOCKDEC(l) pthread_mutex_t l;`): an invocation in a
        # structure's body is a member of its own, with no ';' after it
        self.decl_macros = set(decl_macros)
        self.members = {}  # tag -> {member: type (see spec_type)}
        # tag -> [(member or None, type)]: the members in the order a
        # brace initialiser gives them values; an anonymous structure
        # member is one entry (None, ("tag", "TAG.{N}")), its own members
        # (keyed as TAG's) listed under that pseudo tag (anon_owner).
        self.order = {}
        # tag -> the same, with the members in branches the compiler skips
        # (`#ifdef DEBUG_MUTEXES` fields before the mutex, in icecast's
        # mutex_t): an initialiser in a skipped branch is read with these
        self.order_all = {}
        self.anon_owner = {}  # pseudo tag -> the tag its members are keyed by
        self.array_members = set()  # (tag, member) declared as arrays
        self.tdefs = {}    # typedef name -> type
        self.globals = {}  # name -> set of types
        self.returns = {}  # function -> set of the types its prototypes give
        self.owner = {}    # (path, index of a lock type token) -> tag
        self.cands = {}    # (kind, field) -> set of tags declaring it
        self.macro_tags = set()  # tags some of whose members a macro declares
        # tag -> {member: type} of the structure bodies in the branches
        # lex() does not read (tor's atomic_counter_t, whose `mutex` member
        # only the #else of HAVE_WORKING_STDATOMIC declares): a member
        # named like a lock field, of a structure that has one in another
        # configuration, is that structure's (keys())
        self.other_members = {}
        # (path, tag) -> [(line, member, type)] of the members a file
        # declares on lines the compiler skips (SQLite's mutex_w32.c, all
        # of it under #if SQLITE_MUTEX_W32, has its own struct
        # sqlite3_mutex whose `mutex` is a CRITICAL_SECTION): see keys()
        self.skipped_defs = {}
        for f in files:
            self._skipped = f.skipped.lines if getattr(
                f, "skipped", None) is not None else frozenset()
            self._line_of = f.src.line_of
            try:
                self._scan_structs(f.src.toks, f.path)
                self._scan_top(f)
            except cparse.ParseError as e:
                e.path = f.display
                raise
            self._scan_unread(f)

    def _scan_unread(self, f):
        """other_members from the branches of @f lex() leaves out; a run
        that is no whole structure body (a branch opening a function) is
        passed over."""
        other = Fields.__new__(Fields)
        other.lock_types = {}
        other.members, other.order, other.order_all = {}, {}, {}
        other.anon_owner, other.array_members = {}, set()
        other.cands, other.owner = {}, {}
        other._skipped, other._line_of = frozenset(), f.src.line_of
        other.skipped_defs = {}
        other.decl_macros = self.decl_macros
        for run in cparse.unread_runs(f.src.text, f.src,
                                      getattr(f, "skipped", None)):
            try:
                other._scan_structs(run, f.path)
            except cparse.ParseError:
                continue
        for tag, mem in other.members.items():
            self.other_members.setdefault(tag, {}).update(mem)

    # -- what the files declare -------------------------------------------
    def _scan_structs(self, toks, path):
        k = 0
        while k < len(toks):
            o = _body_open(toks, k)
            if o is None:
                k += 1
                continue
            c = cparse.match(toks, o)
            tag = toks[k + 1].text if o == k + 2 else \
                _declarator_after(toks, c)
            if tag:
                self._body(toks, path, o, c, tag)
            k = c + 1

    def _body(self, toks, path, o, c, tag, otag=None):
        """The members of the structure body toks[o..c], tagged @tag;
        @otag: the tag their order is listed under (Fields.order), when
        not @tag's (an anonymous member's pseudo tag)."""
        mem = self.members.setdefault(tag, {})
        order = self.order_all[otag or tag] = []
        skipped = set()  # indexes in order of members the compiler skips
        a = j = o + 1
        while j < c:
            t = toks[j]
            if t.kind == "pp" and a == j:
                a = j = j + 1
                continue
            if a == j and t.text in self.decl_macros and j + 1 < c and \
                    toks[j + 1].text == "(":
                close = cparse.match(toks, j + 1)
                if close is not None and close + 1 < c and \
                        toks[close + 1].text != ";":
                    a = j = close + 1  # libclang reads its field
                    continue
            if t.text in ("(", "[", "{") and t.kind == "punct":
                j = cparse.match(toks, j) + 1
                continue
            if t.text == ";":
                n0 = len(order)
                self._member(toks, path, a, j, tag, mem, order, otag or tag)
                if self._skipped and \
                        self._line_of(toks[a].start) in self._skipped:
                    skipped.update(range(n0, len(order)))
                    for name, typ in order[n0:]:
                        self.skipped_defs.setdefault((path, tag), []).append(
                            (self._line_of(toks[a].start), name, typ))
                a = j + 1
            j += 1
        self.order[otag or tag] = [m for i, m in enumerate(order)
                                   if i not in skipped]

    def _member(self, toks, path, a, b, tag, mem, order, otag):
        """One member declaration, tokens [a, b) without its ';'."""
        s = a
        while s < b and toks[s].text in _QUALIFIERS:
            s += 1
        decls = analyse.parse_decl(toks, a, b, None)
        o = _body_open(toks, s) if s < b else None
        if o is not None:
            inner = toks[s + 1].text if o == s + 2 else (
                "%s.%s" % (tag, decls[0].name) if decls else tag)
            if decls or inner != tag:
                self._body(toks, path, o, cparse.match(toks, o), inner)
            else:
                # struct { pthread_mutex_t lock; long n; };: its members
                # are the outer structure's (s.lock), one initialiser
                # brace level below it
                pseudo = "%s.{%d}" % (otag, len(order))
                self.anon_owner[pseudo] = tag
                self._body(toks, path, o, cparse.match(toks, o), tag, pseudo)
                order.append((None, ("tag", pseudo)))
            for d in decls:
                mem[d.name] = ("tag", inner)
                order.append((d.name, ("tag", inner)))
                if "[" in d.declarator:
                    self.array_members.add((tag, d.name))
            return
        typ = spec_type(toks[a:b])
        kind = self.lock_types.get(toks[s].text) if s < b else None
        for d in decls:
            mem[d.name] = typ
            order.append((d.name, typ))
            if "[" in d.declarator:
                self.array_members.add((tag, d.name))
            if kind:
                self.cands.setdefault((kind, d.name), set()).add(tag)
        for i in range(a, b):
            if toks[i].text in self.lock_types:
                self.owner[(path, i)] = tag

    def _scan_top(self, f):
        """Typedefs and globals: the file-scope declarations."""
        toks = f.src.toks
        bodies = {bo: bc for _, _, bo, bc in f.funcs}
        s = j = 0
        while j < len(toks):
            t = toks[j]
            if t.kind == "pp":
                s = j = j + 1
                continue
            if t.text == "{" and j in bodies:
                s = j = bodies[j] + 1
                continue
            if t.text == "{" and j >= 2 and toks[j - 1].text == '"C"' and \
                    toks[j - 2].text == "extern":
                # `extern "C" {` of a header that C++ includes too
                # (dav1d.h): its declarations are file-scope ones
                s = j = j + 1
                continue
            if t.text == "}" and t.kind == "punct":
                s = j = j + 1  # the end of such a block
                continue
            if t.text in ("(", "[", "{") and t.kind == "punct":
                j = cparse.match(toks, j) + 1
                continue
            if t.text == ";":
                self._top_decl(toks, s, j)
                s = j + 1
            j += 1

    def _top_decl(self, toks, a, b):
        if a >= b:
            return
        typedef = toks[a].text == "typedef"
        if typedef:
            a += 1
        decls = analyse.parse_decl(toks, a, b, None)
        typ = spec_type(toks[a:b], [d.name for d in decls])
        for d in decls:
            fn = re.match(r"[\s*]*(\w+)\s*\(", d.declarator)
            if fn and not typedef:
                # a prototype: what a call returns (SQLite's
                # `sqlite3 *sqlite3VdbeDb(const Vdbe*);`, in
                # `sqlite3VdbeDb(p)->mutex`)
                self.returns.setdefault(fn.group(1), set()).add(typ)
            if re.match(r"\w+\s*\(", d.declarator):
                continue  # a function prototype
            if typedef:
                if typ is not None and typ != ("alias", d.name):
                    self.tdefs[d.name] = typ
            else:
                self.globals.setdefault(d.name, set()).add(typ)

    def _skipped_other(self, tag, field, at):
        """Whether the member @field of structure @tag, used on a skipped
        line (@at: path, line, skipped lines), is that of a definition of
        @tag the same file gives earlier in the same skipped range, where
        @field is no lock: whenever the use is compiled, so is that
        definition (mutex_w32.c's `InitializeCriticalSection(&p->mutex)`)."""
        path, line, lines = at
        for dl, name, typ in self.skipped_defs.get((path, tag), ()):
            if name == field and dl <= line and \
                    all(n in lines for n in range(dl, line + 1)):
                return _no_lock(self.lock_types, typ)
        return False

    # -- types of expressions ---------------------------------------------
    def resolve(self, typ):
        """The structure tag a type (from spec_type) names, or None."""
        for _ in range(16):
            if typ is None or typ[0] == "tag":
                return typ and typ[1]
            typ = self.tdefs.get(typ[1])
        return None

    def global_type(self, name):
        tags = {self.resolve(t) for t in self.globals.get(name, ())}
        return tags.pop() if len(tags) == 1 else None

    def type_of(self, ts, var_type):
        """Structure tag of the expression tokens @ts, or None;
        @var_type(name) gives the tag of a variable."""
        ts = _strip(ts)
        if not ts:
            return None
        if ts[0].text == "(":
            close = _match(ts, 0)
            if close is None:
                return None
            # a cast; `(box_t *)(h)->area` too: words and a last '*' in
            # parentheses are no expression
            inner = ts[1:close]
            if close < len(ts) - 1 and (
                    ts[close + 1].text not in ("(", "[", "->", ".") or
                    ts[close + 1].text == "(" and inner and
                    inner[-1].text == "*" and
                    all(t.kind == "id" or t.text == "*" for t in inner)):
                return self.resolve(spec_type(inner))
        last = ts[-1]
        if last.text == "]":
            o = cparse.match_back(ts, len(ts) - 1)
            return self.type_of(ts[:o], var_type) if o else None
        if last.text == ")":
            # f(args): what the prototypes of f say it returns
            o = cparse.match_back(ts, len(ts) - 1)
            if o != 1 or ts[0].kind != "id":
                return None
            tags = {self.resolve(t) for t in self.returns.get(ts[0].text,
                                                             ())}
            return tags.pop() if len(tags) == 1 else None
        if last.kind != "id":
            return None
        if len(ts) == 1:
            return var_type(last.text)
        if ts[-2].text in (".", "->"):
            tag = self.type_of(ts[:-2], var_type)
            return self.resolve(self.members.get(tag, {}).get(last.text)) \
                if tag else None
        return None

    def keys(self, ts, kind, var_type, skipped_at=None):
        """(key names, field) for the lock expression tokens @ts: [name]
        for a variable, ["TAG.field"] for a field whose structure is
        known, every candidate structure's key (and the field name) when
        it is not; [] when the expression names no lock.  @skipped_at:
        (path, line, skipped lines) of an expression on a line the
        compiler skips."""
        name = lock_key("".join(t.text for t in ts))
        if name is None or not name.startswith("."):
            return ([name] if name else []), None
        field = name[1:]
        cands = sorted(self.cands.get((kind, field), ()))
        if not cands:
            return [name], None
        ts = _strip(ts)
        while ts and ts[-1].text == "]":
            ts = ts[:cparse.match_back(ts, len(ts) - 1) or 0]
        tag = self.type_of(ts[:-2], var_type) if len(ts) > 2 and \
            ts[-2].text in (".", "->") else None
        if tag is not None and skipped_at is not None and \
                self._skipped_other(tag, field, skipped_at):
            return [], None
        declares = tag is not None and (
            field in self.members.get(tag, {}) or
            field in self.other_members.get(tag, {}))
        if len(cands) == 1:
            if tag is not None and tag != cands[0] and declares:
                # a member of another structure the files declare, named
                # like the lock (wget2's struct _wget_bar_st's handle
                # `mutex` beside the opaque structure's pthread_mutex_t
                # mutex): no lock
                return [], None
            return ["%s.%s" % (cands[0], field)], None
        if tag in cands:
            return ["%s.%s" % (tag, field)], None
        if declares:
            # the member of another structure the files declare (apr's
            # apr_thread_mutex_t's `apr_thread_cond_t *cond`, beside two
            # structures whose `cond` is a pthread_cond_t): no lock
            return [], None
        return ["%s.%s" % (c, field) for c in cands], field


def _no_lock(lock_types, typ):
    return typ is not None and not (typ[0] == "alias" and
                                    typ[1] in lock_types)


def postfix_start(toks, k):
    """Start of the member chain ending at the member name @k (a->b[i].k),
    or None when nothing precedes the '.' (a designated initialiser)."""
    j = k
    while j >= 2 and toks[j - 1].text in (".", "->"):
        i = j - 2
        while i is not None and toks[i].text == "]":
            i = cparse.match_back(toks, i)
            i = i - 1 if i else None
        if i is None:
            return None
        if toks[i].text == ")":
            o = cparse.match_back(toks, i)
            if o is None:
                return None
            call = o and toks[o - 1].kind == "id" and \
                toks[o - 1].text not in _NOT_CALLS
            j = o - 1 if call else o
        elif toks[i].kind == "id":
            j = i
        else:
            return None
    return j if j < k else None


def _body_open(toks, k):
    """Index of '{' when toks[k] starts `struct [TAG] {`, else None."""
    if toks[k].text not in ("struct", "union") or k + 2 >= len(toks):
        return None
    if toks[k + 1].text == "{":
        return k + 1
    if toks[k + 1].kind == "id" and toks[k + 2].text == "{":
        return k + 2
    return None


def _declarator_after(toks, c):
    """The first name declared after the '}' at @c (typedef or variable)."""
    j = c + 1
    while j < len(toks) and (toks[j].text in ("*",) + _QUALIFIERS or
                             toks[j].text == "__attribute__"):
        if toks[j].text == "__attribute__" and toks[j + 1].text == "(":
            j = cparse.match(toks, j + 1)
        j += 1
    return toks[j].text if j < len(toks) and toks[j].kind == "id" else None


def spec_type(ts, names=()):
    """The type a declaration specifier names: ("tag", TAG) for a
    structure (an anonymous one takes the first declared name), ("alias",
    NAME) for a typedef name, None for anything else."""
    alias = None
    depth = 0
    for i, t in enumerate(ts):
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        if depth or t.text == ")":
            continue  # __attribute__((...))
        if t.text in ("struct", "union"):
            if i + 1 < len(ts) and ts[i + 1].kind == "id":
                return ("tag", ts[i + 1].text)
            return ("tag", names[0]) if names else None
        if t.text == "enum" or t.text in analyse.BASIC:
            return None
        if t.kind != "id" or t.text in analyse.SPEC_WORDS:
            continue
        if not names:
            return ("alias", t.text)
        if t.text in names:
            break
        # Before the declared names, the last word is the type's: the
        # others are macros of storage classes or attributes (pigz's
        # `local lock threads_lock = {...}`, `#define local static`).
        alias = ("alias", t.text)
    return alias


def _strip(ts):
    """Drop leading & and *, and parentheses around the whole."""
    while ts:
        if ts[0].text in ("&", "*"):
            ts = ts[1:]
        elif ts[0].text == "(" and _match(ts, 0) == len(ts) - 1:
            ts = ts[1:-1]
        else:
            break
    return ts


def _match(ts, i):
    try:
        return cparse.match(ts, i)
    except cparse.ParseError:
        return None
