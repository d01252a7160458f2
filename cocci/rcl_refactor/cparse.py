# SPDX-License-Identifier: MIT
"""A small C lexer and statement parser, enough to cut function bodies.

Coccinelle finds the sections and the locals; this module gives the driver
the statement tree around them (blocks, if/else, loops, switch, labels,
jumps) so that it can check the shape of a section and cut it out by byte
offsets.  It does not preprocess: macros stay as the identifiers and calls
they look like, exactly as Coccinelle sees them.
"""
import bisect
import re

# GCC's lexer, as far as cutting code goes: `$` and the bytes of UTF-8
# identifiers (read as latin-1) are identifier characters; a backslash
# with blanks before the end of its line still joins the lines (GCC
# warns); and a character that starts no token (an apostrophe of the
# prose in an #if 0 block, a stray backtick) is a token of its own,
# "other", as GCC's stray tokens are: code the compiler skips may hold
# anything, and code it reads with one does not compile.
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n\f\v]+|\\[ \t]*\n)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<str>L?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>L?'(?:[^'\\\n]|\\.)*')
  | (?P<id>[A-Za-z_$\x80-\xff][A-Za-z_0-9$\x80-\xff]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\#\#|[][(){};,.?:~!+\-*/%&|^=<>\#])
""", re.S | re.X)


class ParseError(Exception):
    """Raised with a 1-based line number and a message."""

    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line
        self.msg = msg


class Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self):
        return "Tok(%s,%r)" % (self.kind, self.text)


class Source:
    """A file's text, its tokens, and offset <-> line/column maps."""

    def __init__(self, path, text, skipped=None):
        self.path, self.text = path, text
        self.line_starts = [0]
        for m in re.finditer(r"\n", text):
            self.line_starts.append(m.end())
        # What the compiler skips (a Skipped from
        # frontend.Program.skipped_lines), when known: see lex().
        self.skipped = skipped
        self.toks = lex(text, self, skipped)
        self.tok_starts = [t.start for t in self.toks]

    def line_of(self, off):
        return bisect.bisect_right(self.line_starts, off)

    def offset(self, line, col):
        return self.line_starts[line - 1] + col

    def tok_at(self, off):
        """Index of the token starting at @off, or None."""
        i = bisect.bisect_left(self.tok_starts, off)
        if i < len(self.toks) and self.toks[i].start == off:
            return i
        return None


class Skipped:
    """What the preprocessor skipped in a file (libclang's skipped
    ranges): @lines, those strictly inside a skipped range, and @starts,
    the lines of the directives that open one (the #if, #elif or #else of
    a branch not compiled)."""

    def __init__(self, lines, starts):
        self.lines, self.starts = frozenset(lines), frozenset(starts)

    def __eq__(self, other):
        return isinstance(other, Skipped) and self.lines == other.lines \
            and self.starts == other.starts

    def __hash__(self):
        return hash((self.lines, self.starts))

    @classmethod
    def merge(cls, skips):
        """What several units that read one file skip together: a line is
        skipped when each of them skips it, and the directive on a line
        opens a dead branch when one of them says so and none compiles
        the branch (another may see the directive inside skipped code).
        So branch_dead() of the merge is False when any unit compiles the
        branch, True when none does and one skips it, else None."""
        skips = list(skips)
        if len(skips) == 1:
            return skips[0]
        lines = frozenset.intersection(*(s.lines for s in skips))
        starts = {n for s in skips for n in s.starts
                  if all(n in o.starts or n in o.lines for o in skips)}
        return cls(lines, starts)

    def branch_dead(self, line):
        """Whether the branch opened by the directive on @line is not
        compiled; None when the directive itself is in skipped code."""
        if line in self.lines:
            return None
        return line in self.starts


def lex(text, src=None, skipped=None):
    """The tokens of @text; a preprocessor line is one "pp" token.  Of the
    branches of each #if group one is read: the one the compiler reads
    when @skipped (a Skipped, with @src) says which, else the first (as if
    every condition held; sections that contain a directive are checked
    again by analyse.pp_dead)."""
    return _one_branch(_lex_all(text), src, skipped)


def unread_runs(text, src=None, skipped=None):
    """The tokens lex() leaves out of @text (the branches of #if groups
    not read), as lists of consecutive tokens without the directives:
    what other configurations of the same source compile."""
    toks = _lex_all(text)
    keep = _branches_read(toks, src, skipped)
    runs, cur = [], []
    for i, t in enumerate(toks):
        if i in keep:
            if cur:
                runs.append(cur)
                cur = []
        elif t.kind != "pp":
            cur.append(t)
    if cur:
        runs.append(cur)
    return runs


def _lex_all(text):
    """Every token of @text, those of every branch of every #if group."""
    toks = []
    pos, n = 0, len(text)
    bol = True  # at the beginning of a line (only blanks before)
    while pos < n:
        if bol and text[pos] == "#":
            # A preprocessor line, with its continuations and comments.
            end = pos
            while True:
                nl = text.find("\n", end)
                if nl < 0:
                    end = n
                    break
                seg = text[pos:nl]
                if "/*" in seg and seg.count("/*") > seg.count("*/"):
                    close = text.find("*/", nl)
                    end = n if close < 0 else close + 2
                    continue
                if nl > 0 and text[nl - 1] == "\\":
                    end = nl + 1
                    continue
                end = nl
                break
            toks.append(Tok("pp", text[pos:end], pos, end))
            pos = end
            continue
        m = _TOKEN.match(text, pos)
        if not m:
            bol = False
            toks.append(Tok("other", text[pos], pos, pos + 1))
            pos += 1
            continue
        kind = m.lastgroup
        if kind == "ws":
            if "\n" in m.group():
                bol = True
        elif kind == "comment":
            pass
        else:
            bol = False
            toks.append(Tok(kind, m.group(), pos, m.end()))
        pos = m.end()
    return toks


def _directive(tok):
    return re.match(r"#\s*(\w*)", tok.text).group(1)


def _walk_branches(toks):
    """Each token with its directive (None unless a conditional's) and the
    stack of open #if groups after it: [#if token index, branch number]
    (0 the #if's own, 1 the first #elif or #else, ...)."""
    stack = []
    for i, t in enumerate(toks):
        d = _directive(t) if t.kind == "pp" else None
        if d in ("if", "ifdef", "ifndef"):
            stack.append([i, 0])
        elif d in ("elif", "else") and stack:
            stack[-1][1] += 1
        elif d == "endif" and stack:
            stack.pop()
        yield t, d, stack


def _one_branch(toks, src, skipped):
    """@toks without those of the branches not read (see lex()): of each
    #if group, the branch compiled when @skipped says so, else the first
    (a group all of whose branches are skipped, or inside skipped code,
    keeps its first)."""
    keep = _branches_read(toks, src, skipped)
    return [t for i, t in enumerate(toks) if i in keep]


# `#ifdef __cplusplus` and `#if defined(__cplusplus)`: never compiled as C.
_CPLUSPLUS = re.compile(r"#\s*(?:ifdef\s+__cplusplus|"
                        r"if\s+defined\s*(?:\(\s*__cplusplus\s*\)|"
                        r"\s__cplusplus))\s*$")


def _branches_read(toks, src, skipped):
    """The indexes of the tokens of @toks _one_branch() keeps.  Of a group
    none of whose branches is compiled, the first is read (code of another
    configuration still has functions and lock calls to account for),
    unless its brackets do not balance: `#ifdef __cplusplus extern "C" {
    #endif` opens no block in C, and reading it would swallow the file.
    A group on `__cplusplus` reads its #else, if any, even when no
    compiler said which branch it takes."""
    # Which branch of each group is read, by the index of its #if token
    # (-1: none).
    chosen = {}
    dead = set()  # groups whose first branch the compiler skips
    depth = {}    # dead group -> bracket depth of its first branch
    unbalanced = set()  # dead groups whose first branch closes too much
    for t, d, stack in _walk_branches(toks):
        if d in ("if", "ifdef", "ifndef") and _CPLUSPLUS.match(t.text):
            chosen[stack[-1][0]] = 1
        if d in ("if", "ifdef", "ifndef", "elif", "else") and stack and \
                skipped is not None and stack[-1][0] not in chosen:
            v = skipped.branch_dead(src.line_of(t.start))
            if v is False:
                chosen[stack[-1][0]] = stack[-1][1]
            elif v and d in ("if", "ifdef", "ifndef"):
                dead.add(stack[-1][0])
        delta = 0 if t.kind != "punct" else 1 if t.text in _OPEN else \
            -1 if t.text in _CLOSE else 0
        for g, b in stack if delta else ():
            if g in dead and b == 0:
                depth[g] = depth.get(g, 0) + delta
                if depth[g] < 0:
                    unbalanced.add(g)
    # A dead group (no branch compiled) whose first branch's brackets do
    # not balance: none of it is read.
    for g, n in depth.items():
        if g not in chosen and (n or g in unbalanced):
            chosen[g] = -1
    return {i for i, (t, d, stack) in enumerate(_walk_branches(toks))
            if t.kind == "pp" or all(b == chosen.get(g, 0) for g, b in stack)}


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {c: o for o, c in _OPEN.items()}


def match(toks, i, src=None):
    """Index of the token closing the bracket at @i."""
    depth = []
    j = i
    while j < len(toks):
        t = toks[j].text
        if toks[j].kind == "punct":
            if t in _OPEN:
                depth.append(_OPEN[t])
            elif t in (")", "]", "}"):
                if not depth or depth.pop() != t:
                    break
                if not depth:
                    return j
        j += 1
    line = src.line_of(toks[i].start) if src else 0
    raise ParseError(line, "unbalanced '%s'" % toks[i].text)


def match_back(ts, i):
    """Index of the bracket opening the one that closes at @i, or None."""
    pair = {")": "(", "]": "[", "}": "{"}
    depth = 0
    for j in range(i, -1, -1):
        t = ts[j].text
        if t in pair and ts[j].kind == "punct":
            depth += 1
        elif t in ("(", "[", "{") and ts[j].kind == "punct":
            depth -= 1
            if depth == 0:
                return j
    return None


class Stmt:
    """A statement over tokens [t0, t1).  kind is one of block, if, while,
    for, do, switch, label, case, return, goto, break, continue, pp, decl,
    expr.  subs holds child statements (a block's list, or then/else/body).
    """

    def __init__(self, kind, t0, t1, subs=None, name=None):
        self.kind, self.t0, self.t1 = kind, t0, t1
        self.subs = subs or []
        self.name = name
        self.parent = None

    def walk(self):
        yield self
        for s in self.subs:
            yield from s.walk()

    def __repr__(self):
        return "Stmt(%s,%d,%d)" % (self.kind, self.t0, self.t1)


_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed",
    "unsigned", "_Bool", "bool", "const", "volatile", "static", "register",
    "auto", "extern", "struct", "union", "enum", "restrict", "__restrict",
    "_Atomic", "inline", "__thread", "_Thread_local", "thread_local",
    "typedef", "__extension__",
}


