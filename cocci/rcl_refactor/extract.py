# SPDX-License-Identifier: MIT
"""Stage 3, extract: turn an analysed section into a context union, a
function `void *rcl_cs_F_N(void *)`, and the call that replaces it.

Layout of the generated code (one per section):

    union rcl_ctx_F_N { struct { inputs } in; struct { outputs } out; };
    static void *rcl_cs_F_N(void *rcl_arg)
    {
            union rcl_ctx_F_N *rcl_ctx = (union rcl_ctx_F_N *)rcl_arg;
            T a = rcl_ctx->in.a;         inputs are consumed first,
            T r = { 0 };
            uintptr_t rcl_exit = 0;
            ... the section; an early exit -> rcl_exit = K; goto rcl_done;
                (after rcl_ctx->out.v = v; for a v declared in the
                section that the code of exit K reads)
    rcl_done:
            rcl_ctx->out.r = r;          then outputs written last.
            return (void *)rcl_exit;
    }

A single variable travels without a union: as the context pointer itself
when it is an input that fits in a word, else by pointer.  Locals whose address
is taken, arrays and static locals always travel by pointer.

errno is thread-local: when the section (or a function of the program it
calls) uses it, the caller's value travels in (in.rcl_errno, set before
the section runs) and the section's value comes back (out.rcl_errno,
restored in the caller after liblock_exec()), so the section sees and
leaves errno as if it had run on the caller's thread.
"""
import bisect
import re


def render(text, a, b, edits):
    """@text[a:b] with the (start, end, replacement) @edits inside it."""
    out, pos = [], a
    for s, e, r in sorted(edits):
        if s < a or e > b or s < pos:
            continue
        out.append(text[pos:s])
        out.append(r)
        pos = e
    out.append(text[pos:b])
    return "".join(out)


def returned_value(fi):
    """What `return unlock(...);` returns once the unlock is gone: nothing
    in a void function (a void wrapper or macro), else 0."""
    return "return;" if fi.src.toks[fi.ni - 1].text == "void" else \
        "return 0;"


def line_indent(text, off):
    ls = text.rfind("\n", 0, off) + 1
    m = re.match(r"[ \t]*", text[ls:])
    return m.group()


def reindent(block, old, new):
    """Replace the leading @old indentation of every line by @new."""
    lines = block.split("\n")
    res = []
    for ln in lines:
        if ln.lstrip().startswith("#"):
            pass  # a directive keeps its column
        elif ln.startswith(old):
            ln = new + ln[len(old):]
        elif ln.strip():
            ln = new + ln.lstrip(" \t")
        res.append(ln.rstrip())
    return "\n".join(res)


_INT_WORDS = {"int", "long", "short", "char", "unsigned", "signed", "const",
              "volatile", "register", "size_t", "ssize_t", "uintptr_t",
              "intptr_t", "uint8_t", "uint16_t", "uint32_t", "int8_t",
              "int16_t", "int32_t", "_Bool", "bool", "pid_t", "off_t"}


def _word_kind(d):
    """"pointer" or "integer" when the variable fits in a void * and can
    travel as the context pointer itself; None otherwise."""
    decl = d.declarator.replace(" ", "")
    if "[" in decl or "(" in decl:
        return None
    if decl.startswith("*"):
        return "pointer"
    words = d.spec.split()
    if words.count("long") > 1:
        return None
    if all(w in _INT_WORDS for w in words) and words:
        return "integer"
    return None


class _Plan:
    """How the section's locals travel: @vars are (Decl, byptr, in, out);
    temps are locals only the section uses (declared in the function)."""

    def __init__(self, vars_, exit_vars, hidden, span, errno=False):
        self.errno = errno
        self.temps = [v[0] for v in vars_ if not v[2] and not v[3]]
        self.vars = [v for v in vars_ if v[2] or v[3]]
        # Declared inside the section, read after an early exit: written
        # to rcl_ctx->out at that exit only.
        self.exit_outs = list({d.name: d for ds in exit_vars
                               for d in ds}.values())
        self.single = len(self.vars) == 1 and not self.exit_outs and \
            not errno
        self.word = None
        if self.single:
            d, byptr, is_in, is_out = self.vars[0]
            if is_in and not is_out and not byptr:
                self.word = _word_kind(d)
            # A local named inside a macro keeps its name and type: it
            # cannot become (*x).
            self.single = bool(self.word) or d.name not in hidden
        if self.single:
            self.vars = [(d, not self.word, True, False)]
        self.byptr = {d.name for d, bp, _, _ in self.vars if bp}
        self.ins = [v for v in self.vars if v[2]]
        self.outs = [v for v in self.vars if v[3]]
        # Declared in this section (@span: its tokens) and hoisted; a
        # later section using the same local finds it declared already.
        self.hoisted = [d for d, _, _, _ in self.vars
                        if getattr(d, "hoist", None) is not None and
                        span[0] <= d.hoist.t0 < span[1]]
        self.union = not self.single and bool(self.vars or self.exit_outs or
                                              errno)


