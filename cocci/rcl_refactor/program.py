# SPDX-License-Identifier: MIT
"""The program being refactored: its files, its locks (by key), their
declarations, initialisation sites, condition variables and sections, and
the decision of which locks are converted to liblock."""
import os
import re
import sys

from . import analyse, cond, cparse, fields, find, frontend, handles, \
    macrobody, output, safety, scoped
from .find import canon

# Mutex types whose owner does not matter (glibc's DEFAULT is NORMAL).
_PLAIN_TYPES = ("PTHREAD_MUTEX_NORMAL", "PTHREAD_MUTEX_DEFAULT",
                "PTHREAD_MUTEX_ADAPTIVE_NP", "PTHREAD_MUTEX_TIMED_NP",
                "PTHREAD_MUTEX_FAST_NP")
# Mutex types whose owner matters: a recursive mutex is taken again by
# its owner, an error-checking one refuses its owner a second lock and
# others the unlock.  Where no thread ever takes the mutex while it holds
# it, the program cannot tell them from a plain mutex (Key.owned).
_OWNER_TYPES = ("PTHREAD_MUTEX_RECURSIVE", "PTHREAD_MUTEX_RECURSIVE_NP",
                "PTHREAD_MUTEX_ERRORCHECK", "PTHREAD_MUTEX_ERRORCHECK_NP")


def _call_around(toks, k):
    """(name, argument index) of the call whose argument holds token @k,
    or (None, None)."""
    depth, pos = 0, 0
    for j in range(k - 1, -1, -1):
        t = toks[j].text
        if t in (")", "]", "}"):
            depth += 1
        elif t in ("(", "[", "{"):
            if depth == 0:
                if t == "(" and j > 0 and toks[j - 1].kind == "id":
                    return toks[j - 1].text, pos
                return None, None
            depth -= 1
        elif t == "," and depth == 0:
            pos += 1
        elif t == ";" and depth == 0:
            return None, None
    return None, None


COND_FNS = find.COND_API
MUTEX_FNS = find.MUTEX_API
OWNED_INITIALIZERS = ("PTHREAD_RECURSIVE_MUTEX_INITIALIZER",
                      "PTHREAD_ERRORCHECK_MUTEX_INITIALIZER")
# Static initialisers of a plain mutex: glibc's adaptive one only spins a
# little before it sleeps; its owner does not matter.
PLAIN_INITIALIZERS = ("PTHREAD_MUTEX_INITIALIZER",
                      "PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP")


class File:
    def __init__(self, path, display, is_header, root, skipped=None,
                 end_line=None):
        self.path, self.display, self.is_header = path, display, is_header
        self.skipped = skipped
        # line of a function's '{' -> its last line, as the compiler
        # reads it (cparse.find_functions())
        self.end_line = end_line
        with open(path, "rb") as f:
            data = f.read()
        self.rel = os.path.relpath(path, root)
        # A file whose lines all end in CRLF is worked on with LF ones
        # (the scanners split lines, and join continuations, at LF only);
        # output.py writes it back with CRLF, byte for byte.
        text = data.decode("latin-1")
        self.eol = output.line_ending(text)
        self.retext(text.replace(output.CRLF, output.LF)
                    if self.eol == output.CRLF else text)
        self.facts = None
        self.edits = []        # small token edits (start, end, text)
        self.big = []          # section replacements
        self.before = {}       # offset -> [text inserted there]
        self.needs_include = False
        self.needs_errno = False  # a section carries errno (extract.py)
        self.dead_defines = set()  # lines of #defines not compiled
        # object-like macros that close a function's body (Program: see
        # rewrite.def_start())
        self.closing_macros = frozenset()

    def retext(self, text):
        """Work on @text from now on (the file's, or lift's rewrite)."""
        self.src = cparse.Source(self.path, text, self.skipped)
        self.src.display, self.src.rel = self.display, self.rel
        self.funcs = list(cparse.find_functions(self.src, self.end_line))
        self.finfo = {}
        self.unread = {}   # name token -> FuncInfo of an unparsed function

    def func_at(self, off, parser_typedefs=(), lenient=False):
        """The FuncInfo of the function whose body holds offset @off, or
        None.  When the parser cannot cut its statements: a ParseError,
        or with @lenient a FuncInfo without statements whose @unread says
        why (the stages that place sections hold them; the others treat
        the error as what they do not know)."""
        try:
            return self._func_at(off, parser_typedefs)
        except cparse.ParseError as e:
            if lenient:
                return self._unread_at(off, e)
            e.path = self.display
            raise

    def _unread_at(self, off, err):
        span = self._span_at(off)
        if span is None:
            return None
        if span[1] not in self.unread:
            self.unread[span[1]] = analyse.unread_function(
                self.src, *span, err)
        return self.unread[span[1]]

    def _span_at(self, off):
        """(name, name token, '{', '}') of the function whose body holds
        offset @off, or None."""
        toks = self.src.toks
        for span in self.funcs:
            if toks[span[2]].start <= off < toks[span[3]].end:
                return span
        return None

    def _func_at(self, off, parser_typedefs=()):
        span = self._span_at(off)
        if span is None:
            return None
        if span[1] not in self.finfo:
            self.finfo[span[1]] = analyse.FuncInfo(
                self.src, *span, cparse.Parser(self.src, parser_typedefs))
        return self.finfo[span[1]]

    def in_function(self, k):
        return any(ni <= k <= bc for _, ni, _, bc in self.funcs)

    def line(self, k):
        return self.src.line_of(self.src.toks[k].start)


class Key:
    """Everything known about one lock (or condition variable) key."""

    def __init__(self, name, kind):
        self.name, self.kind = name, kind  # kind: "mutex" or "cond"
        self.sections = []
        self.sites = []     # (File, token index, "init"|"static"|"macro")
        # "macro" sites: (path, #define token) -> (start, end) of the
        # static initialiser inside the macro's body (Program._init_macros)
        self.macro_inits = {}
        # the same, for that macro's definitions in the branches the
        # compiler skips: (path, #define token) -> [(File, start, end)]
        # (rewritten alike, for a build that enables them)
        self.macro_inits_other = {}
        # A recursive or error-checking mutex: how it is made so.  It
        # becomes a liblock lock of that type; no section that may take it
        # again runs on the server (rewrite._owned_decide()).
        self.owned = None
        self.decls = []     # (File, token index of the type token)
        # Declared in a macro's body: (File, start, end of the type name
        # in the #define, "MACRO at FILE:LINE"), shared by every
        # structure that expands the macro.
        self.macro_decls = []
        # (File, start, end, new text): a field declared by a function-like
        # macro's invocation (`lws_pthread_mutex(lock)`), rewritten there
        self.call_decls = []
        self.why = None     # reason it stays POSIX
        self.destroyed = False  # pthread_mutex_destroy() names it
        # (File, token) of the compound literals that initialise it again
        # at run time (Program.compound_hit)
        self.resets = []
        self.partners = set()  # cond: mutex keys; mutex: cond keys
        self.waits = []     # (File, tok) of cond waits with this mutex
        self.calls = {"lock": [], "unlock": [], "trylock": []}
        # (File, token, SectionMacro): expansions of a macro whose body
        # locks it (macrobody.py)
        self.macro_calls = []
        # (File, start, end, new name): its lock/unlock/trylock calls in
        # code the build does not compile (safety.skipped_lock_calls()),
        # or in a function the tool does not read (safety._in_place())
        self.skipped_calls = []
        # (file, line, reason) of its lock calls held in place in a
        # function the tool does not read (safety._in_place())
        self.in_place = []

    def declared(self):
        """Whether a declaration of it was found to rewrite: its own, one
        in a macro's body, or a macro's invocation."""
        return bool(self.decls or self.macro_decls or self.call_decls)

    def refuse(self, why):
        if self.why is None:
            self.why = why