# Words that a block may follow in C itself.
_NOT_LOOP_MACRO = {"else", "do", "asm", "__asm__", "__asm", "return",
                   "sizeof", "case", "default", "goto"}


class Parser:
    def __init__(self, src, typedefs=()):
        self.src, self.toks = src, src.toks
        self.typedefs = set(typedefs)

    def err(self, i, msg):
        i = min(i, len(self.toks) - 1)
        raise ParseError(self.src.line_of(self.toks[i].start), msg)

    def text(self, i):
        return self.toks[i].text if i < len(self.toks) else ""

    def block(self, i):
        """Parse the compound statement whose '{' is at @i."""
        end = match(self.toks, i, self.src)
        subs = []
        j = i + 1
        while j < end:
            s = self.stmt(j, end)
            subs.append(s)
            j = s.t1
        blk = Stmt("block", i, end + 1, subs)
        for s in subs:
            s.parent = blk
        return blk

    def _paren(self, i):
        if self.text(i) != "(":
            self.err(i, "expected '(' after '%s'" % self.text(i - 1))
        return match(self.toks, i, self.src) + 1

    def _until_semi(self, i, limit):
        j = i
        while j < limit:
            t = self.toks[j]
            if t.kind == "punct" and t.text in _OPEN:
                j = match(self.toks, j, self.src) + 1
                continue
            if t.kind == "punct" and t.text == ";":
                return j + 1
            if t.kind == "punct" and t.text == "}":
                break
            j += 1
        self.err(i, "expected ';' after statement")

    def stmt(self, i, limit):
        t = self.toks[i]
        k = t.text
        if t.kind == "pp":
            return Stmt("pp", i, i + 1)
        if k == "{" and t.kind == "punct":
            return self.block(i)
        if t.kind == "id":
            if k == "if":
                j = self._paren(i + 1)
                then = self._sub(j, limit)
                subs = [then]
                j = then.t1
                e = self._past_pp(j, limit)
                if self.text(e) == "else":
                    els = self._sub(e + 1, limit)
                    subs.append(els)
                    j = els.t1
                return self._mk("if", i, j, subs)
            if k in ("while", "switch"):
                j = self._paren(i + 1)
                body = self._sub(j, limit)
                return self._mk(k, i, body.t1, [body])
            if k == "for":
                j = self._paren(i + 1)
                body = self._sub(j, limit)
                return self._mk("for", i, body.t1, [body])
            if k == "do":
                body = self._sub(i + 1, limit)
                j = self._past_pp(body.t1, limit)
                if self.text(j) != "while":
                    self.err(j, "expected 'while' after do body")
                j = self._paren(j + 1)
                if self.text(j) != ";":
                    self.err(j, "expected ';' after do-while")
                return self._mk("do", i, j + 1, [body])
            if k in ("return", "goto", "break", "continue"):
                j = self._until_semi(i, limit)
                name = self.text(i + 1) if k == "goto" else None
                return Stmt(k, i, j, name=name)
            if k in ("case", "default"):
                j = i + 1
                while j < limit and self.text(j) != ":":
                    j += 1
                return Stmt("case", i, j + 1)
            if self.text(i + 1) == ":" and k not in _TYPE_WORDS:
                return Stmt("label", i, i + 2, name=k)
        if k == ";":
            return Stmt("expr", i, i + 1)
        loop = self._loop_macro(i, limit)
        if loop is not None:
            return loop
        j = self._macro_stmt(i, limit) or self._until_semi(i, limit)
        kind = "decl" if self.is_decl(i) else "expr"
        return Stmt(kind, i, j)

    def _past_pp(self, i, limit):
        """The first token at or after @i that is not a directive."""
        while i < limit and self.toks[i].kind == "pp":
            i += 1
        return i

    def _sub(self, i, limit):
        """The statement that is the body of an if, else, loop or switch
        at @i.  Directives before it belong to no statement: of
        `if (a) / #else / if (b) / #endif / { ... }`, the branch not read
        is gone (lex()), and its #else and #endif stand between the head
        and the body (opendkim's dkim-cache.c)."""
        return self.stmt(self._past_pp(i, limit), limit)

    def _loop_macro(self, i, limit):
        """`NAME(...) { ... }` or `NAME { ... }`: a macro that expands to a
        loop header (unbound's RBTREE_FOR, the kernel's
        list_for_each_entry, collectd's scoped OVS_EVENTS_CTX_LOCK, a
        `for` that locks and unlocks), a loop whose body is the block;
        None for anything else.  No call or name is followed by a block
        in C, so only a macro can be."""
        toks = self.toks
        if toks[i].kind != "id" or toks[i].text in _TYPE_WORDS or \
                toks[i].text in self.typedefs or \
                toks[i].text in _NOT_LOOP_MACRO:
            return None
        if self.text(i + 1) == "{" and toks[i + 1].kind == "punct":
            body = self.block(i + 1)
            return self._mk("for", i, body.t1, [body])
        if self.text(i + 1) != "(":
            return None
        close = match(toks, i + 1, self.src)
        if close + 1 >= limit or self.text(close + 1) != "{" or \
                toks[close + 1].kind != "punct":
            return None
        body = self.block(close + 1)
        return self._mk("for", i, body.t1, [body])

    def _macro_stmt(self, i, limit):
        """End of `NAME(...)` or `NAME` used as a statement without ';' (a
        macro that supplies its own, like zstd's DEBUGLOG): the next token
        is on a later line and starts a statement or closes the block.  Not
        before '{': NAME(...) { ... } is a loop macro."""
        toks = self.toks
        if toks[i].kind != "id" or toks[i].text in _TYPE_WORDS or \
                toks[i].text in self.typedefs:
            return None
        if self.text(i + 1) == "(":
            close = match(toks, i + 1, self.src)
        else:
            close = i  # an object-like macro: memcached's X-macro lists
        nxt = close + 1
        if nxt == limit:
            return nxt  # the block's '}' follows
        t = toks[nxt]
        if not (t.kind in ("id", "pp") or t.text == "}"):
            return None
        line = self.src.line_of
        return close + 1 if line(t.start) > line(toks[close].start) else None

    def _mk(self, kind, i, j, subs):
        s = Stmt(kind, i, j, subs)
        for c in subs:
            c.parent = s
        return s

    def is_decl(self, i):
        t = self.toks[i]
        if t.kind != "id":
            return False
        if t.text in _TYPE_WORDS or t.text in self.typedefs:
            return True
        # "T x", "T *x", "T **x", "T const x" where T is an unknown
        # typedef name.
        j = i + 1
        while self.text(j) in ("*", "const", "volatile"):
            j += 1
        return (j < len(self.toks) and self.toks[j].kind == "id"
                and self.text(j + 1) in ("=", ";", ",", "[", ")"))