def generate(fi, sec, vars_, names, small_edits, exec_text, lockname,
             nested=()):
    """Return (text placed before the function, caller replacement text,
    caller replacement range (start, end) in bytes).  @nested: the
    (start, end, replacement) of the sections of other locks nested in
    this one, already extracted: their calls go in its function."""
    toks, text = fi.src.toks, fi.src.text
    blk = sec["block"]
    lock_s, unlock_s = blk.subs[sec["i"]], blk.subs[sec["j"]]
    ind = line_indent(text, toks[lock_s.t0].start)
    plan = _Plan(vars_, sec["exit_vars"], sec.get("hidden", ()),
                 (sec["t0"], sec["t1"]), sec.get("errno", False))
    # the caller's locals whose address the call passes: one declared
    # `register` loses the keyword (rewrite._unregister())
    sec["addressed"] = [d for d, bp, _, _ in plan.vars if bp]
    body = _body(fi, sec, plan, small_edits, ind, nested)
    before = _function(fi, sec, plan, names, body, lockname)
    repl = _call(fi, sec, plan, names, small_edits, exec_text, ind)
    if sec.get("stored"):  # `int rc = lock(&m);`: 0, before the section
        var, decl = sec["stored"][:2]
        repl = "%s = 0;\n%s%s" % (decl or var, ind, repl)
    if sec.get("stored_unlock"):  # `rc = unlock(&m);`: 0, after it
        repl += "\n%s%s = 0;" % (ind, sec["stored_unlock"][0])
    # Follow the file's indentation: tabs, or spaces as in memcached.
    if unlock_s.kind == "return":  # `return unlock(&m);` ends it
        repl += "\n" + ind + returned_value(fi)
    if ind and "\t" not in ind:
        unit = " " * (len(ind) if len(ind) in (2, 3, 4, 8) else 4)
        before, repl = before.replace("\t", unit), repl.replace("\t", unit)
    return before, repl, (toks[lock_s.t0].start, toks[unlock_s.t1 - 1].end)