class Program:
    def __init__(self, opts, report):
        self.opts, self.report = opts, report
        self.files = []
        self.fns = {}
        self.keys = {}
        self.sec_at = None  # (path, lock token) -> Section, when built
        self.chosen = set()  # mutex keys selected (rewrite.analyse_all)
        self.typedefs = set()
        self._macro_locs = {}  # (path, offset) -> Loc key of a macro field
        # Pointer locals to mutexes: (path, decl token) -> PtrLocal.
        self.ptr_locals = {}
        # (File, type token, name, kind) of the parameters of mutex type
        # of function definitions (_param_decls())
        self.param_decls = []
        # Addresses of locks carried between functions (handles.py).
        self.handles = None
        # Macros whose bodies call lock functions (macrobody.py).
        self.section_macros = {}
        # Locals that save a lock by value and put it back (_value_copies).
        self.value_copies = []
        # Heap storage of pointer keys (`p = malloc(sizeof(pthread_mutex_t))`):
        # (key name, File, tokens of the mutex type to become liblock_lock_t).
        self.ptr_allocs = []
        # pointer key -> {mutex key whose address it is assigned: where}
        # (`args[i].lock = &count_lock;`): converted together or not at
        # all (rewrite._pointee_tie())
        self.ptr_pointees = {}
        # Set by _member_initialized() when the initialiser it read is in
        # a compound literal (`*o = (struct obj){ .mu =
        # PTHREAD_MUTEX_INITIALIZER }`): an object reset at run time
        # (Key.resets, _undestroyed_fields())
        self.compound_hit = False
        # The same for pointers to conditions (`struct targ { pthread_cond_t
        # *cv; }` given `&cv`): a pointer may hold several, all converted
        # with it (rewrite._cond_pointees()).
        self.cond_pointees = {}
        # (key name, File, type token) of the mutexes declared in the
        # outermost block of main() (_main_locals())
        self.main_locals = []
        # Cancellation cleanup handlers that unlock a lock
        # (_cleanup_unlocks): (File, first and last token of the handler
        # argument, key name).
        self.cleanup_unlocks = []
        self._heap = None

    def key(self, name, kind="mutex"):
        k = (kind, name)
        if k not in self.keys:
            self.keys[k] = Key(name, kind)
        return self.keys[k]

    # -- loading -----------------------------------------------------------
    def load(self, paths, root, forced=()):
        """The files named, the forced includes of their build (-include
        config.h) and the project headers they include."""
        seen = set()
        # The branches the compiler reads with the unit's flags.
        fe = getattr(self, "frontend", None)
        todo = [(p, False) for p in paths] + [(p, True) for p in forced]
        while todo:
            p, hdr = todo.pop(0)
            rp = os.path.realpath(p)
            if rp in seen:
                continue
            seen.add(rp)
            try:
                f = File(p, os.path.relpath(p, root) if hdr else p, hdr,
                         root, fe.skipped_lines(rp) if fe else None,
                         fe.end_line_of(rp) if fe else None)
            except cparse.ParseError as e:
                e.path = p
                raise
            self.files.append(f)
            for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*'
                                 r'(?:"([^"]+)"|<([^>]+)>)',
                                 f.src.text, re.M):
                # Not an #include the compiler skips in every unit that
                # reads this file: unbound's util/locks.h includes the
                # debug lock checker's header, whose lock macros would win,
                # only #ifdef USE_THREAD_DEBUG.
                if f.skipped is not None and \
                        f.src.line_of(m.start()) in f.skipped.lines:
                    continue
                # `#include <setup.h>` with -I. (siege): a project header
                # found through the -I directories, which the system's
                # are not (-I/usr/include/libxml2 of pkg-config).
                inc = m.group(1) or m.group(2)
                dirs = [d for d in self.opts.include if not
                        (os.path.abspath(d) + "/").startswith(_SYSTEM_DIRS)]
                if m.group(1):
                    dirs.insert(0, os.path.dirname(p) or ".")
                for d in dirs:
                    cand = os.path.normpath(os.path.join(d, inc))
                    if os.path.isfile(cand) and \
                            os.path.basename(cand) != "rcl-config.h":
                        todo.append((cand, True))
                        break

    def lock_functions(self):
        fns = {find.PTHREAD[r]: find.LockFn(find.PTHREAD[r], r)
               for r in find.PTHREAD}
        find.CHECKED_API.clear()
        find.AMBIGUOUS_MACROS.clear()
        macros = {}
        env = cond.Env(self.opts.define, self.opts.undef)
        given = []
        imposed = {}
        for path in self.opts.macro_file:
            with open(path, encoding="latin-1") as fh:
                text = fh.read()
            cond.scan(text, env, imposed)
            given += [(m.group(1), m.group(2)) for m in _OBJECT_DEFINE.
                      finditer(text)]
        macros.update(imposed)
        for f in self.files:
            # With -p the build's flags decide every #if, as the compiler
            # does; a file named alone may lack them, so a condition on a
            # macro nobody gives reads both branches (cond.scan).
            cond.scan(f.src.text, env, macros, f.dead_defines,
                      f.skipped if self.opts.commands else None)
            # autoconf's config.h says what it leaves undefined.
            for m in re.finditer(r"^/\*[ \t]*#[ \t]*undef[ \t]+(\w+)[ \t]*"
                                 r"\*/", f.src.text, re.M):
                if env.defined(m.group(1)) is None:
                    env.undef.add(m.group(1))
        # A name the files define again after an #undef, or define in
        # each of several files (squeezelite's stream.c and output.c each
        # `#define LOCK()` on their own buffer): the scan keeps the last
        # definition, and every other use would be read with it.  Those
        # it dropped are rivals: find.add_macros() takes none for a lock
        # macro when they lock different things.  (Definitions in the
        # branches of an #if the run cannot decide stay alternatives, the
        # first that maps to a lock used: rcl-refactor(1).)
        rivals = {}
        for f in self.files:
            for m in _FUNCTION_DEFINE.finditer(f.src.text):
                name = m.group(1)
                ln = f.src.line_of(m.start(1))
                if name not in macros or name in imposed or \
                        ln in f.dead_defines or (
                            f.skipped is not None and
                            ln in f.skipped.lines):
                    continue
                ps = re.match(r"[^(]*\(([^)]*)\)", m.group(0))
                cand = ([p.strip() for p in ps.group(1).split(",")
                         if p.strip()],
                        m.group(2).replace("\\\n", " ").strip())
                known = [(ps, " ".join(b.split()))
                         for ps, b in macros[name] + rivals.get(name, [])]
                if (cand[0], " ".join(cand[1].split())) not in known:
                    rivals.setdefault(name, []).append(cand)
        # The --macro-file definitions win over the files' own, as
        # rcl-refactor(1) says (the user knows better than the #if).
        macros.update(imposed)
        self.macro_cands = macros
        # Object-like aliases of a lock or pthread function (x264's
        # `#define x264_pthread_mutex_lock pthread_mutex_lock`): resolved
        # with the function-like macros, as macros without parameters.
        resolved = dict(self._aliases(given))
        resolved.update(macros)
        hint = find.macro_hint(macros)
        checkers = find.checker_macros(macros, hint)
        self.macro_rivals = rivals
        find.add_macros(fns, resolved, checkers, rivals)
        analyse.CHECKERS.clear()
        analyse.CHECKERS.update(checkers)
        analyse.HINTS.clear()
        analyse.HINTS.update(n for n in macros if hint(n) is not None)
        self.api = find.pthread_api(resolved, checkers)
        env.build_flags = bool(self.opts.commands)
        self.ppenv = env
        self.macros = {name: _chosen(fns, name, cands)
                       for name, cands in macros.items() if cands}
        found = []
        in_c = {}  # alias name -> the .c files that #define it
        self.live_objects = {}  # object-like macro -> bodies not dead
        # function-like macro -> {(params, body)} not dead (live_expand())
        self.live_functions = {}
        # function-like macro -> {(params, body)} of the definitions on
        # lines the compiler skips (-p): what a call in skipped code may
        # expand to (apr's proc_pthread_mutex_cond(m), defined and used
        # under #if APR_USE_PROC_PTHREAD_MUTEX_COND; see
        # safety._macros_expanded)
        self.skipped_functions = {}
        for f in self.files:
            for m in _FUNCTION_DEFINE.finditer(f.src.text):
                ln = f.src.line_of(m.start(1))
                params = re.match(r"[^(]*\(([^)]*)\)", m.group(0))
                if params is not None and f.skipped is not None and \
                        ln in f.skipped.lines:
                    ps = tuple(x.strip() for x in params.group(1).split(","))
                    self.skipped_functions.setdefault(m.group(1), set()).add(
                        (ps, m.group(2).replace("\\\n", " ").strip()))
                if ln in f.dead_defines or params is None or (
                        f.skipped is not None and ln in f.skipped.lines):
                    continue
                self.live_functions.setdefault(m.group(1), set()).add((
                    tuple(x.strip() for x in params.group(1).split(",")),
                    m.group(2).replace("\\\n", " ").strip()))
            for m in _OBJECT_DEFINE.finditer(f.src.text):
                self.macros.setdefault(m.group(1), ([], m.group(2)))
                ln = f.src.line_of(m.start(1))
                if ln not in f.dead_defines:
                    found.append((m.group(1), m.group(2)))
                    if f.skipped is None or ln not in f.skipped.lines:
                        self.live_objects.setdefault(m.group(1),
                                                     set()).add(
                            m.group(2).strip())
                    if not f.is_header:
                        in_c.setdefault(m.group(1), set()).add(f.path)
                    else:
                        in_c.setdefault(m.group(1), set()).add(None)
        # Object-like macros that close more braces than they open
        # (rsyslog's ENDdoAction, `RETiRet; }`): the text before a
        # definition that follows one is not part of its head
        # (rewrite.def_start()).
        closing = frozenset(
            n for n, bodies in self.live_objects.items()
            if any(b.count("}") > b.count("{") for b in bodies))
        for f in self.files:
            f.closing_macros = closing
        # typedef pthread_mutex_t mythread_mutex; (liblzma) names the type
        # as a #define would.
        # Not one in a branch the compiler skips: unbound's util/locks.h
        # makes lock_rw_type a pthread_mutex_t only where there are no
        # rwlocks.
        for f in self.files:
            found += [(m.group(2), m.group(1))
                      for m in _TYPEDEF_ALIAS.finditer(f.src.text)
                      if f.skipped is None or
                      f.src.line_of(m.start()) not in f.skipped.lines]
        # The compiler knows every typedef of the mutex type, through
        # chains of typedefs (typedef pthread_mutex_t uv_mutex_t; typedef
        # uv_mutex_t q_mutex_t;) and in the headers of -I.
        fe = getattr(self, "frontend", None)
        if fe is not None:
            found += [(n, "pthread_mutex_t" if kind == "mutex" else
                       "pthread_cond_t")
                      for n, kind in sorted(fe.sync_types().items())]
        self.types = find.type_aliases(given, found)
        self._local_types(in_c, given,
                          [(n, b) for n, b in found if n not in in_c])
        # Wrappers of wrappers (table_lock(t) calls xlock(&t->mu), which
        # calls pthread with its parameter), whatever their order.
        def sole(f):
            if fe is None:
                return None
            return lambda name, line: (fe.sole_call(f.path, line, name),
                                       fe.sole_plain(f.path, line, name))

        def returns(f):
            if fe is None:
                return None
            return lambda name, line: fe.sole_return(f.path, line, name)
        # A name that two files define (multipath-tools' static inline
        # lock() of lock.h, which also counts waiters, and the nvme
        # plugin's global trivial lock()) is no wrapper: a call does not
        # say which of them it reaches.  (Two definitions in one file are
        # branches of an #if: one is compiled.)
        # With -p, the units not rewritten count too: memcached's
        # testapp.c stubs out STATS_LOCK(), which thread.c defines, and
        # stats_prefix.c is linked with either.
        where = {}
        for f in self.files:
            for name, ni, _, _ in f.funcs:
                if f.skipped is None or \
                        f.src.line_of(f.src.toks[ni].start) not in \
                        f.skipped.lines:
                    where.setdefault(name, set()).add(
                        os.path.realpath(f.path))
        if fe is not None:
            mine = {os.path.realpath(f.path) for f in self.files}
            for name in list(where):
                where[name] |= {os.path.realpath(p)
                                for p in fe.defined_in(name, mine)}
        # name -> [(File, name token, closing brace token)] of each of
        # its definitions, when they are static copies of one text
        self.static_copies = {}
        for n, ps in where.items():
            same = self._same_statics(n, ps) if len(ps) > 1 else None
            if same:
                self.static_copies[n] = same
        self.defined_twice = {n for n, ps in where.items() if len(ps) > 1
                              and n not in self.static_copies}
        handlers = set()
        for f in self.files:
            handlers |= find.cleanup_handlers(f.src.toks)
        while any([find.find_wrappers(f.src, fns, self.api, sole(f),
                                      returns(f), f.funcs,
                                      self.defined_twice, self.live_expand,
                                      handlers, self.static_copies)
                   for f in self.files]):
            pass
        find.add_macros(fns, resolved, rivals=self.macro_rivals)
        for pair in self.opts.lock_fn:
            lk, _, ul = pair.partition("=")
            if lk not in fns and any(
                    re.search(r"\b%s_rcl_exec\b" % lk, f.src.text)
                    for f in self.files):
                continue  # converted by an earlier run
            for name, role in ((lk, "lock"), (ul, "unlock")):
                if name in self.defined_twice:
                    raise ValueError(
                        "--lock-fn %s: %s() is defined in several files "
                        "(%s): a call does not say which one it reaches" % (
                            pair, name, ", ".join(sorted(
                                os.path.relpath(p) for p in where[name]))))
                if name not in fns:
                    raise ValueError("--lock-fn %s: cannot find a definition "
                                     "of %s() whose body only locks or "
                                     "unlocks a mutex" % (pair, name))
                if fns[name].role != role:
                    raise ValueError("--lock-fn %s: %s() does not %s" % (
                        pair, name, role))
        self.fns = fns
        for f in self.files:
            for m in re.finditer(r"typedef\s[^;{]*?\b([A-Za-z_]\w*)\s*;",
                                 f.src.text):
                self.typedefs.add(m.group(1))
            self.typedefs |= _struct_typedefs(f.src.toks)

    def _same_statics(self, name, paths):
        """[(File, name token, closing brace token)] of the definitions
        of function @name in files @paths (real paths) when they are
        static copies of one text, as the compiler reads each, else None:
        liburcu's urcu.c, urcu-qsbr.c, urcu-bp.c and rculfhash.c each
        define `static void mutex_lock(pthread_mutex_t *mutex)`, the same
        body.  A call reaches its own unit's copy, and each does the same
        thing to the mutex it is given, so the name can be one parameter
        wrapper (find.find_wrappers()).  A definition in a file this run
        does not read (with -p) cannot be compared."""
        texts, out = set(), []
        for p in paths:
            f = next((f for f in self.files
                      if os.path.realpath(f.path) == p), None)
            if f is None:
                return None
            toks = f.src.toks
            defs = [(ni, bc) for n, ni, _, bc in f.funcs if n == name and (
                f.skipped is None or
                f.src.line_of(toks[ni].start) not in f.skipped.lines)]
            if len(defs) != 1:
                return None
            ni, bc = defs[0]
            head, static, _ = find.definition_head(toks, ni)
            if not static:
                return None
            texts.add(tuple(t.text for t in toks[head:bc + 1]))
            out.append((f, ni, bc))
        return out if len(texts) == 1 else None

    def sync_puns(self):
        """A lock field that a pointer of another type may point into
        stays POSIX: `pthread_mutex_lock((pthread_mutex_t *)obj)` where
        the structure begins with its mutex, or `pthread_mutex_lock(arg)`
        for a `void *arg` that a thread was handed, would give pthreads
        a lock this run converts, under no name the scan can see
        (frontend.SyncPun says which fields each conversion may reach).
        A global lock handed out that way had its address taken (&m), a
        use the scan refuses by itself."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return
        puns = [p for u in fe.units for p in u.sync_puns]
        if not puns:
            return
        lead = set()
        for u in fe.units:
            lead |= u.lead_fields

        def reaches(pun, name):
            if pun.reach == "all":
                return True
            field = name.partition(".")[2]
            names = lead if pun.reach == "lead" else \
                {(pun.kind, n) for n in pun.reach}
            return (pun.kind, name) in names or \
                (pun.kind, "?." + field) in names
        seen = set()
        for p in puns:
            if (str(p.loc), p.kind) in seen or self._handled_pun(p):
                continue  # a header's function, in every unit
            seen.add((str(p.loc), p.kind))
            named = fe.pointer_returns(p.operand[1]) if p.operand and \
                p.operand[0] == "ret" else None
            if named is not None:
                # the call gives a null pointer or the address of one
                # of these globals: no field is behind it
                for name in sorted(named):
                    key = self.keys.get((p.kind, name))
                    if key is not None:
                        key.refuse(
                            "'%s' from %s() is converted into a pointer to "
                            "a %s at %s (%s), which pthreads would then be "
                            "given" % (p.source, p.operand[1], "mutex" if
                                       p.kind == "mutex" else "condition",
                                       p.loc, p.text))
                continue
            for (kind, name), key in self.keys.items():
                if kind == p.kind and "." in name and reaches(p, name):
                    key.refuse(
                        "'%s' is converted into a pointer to a %s at %s "
                        "(%s): it may point to this lock, which pthreads "
                        "would then be given" % (
                            p.source, "mutex" if kind == "mutex" else
                            "condition", p.loc, p.text))

    def _given_named_locks(self, name, index):
        """Whether every use of function @name in the files is a call, or
        a push as a cancellation cleanup handler, whose argument @index
        (the pushed argument) is the address of a named object, `&x` or
        `&p->lock`: no other pointer, a `void *` that a structure's
        address went into, reaches its parameter."""
        for f in self.files:
            toks = f.src.toks
            heads = {ni for n, ni, _, _ in f.funcs if n == name}
            for k, t in enumerate(toks):
                if t.kind == "pp":
                    if re.search(r"\b%s\b" % re.escape(name), t.text):
                        return False
                    continue
                if t.kind != "id" or t.text != name or k in heads:
                    continue
                if k >= 2 and toks[k - 1].text == "(" and \
                        toks[k - 2].text == "pthread_cleanup_push":
                    o = k - 1
                    args = cparse.split_args(toks, o, cparse.match(toks, o))
                    arg = args[1] if len(args) == 2 else None
                elif k + 1 < len(toks) and toks[k + 1].text == "(":
                    if toks[k - 1].kind == "id" and toks[k - 1].text not in (
                            "return", "else", "do", "case") or \
                            toks[k - 1].text == "*":
                        continue  # a prototype
                    if toks[k - 1].text in (".", "->"):
                        return False
                    args = cparse.split_args(toks, k + 1,
                                             cparse.match(toks, k + 1))
                    arg = args[index] if index < len(args) else None
                else:
                    return False  # its address taken, or stored
                if arg is None or toks[arg[0]].text != "&" or any(
                        toks[j].text == "(" for j in range(*arg)):
                    return False
        return True

    def _no_outside_use(self, name):
        """With -p, whether no unit of the build that is not being
        rewritten calls function @name or takes its address (it could
        hand the function any pointer); without -p, a function that is
        not static may be any other code's: False."""
        fe = getattr(self, "frontend", None)
        if fe is None or self.opts.commands is None:
            return False
        worked = {os.path.realpath(f.path) for f in self.files
                  if not f.is_header}
        for u in fe.units:
            if u.path in worked:
                continue
            if any(n == name for n, _, _ in u.addr_funcs.values()):
                return False
            for fn in u.functions.values():
                if any(c.callee == name for c in fn.calls) or \
                        any(a.callee == name for a in fn.fn_addrs):
                    return False
        return True

    def _handled_pun(self, pun):
        """Whether conversion @pun reads a lock handle (handles.py: a
        `void *` slot) into which only lock expressions, other such slots
        and NULL flow: the locks it carries are that module's keys (where
        the handle goes is that module's business too)."""
        h, o = self.handles, pun.operand
        if o is not None and o[0] == "param":
            # The lock parameter of a lock or unlock wrapper (tgt's
            # cleanup handler `mutex_cleanup(void *mutex)`, which unlocks
            # `mutex`): each call and each push of the wrapper names its
            # lock, read as that lock's call (find.find_wrappers()).
            lf = self.fns.get(o[1])
            w = lf.wrapper if lf is not None else None
            if w and w.get("param") and len(o) > 2 and \
                    0 <= o[2] < len(w["params"]) and \
                    w["params"][o[2]][1] == lf.body and \
                    self._given_named_locks(o[1], o[2]) and \
                    (w.get("static") or self._no_outside_use(o[1])):
                return True
        if h is None or o is None:
            return False
        if o[0] == "param":
            slot = h.params.get(o[1:])
        elif o[0] == "ret":
            slot = h.rets.get(o[1])
        else:
            slot = next((s for (path, _), s in h.vars.items()
                         if s.decl is not None and s.decl.name == o[3] and
                         os.path.realpath(path) == o[1] and
                         s.file.line(s.tok) == o[2]), None)
        if slot is None or not slot.keys:
            return False  # nothing known reaches it: maybe anything
        todo, seen = [slot], {slot}
        while todo:
            s = todo.pop()
            if s.opaque:
                return False
            for src, _ in s.ins:
                if src not in seen:
                    seen.add(src)
                    todo.append(src)
        return True

    def outside_visibility(self):
        """With -p (the whole program): a global lock that is not static
        and that a translation unit not rewritten uses, defines or
        declares (in its own text, or in a header this run does not
        rewrite) stays POSIX: the two halves would disagree on its type.
        So does such a lock, or a field, that a C file of the tree
        uses though the database does not list it (fe.strays: a test
        program another make target builds); a file that does not compile
        with its neighbours' flags gets a note instead."""
        fe = getattr(self, "frontend", None)
        if fe is None or self.opts.commands is None:
            return
        worked = {os.path.realpath(f.path) for f in self.files
                  if not f.is_header}
        headers = {os.path.realpath(f.path) for f in self.files}
        seen = []  # (name, key) that another unit might see
        for (kind, name), key in self.keys.items():
            if kind != "mutex":
                continue
            if "." not in name:
                _, static = fe.declared_in(name)
                if static:
                    continue
            seen.append((name, key))
            # A field: the units that use that structure's (or, without a
            # tag, maybe its) member; xz's stream_decoder_mt.c uses its
            # own struct worker_thread's `mutex`, none of
            # stream_encoder_mt.c's struct worker_thread_s.
            files = fe.outside(name, worked, headers)
            if files:
                key.refuse("not static, and seen by %s, which %s not being "
                           "rewritten (name %s too, or make the lock "
                           "static)" % (", ".join(files), "is" if len(files)
                                        == 1 else "are",
                                        "it" if len(files) == 1 else "them"))
                continue
            files = fe.outside(name, worked, headers, fe.strays)
            if files:
                key.refuse("seen by %s, which compile_commands.json does "
                           "not list (record the build that compiles %s "
                           "too: bear -- make all check)" % (
                               ", ".join(files),
                               "it" if len(files) == 1 else "them"))
        # Only those that would hand pthreads a lock this run converts,
        # by its own name (collectd's tree has a hundred plugins not
        # configured, most of them with a `lock` field of their own, and
        # a file whose headers are missing reads them as fields of
        # unknown structures), once a run (the analysis is run again when
        # the compile check drops a section).
        for path, err, unit in fe.stray_faults:
            used = sorted(name for name, key in seen if not key.why and
                          unit and name in unit.mutex_uses)
            if used and (path, tuple(used)) not in fe.stray_noted:
                fe.stray_noted.add((path, tuple(used)))
                print("rcl-refactor: note: %s is not in "
                      "compile_commands.json and %s: taken as not part of "
                      "this build, though it uses %s; if the build compiles "
                      "it, record that (bear -- make all check)" % (
                          path, err, ", ".join(used)), file=sys.stderr)

    def unnamed_users(self):
        """Without -p nothing says which other files of the project use a
        lock declared in a header this run rewrites: a file not named
        that includes the header and names the lock (a field `->mutex`,
        `.mutex`, or the variable) would still hand pthreads what is now
        a liblock_lock_t (apr's thread_cond.c waits with &mutex->mutex and
        locks nothing).  Such a lock stays POSIX, the file named.  The
        files looked at are the other .c files of the directories of the
        files named (a whole tree would take in other platforms' sources,
        apr's locks/netware/), less files that include liblock.h (an
        earlier run's output)."""
        if self.opts.commands is not None:
            return
        decl_headers = {}  # key -> {basename of a header declaring it}
        for (kind, name), key in self.keys.items():
            hs = {os.path.basename(f.path) for f, _ in key.decls
                  if f.is_header}
            hs |= {os.path.basename(f.path)
                   for f, _, _, _ in key.macro_decls if f.is_header}
            hs |= {os.path.basename(f.path)
                   for f, _, _, _ in key.call_decls if f.is_header}
            if hs and not key.why:
                decl_headers[(kind, name)] = hs
        if not decl_headers:
            return
        read = {os.path.realpath(f.path) for f in self.files}
        dirs = sorted({os.path.dirname(os.path.realpath(f.path))
                       for f in self.files if not f.is_header})
        inc = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]',
                         re.M)
        found = {}  # key -> first file not named that uses it
        for d in dirs:
            try:
                names = sorted(os.listdir(d))
            except OSError:
                continue
            for n in names:
                path = os.path.join(d, n)
                if not n.endswith(".c") or os.path.realpath(path) in read:
                    continue
                try:
                    with open(path, errors="replace") as fh:
                        text = fh.read()
                except OSError:
                    continue
                included = {os.path.basename(m) for m in inc.findall(text)}
                if "liblock.h" in included:
                    continue  # an earlier run's output: its locks are
                    # liblock's or stay POSIX by that run's decisions
                alone = False  # how this build reads it, once asked
                for kn, hs in decl_headers.items():
                    if kn in found or not (hs & included):
                        continue
                    name = kn[1]
                    rx = r"(->|\.)\s*%s\b" % re.escape(
                        name.rsplit(".", 1)[1]) if "." in name else \
                        r"\b%s\b" % re.escape(name)
                    hits = [text.count("\n", 0, m.start()) + 1
                            for m in re.finditer(rx, text)]
                    if not hits:
                        continue
                    if alone is False:
                        alone = self._read_alone(path)
                    if alone is not None and (alone[0] or all(
                            n in alone[1].lines for n in hits)):
                        continue  # not compiled by this build
                    found[kn] = os.path.relpath(path)
        for (kind, name), path in sorted(found.items()):
            self.keys[(kind, name)].refuse(
                "declared in %s, and %s, which includes it and names the "
                "lock, is not being rewritten (name it too, or give the "
                "build's compile_commands.json with -p)" % (
                    " ".join(sorted(decl_headers[(kind, name)])), path))

    def _read_alone(self, path):
        """frontend.preprocess_alone() of the file @path with the -I/-D/-U
        given, or None (no libclang): a file another platform's build
        compiles (Tor's compat_mutex_winthreads.c, which stops at an
        `#error` here) or whose uses of a lock are all in branches this
        build skips (compat_winthreads.c, all of it `#ifdef _WIN32`)
        hands pthreads nothing in this build; -p would not read it
        either, as no compile command names it."""
        try:
            return frontend.preprocess_alone(
                path, self.opts.include, self.opts.define, self.opts.undef)
        except frontend.FrontEndError:
            return None

    # -- naming locks ------------------------------------------------------
    def _names_key(self, expr, kind):
        """Whether expression @expr names a key of @kind: a variable's, or
        a field's of some structure."""
        name = find.lock_key(expr)
        if not name:
            return False
        if not name.startswith("."):
            return (kind, name) in self.keys
        return any(kd == kind and n.endswith(name)
                   for kd, n in self.keys)

    def lock_keys(self, expr, f, k, kind="mutex"):
        """(names, why) of the keys lock expression @expr (text, used at
        token @k of @f) may denote; @why says so when it is a field whose
        structure cannot be told: then @names holds every candidate."""
        expr = _element_address(self.expand_accessors(expr),
                                lambda x: self._names_key(x, kind))
        try:
            ts = cparse.lex(expr)
        except cparse.ParseError:
            return [], None
        pl = self.pointer_local(f, k, canon(expr)) \
            if kind == "mutex" and f is not None else None
        if pl is not None and pl.why is None:
            names, why = self._pointee(pl, k)
            if names or why:
                return names, why
        # A void * or mutex pointer that carries a lock's address between
        # functions (item_trylock()'s): the locks that reach it.
        slot = self.handles.var_for(f, k, expr, faulty=True) \
            if self.handles and kind == "mutex" and f is not None else None
        if slot is not None and pl is not None and (
                slot in self.handles.deferred or not slot.keys):
            slot = None  # the pointer local's own reason, below
        if slot is not None:
            return sorted(slot.keys), slot.fault()
        if pl is not None:
            return self._pointee(pl, k)
        names, field = self.fields.keys(ts, kind,
                                        lambda n: self.var_type(f, k, n))
        fe = getattr(self, "frontend", None)
        if not names and fe and f is not None:
            return self._macro_lock_keys(expr, f, k, kind, fe)
        if field is None:
            # The one structure the files read with such a field may not
            # be this one's: the compiler's, when it names another, is a
            # structure whose declaration this run does not read (siege's
            # `my.lock`, struct CONFIG in a header included as <setup.h>
            # with no -I given) -- not to be taken for the other.
            sole = names[0].split(".", 1) if len(names) == 1 and \
                "." in names[0][1:] else None
            tag = fe.member_owner(f.path, _field_line(f, k, sole[1]),
                                  sole[1]) \
                if sole and fe and f is not None else None
            if tag and tag != sole[0] and \
                    tag in self.fields.cands.get((kind, sole[1]), ()):
                # The compiler's structure, another that declares such a
                # lock: a type name the files define twice (xz's
                # stream_decoder.c and stream_encoder_mt.c each have their
                # own lzma_stream_coder, a typedef in one, a tag in the
                # other) misleads the reading of the text, never the
                # compiler.
                return ["%s.%s" % (tag, sole[1])], None
            if tag and tag != sole[0]:
                return names, "the field '%s' at %s:%d is a member of " \
                    "struct %s, whose declaration is in no file read " \
                    "(give the -I of its header, or -p)" % (
                        sole[1], f.display, f.line(k), tag)
            return names, None
        # The compiler knows the structure behind a macro, and behind a
        # cast (`((box_t *)(h)->area)->lock`, which reads like a call).
        # member_owner() gives no structure for a member whose object
        # expression has a call (fields.type_of() reads a call of a
        # prototyped function; one through a pointer stays unknown:
        # tests/cocci/golden/fields_unsure_refuse).
        tag = fe.member_owner(f.path, _field_line(f, k, field), field) \
            if fe else None
        if tag and tag + "." + field in names:
            return [tag + "." + field], None
        return names, "cannot tell which structure's field '%s' at %s:%d" % (
            field, f.display, f.line(k))

    def _macro_lock_keys(self, expr, f, k, kind, fe):
        """lock_keys() of a lock expression that names its lock through
        macros the text cannot read (apr's `&proc_pthread_mutex(m)`,
        whose body casts a pointer: `((box_t *)(m)->area)->mutex`): the
        member it ends with, in the structure the compiler resolved at
        the expansion (libclang places it at the macro's name), when no
        call is in its object expression (member_owner())."""
        key = find.lock_key(self.expand_accessors(expr, every=True))
        if not key or not key.startswith(".") or \
                (kind, key[1:]) not in self.fields.cands:
            return [], None
        field, toks = key[1:], f.src.toks
        tags = set()
        for j in range(k, min(len(toks), k + 400)):
            if toks[j].text in (";", "{", "}"):
                break
            if toks[j].kind == "id" and toks[j].text in self.macros:
                line, col = scoped.clang_pos(f, toks[j].start)
                tags.add(fe.member_owner(f.path, line, field, col))
        tags.discard(None)
        tag = tags.pop() if len(tags) == 1 else None
        if tag in self.fields.cands[(kind, field)]:
            return ["%s.%s" % (tag, field)], None
        return [], None

    def _api_macro_seen(self, name):
        """Whether @name is a macro for a pthread call that changes its
        arguments (find.ApiCall.template(): lzma's
        `#define CriticalSection_Delete(p)
        pthread_mutex_destroy(&((p)->_mutex))`) whose every expansion
        _scan_calls() reads: no other macro's body names it.  The lock its
        body names is then the one each call names, not every structure's
        field of that name."""
        api = self.api.get(name)
        if api is None or api.template() is None:
            return False
        word = re.compile(r"\b%s\b" % re.escape(name))
        return not any(word.search(body)
                       for n, (_, body) in self.macros.items() if n != name)

    def _local_types(self, in_c, given, others):
        """Scope the type aliases that only .c files #define (@in_c: name
        -> their paths, None for a header) to those files, when another
        file names the same word: icecast's log.c writes `#define mutex_t
        pthread_mutex_t`, while thread.h's mutex_t is a structure holding
        one; read as a mutex type there, `static mutex_t m = {
        PTHREAD_MUTEX_INITIALIZER };` was taken for a mutex variable and
        its field's initialiser was left unconverted.  @given and
        @others: the --macro-file definitions and the other aliases
        (typedefs, the compiler's), which stay global."""
        self.file_types = {}
        named_elsewhere = {n for n, _ in given} | {n for n, _ in others}
        for name, paths in in_c.items():
            kind = self.types.get(name)
            if kind is None or None in paths or name in named_elsewhere or \
                    name in find.PTHREAD_TYPES:
                continue
            word = re.compile(r"\b%s\b" % re.escape(name))
            if not any(f.path not in paths and word.search(f.src.text)
                       for f in self.files):
                continue
            del self.types[name]
            for p in paths:
                self.file_types.setdefault(p, {})[name] = kind

    def types_in(self, f):
        """The type aliases that hold in file @f (see _local_types())."""
        extra = self.file_types.get(f.path) if f is not None else None
        if not extra:
            return self.types
        out = dict(self.types)
        out.update(extra)
        return out

    def _accessor_only(self, name):
        """Whether function-like macro @name, whose body is an expression
        that expand_accessors() reads (`#define OBJ_LOCK(o) (&(o)->mu)`),
        is expanded only as the whole lock argument of lock, unlock,
        trylock and pthread mutex or condition calls: the lock it names
        is converted with theirs."""
        cache = self.__dict__.setdefault("_accessors", {})
        if name in cache:
            return cache[name]
        m = self.macros.get(name)
        call = "%s(%s)" % (name, ", ".join(m[0])) if m and m[0] else None
        ok = bool(call and m[1])
        # A body that expand_accessors() reads names its lock at every
        # use; any other (`(proc_cast(m)->mutex)`, a cast inside a macro)
        # only where lock_keys() names it, through the compiler.
        plain = ok and self.expand_accessors(call) != call
        uses = 0
        for f in self.files if ok else ():
            toks = f.src.toks
            for k, t in enumerate(toks):
                if t.kind != "id" or t.text != name or \
                        k + 1 >= len(toks) or toks[k + 1].text != "(":
                    continue
                close = cparse.match(toks, k + 1)
                o = k - 1
                if o > 0 and toks[o].text == "&" and not plain:
                    o -= 1  # pthread_mutex_lock(&proc_mutex(m))
                if close is None or toks[o].text != "(" or \
                        toks[close + 1].text not in (")", ","):
                    ok = False
                    break
                callee = toks[o - 1].text if o > 0 else ""
                if callee not in self.fns and callee not in self.api:
                    ok = False
                    break
                if not plain:
                    arg = find.join_tokens([x.text for x in
                                            toks[o + 1:close + 1]])
                    names, why = self.lock_keys(arg, f, k)
                    if not names or why:
                        ok = False
                        break
                uses += 1
            if not ok:
                break
        cache[name] = ok and uses > 0
        return cache[name]

    def expand_accessors(self, expr, every=False, more=None):
        """@expr with the program's function-like macros in it expanded,
        `OBJ_LOCK(o)` with `#define OBJ_LOCK(o) (&(o)->mu)` as
        `(&(o)->mu)`: the lock it names is the body's.  Macros whose
        body calls or assigns are left (the lock expression's own checks
        read them), unless @every (only to find the member the
        expression ends with).  @more: name -> (params, body) of other
        definitions, for the names the program's do not define."""
        for _ in range(8):
            try:
                ts = cparse.lex(expr)
            except cparse.ParseError:
                return expr
            for i, t in enumerate(ts[:-1]):
                m = (self.macros.get(t.text) or (more or {}).get(t.text)) \
                    if t.kind == "id" else None
                if not m or not m[0] or ts[i + 1].text != "(" or \
                        "..." in m[0] or not m[1] or not every and \
                        re.search(r"[\w)]\s*\(|[^=!<>]=[^=]|\+\+|--", m[1]):
                    continue
                close = cparse.match(ts, i + 1)
                if close is None:
                    return expr
                args = [find.join_tokens([x.text for x in ts[a:b]])
                        for a, b in cparse.split_args(ts, i + 1, close)]
                if len(args) != len(m[0]):
                    continue
                body = find.substitute(m[0], m[1].replace("\\\n", " "),
                                       args)
                expr = find.join_tokens(
                    [x.text for x in ts[:i]] + ["(" + body + ")"] +
                    [x.text for x in ts[close + 1:]])
                break
            else:
                return expr
        return expr

    def pointer_local(self, f, k, name):
        """The PtrLocal of local variable @name as seen at token @k of @f
        when it is a pointer to a mutex declared in the function, else
        None."""
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            return None
        try:
            fi = f.func_at(f.src.toks[k].start, self.typedefs)
        except cparse.ParseError:
            return None
        d = analyse.visible_decl(fi, name, k) if fi else None
        if d is None or d.is_param or d.is_static:
            return None
        return self.ptr_locals.get((f.path, d.t0))

    def _pointee(self, pl, k):
        """lock_keys() of the lock pointer local @pl points to at token
        @k: the keys of the expression it is assigned once, before @k."""
        # Not followed: the key of the local's name (refused), with the
        # reason of this local (another function's may have the name).
        if pl.why:
            return [pl.name], pl.why
        if pl.assign >= k:
            return [pl.name], "pointer local '%s' at %s:%d is used at line " \
                "%d before its assignment at line %d" % (
                    pl.name, pl.file.display, pl.file.line(pl.decl_tok),
                    pl.file.line(k), pl.file.line(pl.assign))
        names, why = self.lock_keys(pl.expr, pl.file, pl.assign)
        if len(names) == 1 and not why:
            pl.pointees.add(names[0])
        elif names and not why:
            why = "pointer local '%s' at %s:%d may point to %s" % (
                pl.name, pl.file.display, pl.file.line(pl.decl_tok),
                " or ".join(n.lstrip(".") for n in names))
        return names, why

    def _follow(self, f, k, name):
        """A PtrLocal for the pointer local @name declared with the type
        token at @k of @f, saying why it cannot be followed if so: it
        must be assigned exactly once in its function (at its declaration
        or in one assignment statement), never have its address taken or
        be incremented, and be the only declarator of its declaration
        (its type changes with its pointee's)."""
        try:
            fi = f.func_at(f.src.toks[k].start, self.typedefs)
        except cparse.ParseError:
            return None
        if fi is None:
            return None
        d = next((x for x in fi.decls if x.name == name and
                  x.range[0] > k and not x.is_param and
                  x.stmt[0] <= k), None)
        if d is None or d.is_static:
            return None
        toks = f.src.toks
        where = "pointer local '%s' at %s:%d" % (name, f.display,
                                                 f.line(k))
        pl = PtrLocal(f, k, name, d)
        decl = [t.text for t in cparse.lex(d.declarator)]
        if "*" not in decl:
            return None  # the mutex itself, or an array of them: no pointer
        if decl != ["*", name] and decl != ["*", "const", name]:
            pl.why = "%s: a declarator the tool does not follow (%s)" % (
                where, d.declarator)
            return pl
        if d.siblings != 1:
            pl.why = "%s: declared with other names (its type would " \
                "change with its pointee's)" % where
            return pl
        assigns = []
        for j in range(fi.bo, fi.bc):
            if toks[j].kind != "id" or toks[j].text != name or \
                    toks[j - 1].text in (".", "->"):
                continue
            seen = analyse.visible_decl(fi, name, j) if j != d.t0 else d
            if seen is None or seen.t0 != d.t0:
                continue  # another object of that name (a global, after
                # the local's block ends)
            binary = toks[j - 2].kind in ("id", "num") and \
                toks[j - 2].text != "return" or toks[j - 2].text in (")",
                                                                    "]")
            if toks[j - 1].text in ("++", "--") or \
                    toks[j - 1].text == "&" and not binary:
                pl.why = "%s: '%s%s' at line %d" % (
                    where, toks[j - 1].text, name, f.line(j))
                return pl
            if toks[j + 1].text in ("++", "--", "+=", "-="):
                pl.why = "%s: changed at line %d" % (where, f.line(j))
                return pl
            if toks[j + 1].text == "=" and toks[j - 1].text not in (
                    ".", "->"):
                assigns.append(j)
        if len(assigns) != 1:
            pl.why = "%s is assigned %s (lines %s): which lock it points " \
                "to at a lock call cannot be told" % (
                    where, "more than once" if assigns else "nowhere",
                    ", ".join(str(f.line(j)) for j in assigns) or "-")
            return pl
        a = assigns[0]
        e = a + 2
        while e < len(toks) and toks[e].text not in (";", ","):
            if toks[e].text in ("(", "[", "{") and toks[e].kind == "punct":
                e = cparse.match(toks, e)
            e += 1
        if d.init and not d.range[0] <= a < d.range[1] or \
                toks[a - 1].text not in (";", "{", "}", "*", "const") or \
                toks[e].text != ";":
            pl.why = "%s: assigned at line %d in an expression the tool " \
                "does not follow" % (where, f.line(a))
            return pl
        pl.assign, pl.range = a, (a, e)
        pl.expr = find.join_tokens([t.text for t in toks[a + 2:e]])
        return pl

    def fn_keys(self, lf, args, f, k):
        """lock_keys() of a call of lock function @lf with @args at token
        @k of @f; a wrapper's lock is named where the wrapper is defined."""
        w = lf.wrapper
        if w and not w.get("param"):
            wf = [x for x in self.files if x.path == w["file"]][0]
            return self.lock_keys(w["lock_expr"], wf,
                                  wf.src.tok_at(w["end"] - 1))
        e = lf.expr(args)
        return self.lock_keys(e, f, k) if e else ([], None)

    def decl_type(self, spec, name):
        """Structure tag of @name declared with specifier tokens @spec
        (`struct event`, a typedef of one), or None."""
        return self.fields.resolve(fields.spec_type(spec, [name]))

    def var_type(self, f, k, name):
        """Structure tag of variable @name as seen at token @k of @f."""
        try:
            fi = f.func_at(f.src.toks[k].start, self.typedefs)
        except cparse.ParseError:
            return None  # its locals are unknown: it may be one
        d = analyse.visible_decl(fi, name, k) if fi else None
        if d is not None:
            return self.decl_type(cparse.lex(d.spec), d.name)
        tag = self.fields.global_type(name)
        busy = self.__dict__.setdefault("_typing_macros", set())
        if tag is None and len(getattr(self, "live_objects", {}).get(
                name, ())) == 1 and name not in busy:
            # An object-like macro naming a global (SQLite's `#define
            # sqlite3GlobalConfig sqlite3Config`, `#define pcache1
            # (GLOBAL(struct PCacheGlobal, pcache1_g))`): the type of its
            # expansion, in code the compiler did not type for us (a
            # branch the build skips, an assert() under NDEBUG).
            busy.add(name)
            try:
                tag = self.fields.type_of(cparse.lex(self.live_expand(
                    name)), lambda n: self.var_type(f, k, n))
            except cparse.ParseError:
                tag = None
            finally:
                busy.discard(name)
        return tag

    def _refuse_all(self, names, kind, why):
        for n in names:
            self.key(n, kind).refuse(why)

    # -- inventory of keys -------------------------------------------------
    def inventory(self):
        """Declarations, init sites, cond uses and stray uses of every key."""
        self.fields = fields.Fields(
            self.files, self.types,
            [n for n, (params, body) in self.macros.items()
             if params is not None and body.rstrip().endswith(";")])
        self._macro_fields()
        self.section_macros = macrobody.find_all(self)
        for f in self.files:
            self._scan_decls(f)
        h = handles.Handles(self)
        h.run()
        self.handles = h
        self._param_decls()
        self._init_macros()
        # (File, token, cond key) of PTHREAD_COND_INITIALIZER in brace
        # initialisers of structures
        self.cond_inits = []
        for f in self.files:
            self._scan_calls(f)
        self._init_macro_sites()
        self._cancelled_waits()
        self._in_place_unseen()
        macrobody.expansions(self)
        for f in self.files:
            self._value_copies(f)
        for f in self.files:
            self._scan_uses(f)
        # Parameters stored into pointer keys must go nowhere else.
        for slot, why in self.handles.carrier_faults():
            for n in sorted(slot.carriers):
                self.key(n).refuse(why)
        # A pointer key's value handed to a parameter that is not
        # followed: the parameter keeps pthread's type, so the pointer
        # and its locks stay POSIX with it.
        frees = self._heap_fns()[1]
        freeing = {p for (n, _), p in self.handles.params.items()
                   if n in frees}  # my_free(g_mutex): the heap's, freed
        for text, f, k, slot in self.handles.ptr_args_into():
            fault = slot.fault()
            if fault is None or slot in freeing:
                continue
            names, _ = self.lock_keys(text, f, k)
            for n in names:
                key = self.keys.get(("mutex", n))
                if key is not None and self._ptr_key(key):
                    key.refuse("its value '%s' is passed at %s:%d to %s, "
                               "which is not followed (%s)" % (
                                   text, f.display, f.line(k), slot.label,
                                   fault))
        for (kind, _), key in sorted(self.keys.items()):
            if kind == "mutex":
                self._ptr_key(key)  # refuses one initialised where declared
        self._main_locals()
        self._undestroyed_fields()

    def _undestroyed_fields(self):
        """Locks that nothing destroys, by name or through a pointer given
        their address, and whose memory the program gives back or sets
        again: glibc's mutex needs no destroy, but a liblock lock holds
        memory that only liblock_destroy() frees.  Refused: a lock reset
        by a compound literal (Key.resets), one in thread-local storage
        (Unit.tls_locks), and a field initialised at run time through a
        pointer (`&o->mu`) in a structure the program frees
        (Unit.freed_tags: free(o), a function named for freeing; or kept
        in a `void *` when the program frees what it cannot type), other
        than on its constructor's error path.  Objects that live as long
        as the program (memcached's threads') keep their locks moving."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return
        freed = {}  # tag -> (function, Loc) of the calls that free one
        for u in fe.units:
            for tag, fn, loc in u.freed_tags:
                freed.setdefault(tag, set()).add((fn, loc))
        if any(u.frees_untyped for u in fe.units):
            # kept in a `void *` and freed where the type is not known:
            # from no function a constructor's exemption could name
            for u in fe.units:
                for tag in u.void_tags:
                    freed.setdefault(tag, set()).add((None, None))
        tls = set()
        for u in fe.units:
            tls |= u.tls_locks
        for (kind, name), key in sorted(self.keys.items()):
            if kind != "mutex" or key.why or key.destroyed or any(
                    self.keys[("mutex", p)].destroyed
                    for p in self.pointers_to(name)):
                continue
            reset = key.resets[0] if key.resets else None
            if reset is not None:
                key.refuse("initialised again by a compound literal at "
                           "%s:%d and never destroyed (a liblock lock "
                           "holds memory that only liblock_destroy() "
                           "frees: each reset would leak it; destroy the "
                           "mutex before)" % (reset[0].display,
                                              reset[0].line(reset[1])))
                continue
            tag = name.split(".")[0] if "." in name else None
            if ("var", name) in tls or ("tag", tag) in tls:
                key.refuse("in thread-local storage and never destroyed (a "
                           "liblock lock holds memory that only "
                           "liblock_destroy() frees: each thread that ends "
                           "would leak its copy's)")
                continue
            if tag not in freed:
                continue
            inits = [(f, k) for f, k, what in key.sites if what == "init"]
            # A free before the lock's init in the function that inits it
            # is a constructor's error path (memcached's logger_create():
            # the lock does not exist yet); any other frees objects whose
            # lock does.
            before = {(n, os.path.realpath(f.path), f.line(k))
                      for f, k in inits for n, ni, _, bc in f.funcs
                      if ni <= k <= bc}
            if all(loc is not None and
                   any(fn == n and loc.path == p and loc.line < line
                       for n, p, line in before)
                   for fn, loc in freed[tag]):
                continue
            for f, k in inits:
                args = find.call_args(f.src.toks, k)
                if args and ("->" in args[0] or "*" in args[0]):
                    key.refuse(
                        "initialised through a pointer at %s:%d and never "
                        "destroyed (a liblock lock holds memory that only "
                        "liblock_destroy() frees: each object freed would "
                        "leak it; destroy the mutex before freeing its "
                        "object)" % (f.display, f.line(k)))
                    break

    def pointers_to(self, name):
        """The pointer keys given the address of mutex key @name
        (ptr_pointees)."""
        return [p for p, ns in sorted(self.ptr_pointees.items())
                if name in ns]

    def _main_locals(self):
        """A mutex of main()'s outermost block lives as long as the
        program's threads, and is converted, when the program destroys
        it (by name or through a pointer given its address): a liblock
        lock holds memory that only the lock's object points to, which a
        leak checker reports at exit once main()'s frame is gone (a
        global's stays reachable)."""
        for name, f, k in self.main_locals:
            key = self.keys[("mutex", name)]
            if key.destroyed or any(self.keys[("mutex", p)].destroyed
                                    for p in self.pointers_to(name)):
                continue
            key.refuse("a mutex local to main() at %s:%d that is never "
                       "destroyed (as a liblock lock, the memory it holds "
                       "would leak at exit once main()'s frame is gone: "
                       "destroy it, or make it static)" % (
                           f.display, f.line(k)))

    def _aliases(self, given):
        """{NAME: (None, TARGET)} of the object-like #defines whose body is
        one identifier, perhaps parenthesised, in the regions of the files
        read (and those of --macro-file, @given [(name, body)], which
        win)."""
        one = re.compile(r"\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))"
                         r"\s*")
        out = {}
        for f in self.files:
            for m in _OBJECT_DEFINE.finditer(f.src.text):
                b = one.fullmatch(m.group(2))
                if b and f.src.line_of(m.start(1)) not in f.dead_defines:
                    out.setdefault(m.group(1), (None, b.group(1) or
                                                b.group(2)))
        for name, body in given:
            b = one.fullmatch(body)
            if b:
                out[name] = (None, b.group(1) or b.group(2))
        return out

    def _call_decl(self, key, mf, byp):
        """The invocation of a function-like macro that declares @key's
        field alone (MacroField.call) becomes the declaration it expands
        to, with liblock's type: the #define stays, for its other uses."""
        (a, b) = mf.call
        f = byp.get(a.path)
        if f is None:
            return  # a header not rewritten: no declaration here
        try:
            start = f.src.offset(a.line, a.col - 1)
            end = f.src.offset(b.line, b.col - 1)
        except IndexError:
            return
        if not f.src.text.startswith(mf.macro, start) or \
                f.src.text[end - 1:end] != ")" or \
                self.types_in(f).get(mf.type_name, mf.kind) != mf.kind:
            return
        text = "%s %s%s;" % ("liblock_lock_t" if mf.kind == "mutex" else
                              "liblock_cond_t", mf.field, mf.bounds)
        if not any(d[0] is f and d[1] == start for d in key.call_decls):
            key.call_decls.append((f, start, end, text))

    def _macro_fields(self):
        """Mutex and condition fields a macro declares in a structure's
        body, as libclang saw them expanded (libuv's struct uv_loop_s
        ends with UV_LOOP_PRIVATE_FIELDS): the structure's key, and the
        type name to rewrite in the #define of a file being rewritten.
        The order of such a structure's members is not known here: a
        positional initialiser of it is not followed (see
        _member_initialized)."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return
        byp = {os.path.realpath(f.path): f for f in self.files}
        self.macro_blocked = {}  # (path, line, col) -> why
        for mf in fe.macro_fields():
            f = byp.get(mf.type_loc.path)
            if not mf.tag:
                # Its field would change type with the others, unnamed.
                self.macro_blocked[(mf.type_loc.path, mf.type_loc.line,
                                    mf.type_loc.col)] = \
                    "an anonymous structure expands it too"
                continue
            self.fields.cands.setdefault((mf.kind, mf.field), set()).add(
                mf.tag)
            self.fields.members.setdefault(mf.tag, {}).setdefault(
                mf.field, None)
            self.fields.macro_tags.add(mf.tag)
            key = self.key("%s.%s" % (mf.tag, mf.field), mf.kind)
            if mf.call is not None:
                self._call_decl(key, mf, byp)
                continue
            if f is None:
                continue  # a header not rewritten: no declaration here
            try:
                start = f.src.offset(mf.type_loc.line, mf.type_loc.col - 1)
            except IndexError:
                continue
            end = start + len(mf.type_name)
            if f.src.text[start:end] != mf.type_name or \
                    self.types_in(f).get(mf.type_name) != mf.kind:
                continue
            where = "%s at %s:%d" % (mf.macro, f.display, mf.define.line)
            if not any(d[0] is f and d[1] == start
                       for d in key.macro_decls):
                key.macro_decls.append((f, start, end, where))
                self._macro_locs[(f.path, start)] = (
                    mf.type_loc.path, mf.type_loc.line, mf.type_loc.col)
        for key in self.keys.values():
            for f, start, _, where in key.macro_decls:
                why = self.macro_blocked.get(self._macro_locs[(f.path,
                                                                start)])
                if why:
                    key.refuse("declared in macro %s, and %s" % (where, why))

    def _scan_decls(self, f):
        toks = f.src.toks
        types = self.types_in(f)
        struct_depth = []
        for k, t in enumerate(toks):
            if t.text == "{" and t.kind == "punct":
                struct_depth.append(_is_struct_body(toks, k))
            elif t.text == "}" and t.kind == "punct" and struct_depth:
                struct_depth.pop()
            kind = types.get(t.text) if t.kind == "id" else None
            if kind is None:
                continue
            if toks[k - 1].text == "(" and toks[k + 1].text == ")":
                continue  # sizeof(pthread_mutex_t), a cast
            if not f.in_function(k) and _in_parens(toks, k):
                # A parameter of a prototype, `int mutex_lock(pthread_
                # mutex_t *m);` (or of a function pointer's type): no
                # object.  Taken for a global pointer named `m`, it was
                # converted, and the prototype of a function this run
                # does not rewrite changed type.
                continue
            if _in_parens(toks, k) and self._in_wrapper(f, k):
                # A parameter of a lock, init, destroy or condition
                # wrapper (find.py's): its callers name the lock and its
                # body's pthread call is not scanned.  No object, and not
                # the global of the same name (libwebsockets'
                # lws_pthread_mutex_init(pthread_mutex_t *lock) kept an
                # example's `static pthread_mutex_t lock` POSIX).
                continue
            field = bool(struct_depth and struct_depth[-1])
            # A block-scope `static pthread_mutex_t m = ...;` is one
            # object for the whole run, as a global is (redis'
            # freeClientAsync() guards its queue with one).
            local = f.in_function(k) and not field and \
                not _static_object(toks, k)
            tag = self.fields.owner.get((f.path, k), "") if field else None
            if local and tag is None and _param_of(f, k) and \
                    toks[k - 1].text != "typedef":
                # A parameter of a function definition: what it names is
                # known once handles.py has followed what its callers
                # pass (_param_decls()).
                self.param_decls += [(f, k, name, kind)
                                     for name in _declarators(toks, k)]
                continue
            for name in _declarators(toks, k):
                pl = self._follow(f, k, name) if local and tag is None \
                    and kind == "mutex" else None
                if pl is not None and pl.why is None:
                    # Followed: lock_keys() reads it through its pointee,
                    # by scope (pointer_local()), so it is no key, and a
                    # global of the same name is not refused for it.
                    self.ptr_locals[(f.path, pl.decl.t0)] = pl
                    continue
                key = self.key(name if tag is None else tag + "." + name,
                               kind)
                key.decls.append((f, k))
                if pl is not None:
                    self.ptr_locals[(f.path, pl.decl.t0)] = pl
                    key.refuse(pl.why)
                elif local and _block_extern(toks, k):
                    key.refuse("declared extern inside a function at %s:%d "
                               "(only file-scope declarations are "
                               "converted: move it out of the function)" % (
                                   f.display, f.line(k)))
                elif local and kind == "mutex" and \
                        _object_declarator(toks, k, name) and \
                        _main_top_level(f, k):
                    # as long-lived as a static one (_main_locals())
                    self.main_locals.append((key.name, f, k))
                elif local and _object_declarator(toks, k, name):
                    key.refuse("a mutex local to its function at %s:%d "
                               "(automatic storage, one per call: only "
                               "mutexes with static storage, or in "
                               "structures, are converted)" % (
                                   f.display, f.line(k)))
                elif local:
                    key.refuse("declared as a local variable or parameter "
                               "at %s:%d (a lock reached through a pointer "
                               "cannot be followed)" % (f.display, f.line(k)))
                if toks[k - 1].text == "typedef":
                    key.refuse("typedef of a mutex type")

    def _param_decls(self):
        """The parameters of mutex type that _scan_decls() set aside.  One
        that handles.py follows (a pointer some caller gives a lock's
        address, every use of it accounted for) names the locks its
        callers pass: lock_keys() reads it through its slot, by scope, so
        it is no key of its own, and a global of the same name is not
        refused for it (a helper `bump(pthread_mutex_t *lock)` kept the
        program's `static pthread_mutex_t lock` POSIX).  Any other
        parameter is read by its name: its key is refused, and with it
        every lock of that name."""
        slots = {}
        for s in self.handles.vars.values():
            if s.decl is not None and s.decl.is_param:
                for tf, t in s.typetoks:
                    slots[(tf.path, t)] = s
        for f, k, name, kind in self.param_decls:
            s = slots.get((f.path, k))
            if s is not None and s.decl.name == name and s.keys and \
                    s not in self.handles.deferred:
                continue
            key = self.key(name, kind)
            key.decls.append((f, k))
            # (One key for every parameter of that name: the message
            # names none of their functions.)
            key.refuse("a function's parameter at %s:%d (the locks its "
                       "callers pass cannot be followed through it; a "
                       "function whose body is only the lock or unlock "
                       "call and checks is read as a lock wrapper "
                       "instead, docs/REFACTOR.md section 6)" % (
                           f.display, f.line(k)))

    def _cancelled_waits(self):
        """Where the program cancels threads (pthread_cancel()), if it
        does: it may cancel one waiting on a condition, and
        pthread_cond_wait() is a cancellation point, liblock_cond_wait()
        is not, so its condition variables (and their mutexes with them)
        stay POSIX (rewrite.decide())."""
        self.cancel_at = None
        for f in self.files:
            toks = f.src.toks
            for k, t in enumerate(toks[:-1]):
                if t.kind == "id" and t.text == "pthread_cancel" and \
                        toks[k + 1].text == "(" and f.in_function(k):
                    self.cancel_at = "%s:%d" % (f.display, f.line(k))
                    return

    def cancel_for_cond(self, ck):
        """Where a program that waits on condition key @ck (with its
        partner mutexes) cancels threads, or None: pthread_cancel() in
        another program of the tree (mksquashfs's, for unsquashfs's
        waits) cannot cancel these waits."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return self.cancel_at
        for m in sorted(ck.partners):
            mk = self.keys.get(("mutex", m))
            for f, k in mk.waits if mk is not None else ():
                at = fe.cancel_near(f.path, f.line(k))
                if at is not None:
                    return at
        return None

    def _init_macros(self):
        """Object-like macros of the files whose body holds a static mutex
        initialiser, `#define GUARD_INITIALIZER { PTHREAD_MUTEX_INITIALIZER,
        0 }`, as libraries write for their own lock types: name -> [(File,
        #define token index, body tokens, offset of the body in the file)],
        one entry per definition the compiler reads."""
        self.init_macros = {}
        # name -> [(File, token, key name|None, [cond key name|None, one
        # per PTHREAD_COND_INITIALIZER of the body])]
        self.init_macro_uses = {}
        # (path, #define token) -> (macro name, mutex key names, cond key
        # names, [(start, end) of each PTHREAD_COND_INITIALIZER of the
        # body]): a macro that also initialises conditions (h2o's
        # `{PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, count}`)
        # converts its conditions with its mutexes or keeps all of them
        # POSIX (rewrite._shared_init_macro())
        self.init_macro_conds = {}
        # name -> the keys the compiler says a use that the tokens do not
        # tell initialises: they stay POSIX with the macro's
        self.init_macro_unsure = {}
        # (path, #define token) -> (macro name, [key names]) of a macro
        # that initialises several mutexes, one per use: its body is the
        # site of them all (rewrite._shared_init_macro())
        self.shared_init_macros = {}
        # (path, token of pthread_mutex_init) -> (handles.Slot, [key
        # names]): the call of an init function's parameter, the site of
        # every lock its callers give it (rewrite._shared_init_fn())
        self.shared_init_sites = {}
        # Function-like ones (SQLite's `#define SQLITE3_MUTEX_INITIALIZER(id)
        # { PTHREAD_MUTEX_INITIALIZER, id }`, used in a static array):
        # their names; a use is the call, arguments and all.
        self.init_macro_fns = set()
        # Definitions on lines the compiler skips (SQLite's other two
        # SQLITE3_MUTEX_INITIALIZER, under #if SQLITE_MUTEX_NREF): name ->
        # [(File, #define token, body tokens, body offset)].
        self.init_macros_skipped = {}
        for f in self.files:
            for k, t in enumerate(f.src.toks):
                if t.kind != "pp":
                    continue
                m = _OBJECT_DEFINE.match(t.text) or \
                    _FUNCTION_DEFINE.match(t.text)
                if not m or not any(x in m.group(2) for x in
                                    PLAIN_INITIALIZERS + OWNED_INITIALIZERS):
                    continue
                try:
                    body = cparse.lex(m.group(2).replace("\\\n", "  "))
                except cparse.ParseError:
                    continue
                if m.re is _FUNCTION_DEFINE:
                    self.init_macro_fns.add(m.group(1))
                ln = f.src.line_of(t.start)
                skipped = ln in f.dead_defines or (
                    f.skipped is not None and ln in f.skipped.lines)
                (self.init_macros_skipped if skipped else
                 self.init_macros).setdefault(m.group(1), []).append(
                    (f, k, body, t.start + m.start(2)))
        self._init_macro_wrappers()

    def _init_macro_wrappers(self):
        """Macros whose body uses an initialiser macro (_init_macros())
        without being one, as liburcu declares its wait queues:
        `#define DEFINE_WAIT_QUEUE(name) struct wait_queue name =
        WAIT_QUEUE_HEAD_INIT(name)`.  A use of such a wrapper is a use of
        the macro it expands to (_scan_calls()).  name -> (parameter
        names, or None when object-like, body tokens); a name with two
        definitions the compiler reads is left out (its uses stay
        untold)."""
        self.init_macro_wrappers = {}
        defs = {}
        for name, bodies in self.live_objects.items():
            for body in bodies:
                defs.setdefault(name, []).append((None, body))
        for name, ds in self.live_functions.items():
            for params, body in ds:
                defs.setdefault(name, []).append((list(params), body))
        # To a fixed point: a wrapper of a wrapper is one too.
        known = set(self.init_macros)
        changed = True
        while changed:
            changed = False
            for name, ds in defs.items():
                if name in known or len(ds) != 1 or \
                        not any(re.search(r"\b%s\b" % n, ds[0][1])
                                for n in known):
                    continue
                try:
                    body = cparse.lex(ds[0][1])
                except cparse.ParseError:
                    continue
                if any(b.kind == "id" and b.text in known for b in body):
                    params = ds[0][0]
                    self.init_macro_wrappers[name] = (
                        [x for x in params if x] if params is not None
                        else None, body)
                    known.add(name)
                    changed = True

    def _expand_wrapper(self, toks, k, depth=0):
        """The tokens a use at @k of @toks of a wrapper macro
        (_init_macro_wrappers()) expands to, its arguments in place of its
        parameters and the wrappers it uses expanded in turn, and the
        token after the use; or None when the use cannot be read."""
        params, body = self.init_macro_wrappers[toks[k].text]
        end = k + 1
        subst = {}
        if params is not None:
            if end >= len(toks) or toks[end].text != "(":
                return None
            try:
                close = cparse.match(toks, end)
            except cparse.ParseError:
                return None
            args = [toks[a:b] for a, b in cparse.split_args(toks, end,
                                                            close)]
            named = [x for x in params if x != "..."]
            if len(args) < len(named) or (len(args) > len(named) and
                                          "..." not in params):
                return None
            subst = dict(zip(named, args))
            rest = args[len(named):]
            subst["__VA_ARGS__"] = [t for i, a in enumerate(rest)
                                    for t in ([] if i == 0 else [
                                        cparse.Tok("punct", ",", 0, 0)]) + a]
            end = close + 1
        out = []
        for b in body:
            out += subst.get(b.text, [b]) if b.kind == "id" else [b]
        if depth < 8:
            i = 0
            while i < len(out):
                if out[i].kind == "id" and \
                        out[i].text in self.init_macro_wrappers:
                    inner = self._expand_wrapper(out, i, depth + 1)
                    if inner is None:
                        return None
                    toks2, e2 = inner
                    out = out[:i] + toks2 + out[e2:]
                    i += len(toks2)
                    continue
                i += 1
        return out, end

    def _init_macro_use(self, f, k, at=None):
        """The use at token @k of @f of an initialiser macro
        (_init_macros()): the key its mutex initialiser initialises, read
        as if the body stood there, or None (recorded either way).  @at:
        (tokens, index) of the use when it is in the expansion of a
        wrapper at @k (_init_macro_wrappers()), else @f's own."""
        toks, u = at or (f.src.toks, k)
        name = toks[u].text
        defs = self.init_macros[name]
        df, dk, body, _ = defs[0]
        end = u + 1
        if name in self.init_macro_fns:
            try:
                end = cparse.match(toks, u + 1) + 1
            except cparse.ParseError:
                # a use the tool cannot place: its locks stay POSIX
                self.init_macro_uses.setdefault(name, []).append(
                    (f, k, None, []))
                return
        spliced = toks[:u] + body + toks[end:]
        found, conds = None, []
        for i, b in enumerate(body):
            if b.kind == "id" and b.text == "PTHREAD_COND_INITIALIZER":
                conds.append(self._member_initialized(
                    f, u + i, spliced, f.line(k), "cond") or
                    self._compiler_initialized(f, k, "cond"))
                continue
            owned = b.text.startswith(OWNED_INITIALIZERS)
            if b.kind != "id" or not (owned or b.text in PLAIN_INITIALIZERS):
                continue
            self.compound_hit = False
            key = _initialized_name(spliced, u + i, self.types_in(f)) or \
                self._member_initialized(f, u + i, spliced, f.line(k)) or \
                self._compiler_initialized(f, k, "mutex")
            if key and self.compound_hit:
                self.key(key).resets.append((f, k))
            if key and owned:
                # a recursive or error-checking mutex: its macro's body
                # gets LIBLOCK_INITIALIZER_FLAGS (Key.owned)
                self.key(key).owned = self.key(key).owned or \
                    "initialised with %s (macro %s at %s:%d) at %s:%d" % (
                        b.text, name, df.display, df.line(dk), f.display,
                        f.line(k))
            if key and found is None:
                found = key
            elif key:
                found = False  # two mutexes in one macro: see below
        self.init_macro_uses.setdefault(name, []).append((f, k, found,
                                                          conds))
        fe = getattr(self, "frontend", None)
        if not found and fe is not None:
            self.init_macro_unsure.setdefault(name, set()).update(
                fe.inits_at(f.path, f.line(k), "mutex"))

    def _wrapper_use(self, f, k):
        """The use at token @k of @f of a wrapper of initialiser macros
        (_init_macro_wrappers()): a use of each initialiser macro it
        expands to, read in the expansion.  One the tool cannot expand
        is a use of each that initialises a mutex the tool cannot tell
        (they stay POSIX)."""
        toks = f.src.toks
        exp = self._expand_wrapper(toks, k)
        if exp is None:
            for name in self._wrapped(toks[k].text):
                self.init_macro_uses.setdefault(name, []).append(
                    (f, k, None, []))
            return
        body, end = exp
        spliced = toks[:k] + body + toks[end:]
        for i, b in enumerate(body):
            if b.kind == "id" and b.text in self.init_macros and (
                    k + i + 1 < len(spliced) and
                    spliced[k + i + 1].text == "(") == (
                        b.text in self.init_macro_fns):
                self._init_macro_use(f, k, (spliced, k + i))

    def _wrapped(self, name, seen=None):
        """The initialiser macros wrapper @name expands to, through
        other wrappers."""
        seen = seen if seen is not None else set()
        out = set()
        for b in self.init_macro_wrappers[name][1]:
            if b.kind != "id" or b.text in seen:
                continue
            seen.add(b.text)
            if b.text in self.init_macros:
                out.add(b.text)
            elif b.text in self.init_macro_wrappers:
                out |= self._wrapped(b.text, seen)
        return out

    def _outside_expansions(self, name):
        """With -p: the files (\"FILE:LINE\") not being rewritten where a
        unit of the build expands macro @name.  Rewriting its body would
        change what they compile to, for a lock this run does not see."""
        fe = getattr(self, "frontend", None)
        if fe is None or self.opts.commands is None:
            return []
        mine = {os.path.realpath(f.path) for f in self.files}
        return sorted({str(m.loc) for u in fe.units
                       for m in u.macro_uses(name) if m.loc.path not in mine})

    def _compiler_initialized(self, f, k, kind):
        """The key of the one field of @kind ("mutex", "cond") that the
        compiler says a brace initialiser gives a value on the line of
        token @k of @f, when the tokens do not tell (a positional
        initialiser of an anonymous structure, as programs write their
        `conf`); else None."""
        fe = getattr(self, "frontend", None)
        keys = fe.inits_at(f.path, f.line(k), kind) if fe is not None \
            else ()
        return next(iter(keys)) if len(keys) == 1 else None

    def _init_macro_sites(self):
        """Each initialiser macro whose every use initialises one key is
        the site of the keys it initialises (its body is rewritten); any
        other keeps them POSIX, with the use at fault."""
        for name, uses in sorted(self.init_macro_uses.items()):
            defs = self.init_macros[name]
            df, dk, body, base = defs[0]
            keys = sorted({u[2] for u in uses if u[2]})
            bad = [u for u in uses if not u[2]]
            why = None
            if len(defs) > 1:
                why = "macro %s, which initialises it, has %d definitions " \
                    "(%s:%d, %s:%d)" % (name, len(defs), df.display,
                                        df.line(dk), defs[1][0].display,
                                        defs[1][0].line(defs[1][1]))
            elif bad:
                bf, bk = bad[0][:2]
                why = "macro %s at %s:%d initialises it, and its use at " \
                    "%s:%d initialises a mutex the tool cannot tell" % (
                        name, df.display, df.line(dk), bf.display,
                        bf.line(bk))
                keys = sorted(set(keys) |
                              self.init_macro_unsure.get(name, set()))
            else:
                outside = self._outside_expansions(name)
                if outside:
                    why = "macro %s at %s:%d initialises it, and %s, which " \
                        "%s not being rewritten, also expand%s it (name %s " \
                        "too)" % (name, df.display, df.line(dk),
                                  ", ".join(outside), "is" if
                                  len(outside) == 1 else "are", "s" if
                                  len(outside) == 1 else "",
                                  "it" if len(outside) == 1 else "them")
            conds = [c for u in uses for c in u[3]]
            if not why and None in conds:
                bf, bk = next(u[:2] for u in uses if None in u[3])
                why = "macro %s at %s:%d initialises it, and its use at " \
                    "%s:%d initialises a condition the tool cannot tell" % (
                        name, df.display, df.line(dk), bf.display,
                        bf.line(bk))
            if why:
                self._refuse_all(keys, "mutex", why)
                continue
            if conds and keys:
                offs = [(base + x.start, base + x.end) for x in body
                        if x.text == "PTHREAD_COND_INITIALIZER"]
                for of, _, obody, obase in self.init_macros_skipped.get(
                        name, ()):
                    if of is df:
                        offs += [(obase + x.start, obase + x.end)
                                 for x in obody
                                 if x.text == "PTHREAD_COND_INITIALIZER"]
                self.init_macro_conds[(df.path, dk)] = (
                    name, keys, sorted(set(conds)), offs)
            # One use, one mutex: the body is the site of every mutex it
            # initialises (rrdtool's MUTEX_INITIALIZER); they convert
            # together or not at all.
            b = next((b for b in body if b.text in PLAIN_INITIALIZERS or
                      b.text.startswith(OWNED_INITIALIZERS)), None)
            if b is None or not keys:
                continue
            # Its definitions in the branches the compiler skips get the
            # same site, as the skipped lock calls get liblock's names.
            other = []
            for of, _, obody, obase in self.init_macros_skipped.get(name,
                                                                    ()):
                ob = next((x for x in obody if x.text == b.text), None)
                if ob is not None:
                    other.append((of, obase + ob.start, obase + ob.end))
            for n in keys:
                key = self.key(n)
                key.sites.append((df, dk, "macro"))
                key.macro_inits[(df.path, dk)] = (base + b.start,
                                                  base + b.end)
                key.macro_inits_other[(df.path, dk)] = other
            if len(keys) > 1:
                self.shared_init_macros[(df.path, dk)] = (name, keys)

    def _scan_calls(self, f):
        toks = f.src.toks
        for k, t in enumerate(toks):
            if t.kind != "id" or k + 1 >= len(toks):
                continue
            if t.text in self.init_macros and \
                    (toks[k + 1].text == "(") == (t.text in
                                                  self.init_macro_fns):
                self._init_macro_use(f, k)
                continue
            if t.text in self.init_macro_wrappers and \
                    (toks[k + 1].text == "(") == (
                        self.init_macro_wrappers[t.text][0] is not None):
                self._wrapper_use(f, k)
                continue
            if t.text in PLAIN_INITIALIZERS:
                name = _initialized_name(toks, k, self.types_in(f))
                self.compound_hit = False
                if name is None:
                    name = self._member_initialized(f, k, toks, f.line(k))
                if name:
                    self.key(name).sites.append((f, k, "static"))
                    if self.compound_hit:
                        self.key(name).resets.append((f, k))
                continue
            if t.text == "PTHREAD_COND_INITIALIZER":
                # a condition field in a structure's brace initialiser:
                # rewrite.small_edits() converts it with its key
                name = self._member_initialized(f, k, toks, f.line(k),
                                                "cond")
                if name:
                    self.cond_inits.append((f, k, name))
                continue
            if t.text.startswith(OWNED_INITIALIZERS):
                # glibc's recursive and error-checking static
                # initialisers: converted as a plain one's site when
                # nothing can tell the difference (Key.owned)
                name = _initialized_name(toks, k, self.types_in(f)) or \
                    self._member_initialized(f, k, toks, f.line(k))
                if name:
                    key = self.key(name)
                    key.sites.append((f, k, "static"))
                    key.owned = key.owned or "initialised with %s at " \
                        "%s:%d" % (t.text, f.display, f.line(k))
                continue
            if toks[k + 1].text != "(":
                continue
            if toks[k - 1].kind == "id" and toks[k - 1].text not in (
                    "return", "else", "do", "case") or toks[k - 1].text == "*":
                continue  # a declaration: void STATS_LOCK(void);
            if toks[k - 1].text in (".", "->"):
                continue  # p->lock(x): a member, no call of lock()
            if t.text in self.fns and not self._in_wrapper(f, k):
                close = cparse.match(toks, k + 1)
                lf = self.fns[t.text]
                names, why = self.fn_keys(lf, _args(toks, k + 1, close), f,
                                          k)
                if why:
                    self._refuse_all(names, "mutex", why)
                elif names:
                    self.key(names[0]).calls[lf.role].append((f, k))
            api = self.api.get(t.text)
            home = self._in_place_at(f, k) if api else None
            if api and self._in_wrapper(f, k) and home is None:
                continue  # mythread_mutex_init()'s own pthread call
            call_args = _args(toks, k + 1, cparse.match(toks, k + 1)) \
                if api else None
            args = api.args(call_args) if api else None
            if args and api.in_place is not None:
                self._in_place_call(f, k, api, call_args, home)
                continue
            if args and home is not None and len(args) > 1 and \
                    self._home_mutex(home, args[1]):
                # the body of an in-place wrapper: its callers say which
                # mutex it waits with
                args = args[:1]
            if args:
                self._api_call(f, k, api.target, args)
            read = api is not None and api.checked and \
                not find.statement_call(toks, k)
            if args and api.target in COND_FNS[:4] + MUTEX_FNS[1:] and (
                    read or not api.identity and
                    not api.droppable(toks, k) and
                    api.template_edits(toks, k) is None):
                kind = "cond" if api.target in COND_FNS else "mutex"
                why = ("%s %s() at %s:%d changes its arguments (only its "
                       "name could be rewritten)" % (
                           "function" if api.wrapper else "macro", t.text,
                           f.display, f.line(k)))
                if read:
                    why = ("function %s() at %s:%d checks pthread's result "
                           "and its own is read there (liblock's call "
                           "would give pthread's)" % (
                               t.text, f.display, f.line(k)))
                self._refuse_all(
                    self.lock_keys(args[0], f, k, kind)[0], kind, why)
                if api.target in COND_FNS[:2] and len(args) >= 2:
                    # Its mutex would reach the pthread wait unconverted.
                    self._refuse_all(self.lock_keys(args[1], f, k)[0],
                                     "mutex", "waits through " + why)

    def _in_place_at(self, f, k):
        """The in-place condition wrapper (find.in_place_wrapper) whose body
        holds token @k of @f, or None."""
        off = f.src.toks[k].start
        for api in self.api.values():
            w = api.wrapper
            if api.in_place is not None and w and w["file"] == f.path and \
                    w["start"] <= off < w["end"]:
                return api
        return None

    def _home_mutex(self, home, expr):
        """Whether @expr is the parameter in-place wrapper @home passes as
        the mutex of its wait."""
        i = home.in_place["mutex"]
        return i is not None and find.canon(expr) == home.params[i]

    def in_place_cond(self, api):
        """(keys, why) of the condition field in-place wrapper @api acts
        on, read in its own body (as lock_keys()), and why its mutex
        parameter cannot be given liblock's type (None when it can)."""
        memo = api.in_place.get("keys")
        if memo is not None:
            return memo
        w = api.wrapper
        f = next((x for x in self.files if x.path == w["file"]), None)
        k = f.src.tok_at(w["call"]) if f is not None else None
        if k is None:
            memo = ([], "its body is not in the files read")
        else:
            memo = self.lock_keys(api.bodies[0], f, k, "cond")
        i = api.in_place["mutex"]
        pt = w["ptypes"][i] if i is not None and \
            i < len(w["ptypes"]) else None
        if i is not None and not memo[1] and (
                pt is None or pt[2] != "void" and
                self.types.get(pt[2]) != "mutex"):
            memo = (memo[0], "the mutex parameter of %s() is not declared "
                    "as a pointer to a mutex type (its type cannot be "
                    "changed to liblock_lock_t)" % api.name)
        api.in_place["keys"] = memo
        return memo

    def _in_place_unseen(self):
        """An in-place wrapper must be called only where this run reads
        its mutex argument: the compiler's calls of it in a macro's
        expansion, in a file not rewritten, or through its address
        (taken anywhere in the program) could pass a mutex that stays
        POSIX to the body that now calls liblock.  Its condition field
        then stays POSIX.  A wrapper given no mutex (a signal, a
        broadcast: icecast's thread_cond_broadcast_c(cond_t *cond, int
        line, char *file), called through a macro that adds the line)
        acts on its structure's converted field whoever calls it, so its
        unseen calls do not matter."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return
        for api in self.api.values():
            if api.in_place is None or api.in_place.get("mutex") is None:
                continue
            seen = api.in_place.get("sites", set())
            where = None
            for u in fe.units:
                for fn in u.functions.values():
                    for c in fn.calls:
                        if c.callee == api.name and \
                                (c.loc.path, c.loc.line) not in seen:
                            where = where or "called at %s, where the " \
                                "tool does not read the call (a macro's " \
                                "expansion, or a file not rewritten)" % \
                                c.loc
                    for a in fn.fn_addrs:
                        if a.callee == api.name:
                            where = where or "its address is taken at " \
                                "%s" % a.loc
                if any(n == api.name for n, _, _ in u.addr_funcs.values()):
                    where = where or "its address is taken"
            if where:
                cks, _ = self.in_place_cond(api)
                self._refuse_all(cks, "cond", "the condition wrapper %s() "
                                 "is %s" % (api.name, where))

    def _in_place_call(self, f, k, api, call_args, home):
        """A call at token @k of @f of in-place wrapper @api (arguments
        @call_args): the call stays, the wrapper's body calls liblock when
        the condition field is converted, which every mutex waited with
        through it must then be too (the wrapper's mutex parameter gets
        liblock's type).  Inside another in-place wrapper @home, a mutex
        that is @home's own parameter is named by @home's callers."""
        cks, why = self.in_place_cond(api)
        api.in_place.setdefault("sites", set()).add(
            (os.path.realpath(f.path),
             scoped.clang_pos(f, f.src.toks[k].start)[0]))
        i = api.in_place["mutex"]
        mexpr = call_args[i] if i is not None and i < len(call_args) \
            else None
        if mexpr is not None and home is not None and \
                self._home_mutex(home, mexpr):
            mexpr = None
        if why or len(cks) != 1:
            why = why or "cannot name the condition variable %s() acts on" \
                % api.name
            self._refuse_all(cks, "cond", why)
            if mexpr is not None:
                self._refuse_all(self.lock_keys(mexpr, f, k)[0], "mutex",
                                 "waits through %s() at %s:%d: %s" % (
                                     api.name, f.display, f.line(k), why))
            return
        if mexpr is not None and api.target in COND_FNS[:2]:
            self._scan_wait(f, k, cks, mexpr)

    def _member_initialized(self, f, k, toks, line, kind="mutex"):
        """The key of the mutex field that PTHREAD_MUTEX_INITIALIZER at
        token @k of @toks (@f's tokens, or those with a macro's body in
        place of its use on @line) initialises inside a structure's brace
        initialiser:
        `struct stats st = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };`, by
        position or by designator (`.mu = ...`), in a structure, an array
        of structures or a nested structure.  When the field cannot be
        told, every mutex field of the structure stays POSIX."""
        path = []  # (index at this brace level, designator or None)
        compound = None  # (first, end) tokens of a compound literal's type
        j, idx, desig = k - 1, 0, None
        if toks[j].text == "=" and toks[j - 2].text == ".":
            desig = toks[j - 1].text
        # A list with #if branches inside (coturn's turn_params, whose
        # elements for TLS versions the build may lack are under #if):
        # the lines the compiler skips give no element, as their members
        # are not in fl.order (_member_path()).  Unknown without the
        # compiler's skipped lines, or for an initialiser on one.
        skipped = f.skipped.lines if toks is f.src.toks and \
            f.skipped is not None and line not in f.skipped.lines else None
        while j >= 0:
            if skipped is not None and (toks[j].kind == "pp" or
                                        f.line(j) in skipped):
                j -= 1
                continue
            t = toks[j].text
            if t in (")", "]", "}") and toks[j].kind == "punct":
                j = (cparse.match_back(toks, j) or 0) - 1
                continue
            if t == ",":
                idx += 1
            elif t == "{":
                path.append((idx, desig))
                if toks[j - 1].text == "=" and toks[j - 3].text == ".":
                    # .member = { ... }: this level is that member's.
                    idx, desig = 0, toks[j - 2].text
                    j -= 4
                    continue
                if toks[j - 1].text == "=" and toks[j - 2].text == "]" and \
                        toks[j - 2].kind == "punct":
                    # [i] = { ... }: an element of the array's level (at
                    # a position the designator gives: any element's
                    # fields are the same)
                    o = cparse.match_back(toks, j - 2)
                    if o is not None and toks[o - 1].text in (",", "{"):
                        idx, desig = 0, None
                        j = o - 1
                        continue
                if toks[j - 1].text == "=":
                    break
                if toks[j - 1].text == ")" and toks[j - 1].kind == "punct":
                    # `(struct obj){ ... }`: a compound literal, its type
                    # in the cast (an assignment `*o = (struct obj){ .mu
                    # = PTHREAD_MUTEX_INITIALIZER }` resets an object)
                    o = cparse.match_back(toks, j - 1)
                    if o is not None and o > 0 and not (
                            toks[o - 1].kind == "id" and
                            toks[o - 1].text not in ("return", "sizeof")):
                        compound = (o + 1, j - 1)
                        break
                idx, desig = 0, None
            elif t in (";",) or toks[j].kind == "pp":
                return None
            j -= 1
        if j < 0 or not path:
            return None
        if compound is not None:
            self.compound_hit = True
            ca, cb = compound
            typ = fields.spec_type(toks[ca:cb], [])
            tag = self.fields.resolve(typ)
            if tag is None:
                return None
            array = any(x.text == "[" for x in toks[ca:cb])
            return self._member_path(f, k, toks, line, kind, tag, path,
                                     array)
        # The declaration: its type and whether the declarator is an array.
        e = j - 1
        a = e
        while a > 0 and toks[a - 1].text not in (";", "}", "{") and \
                toks[a - 1].kind != "pp":
            a -= 1
            if toks[a - 1].text == "}" and toks[a - 1].kind == "punct":
                # an earlier declarator's brace initialiser (`} a = {...},
                # b = {...};`): over it
                o = cparse.match_back(toks, a - 1)
                if o is not None and toks[o - 1].text == "=":
                    a = o - 1
        if a > 1 and toks[a - 1].text == "}" and toks[a - 1].kind == "punct":
            # static struct [TAG] { ... } name = { ... }: the body is the
            # type's
            o = cparse.match_back(toks, a - 1) or 0
            if toks[o - 1].kind == "id" and toks[o - 2].text in (
                    "struct", "union"):
                o -= 1
            if toks[o - 1].text in ("struct", "union"):
                a = o - 1
                while a > 0 and toks[a - 1].text not in (";", "}", "{") and \
                        toks[a - 1].kind != "pp":
                    a -= 1
        decls = analyse.parse_decl(toks, a, e + 1, None)
        if not decls:
            return None
        # The name declared: the word before '=' (and its [N]s).  A macro
        # of a storage class before the type (`local lock l = {...}`)
        # makes parse_decl() take the type for the name.
        n = e - 1 if toks[e].text == "=" else e
        while n > a and toks[n].text == "]" and toks[n].kind == "punct":
            n = (cparse.match_back(toks, n) or a) - 1
        names = [d.name for d in decls]
        if toks[n].kind == "id" and toks[n].text not in names:
            names = [toks[n].text]
        typ = fields.spec_type(toks[a:e + 1], names)
        tag = self.fields.resolve(typ)
        if tag is None:
            return None
        return self._member_path(f, k, toks, line, kind, tag, path,
                                 "[" in decls[-1].declarator)

    def _member_path(self, f, k, toks, line, kind, tag, path, array):
        """The rest of _member_initialized() for the initialiser at token
        @k: the member of structure @tag that brace levels @path
        (innermost first) reach; @array when the outermost level is an
        array's."""
        levels = list(reversed(path))
        if array:
            levels = levels[1:]  # the array's element
        fl = self.fields
        n = -1
        while n + 1 < len(levels):
            n += 1
            pos, dsg = levels[n]
            owner = fl.anon_owner.get(tag, tag)  # its members' keys' tag
            if dsg is None and owner in fl.macro_tags:
                break  # a macro declares some members: positions unknown
            # the members the compiler reads, for an initialiser it reads
            order = (fl.order_all if f.skipped is not None and
                     line in f.skipped.lines else fl.order).get(tag) or \
                list(fl.members.get(tag, {}).items())
            if dsg is not None:
                # a designator names a member of this level, or of an
                # anonymous structure member of it
                field = dsg if dsg in fl.members.get(owner, {}) else None
                sub = fl.members[owner][dsg] if field else None
            else:
                field, sub = order[pos] if pos < len(order) else (None,
                                                                  None)
            if field is not None and (owner, field) in fl.array_members \
                    and n + 1 < len(levels) and levels[n + 1][1] is None:
                n += 1  # { INIT, INIT }: the member array's elements
            if n == len(levels) - 1:
                if field is not None and \
                        owner in fl.cands.get((kind, field), ()):
                    return "%s.%s" % (owner, field)
                break
            if sub is not None and sub[0] == "tag" and sub[1] in fl.order \
                    and sub[1] in fl.anon_owner:
                tag = sub[1]  # an anonymous structure member's braces
            else:
                tag = fl.resolve(sub) if sub else None
            if tag is None:
                break
        tag = fl.anon_owner.get(tag, tag)
        self._refuse_all(
            ["%s.%s" % (tg, fl) for (kd, fl), tags in self.fields.cands.
             items() if kd == kind for tg in tags if tg == tag],
            kind, "%s at %s:%d initialises a field the tool cannot tell" % (
                toks[k].text, f.display, line))
        return None

    def _api_call(self, f, k, target, args):
        """Init sites and condition partners from a call of pthread
        function @target (or of a macro for it) at token @k."""
        if target in MUTEX_FNS:
            names, why = self.lock_keys(args[0], f, k)
            if why:
                self._refuse_all(names, "mutex", why)
            if why or not names:
                return
            if target != "pthread_mutex_init":
                key = self.key(names[0])
                if target == "pthread_mutex_destroy":
                    key.destroyed = True
                return
            # An init function's parameter (fio's mutex_init_pshared())
            # may carry several locks: this is an init site of each.
            tied = self.handles.tied_slot(f, k, args[0]) \
                if self.handles else None
            if tied is not None:
                self.shared_init_sites[(f.path, k)] = (tied, names)
            attr = args[1] if len(args) > 1 else ""
            fault, owner = (None, None) if canon(attr) in (
                "NULL", "0", "(void*)0") else self._attr_fault(attr, f, k)
            for name in names if tied is not None else names[:1]:
                key = self.key(name)
                key.sites.append((f, k, "init"))
                if fault:
                    key.refuse("initialised with attributes at %s:%d (%s; "
                               "only mutexes private to the process, plain, "
                               "recursive or error-checking, are "
                               "converted)" % (
                                   f.display, f.line(k), fault))
                elif owner:
                    key.owned = key.owned or "initialised with attributes " \
                        "at %s:%d (%s)" % (f.display, f.line(k), owner)
            return
        cks, why = self.lock_keys(args[0], f, k, "cond")
        self._refuse_all(cks, "cond", why)
        if cks and target in COND_FNS[:2] and len(args) >= 2:
            self._scan_wait(f, k, cks, args[1])

    def _attr_fault(self, expr, f, k):
        """(fault, owner) for attribute argument @expr (`&attr`) of the
        init call at token @k of @f.  (None, None) when it makes a plain
        mutex: `attr` is a local pthread_mutexattr_t (or a static one of
        the file), and everywhere that function (the file) names it is its
        declaration, pthread_mutexattr_init/
        destroy, settype to a type whose owner does not matter (normal,
        default, adaptive) or setpshared(PTHREAD_PROCESS_PRIVATE), or the
        second argument of pthread_mutex_init.  (None, "type ... set at
        ...") when, besides, settype makes it recursive or error-checking
        (_OWNER_TYPES: Key.owned).  Else the fault, naming the first use
        that makes it something else (a process-shared or robust mutex,
        the address passed on): one is enough for every mutex it
        initialises."""
        m = re.fullmatch(r"&([A-Za-z_]\w*)", canon(expr))
        if not m:
            return "attribute '%s' is not the address of a local " \
                "pthread_mutexattr_t" % canon(expr), None
        name = m.group(1)
        span = [(ni, bc) for _, ni, _, bc in f.funcs if ni <= k <= bc]
        if not span:
            return "attribute '%s' is not a local of a function" % name, None
        fault, owner, declared = self._attr_uses(name, f, *span[0])
        if declared or fault:
            return fault, owner
        # A static attribute object of the file (tor's attr_recursive,
        # made recursive once, given to every tor_mutex_init()): every
        # use in the file, any function, counts.
        toks = f.src.toks
        decl = [j for j, t in enumerate(toks)
                if t.kind == "id" and t.text == name and
                toks[j - 1].text == "pthread_mutexattr_t" and
                toks[j + 1].text in (";", ",") and
                not any(ni <= j <= bc for _, ni, _, bc in f.funcs)]
        if len(decl) == 1 and "static" in (
                t.text for t in toks[max(0, decl[0] - 4):decl[0] - 1]):
            fault, owner, _ = self._attr_uses(name, f, 0, len(toks))
            return fault, owner
        return "attribute '%s' is neither a local of the function nor a " \
            "static of the file" % name, None

    def _attr_uses(self, name, f, a, b):
        """(fault, owner, declared) for the uses of attribute object @name
        in tokens [@a, @b) of @f: see _attr_fault(); declared: the range
        declares it."""
        toks = f.src.toks
        declared, owner = False, None
        for k in range(a, b):
            if toks[k].kind == "id" and toks[k].text == name:
                at = "%s:%d" % (f.display, f.line(k))
                if toks[k - 1].text == "pthread_mutexattr_t" and \
                        toks[k + 1].text in (";", ","):
                    declared = True
                    continue
                if toks[k - 1].text != "&" or toks[k + 1].text not in (
                        ")", ","):
                    return "attribute '%s' used other than by address at " \
                        "%s" % (name, at), None, declared
                call, pos = _call_around(toks, k - 1)
                nxt = toks[k + 3].text if toks[k + 1].text == "," and \
                    toks[k + 3].text == ")" else None
                if call in ("pthread_mutexattr_init",
                            "pthread_mutexattr_destroy") and pos == 0 and \
                        toks[k + 1].text == ")" or \
                        call == "pthread_mutex_init" and pos == 1 and \
                        toks[k + 1].text == ")":
                    continue
                if call == "pthread_mutexattr_settype" and pos == 0 and nxt:
                    # also through an object-like macro of the program
                    # (jemalloc's MALLOC_MUTEX_TYPE)
                    mac = self.macros.get(toks[k + 2].text)
                    typ = mac[1].strip() if mac and mac[0] in ([], None) \
                        else toks[k + 2].text
                    if toks[k + 2].text in _PLAIN_TYPES or \
                            typ in _PLAIN_TYPES:
                        continue
                    if typ in _OWNER_TYPES:
                        owner = owner or "type %s set at %s" % (
                            toks[k + 2].text, at)
                        continue
                    if toks[k + 2].kind == "id":
                        # A variable or a constant the files do not
                        # define (fio's mutex_init_pshared_with_type(
                        # mutex, type)): liblock_mutexattr_flags() reads
                        # the type when the program runs, so a recursive
                        # or error-checking one stays so; may be one.
                        owner = owner or "type '%s' set at %s, which " \
                            "may be recursive or error-checking" % (
                                toks[k + 2].text, at)
                        continue
                    return "type %s set at %s" % (toks[k + 2].text, at), \
                        None, declared
                if call == "pthread_mutexattr_setpshared" and pos == 0 and \
                        nxt:
                    if toks[k + 2].text == "PTHREAD_PROCESS_PRIVATE":
                        continue
                    return "%s set at %s: other processes may take it" % (
                        toks[k + 2].text, at), None, declared
                if call and call.startswith("pthread_mutexattr_set"):
                    return "%s() at %s" % (call, at), None, declared
                return "attribute '%s' passed to %s at %s" % (
                    name, "%s()" % call if call else "an expression",
                    at), None, declared
        return None, owner, declared

    def _scan_wait(self, f, k, cks, mexpr):
        """A condition wait on one of the cond keys @cks with mutex
        @mexpr at token @k of @f."""
        mks, why = self.lock_keys(mexpr, f, k)
        if not mks:
            self._refuse_all(cks, "cond", "waits with an unnamed mutex")
            return
        if why:
            self._refuse_all(mks, "mutex", why)
            self._refuse_all(cks, "cond", why)
        for ck in cks:
            for mk in mks:
                self.key(ck, "cond").partners.add(mk)
                self.key(mk).partners.add(ck)
        for mk in mks:
            self.key(mk).waits.append((f, k))

    def _scan_macro(self, f, t, name):
        """A macro that is not a lock macro but names a mutex or cond key
        (memcached's STAT_INCR(e, ...) locks &e->stats_mutex inside): the
        key cannot be converted, its expansions would still call pthread.
        An object-like scoped lock macro all of whose uses are sections
        (scoped.py) is expanded nowhere any more."""
        if self._scoped_object_done(name) or self._accessor_only(name):
            return
        rest = t.text.split(name, 1)[1]
        params = set()
        m = re.match(r"\(([^)]*)\)", rest)
        if m:
            params = {p.strip() for p in m.group(1).split(",")}
            rest = rest[m.end():]
        try:
            body = cparse.lex(rest)
        except cparse.ParseError:
            return
        # The lock calls of a section macro are its sections' (held);
        # its other mentions of a lock still keep that lock POSIX.
        base = t.start + len(t.text) - len(rest)
        sm = self.section_macros.get(name)
        calls = sm.ranges(f) if sm else []
        for k, b in enumerate(body):
            if b.kind != "id" or b.text in params:
                continue
            if any(a <= base + b.start < e for a, e in calls):
                continue
            if name in self.init_macros and k > 1 and \
                    _designated_init(body, k):
                continue  # `.lock = PTHREAD_MUTEX_INITIALIZER`: its site
            member = k > 0 and body[k - 1].text in (".", "->")
            tags = self._macro_member_tags(f, t, name, b.text) \
                if member else None
            if member and tags is None:
                tags = self._accessor_cast_tags(rest, b.text)
            if member and tags is None and m:
                tags = self._macro_arg_tags(
                    name, [p.strip() for p in m.group(1).split(",")], body,
                    k)
            for kind in ("mutex", "cond"):
                kns = self._member_keys(body, k, kind, None) if member \
                    else [b.text]
                if tags is not None:
                    # the structures the compiler found at every
                    # expansion: a field of another structure named like
                    # the lock is no use of it (apr's process-shared
                    # box's `mutex` beside apr_thread_mutex_t's)
                    kns = [kn for kn in kns
                           if kn.rsplit(".", 1)[0] in tags]
                for kn in kns:
                    key = self.keys.get((kind, kn))
                    if key is not None:
                        key.refuse("used inside macro %s at %s:%d%s" % (
                            name, f.display, f.src.line_of(t.start),
                            ", other than in the lock calls of its body"
                            if calls else ""))

    def _cleanup_unlocks(self, f):
        """`pthread_cleanup_push(pthread_mutex_unlock, &m)` (the handler
        cast to `void (*)(void *)` or not) or with an unlock wrapper of
        the program on its parameter (`unlock_it(void *a) {
        pthread_mutex_unlock(a); }`), naming one lock: if the thread is
        cancelled in the section, the handler unlocks.  The lock's
        address there is no other use of it (Program.cleanup_unlocks; the
        handler becomes liblock_cleanup_unlock() when the lock is
        converted, rewrite.py).  Returns the token ranges of those
        addresses."""
        toks, out = f.src.toks, []
        for a0, b0, a1, b1 in find.cleanup_pushes(toks):
            handler = [x.text for x in toks[a0:b0]]
            if len(handler) != 1:
                continue
            lf = self.fns.get(handler[0])
            if not (handler[0] == "pthread_mutex_unlock" or
                    lf is not None and lf.role == "unlock" and
                    lf.wrapper and lf.wrapper.get("param") and
                    lf.params is not None and len(lf.params) == 1):
                continue
            arg = find.join_tokens([x.text for x in toks[a1:b1]])
            names, why = self.lock_keys(arg, f, a1)
            if len(names) != 1 or why:
                continue
            if (f, a0, b0 - 1, names[0]) not in self.cleanup_unlocks:
                self.cleanup_unlocks.append((f, a0, b0 - 1, names[0]))
            out.append((a1, b1))
        return out

    def _macro_member_tags(self, f, t, name, field):
        """Structures whose member @field the body of macro @name (the
        #define token @t of @f) names, as the compiler resolved it at
        every expansion of that definition; None when it cannot tell
        (no front end, no expansion, an unresolved one)."""
        fe = getattr(self, "frontend", None)
        if fe is None:
            return None
        return fe.macro_member_tags(f.path, f.src.line_of(t.start), name,
                                    field)

    def live_expand(self, text):
        """Expression @text with the macros that have one definition the
        compiler reads (not in a branch it skips) expanded, a few levels
        deep; the others are left as they are."""
        for _ in range(8):
            new = re.sub(r"[A-Za-z_]\w*", lambda w: next(iter(
                self.live_objects[w.group()])) if len(
                    self.live_objects.get(w.group(), ())) == 1
                else w.group(), text)
            new = self._expand_calls(new)
            if new == text:
                return text
            text = new
        return text

    def _expand_calls(self, text):
        """One pass of live_expand() over the function-like macros."""
        out, pos = [], 0
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
            if m.start() < pos:
                continue
            defs = self.live_functions.get(m.group(1), ())
            if len(defs) != 1:
                continue
            params, body = next(iter(defs))
            split = safety.call_split(text, m.end() - 1)
            if split is None:
                return text
            args, end = split
            if args == [""] and params == ("",):
                args = []
                params = ()
            if len(args) != len(params):
                continue
            sub = dict(zip(params, args))
            out.append(text[pos:m.start()])
            out.append("(%s)" % re.sub(r"[A-Za-z_]\w*", lambda w: sub.get(
                w.group(), w.group()), body))
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _macro_arg_tags(self, name, params, body, k):
        """When the compiler resolved no expansion of macro @name (SQLite's
        `#define pcache1EnterMutex(X) assert((X)->mutex==0)`, nothing left
        of it under NDEBUG): the structures of the member at token @k of
        its @body when the member's object is a parameter, `(X)->m` or
        `X->m`, typed at every use of the macro in the files (`pGroup`, a
        `PGroup *`); None when a use cannot be typed, or there is none."""
        j = k - 2
        if j >= 2 and body[j].text == ")" and body[j - 2].text == "(":
            j -= 1
        if j < 0 or body[j].text not in params or \
                (j >= 1 and body[j - 1].text in (".", "->")):
            return None
        i = params.index(body[j].text)
        tags = set()
        for f in self.files:
            toks = f.src.toks
            for u, t in enumerate(toks):
                if t.kind != "id" or t.text != name or \
                        u + 1 >= len(toks) or toks[u + 1].text != "(":
                    continue
                try:
                    close = cparse.match(toks, u + 1)
                except cparse.ParseError:
                    return None
                args = cparse.split_args(toks, u + 1, close)
                if i >= len(args):
                    return None
                a, b = args[i]
                arg = toks[a:b]
                if any(x.kind == "id" and x.text in self.macros
                       for x in arg):
                    # `&pcache1.grp`, pcache1 `(GLOBAL(struct
                    # PCacheGlobal, pcache1_g))` and GLOBAL(t,v) `v`
                    try:
                        arg = cparse.lex(self.live_expand(
                            f.src.text[toks[a].start:toks[b - 1].end]))
                    except cparse.ParseError:
                        return None
                if arg and arg[0].text == "&":
                    arg = arg[1:]  # (&s.grp)->mutex: s.grp's structure
                tag = self.fields.type_of(
                    arg, lambda n, f=f, u=u: self.var_type(f, u, n))
                if tag is None:
                    return None
                tags.add(tag)
        return tags or None

    def _accessor_cast_tags(self, body, field):
        """When the compiler saw no expansion of a macro (its uses are in
        branches the build skips): the structure of member @field if the
        macro's @body is one member access whose object the text types,
        through the program's macros, with a cast (apr's
        `proc_pthread_mutex_cond(m)`, `(proc_pthread_cast(m)->cond)`, and
        `proc_pthread_cast(m)` a cast to `proc_pthread_mutex_t *`): {its
        tag}; else None."""
        text = " ".join(body.replace("\\\n", " ").split())
        if not re.search(r"(?:\.|->)\s*%s\s*\)*$" % re.escape(field), text):
            return None
        expanded = safety._macros_expanded(self, text)
        try:
            toks = cparse.lex(expanded)
        except cparse.ParseError:
            return None
        tags = set()
        for kind in ("mutex", "cond"):
            names, unsure = self.fields.keys(toks, kind, lambda n: None)
            if unsure:
                return None
            tags |= {n.rsplit(".", 1)[0] for n in names}
        return tags or None

    def _scoped_object_done(self, name):
        """Whether @name is an object-like scoped lock macro (scoped.py)
        whose every use was rewritten: no function of the files read and
        no other macro names it any more."""
        if name not in getattr(self, "scoped_names", ()) or \
                not scoped.object_like(self, name):
            return False
        word = re.compile(r"\b%s\b" % re.escape(name))
        if any(word.search(body) for n, (_, body) in self.macros.items()
               if n != name):
            return False
        for f in self.files:
            toks = f.src.toks
            for _, _, bo, bc in f.funcs:
                if any(toks[j].kind == "id" and toks[j].text == name
                       for j in range(bo, bc)):
                    return False
        return True

    def _member_keys(self, toks, k, kind, f):
        """Keys the member name at token @k may denote (every candidate
        when its structure cannot be told); @f None: a macro body, whose
        names are globals or unknown."""
        if (kind, toks[k].text) not in self.fields.cands and \
                (kind, "." + toks[k].text) not in self.keys:
            return []
        fe = getattr(self, "frontend", None)
        if f is not None and fe is not None:
            # The compiler resolved the member: a field of another type
            # named like the lock (fio's struct sem lock beside a
            # pthread_mutex_t lock) is no use of any lock.
            line, col = scoped.clang_pos(f, toks[k].start)
            kinds = fe.member_kinds(f.path, line, col, toks[k].text)
            if kinds and kind not in kinds:
                return []
            # And which structure's: an object whose type a macro
            # declares (rsyslog's BEGINobjDestruct(qqueue) declares
            # `qqueue_t *pThis`) is no candidate for every structure
            # with such a field.
            tag = fe.member_owner(f.path, line, toks[k].text, col)
            if tag and tag in self.fields.cands.get((kind, toks[k].text),
                                                   ()):
                return ["%s.%s" % (tag, toks[k].text)]
        a = fields.postfix_start(toks, k)
        ts = toks[k - 1:k + 1] if a is None else toks[a:k + 1]
        at = None
        if f is not None and f.skipped is not None and \
                f.line(k) in f.skipped.lines:
            at = (f.path, f.line(k), f.skipped.lines)
        return self.fields.keys(ts, kind, lambda n: self.var_type(f, k, n)
                                if f else self.fields.global_type(n),
                                at)[0]

    def _in_wrapper(self, f, k):
        off = f.src.toks[k].start
        return any(find.in_wrapper(lf, f.path, off)
                   for lf in list(self.fns.values()) +
                   list(self.api.values()))

    def _scan_uses(self, f):
        """Refuse keys used in ways the rewrite does not understand."""
        toks = f.src.toks
        for t in toks:
            m = re.match(r"#\s*define\s+(\w+)", t.text) \
                if t.kind == "pp" else None
            if m and m.group(1) not in self.fns and \
                    f.src.line_of(t.start) not in f.dead_defines and \
                    not self._api_macro_seen(m.group(1)):
                self._scan_macro(f, t, m.group(1))
        allocs, frees = self._heap_fns()
        ok = _accounted_ranges(f, self.fns, self.api)
        # The one assignment of a pointer local that is followed.
        ok += [pl.range for (path, _), pl in self.ptr_locals.items()
               if path == f.path and pl.why is None]
        # Where handles.py follows a lock's address (it refuses the lock
        # itself when the address goes further).
        ok += self.handles.accounted(f)
        ok += macrobody.accounted(self, f)
        ok += [r for vf, _, _, _, rs in self.value_copies if vf is f
               for r in rs]
        ok += self._cleanup_unlocks(f)
        self._field_macro_args(f, ok)
        ok += _discarded_macro_args(f, self.macro_cands)
        for k, t in enumerate(toks):
            if t.kind != "id":
                continue
            member = toks[k - 1].text in (".", "->")
            for kind in ("mutex", "cond"):
                names = self._member_keys(toks, k, kind, f) if member \
                    else [t.text]
                if member and len(names) > 1:
                    # `{ .lock = ... }`: the structure being initialised
                    tag = self._designator_tag(f, k)
                    if tag and "%s.%s" % (tag, t.text) in names:
                        names = ["%s.%s" % (tag, t.text)]
                found = [self.keys[(kind, n)] for n in names
                         if (kind, n) in self.keys]
                if not found or any(a <= k < b for a, b in ok):
                    continue
                if not member and _is_member_decl_or_init(
                        toks, k, self.types_in(f)):
                    continue
                if not member and self._shadowed(f, k, kind):
                    continue  # a local of another type with its name
                if self._positional_pointer(f, k, ok, kind):
                    continue
                if member and _designated_init(toks, k, kind):
                    continue  # its initialiser is the field's site
                # A pointer declared `pthread_mutex_t *p` whose lock lives
                # on the heap: tested, freed, set to NULL or to memory
                # allocated for the mutex type.
                ptr = len(found) == 1 and self._ptr_key(found[0])
                if ptr and member and \
                        self._ptr_designated(f, k, found[0], ok, kind):
                    continue
                a = k if not member else fields.postfix_start(toks, k)
                if a is not None and (ptr or not member) and \
                        _pointer_test_or_free(toks, a, k, frees):
                    continue
                if ptr and a is not None and kind == "mutex" and \
                        self._ptr_assign(f, a, k, found[0], allocs, ok):
                    continue
                if ptr and a is not None and kind == "cond" and \
                        self._cond_ptr_assign(f, a, k, found[0], ok):
                    continue
                pl = self.pointer_local(f, k, t.text) \
                    if kind == "mutex" and not member else None
                if pl is not None and pl.why is None:
                    # It hands its pointee's address out.
                    self._refuse_all(
                        self._pointee(pl, k)[0], kind,
                        "pointer local '%s' to it used outside lock/unlock/"
                        "init/destroy/condition calls at %s:%d" % (
                            t.text, f.display, f.line(k)))
                via = _checked_wrapper_call(toks, k)
                for key in found:
                    key.refuse(
                        "passed to %s() at %s:%d, which checks the result "
                        "of %s() (liblock's must be checked too: call "
                        "pthread's function at that site)" % (
                            via, f.display, f.line(k),
                            find.CHECKED_API[via]) if via else
                        "used outside lock/unlock/init/destroy/"
                        "condition calls at %s:%d%s" % (
                            f.display, f.line(k), self._skipped_note(f, k)))

    def _shadowed(self, f, k, kind):
        """Whether name token @k of @f is a local or parameter of the
        function around it, declared with no @kind type (nbdkit's
        ondemand.c: `struct flock lock;` where other plugins have a
        static mutex `lock`): not the lock of that name."""
        toks = f.src.toks
        at = k + 1
        # a parameter's own declaration: read from the function's body
        for _, ni, bo, _ in f.funcs:
            if ni < k < bo:
                at = bo + 1
        fi = f.func_at(toks[at].start, self.typedefs, lenient=True) \
            if at < len(toks) else None
        if fi is None:
            return False
        d = analyse.visible_decl(fi, toks[k].text, at)
        if d is None:
            return False
        words = set(re.findall(r"[A-Za-z_]\w*", d.spec + " " +
                               d.declarator))
        return not any(self.types_in(f).get(w) == kind or
                       w == "pthread_%s_t" % kind for w in words)

    def _skipped_note(self, f, k):
        """What a reason adds when token @k of @f is in a branch this
        build does not compile (-p: libclang's skipped ranges): the use
        still counts, as another configuration of the same source
        compiles it (REFACTOR.md section 6)."""
        if not self.opts.commands or f.skipped is None or \
                f.line(k) not in f.skipped.lines:
            return ""
        return (", in code this build does not compile (another "
                "configuration does)")

    def _field_macro_args(self, f, ok):
        """Refuse the mutex and condition fields whose name is an argument
        of a function-like macro that uses that parameter as a member
        (rsyslog's `DEFpropSetMethPTR(wtp, pmutUsr, pthread_mutex_t)`
        defines a setter doing `pThis->prop = pVal`): what the expansion
        does with the field is not followed, and a field whose type
        changes would be assigned a pthread_mutex_t there."""
        toks = f.src.toks
        for k, t in enumerate(toks):
            if t.kind != "id" or k + 1 >= len(toks) or \
                    toks[k + 1].text != "(" or any(a <= k < b for a, b in ok):
                continue
            m = self.macros.get(t.text)
            if not m or not m[0]:
                continue
            params, body = m
            try:
                btoks = cparse.lex(body.replace("\\\n", " "))
                close = cparse.match(toks, k + 1)
            except cparse.ParseError:
                continue
            members = {b.text for i, b in enumerate(btoks) if i and
                       b.kind == "id" and btoks[i - 1].text in (".", "->")}
            for n, (a, b) in enumerate(cparse.split_args(toks, k + 1,
                                                         close)):
                if b - a != 1 or toks[a].kind != "id" or \
                        n >= len(params) or params[n] not in members:
                    continue
                for (kind, name), key in self.keys.items():
                    if "." in name and name.rsplit(".", 1)[1] == \
                            toks[a].text:
                        key.refuse("field '%s' is named in the arguments of "
                                   "macro %s() at %s:%d, whose body uses it "
                                   "as a member (not followed)" % (
                                       toks[a].text, t.text, f.display,
                                       f.line(a)))

    # -- pointers to heap-allocated locks ----------------------------------
    def _pointer_names(self, key):
        """[(File, token of the declared name)] when every declaration of
        mutex key @key declares a pointer, `pthread_mutex_t *p`, else
        None."""
        if not key.decls:
            return None
        name = key.name.rsplit(".", 1)[-1]
        out = []
        for f, k in key.decls:
            toks = f.src.toks
            j = k + 1
            while toks[j].text in _QUALS:
                j += 1
            if toks[j].text != "*":
                return None
            j += 1
            while toks[j].text in _QUALS:
                j += 1
            if toks[j].text != name:
                return None
            out.append((f, j))
        return out

    def pointer_key(self, key):
        """Whether mutex key @key is declared a pointer (a global, a
        static or a field), with or without an initialiser: no refusal,
        unlike _ptr_key()."""
        return self._pointer_names(key) is not None

    def _ptr_key(self, key):
        """Whether mutex key @key is a pointer, `pthread_mutex_t *p;` (a
        global, a static or a field, declared alone or with other pointers,
        without an initialiser): the storage of a lock allocated on the
        heap, whose every use _scan_uses() checks."""
        names = self._pointer_names(key)
        if names is None:
            return False
        for f, j in names:
            toks = f.src.toks
            if toks[j + 1].text == "=":
                key.refuse("pointer '%s' is initialised at its declaration "
                           "at %s:%d (only NULL, memory allocated for the "
                           "mutex type and the address of one lock, "
                           "assigned in a statement, are followed)" % (
                               toks[j].text, f.display, f.line(j)))
                return False
            if toks[j + 1].text not in (";", ","):
                return False
        return True

    def _heap_fns(self):
        """(allocators, free functions): the C library's, and the
        functions of the program whose body calls one of them (an
        allocator; blosc's my_malloc() calls posix_memalign()) or that only
        pass their one parameter to one (a free wrapper; my_free())."""
        if self._heap is not None:
            return self._heap
        allocs, frees = set(_ALLOCATORS), set(_FREES)
        defs = {}
        for f in self.files:
            for name, ni, bo, bc in f.funcs:
                defs.setdefault(name, []).append((f, ni, bo, bc))
        changed = True
        while changed:
            changed = False
            for name, d in defs.items():
                if len(d) != 1 or name in allocs or name in frees:
                    continue
                f, ni, bo, bc = d[0]
                toks = f.src.toks
                calls = {toks[j].text for j in range(bo, bc)
                         if toks[j].kind == "id" and toks[j + 1].text == "("}
                if calls & allocs:
                    allocs.add(name)
                    changed = True
                    continue
                params = [toks[j - 1].text for j in range(ni + 1, bo)
                          if toks[j].text in (",", ")") and
                          toks[j - 1].kind == "id" and
                          cparse.match(toks, ni + 1) >= j]
                if len(params) != 1 or params[0] == "void":
                    continue
                uses = [j for j in range(bo, bc) if toks[j].text == params[0]
                        and toks[j].kind == "id"]
                if uses and all(toks[j - 1].text == "(" and
                                toks[j + 1].text == ")" and
                                toks[j - 2].text in frees for j in uses):
                    frees.add(name)
                    changed = True
        self._heap = (allocs, frees)
        return self._heap

    def _designator_tag(self, f, k):
        """The structure tag of the brace initialiser whose designator
        `.name =` is at token @k of @f, when its type is written there: a
        declaration `struct report_arg ra = { .lock = ... }` (also of an
        array of them, `{ { .lock = ... }, ... }`) or a compound literal
        `(struct targ){ .lock = ... }`; else None."""
        toks = f.src.toks
        if not _designator(toks, k):
            return None
        o = _opening_brace(toks, k - 2)
        return self._brace_tag(f, o) if o is not None else None

    def _brace_tag(self, f, o):
        """The structure tag of the brace initialiser opening at token @o
        of @f, when its type is written there (_designator_tag())."""
        toks = f.src.toks
        array = False
        while o is not None and o > 0 and toks[o - 1].text in ("{", ","):
            # an element of an array's initialiser
            o, array = _opening_brace(toks, o - 1), True
        if o is None or o < 2:
            return None
        try:
            if toks[o - 1].text == ")" and not array:
                c = cparse.match_back(toks, o - 1)
                return None if c is None else self.fields.resolve(
                    fields.spec_type(toks[c + 1:o - 1]))
            if toks[o - 1].text != "=":
                return None
            j = o - 2
            while toks[j].text == "]":
                c = cparse.match_back(toks, j)
                if c is None:
                    return None
                j = c - 1
            if toks[j].kind != "id" or (toks[j + 1].text == "[") != array:
                return None
            return self.var_type(f, o, toks[j].text) if f.in_function(j) \
                else self.fields.global_type(toks[j].text)
        except (cparse.ParseError, IndexError):
            return None

    def _positional_pointer(self, f, k, ok, kind="mutex"):
        """Token @k of @f names a lock in `&X` (`&locks[3]`, `&s.mu`), an
        element of a brace initialiser without designators (`struct targ
        a = { 0, &count_lock };`): when the structure's member it
        initialises is a pointer key, record the lock as what that pointer
        holds (_lock_address()) and return True."""
        toks = f.src.toks
        a = fields.postfix_start(toks, k) \
            if toks[k - 1].text in (".", "->") else k
        if a is None or a < 2 or toks[a - 1].text != "&" or \
                toks[a - 2].text not in ("{", ","):
            return False  # (cheap: most uses are no such element)
        o = _opening_brace(toks, k)
        if o is None or o == k:
            return False
        # the element around @k: after the '{' or a ',' of the list
        s, j = o + 1, o + 1
        while j < k:
            if toks[j].kind == "punct" and toks[j].text in ("(", "[", "{"):
                j = cparse.match(toks, j)
            elif toks[j].text == ",":
                s = j + 1
            j += 1
        e = s
        while e < len(toks) and toks[e].text not in (",", "}", ";"):
            if toks[e].kind == "punct" and toks[e].text in ("(", "[", "{"):
                e = cparse.match(toks, e)
            e += 1
        if toks[s].text != "&" or not s < k < e or e >= len(toks) or \
                toks[e].text == ";":
            return False
        tag = self._brace_tag(f, o)
        order = self.fields.order.get(tag) if tag else None
        if not order:
            return False
        index, j = 0, o + 1
        while j < s:
            x = toks[j]
            if x.kind == "punct" and x.text in ("(", "[", "{"):
                j = cparse.match(toks, j)
            elif x.text == ",":
                index += 1
            elif x.text in (".", "=") and toks[j - 1].text in ("{", ",",
                                                                 "]"):
                return False  # designators: positions restart there
            j += 1
        if index >= len(order) or order[index][0] is None:
            return False
        key = self.keys.get((kind, "%s.%s" % (tag, order[index][0])))
        if key is None or not self._ptr_key(key):
            return False
        return self._lock_address(f, s, e, [t.text for t in toks[s:e]],
                                  key, "%s:%d" % (f.display, f.line(k)), ok,
                                  kind)

    def _ptr_designated(self, f, k, key, ok, kind="mutex"):
        """Pointer key @key named by the designator at token @k of a
        brace initialiser, `{ .lock = &count_lock, ... }`: True when it is
        given NULL or the address of one lock (recorded as for an
        assignment, _ptr_assign(); its range goes to @ok)."""
        toks = f.src.toks
        if not _designator(toks, k):
            return False
        e = k + 2
        while e < len(toks) and toks[e].text not in (",", "}", ";"):
            if toks[e].text in ("(", "[", "{") and toks[e].kind == "punct":
                e = cparse.match(toks, e)
            e += 1
        texts = [t.text for t in toks[k + 2:e]]
        if e >= len(toks) or toks[e].text == ";" or not texts:
            return False
        if texts in _NULLS:
            return True
        return texts[0] == "&" and self._lock_address(
            f, k + 2, e, texts, key, "%s:%d" % (f.display, f.line(k)), ok,
            kind)

    def _lock_address(self, f, r, b, texts, key, where, ok, kind="mutex"):
        """Pointer key @key given toks[r:b] of @f (@texts), the address of
        a lock (or of a condition, @kind "cond"): when that names one lock
        of the program, record it (the two change type together:
        rewrite._pointee_tie(), _cond_pointees()), put the range in @ok
        and return True."""
        names, why = self.lock_keys(find.join_tokens(texts), f, r, kind)
        pk = self.keys.get((kind, names[0])) if len(names) == 1 \
            else None
        if why or pk is None or pk is key or not pk.decls or \
                self._ptr_key(pk):
            return False
        pointees = self.ptr_pointees if kind == "mutex" else \
            self.cond_pointees
        pointees.setdefault(key.name, {}).setdefault(pk.name, where)
        ok.append((r, b))
        return True

    def _cond_ptr_assign(self, f, a, k, key, ok):
        """Condition pointer key @key, named by toks[a:k+1] of @f: True
        when that is the left side of an assignment statement that gives
        it NULL or the address of one condition of the program (recorded:
        _lock_address()).  Anything else is a use the scan refuses."""
        toks = f.src.toks
        value = _assigned_value(toks, a, k)
        if value is None:
            return False
        r, b, _ = value
        texts = [t.text for t in toks[r:b]]
        if texts in _NULLS:
            return True
        return bool(texts) and texts[0] == "&" and self._lock_address(
            f, r, b, texts, key, "%s:%d" % (f.display, f.line(k)), ok,
            "cond")

    def _ptr_assign(self, f, a, k, key, allocs, ok):
        """Pointer key @key, named by toks[a:k+1] of @f: when that is the
        left side of an assignment statement, check what it is given --
        NULL, or memory an allocator returns for the mutex type
        (`(pthread_mutex_t *)my_malloc(sizeof(pthread_mutex_t))`,
        `malloc(sizeof *p)`), whose type names become liblock_lock_t with
        the lock -- and refuse the key otherwise.  False when it is not
        such a statement; the range of `sizeof *p` goes to @ok."""
        toks = f.src.toks
        value = _assigned_value(toks, a, k)
        if value is None:
            return False
        r, b, e = value
        lhs = [t.text for t in toks[a:k + 1]]
        name = canon(" ".join(lhs))
        where = "%s:%d" % (f.display, f.line(k))
        texts = [t.text for t in toks[r:b]]
        if texts in _NULLS:
            return True
        # A parameter of the function: what its callers pass (handles.py).
        fp = self.handles.field_param(f, k + 2, e) if self.handles else None
        if fp is not None:
            slot, casts, why = fp
            if why:
                key.refuse("pointer '%s' is assigned '%s' at %s, a "
                           "parameter: %s (only NULL and memory allocated "
                           "for the mutex type are followed: a pointer that "
                           "may hold another lock stays POSIX)" % (
                               name, canon(" ".join(texts)), where, why))
            else:
                slot.carriers.add(key.name)
                slot.stored.add((f.path, k + 2))
                self.ptr_allocs.append((key.name, f, casts))
            return True
        # The address of a lock of the program: the pointer names that
        # lock (a thread's argument structure pointing at the shared
        # counter's mutex), and the two change type together.
        if texts[0] == "&" and self._lock_address(f, r, b, texts, key,
                                                  where, ok):
            return True
        retype = []
        if toks[r].text == "(":
            c = cparse.match(toks, r)
            inner = [t.text for t in toks[r + 1:c]]
            if len(inner) == 2 and inner[1] == "*" and (
                    inner[0] == "void" or self.types_in(f).get(inner[0]) ==
                    "mutex"):
                if inner[0] != "void":
                    retype.append(r + 1)
                r = c + 1
        if not (toks[r].kind == "id" and toks[r + 1].text == "(" and
                cparse.match(toks, r + 1) == b - 1):
            key.refuse("pointer '%s' is assigned '%s' at %s (only NULL, "
                       "memory allocated for the mutex type and the "
                       "address of one lock are followed: a pointer that "
                       "may hold another lock stays POSIX)" % (
                           name, canon(" ".join(texts)), where))
            return True
        if toks[r].text not in allocs:
            key.refuse("pointer '%s' is assigned the result of %s() at %s, "
                       "which is not known to allocate memory (malloc(), "
                       "calloc(), aligned_alloc(), posix_memalign() or a "
                       "function of the program that calls one)" % (
                           name, toks[r].text, where))
            return True
        sized = False
        for i in range(r + 2, b - 1):
            if toks[i].text != "sizeof":
                continue
            if toks[i + 1].text == "(" and toks[i + 3].text == ")" and \
                    self.types_in(f).get(toks[i + 2].text) == "mutex":
                retype.append(i + 2)
                sized = True
                continue
            j = i + 1
            paren = toks[j].text == "("
            if paren:
                j += 1
            if toks[j].text == "*" and \
                    [t.text for t in toks[j + 1:j + 1 + len(lhs)]] == lhs \
                    and (not paren or toks[j + 1 + len(lhs)].text == ")"):
                ok.append((j + 1, j + 1 + len(lhs)))
                sized = True
        if not sized:
            key.refuse("pointer '%s' is allocated at %s with a size the tool "
                       "cannot tie to the mutex (write sizeof(%s) or sizeof "
                       "*%s: the lock's type, and so its size, changes)" % (
                           name, where, f.src.toks[key.decls[0][1]].text,
                           name))
            return True
        self.ptr_allocs.append((key.name, f, retype))
        return True


    def _value_copies(self, f):
        """zstd's ZSTDMT_releaseAllJobResources() saves a job's mutex and
        condition variable by value, clears the job, and puts them back:

            ZSTD_pthread_mutex_t const mutex = mtctx->jobs[jobID].job_mutex;
            ... ZSTD_memset(&mtctx->jobs[jobID], 0, sizeof(...));
            mtctx->jobs[jobID].job_mutex = mutex;

        The lock ends with the bytes it had, whatever its type.  A local
        declared alone with the mutex (or cond) type, initialised from a
        lock expression E, and used only in statements `E = local;` with
        the same text E, whose names are not assigned in between, does
        not keep E's lock POSIX: its type follows the lock's (rewrite.py).
        Any other copy still does (the copy would be another lock)."""
        toks = f.src.toks
        for _, _, bo, _ in f.funcs:
            try:
                fi = f.func_at(toks[bo].start, self.typedefs)
            except cparse.ParseError:
                continue
            if fi is None:
                continue
            for d in fi.decls:
                vc = self._value_copy(f, fi, d)
                if vc is not None:
                    self.value_copies.append(vc)

    def _value_copy(self, f, fi, d):
        toks = f.src.toks
        if d.is_param or d.is_static or not d.init or d.siblings != 1 or \
                d.declarator.strip() != d.name:
            return None
        types = self.types_in(f)
        typ = [k for k in range(d.stmt[0], d.t0)
               if toks[k].kind == "id" and toks[k].text in types]
        if len(typ) != 1:
            return None
        kind = types[toks[typ[0]].text]
        eq = d.t0 + 1
        if toks[eq].text != "=":
            return None
        src = (eq + 1, d.range[1])
        expr = find.join_tokens([t.text for t in toks[src[0]:src[1]]])
        names_in = {toks[k].text for k in range(*src)
                    if toks[k].kind == "id" and
                    toks[k - 1].text not in (".", "->")}
        ranges = [src]
        for j in range(d.range[1], fi.bc):
            if toks[j].kind != "id" or toks[j].text != d.name or \
                    toks[j - 1].text in (".", "->"):
                continue
            a = j - 1
            while toks[a - 1].text not in (";", "{", "}"):
                a -= 1
            if toks[j - 1].text != "=" or toks[j + 1].text != ";" or \
                    canon(find.join_tokens(
                        [t.text for t in toks[a:j - 1]])) != canon(expr):
                return None
            for x in range(d.range[1], a):
                t = toks[x]
                if t.kind == "id" and t.text in names_in and \
                        toks[x - 1].text not in (".", "->") and (
                            toks[x + 1].text in _ASSIGN_OPS or
                            toks[x - 1].text in ("++", "--") or
                            toks[x - 1].text == "&" and
                            toks[x + 1].text not in (".", "->", "[")):
                    return None
            ranges.append((a, j - 1))
        if len(ranges) < 2:
            return None
        names, why = self.lock_keys("&" + expr, f, d.t0, kind)
        if why or len(names) != 1:
            return None
        return (f, typ[0], kind, names[0], ranges)


class PtrLocal:
    """A local `pthread_mutex_t *l = &locks[h % N];` that lock calls use
    (`pthread_mutex_lock(l)`): it stands for the lock its one assignment
    names (@expr, at token @assign) wherever it is used after that.
    @why says why it cannot be followed."""

    def __init__(self, f, decl_tok, name, decl):
        self.file, self.decl_tok, self.name, self.decl = f, decl_tok, name, \
            decl
        self.why = None
        self.expr, self.assign, self.range = None, None, None
        self.pointees = set()


def _checked_wrapper_call(toks, k):
    """The name of the function of find.CHECKED_API whose call's
    arguments token @k is in, or None."""
    depth = 0
    for j in range(k - 1, -1, -1):
        t = toks[j].text
        if t in (";", "{", "}"):
            return None
        if t == ")":
            depth += 1
        elif t == "(":
            if depth == 0:
                return toks[j - 1].text if toks[j - 1].text in \
                    find.CHECKED_API else None
            depth -= 1
    return None


def _struct_typedefs(toks):
    """Names of `typedef struct [tag] { ... } NAME, *PNAME;`."""
    out = set()
    for k, t in enumerate(toks):
        if t.text != "typedef" or toks[k + 1].text not in (
                "struct", "union", "enum"):
            continue
        j = k + 2 + (toks[k + 2].kind == "id")
        if toks[j].text != "{":
            continue
        j = cparse.match(toks, j) + 1
        while j < len(toks) and toks[j].text != ";":
            if toks[j].kind == "id" and toks[j + 1].text in (",", ";", "["):
                out.add(toks[j].text)
            j += 1
    return out


_ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
               ">>=", "++", "--")


_TYPEDEF_ALIAS = re.compile(r"\btypedef\s+(?:volatile\s+)?([A-Za-z_]\w*)\s+"
                            r"([A-Za-z_]\w*)\s*;")


_OBJECT_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
                            r"(?![\w(])((?:[^\n\\]|\\\n|\\.)*)", re.M)
