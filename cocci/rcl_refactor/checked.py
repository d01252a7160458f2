# SPDX-License-Identifier: MIT
"""Lock macros that check the call's result.

Projects rarely call pthread_mutex_lock() bare; they wrap it in a macro
that aborts when it fails:

    #define LOCK(m)   (void)(pthread_mutex_lock(m) && (abort(), 0))
    #define UNLOCK(m) do { if (pthread_mutex_unlock(m)) die("unlock"); } \\
                      while (0)
    #define LOCK(m)   do { int e_ = pthread_mutex_lock(m);            \\
                           if (unlikely(e_ != 0)) fatal(e_); } while (0)

On a plain mutex the call gives 0, and then such a body does nothing but
the call; and it gives no value, which a use could read.  checked_call() proves that by running the body with the call's
result 0: a small interpreter of the C such macros are made of (literals,
the body's own locals, `!`, comparisons, `&&`, `||`, `?:`, `,`, casts,
branch hints, `if`, `do ... while (0)`, blocks and declarations).  Code the
run does not reach may be anything (it is only skipped over, balanced);
anything the run reaches and the interpreter does not know (another call,
a write to something not the body's own, a jump) makes the macro not
understood, as before.  The lock call must be reached exactly once.  A
macro it accepts is a plain lock call to the rest of the tool: its uses
are replaced whole, as `pthread_mutex_lock(&m);` is.
"""
from . import cparse

# Words a cast or a declaration of the body's locals may be made of.
_TYPE_WORDS = {"void", "int", "long", "short", "char", "unsigned", "signed",
               "_Bool", "bool", "const", "volatile", "register", "size_t",
               "ssize_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
               "errno_t", "__typeof__"}
# Binary operators by precedence (low to high), as C has them; the ones
# the interpreter evaluates are in _EVAL.
_LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
           ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"),
           ("*", "/", "%")]
_EVAL = {"==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
         "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
         "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
         "+": lambda a, b: a + b, "-": lambda a, b: a - b}
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
               ">>="}
_VOID = object()  # the value of a (void) cast


class _Unknown(Exception):
    """The run reached something the interpreter does not know."""