def _body(fi, sec, plan, small_edits, ind, nested=()):
    """The section's text for the extracted function: by-pointer locals
    dereferenced, early exits turned into exit numbers, hoisted
    declarations turned into assignments, nested sections replaced by
    their calls."""
    toks, text = fi.src.toks, fi.src.text
    occ_edits, exit_edits = [], []
    for a, b, repl in nested:
        exit_edits.append((a, b, _nested_call(repl, plan.byptr)))
    for k in range(sec["t0"], sec["t1"]):
        t = toks[k]
        if t.kind == "id" and t.text in plan.byptr and \
                toks[k - 1].text not in (".", "->") and \
                sec["is_local_occ"](t.text, k):
            occ_edits.append((t.start, t.end, "(*%s)" % t.text))
    for n, (u, cont) in enumerate(sec["exits"], 1):
        at = line_indent(text, toks[u.t0].start)
        saves = "".join("rcl_ctx->out.%s = %s;\n%s" % (d.name, d.name, at)
                        for d in sec["exit_vars"][n - 1])
        code = "%srcl_exit = %d;\n%sgoto rcl_done;" % (saves, n, at)
        start = toks[u.t0].start
        if not cont and u.parent.kind != "block":
            # `if (e) return unlock(&m);`: two statements for one, in
            # braces opened after the if's head (or its else)
            at = line_indent(text, toks[u.parent.t0].start)
            code = " {\n%s\trcl_exit = %d;\n%s\tgoto rcl_done;\n%s}" % (
                at, n, at, at)
            start = toks[u.t0 - 1].end
        exit_edits.append((start,
                           toks[(cont[-1] if cont else u).t1 - 1].end,
                           code))
    done = set()
    for d in plan.hoisted + list(sec.get("lifted", ())):
        if d.stmt not in done:
            done.add(d.stmt)
            # the initialisers read the section's locals as the rest of
            # it does: (*x) for those reached by pointer
            exit_edits.append(_hoist_edit(fi, d, plan,
                                          small_edits + occ_edits,
                                          sec.get("lifted", ())))
    edits = [e for e in small_edits + occ_edits
             if not any(x[0] <= e[0] < x[1] for x in exit_edits)]
    edits += exit_edits
    for k, _ in sec.get("build_dead", ()):
        # A branch only the build's flags (-p) left out: the context was
        # computed without it, so another configuration must not compile
        # it silently (analyse._build_reading()).
        at = toks[k - 1].end
        edits.append((at, at, "\n#error \"rcl-refactor extracted this "
                      "section for a build that skips this branch: run "
                      "rcl-refactor again for this configuration\""))
    if sec["t1"] <= sec["t0"]:
        return ""
    a, b = toks[sec["t0"]].start, toks[sec["t1"] - 1].end
    if not sec.get("keep_line"):
        return reindent(line_indent(text, a) + render(text, a, b, edits),
                        ind, "\t")
    # __LINE__ in it: the section's lines keep their numbers (#line before
    # it, and after each edit that changes how many lines there are).
    for x, y, r in list(edits):
        nl = text.find("\n", y)
        if r.count("\n") == text.count("\n", x, y) or nl < 0 or \
                nl + 1 >= b or any(p < nl + 1 < q for p, q, _ in edits):
            continue
        edits.append((nl + 1, nl + 1, "#line %d %s\n" % (
            fi.src.line_of(nl + 1), LINE_MARK)))
    return "#line %d %s\n" % (fi.src.line_of(a), LINE_MARK) + reindent(
        line_indent(text, a) + render(text, a, b, edits), ind, "\t")


# The #line directives of the generated code (the compile check drops
# them), and the one that gives the output's numbering back after an
# extracted function (written by rewrite.render_file).
LINE_MARK = "/* rcl-refactor */"
LINE_RESTORE = "#line 0 " + LINE_MARK


def _nested_call(repl, byptr):
    """The call of a nested section (@repl, written for the caller) as
    the outer section's function writes it: its context variable renamed
    (the outer one's is rcl_ctx), and the locals that reach the outer
    function by pointer (@byptr) dereferenced."""
    parts = re.split(r"(/\*.*?\*/)", repl, flags=re.S)
    for i in range(0, len(parts), 2):
        p = re.sub(r"(?<![.\w])(?<!->)\brcl_ctx\b", "rcl_nested_ctx",
                   parts[i])
        for name in byptr:
            p = re.sub(r"(?<![.\w])(?<!->)\b%s\b" % re.escape(name),
                       "(*%s)" % name, p)
        parts[i] = p
    return "".join(parts)


def _hoist_edit(fi, d, plan, small_edits, sec_lifted=()):
    """`T x = init, y = init2;` inside the section becomes `x = init;` for
    each declarator x the caller now declares (and reached by pointer,
    `(*x) = init;`), and `T y = init2;` for the others."""
    toks, text = fi.src.toks, fi.src.text
    st = d.hoist if getattr(d, "hoist", None) is not None else d.lift_stmt
    hoisted = {h.name for h in plan.hoisted if h.stmt == d.stmt}
    # declared at the top of the extracted function (analyse._lifted())
    lifted = {h.name for h in sec_lifted if h.stmt == d.stmt}
    parts = []
    for o in fi.decls:
        if o.stmt != d.stmt or not hasattr(o, "range"):
            continue
        a, b = o.range
        eq = a
        while eq < b and toks[eq].text != "=":
            eq += 1
        init = render(text, toks[eq + 1].start, toks[b - 1].end,
                      small_edits) if eq < b else None
        if o.name in lifted:
            if init is not None:
                parts.append("%s = %s;" % (o.name, init))
            continue
        if o.name not in hoisted:
            parts.append("%s %s%s;" % (o.spec, o.declarator,
                                       " = " + init if init else ""))
            continue
        if init is None:
            continue
        if init.lstrip().startswith("{"):
            init = "(%s)%s" % (o.text("").strip(), init)
        parts.append("%s = %s;" % ("(*%s)" % o.name if o.name in plan.byptr
                                   else o.name, init))
    return (toks[st.t0].start, toks[st.t1 - 1].end, " ".join(parts))