# A function-like #define: its name, and its body after the parameters.
_FUNCTION_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
                              r"\([^)]*\)((?:[^\n\\]|\\\n|\\.)*)", re.M)


def _chosen(fns, name, cands):
    """The definition of macro NAME used for expansion: the candidate
    that maps to a lock function, else the last one read."""
    for params, body in cands:
        if find.macro_fn(fns, name, params, body):
            return params, body
    return cands[-1]


def _args(toks, open_i, close):
    return [find.join_tokens([t.text for t in toks[a:b]])
            for a, b in cparse.split_args(toks, open_i, close)]


def _is_struct_body(toks, k):
    j = k - 1
    if toks[j].kind == "id" and toks[j - 1].text in ("struct", "union"):
        return True
    return toks[j].text in ("struct", "union")


def _param_of(f, k):
    """Whether token @k of File @f is in a function's parameter list."""
    return any(ni < k < bo for _, ni, bo, _ in f.funcs)


def _block_extern(toks, k):
    """True when the declaration whose type token is at @k is `extern`."""
    j = k - 1
    while j >= 0 and toks[j].kind == "id":
        if toks[j].text == "extern":
            return True
        j -= 1
    return False


def _static_object(toks, k):
    """True when the declaration whose type token is at @k has static
    storage (`static`, not thread-local) and declares no pointer."""
    j, specs = k - 1, set()
    while j >= 0 and toks[j].kind == "id":
        specs.add(toks[j].text)
        j -= 1
    if "static" not in specs or specs & {"__thread", "_Thread_local",
                                         "thread_local", "typedef"}:
        return False
    j = k + 1
    while j < len(toks) and toks[j].text != ";":
        if toks[j].text == "*":
            return False
        if toks[j].text in ("(", "[", "{"):
            j = cparse.match(toks, j)
        j += 1
    return True


