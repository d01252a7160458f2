"""Function-like #defines read through the preprocessor conditionals
around them, the way the compiler would see them with the -D/-U given.

A condition is true, false or unknown (None).  A name given with -D, or
#defined in a region read before, is defined; one given with -U, or
#undef'd, is not; any other name (a system or build-system macro) is
unknown.  defined(X), !, &&, ||, ==, !=, <, >, <=, >=, +, -, parentheses
and integer literals are evaluated; anything else is unknown.  A branch
that is possibly taken keeps its definitions as candidates: find.add_macros
prefers the one that maps to a lock function."""
import re

_TOKEN = re.compile(r"\s*(?:(\d+)[uUlL]*|([A-Za-z_]\w*)|"
                    r"(&&|\|\||==|!=|<=|>=|[!<>()+\-]))")
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")
_DEFINE = re.compile(r"([A-Za-z_]\w*)(\(([^)]*)\))?(.*)$", re.S)


class Env:
    """Macro state shared by the files read, in order."""

    def __init__(self, defines=(), undefs=()):
        self.values = {}  # name -> int value (or None: defined, no number)
        self.undef = set(undefs)
        # True when the build's own flags (-p) decided what libclang
        # skipped: its skipped ranges are then the build's, not a guess
        self.build_flags = False
        for d in defines:
            name, eq, val = d.partition("=")
            self.values[name] = _int(val) if eq else 1
            self.undef.discard(name)

    def defined(self, name):
        if name in self.values:
            return True
        return False if name in self.undef else None

    def value(self, name):
        if name in self.values:
            return self.values[name]
        return 0 if name in self.undef else None

    def after(self, directives):
        """A copy of this state once the #define and #undef lines
        @directives (their texts, read in order, surely compiled) are
        applied: what a section reads after those of its function."""
        env = Env()
        env.values, env.undef = dict(self.values), set(self.undef)
        env.build_flags = self.build_flags
        for text in directives:
            m = _DIRECTIVE.match(text.replace("\\\n", " "))
            if m and m.group(1) == "define":
                _define(m.group(2).strip(), True, env, {})
            elif m and m.group(1) == "undef" and m.group(2).split():
                name = m.group(2).split()[0]
                env.values.pop(name, None)
                env.undef.add(name)
        return env


def _int(text):
    m = re.fullmatch(r"\s*\(?\s*(-?\d+)[uUlL]*\s*\)?\s*", text)
    return int(m.group(1)) if m else None


class _Expr:
    """Tri-state evaluation of an #if expression (None: unknown)."""

    def __init__(self, text, env):
        self.toks, self.env, self.i = [], env, 0
        pos = 0
        text = re.sub(r"/\*.*?\*/|//.*", " ", text).strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(text)
            self.toks.append(m.group(0).strip())
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        t = self.peek()
        if t is None or (want is not None and t != want):
            raise ValueError(want)
        self.i += 1
        return t

    def parse(self):
        v = self.binary(0)
        if self.peek() is not None:
            raise ValueError(self.peek())
        return v

    LEVELS = (("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="),
              ("+", "-"))

    def binary(self, level):
        if level == len(self.LEVELS):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self.LEVELS[level]:
            op = self.take()
            w = self.binary(level + 1)
            v = _apply(op, v, w)
        return v

    def unary(self):
        t = self.take()
        if t == "!":
            v = self.unary()
            return None if v is None else int(not v)
        if t == "-":
            v = self.unary()
            return None if v is None else -v
        if t == "(":
            v = self.binary(0)
            self.take(")")
            return v
        if t == "defined":
            paren = self.peek() == "("
            if paren:
                self.take("(")
            name = self.take()
            if paren:
                self.take(")")
            d = self.env.defined(name)
            return None if d is None else int(d)
        if t[0].isdigit():
            return int(re.match(r"\d+", t).group(0))
        if self.peek() == "(":
            raise ValueError(t)  # a function-like macro call
        return self.env.value(t)


def _apply(op, v, w):
    if op == "||":
        if v or w:
            return 1
        return None if v is None or w is None else 0
    if op == "&&":
        if v == 0 or w == 0:
            return 0
        return None if v is None or w is None else 1
    if v is None or w is None:
        return None
    if op in ("+", "-"):
        return v + w if op == "+" else v - w
    return int({"==": v == w, "!=": v != w, "<": v < w, ">": v > w,
                "<=": v <= w, ">=": v >= w}[op])


def evaluate(text, env):
    """True, False or None (unknown, or an expression this cannot read)."""
    try:
        v = _Expr(text, env).parse()
    except (ValueError, IndexError):
        return None
    return None if v is None else bool(v)