def _function(fi, sec, plan, names, body, lockname):
    """The context union and the extracted function."""
    fn, un = names
    src, toks = fi.src, fi.src.toks
    lock_s = sec["lock_stmt"]
    where = "%s:%d" % (src.rel, src.line_of(toks[lock_s.t0].start))
    g = ["/* rcl-refactor: critical section of %s in %s() at %s */" %
         (lockname, fi.name, where)]
    if plan.union:
        g.append("union %s {" % un)
        outs = plan.outs + [(d, False, False, True) for d in plan.exit_outs]
        for part, vs in (("in", plan.ins), ("out", outs)):
            if not vs and not plan.errno:
                continue
            g.append("\tstruct {")
            for d, bp, _, _ in vs:
                g.append("\t\t%s;" % d.text("(*%s)" % d.name
                                              if bp and part == "in"
                                              else d.name))
            if plan.errno:
                g.append("\t\tint rcl_errno; /* the caller's errno */")
            g.append("\t} %s;" % part)
        g += ["};", ""]
    g += ["static void *%s(void *rcl_arg)" % fn, "{"]
    # Declarations first, then statements: a project built with
    # -Wdeclaration-after-statement gets no new warning.
    decls, stmts = _prologue(plan, un)
    g += decls
    g += ["\t%s;" % d.text(d.name) for d in plan.temps]
    g += ["\t%s;" % d.text(d.name) for d in sec.get("lifted", ())]
    has_exit = bool(sec["exits"])
    if has_exit:
        g.append("\tuintptr_t rcl_exit = 0;")
    g += stmts
    g += ["\t(void)%s; /* read in macro arguments only */" % d.name
          for d, bp, is_in, _ in plan.vars if is_in and not bp and
          d.name in sec.get("macro_args_only", ())]
    g.append("")
    if body.startswith("#line "):
        # The section keeps its lines' numbers (__LINE__, assert()): the
        # function's head is numbered just before them, so that it does
        # not start on a line after the one it ends on (GCC's --coverage
        # refuses that: -Wcoverage-invalid-line-number, memcached's
        # memcached-debug build).
        head = next(i for i, x in enumerate(g)
                    if x.startswith("static void *%s(" % fn))
        first = int(body.split(None, 2)[1])
        g.insert(head, "#line %d %s" % (
            max(1, first - (len(g) - head)), LINE_MARK))
    if body.strip():
        g.append(body)
    if has_exit:
        g.append("rcl_done:")
    g += ["\trcl_ctx->out.%s = %s;" % (d.name, d.name)
          for d, _, _, _ in plan.outs]
    if plan.errno:
        g.append("\trcl_ctx->out.rcl_errno = errno;")
    g.append("\treturn %s;" % ("(void *)rcl_exit" if has_exit else "NULL"))
    g += ["}", ""]
    return "\n".join(g)


def _cast(d, typ):
    """A cast to @typ, the type of local @d, in @d's own initialiser.
    Where @d's name is also a word of its type (memcached's `item
    *item`, a variable named like its typedef), the declarator has
    already hidden the typedef there: the cast names the variable's
    type through the variable."""
    if re.search(r"\b%s\b" % re.escape(d.name), typ):
        return "(__typeof__(%s))" % d.name
    return "(%s)" % typ


def _prologue(plan, un):
    """The declarations that take the locals out of the context, and the
    statements that must follow them."""
    # The conversions from void * are explicit: a build with
    # -Wc++-compat (zstd's) warns about the implicit ones.
    if plan.word == "pointer":
        d = plan.vars[0][0]
        cast = _cast(d, d.text("").strip()) if d.pointer_type() else ""
        return ["\t%s = %srcl_arg;" % (d.text(d.name), cast)], []
    if plan.word:
        d = plan.vars[0][0]
        return ["\t%s = %s(uintptr_t)rcl_arg;" % (
            d.text(d.name), _cast(d, d.text("").strip()))], []
    if plan.single:
        d = plan.vars[0][0]
        pt = d.pointer_type()
        return ["\t%s = %srcl_arg;" % (d.text("(*%s)" % d.name),
                                       _cast(d, pt) if pt else "")], []
    if not plan.union:
        return [], ["\t(void)rcl_arg;"]
    g = ["\tunion %s *rcl_ctx = (union %s *)rcl_arg;" % (un, un)]
    for d, bp, is_in, _ in plan.vars:
        nm = "(*%s)" % d.name if bp else d.name
        if is_in:
            g.append("\t%s = rcl_ctx->in.%s;" % (d.text(nm), d.name))
        else:
            g.append("\t%s = { 0 };" % d.text(nm))
    return g, (["\terrno = rcl_ctx->in.rcl_errno;"] if plan.errno else [])