# A null pointer constant, as the tokens of a value.
_NULLS = (["NULL"], ["0"], ["(", "void", "*", ")", "0"])


def _designator(toks, k):
    """Whether member name @k is the designator of `.name = VALUE` in a
    brace initialiser."""
    return toks[k - 1].text == "." and toks[k - 2].text in ("{", ",") and \
        toks[k + 1].text == "="


def _opening_brace(toks, j):
    """The '{' of the brace list whose element token @j is in or opens
    (@j itself when it is that '{'), or None."""
    if toks[j].text == "{" and toks[j].kind == "punct":
        return j
    depth = 0
    while j >= 0:
        x = toks[j]
        if x.kind == "punct" and x.text in ("}", ")", "]"):
            depth += 1
        elif x.kind == "punct" and x.text in ("{", "(", "["):
            if depth == 0:
                return j if x.text == "{" else None
            depth -= 1
        j -= 1
    return None


def _main_top_level(f, k):
    """Whether token @k of File @f is in the outermost block of main():
    a lock declared there lives as long as the program's threads may
    (main() runs once; its return ends them), as a static one does."""
    for name, _, bo, bc in f.funcs:
        if bo < k < bc:
            if name != "main":
                return False
            toks, depth = f.src.toks, 0
            for j in range(bo + 1, k):
                if toks[j].kind == "punct" and toks[j].text in "{}":
                    depth += 1 if toks[j].text == "{" else -1
            return depth == 0
    return False