class _Run:
    """One run of a macro body with every lock call giving 0."""

    def __init__(self, toks, is_lock, hint):
        self.toks, self.k = toks, 0
        self.is_lock = is_lock  # name -> whether it is a lock function
        self.hint = hint        # name -> find.branch_hint() of a macro
        self.calls = []         # (name, ')') token indices of those reached
        self.locals = {}        # the body's own locals -> value

    # -- tokens --------------------------------------------------------
    def peek(self, n=0):
        i = self.k + n
        return self.toks[i].text if i < len(self.toks) else None

    def take(self, text=None):
        if self.k >= len(self.toks) or \
                text is not None and self.toks[self.k].text != text:
            raise _Unknown()
        self.k += 1
        return self.toks[self.k - 1]

    def skip_balanced(self):
        """Past the bracketed group that starts here."""
        try:
            self.k = cparse.match(self.toks, self.k) + 1
        except (cparse.ParseError, IndexError):
            raise _Unknown()

    # -- statements ----------------------------------------------------
    def statement(self, live, last=False):
        """One statement; @last: the body's final one, whose ';' the
        macro's user writes."""
        t = self.peek()
        if t is None:
            raise _Unknown()
        if t == "{":
            self.take()
            saved = dict(self.locals)
            while self.peek() != "}":
                self.statement(live)
            self.take("}")
            self.locals = {n: v for n, v in self.locals.items()
                           if n in saved}
        elif t == "do":
            self.take()
            self.statement(live)
            self.take("while")
            self.take("(")
            v = self.expr(live)
            if live and (v is None or v is _VOID or v != 0):
                raise _Unknown()  # only do { } while (0) runs once
            self.take(")")
            self._end(last)
        elif t == "if":
            self.take()
            self.take("(")
            cond = self._truth(self.expr(live), live) if live else \
                self.expr(live)
            self.take(")")
            self.statement(live and cond, last)
            if self.peek() == "else":
                self.take()
                self.statement(live and not cond, last)
        elif t == ";":
            self.take()
        elif live and (t in _TYPE_WORDS or t in ("struct", "union")) and \
                self.peek(1) not in ("(", None):
            self.declaration()
            self._end(last)
        elif not live:
            self._skip_statement(last)
        else:
            self.expr(live)
            self._end(last)

    def _end(self, last):
        if last and self.peek() is None:
            return
        self.take(";")

    def _skip_statement(self, last):
        """A statement the run does not reach: balanced up to its ';' (an
        if or a loop whose body the run would not reach either)."""
        while self.peek() not in (";", None):
            t = self.peek()
            if t in ("(", "[", "{"):
                if t == "{" and self.k and self.peek(-1) in (")", "else",
                                                            "do"):
                    self.skip_balanced()
                    if self.peek() != "else":
                        return
                    self.take()
                    continue
                self.skip_balanced()
            elif t in (")", "]", "}"):
                raise _Unknown()
            else:
                self.k += 1
        self._end(last)

    def declaration(self):
        """`int e_ = CALL, f_;` of the body's own locals."""
        while self.peek() in _TYPE_WORDS:
            self.take()
        while True:
            name = self.take()
            if name.kind != "id":
                raise _Unknown()
            value = None
            if self.peek() == "=":
                self.take()
                value = self.assignment(True)
            self.locals[name.text] = value
            if self.peek() != ",":
                return
            self.take()

    # -- expressions ---------------------------------------------------
    def expr(self, live):
        v = self.assignment(live)
        while self.peek() == ",":
            self.take()
            v = self.assignment(live)
        return v

    def assignment(self, live):
        t = self.toks[self.k] if self.k < len(self.toks) else None
        if t is not None and t.kind == "id" and self.peek(1) in _ASSIGN_OPS:
            if live and (t.text not in self.locals or self.peek(1) != "="):
                raise _Unknown()  # a write to something not the body's
            self.k += 2
            v = self.assignment(live)
            if live:
                self.locals[t.text] = v
            return v
        return self.conditional(live)

    def conditional(self, live):
        c = self.binary(0, live)
        if self.peek() != "?":
            return c
        self.take()
        a = self.expr(live and self._truth(c, live))
        self.take(":")
        b = self.conditional(live and not self._truth(c, live))
        return (a if c else b) if live else None

    @staticmethod
    def _truth(v, live):
        if live and (v is None or v is _VOID):
            raise _Unknown()
        return bool(v)

    def binary(self, level, live):
        if level == len(_LEVELS):
            return self.unary(live)
        v = self.binary(level + 1, live)
        while self.peek() in _LEVELS[level]:
            op = self.take().text
            if op in ("&&", "||"):
                # the right operand runs when the left does not decide
                runs = live and (self._truth(v, live) == (op == "&&"))
                w = self.binary(level + 1, runs)
                if live:
                    v = int(self._truth(w, runs)) if runs else \
                        int(op == "||")
                continue
            w = self.binary(level + 1, live)
            if live:
                if op not in _EVAL or not isinstance(v, int) or \
                        not isinstance(w, int):
                    raise _Unknown()
                v = _EVAL[op](v, w)
        return v

    def unary(self, live):
        t = self.peek()
        if t in ("!", "-", "+", "~"):
            self.take()
            v = self.unary(live)
            if not live:
                return None
            if not isinstance(v, int):
                raise _Unknown()
            return {"!": lambda x: int(not x), "-": lambda x: -x,
                    "+": lambda x: x, "~": lambda x: ~x}[t](v)
        if t == "(" and self.peek(1) in _TYPE_WORDS and \
                self.peek(1) != "__typeof__":
            self.take()
            words = []
            while self.peek() in _TYPE_WORDS:
                words.append(self.take().text)
            self.take(")")
            v = self.unary(live)
            return _VOID if words == ["void"] else v
        if t in ("&", "*", "++", "--", "sizeof", "_Alignof"):
            if live:
                raise _Unknown()
            self.take()
            if self.peek() == "(":
                self.skip_balanced()
                return None
            return self.unary(False)
        return self.postfix(live)

    def postfix(self, live):
        t = self.take()
        if t.text == "(":
            if self.peek() == "{":
                raise _Unknown()  # a statement expression
            v = self.expr(live)
            self.take(")")
        elif t.kind == "num":
            v = _number(t.text) if live else None
        elif t.kind in ("str", "chr"):
            if live:
                raise _Unknown()
            v = None
        elif t.kind == "id" and self.peek() == "(":
            v = self.call(t.text, live)
        elif t.kind == "id":
            if live and t.text not in self.locals:
                raise _Unknown()  # a parameter, a global, an enumerator
            v = self.locals.get(t.text) if live else None
        elif t.text == "#" and not live:
            return None  # #param, in code the run does not reach
        else:
            raise _Unknown()
        while self.peek() in ("(", "[", ".", "->", "++", "--"):
            if live:
                raise _Unknown()
            if self.peek() in ("(", "["):
                self.skip_balanced()
            else:
                self.k += 1 if self.peek() in ("++", "--") else 2
        return v

    def call(self, name, live):
        start = self.k
        self.skip_balanced()
        args = cparse.split_args(self.toks, start, self.k - 1)
        if not live:
            if self.is_lock(name):
                raise _Unknown()  # the lock taken on some runs only
            return None
        if self.is_lock(name):
            self.calls.append((start - 1, self.k - 1))
            return 0
        hint = self.hint(name)
        if name == "__builtin_expect" and len(args) == 2 or \
                hint is not None and len(args) == 1:
            end = self.k
            self.k = args[0][0]
            v = self.assignment(True)
            if self.k != args[0][1]:
                raise _Unknown()
            self.k = end
            return int(self._truth(v, True)) if hint == "!!" else v
        raise _Unknown()


def _number(text):
    t = text.lower().rstrip("ul")
    try:
        return int(t, 0)
    except ValueError:
        raise _Unknown()


def checked_call(body, is_lock, hint=lambda name: None):
    """When macro body @body runs exactly one call of a lock function
    (@is_lock(name)), every time, and nothing else once that call gives
    0, and has no value (a statement, or an expression cast to void): the
    text of that call.  Else None."""
    try:
        toks = cparse.lex(body)
    except cparse.ParseError:
        return None
    if not toks:
        return None
    run = _Run(toks, is_lock, hint)
    try:
        if toks[0].text in ("do", "{", "if"):
            run.statement(True, last=True)
        elif run.expr(True) is not _VOID:
            # a value: `(lock(m) == 0)` gives 1 where liblock's call,
            # which replaces it, gives 0; `(void)(...)` gives none
            return None
        if run.k != len(toks):
            return None
    except (_Unknown, RecursionError, IndexError):
        return None
    if len(run.calls) != 1:
        return None
    name_i, close = run.calls[0]
    return body[toks[name_i].start:toks[close].end]