def _context(plan, un):
    """(the context argument, the statements that fill it)."""
    ctx, c = "NULL", []
    if plan.word == "pointer":
        ctx = "(void *)%s" % plan.vars[0][0].name
    elif plan.word:
        ctx = "(void *)(uintptr_t)%s" % plan.vars[0][0].name
    elif plan.single:
        # &x as the pointer the extracted function declares (`T (*x) =
        # rcl_arg;`), so that the compiler checks the two agree: the
        # compile check holds the section when they do not.
        d = plan.vars[0][0]
        qual = re.search(r"\b(const|volatile)\b", d.spec + " " + d.declarator)
        pt = d.pointer_type()
        if pt and re.search(r"\b%s\b" % re.escape(d.name), pt):
            pt = "__typeof__(&%s)" % d.name  # see _cast()
        ctx = ("(%s){&%s}" % (pt, d.name)) if pt else "&" + d.name
        if qual:
            ctx = "(void *)" + ctx
    elif plan.union:
        ctx = "&rcl_ctx"
        c.append("union %s rcl_ctx;" % un)
    return ctx, c


def _copy_in(plan):
    c = []
    if plan.union:
        c += ["rcl_ctx.in.%s = %s%s;" % (d.name, "&" if bp else "", d.name)
              for d, bp, _, _ in plan.ins]
    if plan.errno:
        c.append("rcl_ctx.in.rcl_errno = errno;")
    return c


def _copy_out(plan):
    c = []
    if plan.errno:
        c.append("errno = rcl_ctx.out.rcl_errno;")
    c += ["%s = rcl_ctx.out.%s;" % (d.name, d.name)
          for d, _, _, _ in plan.outs]
    c += ["(void)%s; /* read by assert() only */" % d.name
          for d in plan.hoisted if getattr(d, "only_asserted", False)]
    return c


def _lines(block, ind):
    """Statements @block (one per item, items may hold newlines) at
    indentation @ind, as text lines."""
    out = []
    for x in block:
        out += [ind + ln if ln.strip() else "" for ln in x.split("\n")]
    return out