def _object_declarator(toks, k, name):
    """Whether @name, declared by the declaration whose type token is at
    @k, is declared as an object or an array (no '*' before it)."""
    j = k + 1
    while j < len(toks) and toks[j].text not in (";", "{", "="):
        if toks[j].text == name and toks[j].kind == "id":
            return toks[j - 1].text != "*"
        j += 1
    return False


def _declarators(toks, k):
    """Names declared by the declaration whose type token is at @k."""
    names, j, expect = [], k + 1, True
    while j < len(toks) and toks[j].text != ";" and \
            not (toks[j].text == ")" and expect):
        t = toks[j]
        if t.text == "{" and t.kind == "punct" and not expect:
            break  # the body of pthread_mutex_t *f(void) { ... }
        if t.text == "(" and names and toks[j - 1].text == names[-1]:
            names.pop()  # a function returning a mutex (pointer)
        if t.text in ("(", "[", "{") and t.kind == "punct" and not expect:
            j = cparse.match(toks, j) + 1
            continue
        if t.text == "=":
            expect = False
            j += 1
            while j < len(toks) and toks[j].text not in (",", ";"):
                if toks[j].text in ("(", "[", "{"):
                    j = cparse.match(toks, j)
                j += 1
            continue
        if t.text == ",":
            expect = True
        elif t.kind == "id" and expect and t.text not in (
                "const", "volatile", "restrict", "__restrict",
                "__attribute__"):
            if toks[j + 1].text != "(":  # not a function returning one
                names.append(t.text)
            expect = False
        elif t.text == ")":
            break
        j += 1
    return names