def find_functions(src, end_line=None):
    """Yield (name, name_tok, body_open_tok, body_close_tok) for every
    function definition at file scope.  A body whose braces do not match
    in the text (rsyslog's msgDestruct(): its `{` is written out, its `}`
    is in the ENDobjDestruct() macro) ends on the line @end_line(line of
    its '{') gives, the compiler's extent of the function, when it knows
    one; else ParseError."""
    toks = src.toks
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "punct" and t.text == "{":
            try:
                close = match(toks, i, src)
            except ParseError:
                last = end_line(src.line_of(t.start)) if end_line else None
                if last is None or last >= len(src.line_starts):
                    raise
                close = bisect.bisect_left(src.tok_starts,
                                           src.line_starts[last]) - 1
                if close <= i:
                    raise
            j = i - 1
            while j >= 0 and toks[j].kind == "id" and toks[j].text in (
                    "const", "__attribute__"):
                j -= 1
            # skip __attribute__((...)) between ')' and '{'
            if toks[j].text == ")":
                o = j
                depth = 0
                while o >= 0:
                    if toks[o].text == ")":
                        depth += 1
                    elif toks[o].text == "(":
                        depth -= 1
                        if depth == 0:
                            break
                    o -= 1
                if (o > 0 and toks[o - 1].kind == "id"
                        and toks[o - 1].text not in _KEYWORDS_NOT_FN
                        and not _is_initializer(toks, o - 1)):
                    yield toks[o - 1].text, o - 1, i, close
            i = close + 1
            continue
        i += 1


_KEYWORDS_NOT_FN = {"if", "while", "for", "switch", "sizeof", "__attribute__",
                    "return"}


def _is_initializer(toks, i):
    """True when the '(' after @i belongs to an initializer (a = f(x) {)."""
    j = i - 1
    while j >= 0 and toks[j].kind != "pp" and toks[j].text not in (";", "}"):
        if toks[j].text == "=":
            return True
        j -= 1
    return False


def split_args(toks, open_i, close_i):
    """Token index ranges of the comma-separated arguments in (...)."""
    args, j, start = [], open_i + 1, open_i + 1
    while j < close_i:
        if toks[j].text in _OPEN and toks[j].kind == "punct":
            j = match(toks, j) + 1
            continue
        if toks[j].text == ",":
            args.append((start, j))
            start = j + 1
        j += 1
    if start < close_i:
        args.append((start, close_i))
    return args


def norm(toks, a, b):
    """Canonical text of tokens [a, b): no blanks, outer parens dropped."""
    while (b - a >= 2 and toks[a].text == "(" and match(toks, a) == b - 1):
        a, b = a + 1, b - 1
    return "".join(t.text for t in toks[a:b])