def generate_try(fi, sec, vars_, names, small_edits, lock_expr, lockname):
    """A trylock section (analyse.try_shape()) run by rcl_tryexec():
    returns (text placed before the function, [(start, end, text)] edits
    of the caller).  The context is filled before the call, the outputs
    and the early exits' code are taken only when the section ran (0);
    on EBUSY nothing was written and the trylock's failure code runs."""
    toks, text = fi.src.toks, fi.src.text
    ts = sec["try"]
    ifs, blk = ts["if"], sec["block"]
    unlock_s = blk.subs[sec["j"]]
    ind = line_indent(text, toks[ifs.t0].start)
    plan = _Plan(vars_, sec["exit_vars"], sec.get("hidden", ()),
                 (sec["t0"], sec["t1"]), sec.get("errno", False))
    sec["addressed"] = [d for d, bp, _, _ in plan.vars if bp]
    bind = line_indent(text, toks[sec["t0"]].start) \
        if sec["t1"] > sec["t0"] else ind
    body = _body(fi, sec, plan, small_edits, bind)
    before = _function(fi, sec, plan, names, body, lockname)
    fn, un = names
    has_exit = bool(sec["exits"])
    ctx, pre = _context(plan, un)
    if has_exit:
        pre += ["void *rcl_ret;", "uintptr_t rcl_exit;"]
    pre += _copy_in(plan)
    call = "rcl_tryexec(%s, %s, %s, %s)" % (lock_expr, fn, ctx,
                                           "&rcl_ret" if has_exit else
                                           "NULL")
    bare = call  # the call as a statement of its own
    if ts.get("blocking"):
        # a lock call whose result is tested: liblock_exec() runs the
        # section, and the test sees 0, what locking a plain mutex gives
        bare = "%sliblock_exec(%s, %s, %s)" % (
            "rcl_ret = " if has_exit else "", lock_expr, fn, ctx)
        call = "(%s, 0)" % bare
    asg = ts.get("assign")
    start = toks[ifs.t0].start
    head = []  # the declaration of the result's variable, kept
    if asg is not None:
        # `rc = trylock(&m); if (rc == 0)`: rc gets rcl_tryexec()'s
        # result (0, or EBUSY as the trylock's) before it is tested.
        start = toks[asg["stmt"].t0].start
        if asg["decl"]:
            head = [asg["decl"] + ";"]
        call = "(%s = %s)" % (asg["var"], call)
    elif ts.get("held_in"):  # `if ((rc = trylock(&m)) != 0)`
        call = "(%s = %s)" % (ts["held_in"], call)
    ran = (["rcl_exit = (uintptr_t)rcl_ret;"] if has_exit else []) + \
        _copy_out(plan) + _dispatch(fi, sec, small_edits)
    hoisted = ["%s;" % d.text(d.name) for d in plan.hoisted]
    edits = []
    end_unlock = toks[unlock_s.t1 - 1].end
    if ts["kind"] == 1:
        rest = blk.subs[sec["j"] + 1:]
        wrap = bool(pre or hoisted)
        inner = ind + "\t" if wrap else ind
        whole = not rest and ts["else"] is None
        lines = _lines(head, ind) + ([ind + "{"] + _lines(
            hoisted + pre, ind + "\t") if wrap else [])
        if whole and not ran and head and not wrap:
            lines = [ind + "%s = %s;" % (asg["decl"], call[1:-1].split(
                " = ", 1)[1])]
        elif whole and not ran:
            # nothing depends on the result: no `(..., 0);` statement
            # (-Wunused-value)
            lines.append(inner + (call[1:-1] if asg else bare) + ";")
        else:
            lines.append(inner + "if (%s == 0) {" % call)
            lines += _lines(ran, inner + "\t")
            if whole:
                lines.append(inner + "}")
        if whole:
            if wrap:
                lines.append(ind + "}")
            edits.append((start, toks[ifs.t1 - 1].end,
                          "\n".join(lines).lstrip()))
        else:
            edits.append((start, end_unlock, "\n".join(lines).lstrip()))
            if wrap:
                end = toks[ifs.t1 - 1].end
                edits.append((end, end, "\n" + ind + "}"))
                edits += _indent_edits(fi, end_unlock, end)
    else:
        # The code of a failed trylock, as written (it ends in a jump).
        then = ifs.subs[0]
        a, b = toks[then.t0].start, toks[then.t1 - 1].end
        fail = reindent(line_indent(text, a) + render(text, a, b,
                                                      small_edits),
                        line_indent(text, a), "")
        wrap = bool(pre or ran)
        inner = ind + "\t" if wrap else ind
        lines = _lines(head + hoisted, ind)
        if wrap:
            lines.append(ind + "{")
        lines += _lines(pre, inner)
        if then.kind == "block":
            lines += _lines(["if (%s != 0) %s" % (call, fail.strip())],
                            inner)
        else:
            lines.append(inner + "if (%s != 0)" % call)
            lines += _lines([fail.strip()], inner + "\t")
        lines += _lines(ran, inner)
        if wrap:
            lines.append(ind + "}")
        edits.append((start, end_unlock, "\n".join(lines).lstrip()))
    if ind and "\t" not in ind:
        unit = " " * (len(ind) if len(ind) in (2, 3, 4, 8) else 4)
        before = before.replace("\t", unit)
        edits = [(x, y, r.replace("\t", unit)) for x, y, r in edits]
    return before, edits


def _indent_edits(fi, a, b):
    """One more level of indentation for the lines that start in
    (@a, @b] (code that moved into the block rcl_tryexec()'s context
    opens), except directives and lines that start inside a token."""
    src, text = fi.src, fi.src.text
    unit = "\t"
    ind = line_indent(text, a)
    if ind and "\t" not in ind:
        unit = " " * (len(ind) if len(ind) in (2, 3, 4, 8) else 4)
    out = []
    off = text.find("\n", a)
    while 0 <= off < b:
        ls = off + 1
        off = text.find("\n", ls)
        line = text[ls:off if off >= 0 else len(text)]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        k = bisect.bisect_right(src.tok_starts, ls) - 1
        if k >= 0 and src.toks[k].start < ls < src.toks[k].end:
            continue  # a directive or a string continued on this line
        out.append((ls, ls, unit))
    return out