def _initialized_name(toks, k, types):
    """The declarator that PTHREAD_MUTEX_INITIALIZER at @k initialises."""
    j = k
    while types.get(toks[j].text) != "mutex":
        if j == 0 or toks[j].text in (";",) or toks[j].kind == "pp":
            return None  # no mutex type before it in the declaration
        j -= 1
    names = _declarators(toks, j)
    if len(names) == 1:
        return names[0]
    # a = INIT, b = INIT: the name after the last top-level comma
    last = None
    for x in range(j + 1, k):
        if toks[x].kind == "id" and toks[x].text in names:
            last = toks[x].text
    return last


def _is_member_decl_or_init(toks, k, types):
    """`pthread_mutex_t name` or `.name = ...` in a designated initialiser."""
    j = k - 1
    while j >= 0 and (toks[j].text in ("*", "const", "volatile") or
                      toks[j].text == "static"):
        j -= 1
    if toks[j].text in types:
        return True
    if toks[j].text == "," or toks[j].text == ";":
        # later declarator of a multi-name declaration
        x = j
        while x >= 0 and toks[x].text not in (";", "{", "}"):
            if toks[x].text in types:
                return True
            x -= 1
    return False


def _designated_init(toks, k, kind="mutex"):
    """Whether member name @k is the designator of `.name = INITIALIZER`
    in a brace initialiser, INITIALIZER a static mutex initialiser
    (_scan_calls records it as the field's site), or for @kind "cond"
    PTHREAD_COND_INITIALIZER (Program.cond_inits)."""
    if not _designator(toks, k) or k + 3 >= len(toks):
        return False
    x = toks[k + 2].text
    if kind == "cond":
        ok = x == "PTHREAD_COND_INITIALIZER"
    else:
        ok = x in PLAIN_INITIALIZERS or x.startswith(OWNED_INITIALIZERS)
    return ok and toks[k + 3].text in (",", "}")