def _directives(text):
    """(line, word, rest) of each directive: continuations joined,
    comments dropped, LINE the first line (from 1)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n")
                  or " ", text, flags=re.S)
    out = []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        first, line = k + 1, lines[k]
        while line.endswith("\\") and k + 1 < len(lines):
            k += 1
            line = line[:-1] + " " + lines[k]
        k += 1
        m = _DIRECTIVE.match(line)
        if m:
            out.append((first, m.group(1),
                        re.sub(r"//.*", "", m.group(2)).strip()))
    return out


def _guard(dirs, k):
    """#ifndef X / #if !defined(X) followed by #define X: a header guard,
    taken the first time the header is read.  Returns X or None."""
    _, word, rest = dirs[k]
    m = re.fullmatch(r"!\s*defined\s*\(?\s*(\w+)\s*\)?", rest) \
        if word == "if" else re.fullmatch(r"(\w+)", rest)
    if word in ("if", "ifndef") and m and k + 1 < len(dirs) and \
            dirs[k + 1][1] == "define" and \
            dirs[k + 1][2].split()[:1] == [m.group(1)]:
        return m.group(1)
    return None


def _and(a, b):
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


class _Frame:
    def __init__(self, outer, cond):
        self.outer = outer       # state of the enclosing region
        self.taken = cond        # has a branch been taken (tri-state)
        self.state = _and(outer, cond)

    def branch(self, cond):
        """#elif COND (cond) or #else (True)."""
        rest = _and(None if self.taken is None else not self.taken, cond)
        self.state = _and(self.outer, rest)
        if self.taken is not True:
            self.taken = True if rest is True else \
                (self.taken if rest is False else None)


def scan(text, env, out, dead=None, skipped=None):
    """Add the function-like #defines of TEXT to OUT, {NAME: [(params,
    body)]}, each list the candidates: a definition in a region surely
    read replaces them, one in a region possibly read is added.  Updates
    ENV with the object-like #defines and the #undefs, and DEAD (a set)
    with the lines of the #defines in regions surely not read.  SKIPPED
    (a cparse.Skipped, libclang's word on what the compiler skips in this
    file with the build's flags) decides every #define and #undef; without
    it the #if evaluation does."""
    stack = []
    dirs = _directives(text)
    for k, (line, word, rest) in enumerate(dirs):
        state = stack[-1].state if stack else True
        if skipped is not None and word in ("define", "undef"):
            state = line not in skipped.lines
        if word in ("if", "ifdef", "ifndef"):
            guard = _guard(dirs, k)
            if guard:
                cond = env.defined(guard) is not True
            elif word == "if":
                cond = evaluate(rest, env)
            else:
                d = env.defined(rest.split()[0]) if rest else None
                cond = d if word == "ifdef" or d is None else not d
            stack.append(_Frame(state, cond))
        elif word == "elif" and stack:
            stack[-1].branch(evaluate(rest, env))
        elif word == "else" and stack:
            stack[-1].branch(True)
        elif word == "endif" and stack:
            stack.pop()
        elif word == "define" and state is False:
            if dead is not None:
                dead.add(line)
        elif word == "define":
            _define(rest, state, env, out)
        elif word == "undef" and state is True and rest:
            name = rest.split()[0]
            env.values.pop(name, None)
            env.undef.add(name)
            out.pop(name, None)


def _define(rest, state, env, out):
    m = _DEFINE.match(rest)
    if not m:
        return
    name = m.group(1)
    if m.group(2) is None:
        if state is True:
            env.values[name] = _int(m.group(4))
            env.undef.discard(name)
        elif name not in env.values:
            env.undef.discard(name)  # maybe defined: unknown
        return
    params = [p.strip() for p in m.group(3).split(",") if p.strip()]
    cand = (params, m.group(4))
    if state is True:
        out[name] = [cand]
    else:
        out.setdefault(name, []).append(cand)


def conditions_at(text, line):
    """The #if conditions in force at @line of @text (1-based), outermost
    first, each as an #if expression: `#ifdef X` gives defined(X), the
    #else of `#if A` gives !(A), an #elif B after #if A gives !(A) && (B).
    Header guards count like any #ifndef."""
    stack = []  # per open #if: [expressions of the branches seen]
    for ln, word, rest in _directives(text):
        if ln >= line:
            break
        if word == "if":
            stack.append(["(%s)" % rest])
        elif word in ("ifdef", "ifndef"):
            name = rest.split()[0] if rest else "0"
            stack.append(["%sdefined(%s)" % ("!" if word == "ifndef" else "",
                                             name)])
        elif word == "elif" and stack:
            stack[-1].append("(%s)" % rest)
        elif word == "else" and stack:
            stack[-1].append(None)
        elif word == "endif" and stack:
            stack.pop()
    out = []
    for branches in stack:
        *before, last = branches
        parts = ["!%s" % b for b in before]
        if last is not None:
            parts.append(last)
        out.append(" && ".join(parts))
    return out