def _call(fi, sec, plan, names, small_edits, exec_text, ind):
    """What replaces the section in the caller: fill the context, call
    liblock_exec(), copy the outputs back, run the code of the exit."""
    fn, un = names
    blk = sec["block"]
    has_exit = bool(sec["exits"])
    ctx, c = _context(plan, un)
    if has_exit:
        # the call's result goes through a void * first: a cast of a call
        # to another type is what -Wbad-function-cast warns about
        c += ["void *rcl_ret;", "uintptr_t rcl_exit;"]
    if plan.union:
        c += ["rcl_ctx.in.%s = %s%s;" % (d.name, "&" if bp else "", d.name)
              for d, bp, _, _ in plan.ins]
    if plan.errno:
        c.append("rcl_ctx.in.rcl_errno = errno;")
    call = exec_text(fn, ctx)
    c += (["rcl_ret = %s;" % call, "rcl_exit = (uintptr_t)rcl_ret;"]
          if has_exit else ["%s;" % call])
    if plan.errno:
        c.append("errno = rcl_ctx.out.rcl_errno;")
    c += ["%s = rcl_ctx.out.%s;" % (d.name, d.name)
          for d, _, _, _ in plan.outs]
    c += ["(void)%s; /* read by assert() only */" % d.name
          for d in plan.hoisted if getattr(d, "only_asserted", False)]
    c += _dispatch(fi, sec, small_edits)
    alone = sec["i"] == 0 and sec["j"] == len(blk.subs) - 1
    if len(c) == 1:
        repl = c[0]
    elif alone:
        repl = ("\n" + ind).join(c)
    else:
        repl = "{\n" + "".join("%s\t%s\n" % (ind, x) for x in c) + ind + "}"
    hoisted = ["%s;" % d.text(d.name) for d in plan.hoisted]
    return ("\n" + ind).join(hoisted + [repl])


def _dispatch(fi, sec, small_edits):
    """if (rcl_exit == K) { code that followed the K-th early unlock }.
    When the section ends in an if whose every branch goes on after its
    unlock (mbuffer's syncSenders(): each unlocks and returns), every
    run takes one of the exits: the last test is an `else`, or GCC's
    -Wreturn-type sees a path that falls off the function."""
    toks, text = fi.src.toks, fi.src.text
    disp = ""
    exits = sec["exits"]
    every = sec["tail"] is not None and all(
        cont for n, (_, cont) in enumerate(exits, 1) if n in sec["fall"])
    stored = sec.get("exit_stored", {})
    for n, (u, cont) in enumerate(exits, 1):
        if n in stored:  # `err = unlock(&m);`: 0, then what followed
            at = line_indent(text, toks[u.t0].start)
            set0 = "%s%s = 0;\n" % (at, stored[n])
        else:
            set0 = ""
        if not cont and n in sec["fall"] and not set0:
            continue  # a branch of a tail if that ends with its unlock
        if not cont and not set0:  # `return unlock(&m);`
            disp += "%sif (rcl_exit == %d) {\n\t%s\n}" % (
                " else " if disp else "", n, returned_value(fi))
            continue
        if cont:
            a, b = toks[cont[0].t0].start, toks[cont[-1].t1 - 1].end
            ctext = set0 + "".join("%s%s = rcl_ctx.out.%s;\n" % (
                line_indent(text, a), d.text(d.name), d.name)
                for d in sec["exit_vars"][n - 1])
            ctext += line_indent(text, a) + render(text, a, b, small_edits)
            ctext = reindent(ctext, line_indent(text, a), "\t")
        else:
            ctext = reindent(set0, line_indent(text, toks[u.t0].start),
                             "\t")
        if every and disp and n == len(exits):
            disp += " else {\n%s\n}" % ctext.strip("\n")
            continue
        disp += "%sif (rcl_exit == %d) {\n%s\n}" % (
            " else " if disp else "", n, ctext.strip("\n"))
    return disp.split("\n") if disp else []