_QUALS = ("const", "volatile", "restrict", "__restrict")
_ALLOCATORS = ("malloc", "calloc", "aligned_alloc", "posix_memalign",
               "memalign", "valloc", "pvalloc", "_aligned_malloc")
_FREES = ("free", "cfree", "_aligned_free")


# `locks + i`, `t->stripes + (h & mask)`, `base - 1`: a lock named by a
# pointer or array of locks and an offset.
_NAME_CHAIN = r"[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*|\[[^][]*\])*"
_OFFSET = re.compile(r"(%s)([-+])(.+)" % _NAME_CHAIN)


def _element_address(expr, is_lock):
    """Lock expression @expr with a pointer offset, `P + e`, `e + P` or
    `P - e`, written as the element it names, `&P[e]` (`&P[-(e)]`): the
    lock of array or pointer P, as `&P[e]` is, when @is_lock(P) (a key
    of the program: in `s + locks` the pointer is the second).  Any
    other expression as given."""
    s = canon(expr)
    m = _OFFSET.fullmatch(s)
    if m is None:
        return expr
    if not is_lock(m.group(1)):
        if m.group(2) == "+" and re.fullmatch(_NAME_CHAIN, m.group(3)) \
                and is_lock(m.group(3)):
            return "&%s[%s]" % (m.group(3), m.group(1))
        return expr
    depth = 0
    for c in m.group(3):
        depth += c in "(["
        depth -= c in ")]"
        if depth < 0 or depth == 0 and c in "?,=<>|&":
            return expr  # `P + a ? b : c`: not one offset
    if depth:
        return expr
    return "&%s[%s(%s)]" % (m.group(1), "-" if m.group(2) == "-" else "",
                            m.group(3))


def _assigned_value(toks, a, k):
    """When toks[a:k+1] is the left side of an assignment statement, `P =
    value;`: (r, b, e), the value's tokens toks[r:b] without the
    parentheses around it, and the `;` at @e; else None."""
    p = a - 1
    while p > 0 and toks[p].kind == "pp":
        p -= 1  # the statement before an #endif (curl's asyn-thread.c)
    if toks[k + 1].text != "=" or not (
            toks[p].text in (";", "{", "}", "else", ":") or
            toks[p].text == ")" and handles.control(toks, p)):
        return None
    e = k + 2
    while e < len(toks) and toks[e].text not in (";", ","):
        if toks[e].text in ("(", "[", "{") and toks[e].kind == "punct":
            e = cparse.match(toks, e)
        e += 1
    if e >= len(toks) or toks[e].text != ";":
        return None
    r, b = k + 2, e
    while toks[r].text == "(" and cparse.match(toks, r) == b - 1:
        r, b = r + 1, b - 1
    return r, b, e


def _pointer_test_or_free(toks, a, k, frees=_FREES):
    """Uses of a pointer to mutexes, toks[a:k+1], that do not depend on the
    mutex type: free(p) (or a free wrapper's call), !p, if (p), p == NULL,
    p != NULL."""
    prev, nxt = toks[a - 1].text, toks[k + 1].text
    if prev == "(" and nxt == ")" and (toks[a - 2].text in frees or
                                       toks[a - 2].text == "if"):
        return True
    if prev == "!" or (nxt in ("==", "!=") and toks[k + 2].text in (
            "NULL", "0")):
        return True
    return False


# Where the -I directories of installed libraries are: their headers are
# not the program's.
_SYSTEM_DIRS = ("/usr/include/", "/usr/lib/", "/usr/local/include/",
                "/usr/local/lib/", "/usr/share/")


def _in_parens(toks, k):
    """Whether token @k is inside parentheses opened in its declaration
    (a parameter list, a cast, sizeof)."""
    depth = 0
    for j in range(k - 1, -1, -1):
        t = toks[j]
        if t.kind == "pp":
            return False
        if t.text == ")":
            depth += 1
        elif t.text == "(":
            if depth == 0:
                return True
            depth -= 1
        elif depth == 0 and t.text in (";", "{", "}"):
            return False
    return False


def _field_line(f, k, field):
    """The line of the first `.field` or `->field` from token @k of @f
    to the end of its statement, where libclang has the member reference
    (dav1d's `pthread_cond_wait(&c->cond,\n &c->lock)`): else @k's."""
    toks = f.src.toks
    for j in range(k, min(len(toks), k + 400)):
        if toks[j].text in (";", "{", "}"):
            break
        if toks[j].text == field and toks[j - 1].text in (".", "->"):
            return f.line(j)
    return f.line(k)


def _discarded_macro_args(f, cands):
    """Token ranges of the arguments that the function-like macro called
    there drops: unbound's `#define lock_protect(lock, area, size) /\* nop
    *\/` (its checked-locks build defines it otherwise: then that
    definition is a candidate too, and the argument counts).  A lock
    named there is not used."""
    toks = f.src.toks
    out = []
    for k, t in enumerate(toks):
        defs = cands.get(t.text) if t.kind == "id" else None
        if not defs or k + 1 >= len(toks) or toks[k + 1].text != "(" or \
                toks[k - 1].text in (".", "->"):
            continue
        close = cparse.match(toks, k + 1)
        spans = cparse.split_args(toks, k + 1, close)
        for i, (a, b) in enumerate(spans):
            if all(params is not None and i < len(params) and
                   params[i] != "..." and not re.search(
                       r"\b%s\b" % re.escape(params[i]), body)
                   for params, body in defs):
                out.append((a, b))
    return out


def _accounted_ranges(f, fns, api):
    """Token ranges where a mutex or cond key may appear: arguments of lock
    functions, init/destroy/cond calls and the bodies of wrappers of a
    named lock (allocations of pointer keys: Program._ptr_assign()).  A
    wrapper of the mutex it is given stays pthread's for the locks that
    stay POSIX: another lock its body names (privoxy's `mutex !=
    &log_mutex` in the failure branch) is a use of that lock."""
    toks = f.src.toks
    out = []
    names = set(fns) | set(api)
    for k, t in enumerate(toks):
        if t.kind == "id" and t.text in names and k + 1 < len(toks) and \
                toks[k + 1].text == "(":
            out.append((k + 1, cparse.match(toks, k + 1)))
    for fn in fns.values():
        w = fn.wrapper
        if w and w["file"] == f.path and not w.get("param"):
            a = f.src.tok_at(w["start"])
            out.append((a, len([t for t in toks if t.start < w["end"]])))
    return out
