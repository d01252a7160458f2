# SPDX-License-Identifier: MIT
"""rcl-refactor: extract the critical sections of pthread mutexes into
functions run by liblock_exec().  See rcl-refactor(1)."""
import argparse
import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from . import (analyse, ccheck, config, cparse, extract, find, frontend,
               lift, output, program, report, rewrite, safety, scoped)

EPILOG = """\
Every section of a converted lock is delegated (extracted, run by
liblock_exec) or held (left in place on liblock_lock/liblock_unlock; one
line each: FILE:LINE: held: REASON).  Exit status: 0 when every section
found was delegated or held, 1 when some were refused (their lock stays a
pthread mutex; one line each: FILE:LINE: not transformed: REASON) or a file
could not be processed or written, 2 on a usage error.  Nothing is written
unless every output file passes the compile check, and then every output
is written or none (on an error, the files written are put back).
"""


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="rcl-refactor", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Extract the critical sections of pthread mutexes into "
                    "functions that liblock_exec() runs (Remote Core Locking "
                    "and every liblock algorithm), and write rcl-config.h.")
    p.add_argument("files", nargs="*", metavar="FILE.c",
                   help="the files to rewrite (with -p and none named: every "
                   "translation unit of the build that uses a selected lock)")
    p.add_argument("-p", dest="build_dir", metavar="BUILD_DIR",
                   help="read the build's flags from BUILD_DIR/"
                   "compile_commands.json (bear -- make, or CMake), as "
                   "clang-tidy does; the whole program is analysed")
    p.add_argument("--locks", default="all", metavar="all|PROFILE.json|"
                   "NAME,...", help="locks to transform: all of them, those "
                   "an rcl-prof profile marks for RCL, or these names (a "
                   "variable or a structure field) [all]")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("-o", dest="outdir", metavar="OUTDIR",
                   help="write the new files (and rcl-config.h) under OUTDIR")
    g.add_argument("--in-place", action="store_true",
                   help="rewrite the files where they are (in the same "
                   "inode: through symbolic links, hard links, owner and "
                   "mode kept; CRLF files stay CRLF)")
    g.add_argument("--diff", action="store_true",
                   help="write nothing; print what --in-place would change "
                   "as a unified diff (a/ and b/ paths relative to the "
                   "common directory of the files, for patch -p1)")
    p.add_argument("-I", dest="include", action="append", default=[],
                   metavar="DIR", help="where project headers are")
    p.add_argument("-D", dest="define", action="append", default=[],
                   metavar="NAME[=VALUE]", help="macro defined for the "
                   "#if/#ifdef around lock macros and for the compile check")
    p.add_argument("-U", dest="undef", action="append", default=[],
                   metavar="NAME", help="macro undefined for the #if/#ifdef "
                   "around lock macros and for the compile check")
    p.add_argument("--macro-file", action="append", default=[],
                   metavar="FILE", help="extra macro definitions (lock "
                   "macros, and hints for Coccinelle's parser)")
    p.add_argument("--lock-fn", action="append", default=[],
                   metavar="LOCK=UNLOCK", help="a pair of lock wrapper "
                   "functions (trivial wrappers are found by themselves)")
    p.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="translation units parsed at once (libclang, one "
                   "process each) [the CPUs this process may run on]")
    p.add_argument("--no-compile-check", action="store_true",
                   help="do not compile the output before writing it")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print refusals only, not the held sections nor "
                   "the summary")
    opts = p.parse_args(argv)
    if not opts.files and not opts.build_dir:
        p.error("no FILE.c given (name the files, or use -p BUILD_DIR)")
    opts.commands = None
    opts.forced = []
    opts.spatch = os.environ.get("SPATCH", "spatch")
    opts.spatch_timeout = 120
    here = os.path.dirname(os.path.abspath(__file__))
    opts.datadir = os.environ.get("RCL_REFACTOR_DATADIR",
                                  os.path.dirname(here))
    if opts.jobs is None:
        opts.jobs = len(os.sched_getaffinity(0))
    elif opts.jobs < 1:
        p.error("-j %d: expected a number of jobs, 1 or more" % opts.jobs)
    for name in opts.undef:
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            p.error("-U %r: expected a macro name" % name)
    for d in opts.define:
        if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", d, re.S):
            p.error("-D %r: expected NAME or NAME=VALUE" % d)
    for pair in opts.lock_fn:
        if not re.fullmatch(r"[A-Za-z_]\w*=[A-Za-z_]\w*", pair):
            p.error("--lock-fn %r: expected LOCK=UNLOCK" % pair)
    return opts


# How many times a new compiler diagnostic may drop a section (or a lock)
# and start again before the run gives up.
MAX_DROPS = 32


class Stop(Exception):
    """A one-line error and the exit status it ends the run with."""

    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    out = sys.stderr if opts.diff else sys.stdout  # the report's
    rep = report.Report(opts.quiet)
    try:
        check_usage(opts)
        sel = config.Selection(opts.locks)
        fe = front_end(opts, sel)
    except Stop as e:
        print("rcl-refactor: %s" % e, file=sys.stderr)
        return e.code
    except ValueError as e:
        print("rcl-refactor: --locks: %s" % e, file=sys.stderr)
        return 2
    root0 = os.path.commonpath([os.path.dirname(os.path.abspath(f)) or "."
                                for f in opts.files])
    cc = compiler(opts)
    forced = {}  # sections (file, line) and locks refused by the check
    for _ in range(MAX_DROPS + 1):
        rep = report.Report(opts.quiet)
        opts.root = root0
        prog = program.Program(opts, rep)
        prog.frontend = fe
        prog.forced = forced
        try:
            entries = analyse_program(prog, opts, sel, root0, cc)
        except Stop as e:
            print("rcl-refactor: %s" % e, file=sys.stderr)
            return e.code
        except cparse.ParseError as e:
            print("rcl-refactor: %s:%d: cannot parse: %s" % (
                getattr(e, "path", "?"), e.line, e.msg), file=sys.stderr)
            return 1
        # Write under the common directory of the inputs and of the
        # headers that changed (a header found through -I ../include).
        root = os.path.commonpath([root0] + [
            os.path.dirname(os.path.abspath(f.path)) for f in prog.files
            if f.edits or f.big or f.before or f.needs_include])
        opts.root = root
        outputs = render_outputs(prog, opts, root, entries)
        if not cc or not any(f is not None and text != input_text(f)
                             for f, text in outputs.values()):
            break
        verdict = check_outputs(cc, opts, outputs, root, prog)
        if verdict is True:
            break
        if verdict is None:
            rep.print(out, written=False)
            return 1
        if all(k in forced for k in verdict):
            rep.error("the compile check blames sections already refused; "
                      "nothing written")
            rep.print(out, written=False)
            return 1
        forced.update(verdict)
    else:
        rep.error("more than %d sections dropped by the compile check; "
                  "nothing written" % MAX_DROPS)
        rep.print(out, written=False)
        return 1
    try:
        if opts.diff:
            output.diff(to_write(outputs), root)
        else:
            output.write_all(to_write(outputs), opts.in_place)
    except output.WriteError as e:
        print("rcl-refactor: %s" % e, file=sys.stderr)
        return 1
    except BrokenPipeError:  # --diff | head: the reader has enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    rep.print(out)
    return 1 if rep.refused or rep.errors else 0


def check_usage(opts):
    for f in opts.files + opts.macro_file:
        if os.path.isdir(f):
            raise Stop(2, "%s: is a directory (name the .c files in it, or "
                       "use -p BUILD_DIR)" % f)
        if not os.path.lexists(f):
            raise Stop(2, "%s: no such file" % f)
        if not os.path.exists(f):
            raise Stop(2, "%s: a symbolic link to nothing" % f)
        if not os.path.isfile(f):
            raise Stop(2, "%s: not a regular file" % f)
        try:
            with open(f, "rb") as fh:
                fh.read(1)
        except OSError as e:
            raise Stop(2, "%s: not readable (%s)" % (f, e.strerror))
    inodes = {}
    for f in opts.files:
        if f.endswith((".h", ".H", ".hh", ".hpp")):
            raise Stop(2, "%s: a header cannot be rewritten alone: name the "
                       ".c files that include it (the project headers they "
                       "include are rewritten with them), or use -p "
                       "BUILD_DIR" % f)
        st = os.stat(f)
        other = inodes.setdefault((st.st_dev, st.st_ino), f)
        if other != f and os.path.realpath(other) != os.path.realpath(f):
            raise Stop(2, "%s and %s are the same file (hard links): name "
                       "one of them only" % (other, f))
    if opts.outdir:
        check_outdir(opts.outdir)
    for d in opts.include:
        if not os.path.isdir(d):
            raise Stop(2, "-I %s: no such directory" % d)
    if shutil.which(opts.spatch) is None:
        raise Stop(2, "spatch not found (install coccinelle)")


def check_outdir(outdir):
    """-o OUTDIR: a directory the run can write in, or one it can make."""
    top = d = os.path.abspath(outdir)
    while not os.path.isdir(d):
        if os.path.lexists(d):
            raise Stop(2, "-o %s: %snot a directory" % (
                outdir, "" if d == top else d + " is "))
        d = os.path.dirname(d)
    if not os.access(d, os.W_OK | os.X_OK):
        raise Stop(2, "-o %s: %snot writable" % (
            outdir, "" if d == top else d + " is "))


def front_end(opts, sel):
    """Parse the translation units with libclang (frontend.Program); with
    -p, the whole build's, and choose the files when none is named."""
    try:
        index = frontend.load()
        if opts.build_dir:
            cmds = frontend.load_compdb(opts.build_dir)
            if not cmds:
                raise Stop(2, "-p %s: compile_commands.json lists no C "
                           "source" % opts.build_dir)
            for f in opts.files:
                if frontend.command_for(cmds, f) is None:
                    raise Stop(2, "%s: not in %s" % (f, os.path.join(
                        opts.build_dir, "compile_commands.json")))
        else:
            cmds = [frontend.single_command(f, opts.include, opts.define,
                                            opts.undef, opts.macro_file)
                    for f in opts.files]
        frontend.set_display_root(os.path.commonpath(
            [os.path.dirname(c.file) for c in cmds]))
        units = frontend.parse_all(index, cmds, opts.jobs)
    except frontend.FrontEndError as e:
        raise Stop(2, str(e))
    fe = frontend.Program(units)
    # A profile names the locks of structures by where they are
    # initialised: the names the compiler sees there join the selection
    # (the units to read below, nested sections of selected locks).
    sites = sel.profile_sites()
    if sites:
        sel.name_sites(frontend.names_at(units, sites))
    if not opts.build_dir:
        return fe
    opts.commands = cmds
    _read_strays(fe, index, cmds, opts, sel)
    if not opts.files:
        # Every unit that uses (or defines) a selected lock, or calls a
        # lock wrapper of one: a function whose body is a lock or unlock
        # call of it and checks (Tor's tor_mutex_acquire(&pool->lock)
        # names no mutex, but takes one).
        # A field is named as --locks names it (TAG.field) in mutex_uses;
        # a lock call's lock is a variable or ".field", of any structure.
        wrappers = {fn.key for u in units for fn in u.functions.values()
                    if fn.sole_call is not None and
                    any(sel.selected(lc.lock) if not
                        lc.lock.startswith(".") else
                        sel.use_selected("?" + lc.lock)
                        for lc in fn.lock_calls)}
        chosen = [u for u in units
                  if any(sel.use_selected(n) for n in u.mutex_uses) or
                  any(c.key in wrappers for fn in u.functions.values()
                      for c in fn.calls)]
        # And the units defining the lock wrappers those call, whose
        # lock is their parameter (rrdtool's mutex_lock(mutex_t *m) in
        # mutex.c): without them, the callers' sections are not seen,
        # and the wrappers' prototypes in a shared header would change
        # type while their definitions did not.  Not for a wrapper a
        # header defines (xz's static inline mythread_mutex_lock() in
        # mythread.h): the units that call it read that header, and every
        # other unit that includes it would be taken too.
        called = {c.key for u in chosen for fn in u.functions.values()
                  for c in fn.calls}
        chosen += [u for u in units if u not in chosen and any(
            fn.key in called and fn.loc.path == u.path and
            find.pthread_wrapper(fn) for fn in u.functions.values())]
        opts.files = [os.path.relpath(u.path) for u in units if u in chosen]
        if not opts.files:
            raise Stop(1, "-p %s: no translation unit uses a selected "
                       "lock" % opts.build_dir)
    # The hand-written stages (Coccinelle's -I, the #if evaluation, the
    # headers followed) see the flags of the units rewritten; the compile
    # check gives each unit its own, and only the command line's besides
    # (nbdkit's server units define `libdir` as a string, which its vddk
    # plugin declares as a variable).
    opts.cli_flags = (list(opts.include), list(opts.define),
                      list(opts.undef))
    for f in opts.files:
        c = frontend.command_for(cmds, f)
        for i, a in enumerate(c.flags):
            if a == "-I" and c.flags[i + 1] not in opts.include and \
                    os.path.isdir(c.flags[i + 1]):
                opts.include.append(c.flags[i + 1])
            elif a.startswith("-D") and len(a) > 2 and \
                    a[2:] not in opts.define:
                opts.define.append(a[2:])
            elif a.startswith("-U") and len(a) > 2 and \
                    a[2:] not in opts.undef:
                opts.undef.append(a[2:])
        for h in c.forced:
            if os.path.isfile(h) and h not in opts.forced:
                opts.forced.append(h)
    return fe


def _read_strays(fe, index, cmds, opts, sel):
    """fe.strays: the files of the program's tree that the database does
    not list and that name a selected lock, read with a neighbour's
    command (frontend.stray_commands()), less those that stop at an
    `#error` (another platform's), those that do not compile that way,
    and those the build files of a make, CMake or Ninja build do not
    build (a plugin not configured); fe.stray_faults: (file, why, Unit
    or None) of the latter two, which another configuration's build may
    compile: Program.outside_visibility() says so, and does not refuse
    their locks."""
    names = {n.rsplit(".", 1)[-1] for u in fe.units for n in u.mutex_uses
             if not n.startswith(("local ", ".")) and sel.use_selected(n)}
    strays, cut = frontend.stray_commands(cmds, names)
    # A .c file that a unit #includes (libwebsockets' minimal examples
    # include their protocol_lws_minimal.c) is read with that unit.
    included = set().union(*(u.files for u in fe.units))
    strays = [c for c in strays if c.file not in included]
    if cut:
        print("rcl-refactor: note: only the first %d .c files under %s were "
              "looked through for users of the locks that the database "
              "does not list" % (frontend.STRAY_FILES_MAX, cut),
              file=sys.stderr)
    try:
        units = frontend.parse_all(index, strays, opts.jobs, tolerant=True)
    except frontend.FrontEndError as e:
        raise Stop(2, str(e))
    texts = frontend.build_texts(cmds, [c.file for c in strays])
    for c, u in zip(strays, units):
        if u is None:
            fe.stray_faults.append((frontend.display(c.file),
                                    "libclang cannot parse it", None))
        elif u.error_directive is not None:
            continue
        elif u.errors:
            fe.stray_faults.append((
                frontend.display(c.file), "does not compile with its "
                "neighbours' flags (%s)" % u.errors[0], u))
        elif texts and not frontend.built_by(texts, c.file):
            fe.stray_faults.append((
                frontend.display(c.file), "no rule of the build's "
                "Makefiles builds it", u))
        else:
            fe.strays.append(u)


def analyse_program(prog, opts, sel, root, cc):
    """Load, check the inputs compile, run Coccinelle, decide, edit.
    Returns the rcl-config.h entries."""
    try:
        prog.load(opts.files, root, opts.forced)
        prog.lock_functions()
        scoped.desugar(prog)
    except UnicodeError as e:
        raise Stop(1, str(e))
    except ValueError as e:
        raise Stop(2, str(e))
    except OSError as e:  # a header the inputs include
        raise Stop(1, "%s: %s" % (e.filename, e.strerror))
    # Inputs must compile first: a transformation of code that does not
    # build cannot be checked.
    for f in prog.files:
        if cc and not f.is_header:
            ok, msg, _ = compile_check(cc, opts, f.path, None, None)
            if not ok:
                raise Stop(1, "%s: the input does not compile (%s); pass "
                           "-I/-D, or --no-compile-check" % (f.display, msg))
    for f in prog.files:
        if f.is_header and not _locks_in_bodies(f, prog):
            continue
        try:
            f.facts = _facts(f, prog, opts)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            raise Stop(1, str(e))
    for f in prog.files:
        if f.facts is not None:
            f.lifts = lift.lift_file(f, prog.fns, prog.typedefs)
    prog.inventory()
    prog.outside_visibility()
    prog.sync_puns()
    prog.unnamed_users()
    rewrite.discover(prog)
    safety.unseen_lock_calls(prog)
    safety.unsupported_lock_calls(prog, sel)
    safety.lock_fn_pointers(prog, sel)
    safety.skipped_lock_calls(prog)
    rewrite.analyse_all(prog, sel)
    _apply_forced(prog)
    rewrite.decide(prog)
    entries = rewrite.small_edits(prog, sel)
    helpers = rewrite.wrappers(prog)
    rewrite.sections(prog, helpers)
    rewrite.unlift(prog)
    scoped.restore(prog, lambda name: rewrite.converted(prog, "mutex", name))
    return entries


def _locks_in_bodies(f, prog):
    """Whether a function that header @f defines (a static inline
    helper, or a .c file another includes) calls a lock function."""
    toks = f.src.toks
    return any(toks[k].text in prog.fns and
               prog.fns[toks[k].text].role in ("lock", "trylock") and
               toks[k + 1].text == "("
               for _, _, bo, bc in f.funcs for k in range(bo + 1, bc))


def _facts(f, prog, opts):
    """Coccinelle's facts on the text read: the file's, or the text with
    its scoped lock macros rewritten (scoped.py), or with the lines the
    compiler skips blanked, read from a copy that finds the file's
    headers through -I."""
    text = _spatch_text(f, prog)
    if text is None:
        return find.spatch_facts(f.path, prog.fns, opts, analyse.CHECKERS,
                                 analyse.HINTS)
    tmp = tempfile.mkdtemp(prefix="rcl-scoped-")
    try:
        path = os.path.join(tmp, os.path.basename(f.path))
        with open(path, "w", encoding="latin-1", newline="") as fh:
            fh.write(text)
        o = copy.copy(opts)
        o.include = [os.path.dirname(os.path.abspath(f.path))] + \
            list(opts.include)
        return find.spatch_facts(path, prog.fns, o, analyse.CHECKERS,
                                 analyse.HINTS)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _spatch_text(f, prog):
    """The text Coccinelle reads when it is not the file's own: scoped.py's
    rewrite, and the branches the compiler skips (libclang's skipped
    ranges) that are not C blanked, so that every other line keeps its
    number.  Coccinelle reads every branch (a section there keeps its
    #if), and its lexer runs an apostrophe of the prose of an #if 0 block
    on to the next one, through #endif and the functions after it.  The
    functions that the compiler sees and the tool's parser does not are
    blanked too (_unseen_functions())."""
    own = getattr(f, "input_text", None) is None
    lines = f.src.text.split("\n")
    blank = _unseen_functions(f, prog)
    run = []
    for ln in sorted(f.skipped.lines if f.skipped else ()) + [0]:
        if run and ln != run[-1] + 1:
            text = "\n".join(lines[i - 1] for i in run if i <= len(lines))
            if any(t.kind == "other" for t in cparse.lex(text)):
                blank += run
            run = []
        run.append(ln)
    if not blank:
        return None if own else f.src.text
    for ln in blank:
        if ln <= len(lines):
            lines[ln - 1] = ""
    return "\n".join(lines)


def _unseen_functions(f, prog):
    """The lines of the functions of @f that the compiler reads and the
    tool's parser does not see (no function of f.funcs overlaps them):
    rsyslog's BEGINdoAction ... ENDdoAction, whose braces
    come from macros, and K&R definitions.  Their lock calls stay in
    place (safety._in_place()).  Coccinelle reads such a region as it
    can, and lost the pairs of the next function's lock and unlock: its
    section was held, "no unlock follows"."""
    fe = getattr(prog, "frontend", None)
    if fe is None:
        return []
    rp = os.path.realpath(f.path)
    src = f.src
    seen = [(src.line_of(src.toks[ni].start),
             src.line_of(src.toks[bc].start)) for _, ni, _, bc in f.funcs]
    out = set()
    for u in fe.units:
        if rp not in u.files:
            continue
        for fn in u.functions.values():
            a, b = fn.loc.line, fn.end.line
            if fn.loc.path != rp or fn.end.path != rp or any(
                    x <= b and a <= y for x, y in seen):
                continue
            out.update(range(a, b + 1))
    return sorted(out)


def _apply_forced(prog):
    """Refuse the sections and locks an earlier compile check blamed."""
    for (kind, name), key in prog.keys.items():
        why = prog.forced.get(("lock", name))
        if kind == "mutex" and why:
            key.refuse(why)
        for sec in key.sections if kind == "mutex" else ():
            why = prog.forced.get(("section", sec.file, sec.line))
            if why and not sec.reason:
                sec.reason = why


def render_outputs(prog, opts, root, entries):
    """{destination: (File or None, new text)}, rcl-config.h included."""
    outdir = opts.outdir or root
    cfg_path = os.path.join(outdir, "rcl-config.h")
    outputs = {}
    for f in prog.files:
        rel = os.path.relpath(os.path.abspath(f.path), root)
        if rel.startswith(".."):
            if f.edits or f.big or f.before:
                prog.report.error("%s: outside the common directory %s; not "
                                  "rewritten" % (f.path, root))
            continue
        dest = os.path.join(outdir, rel) if opts.outdir else f.path
        if f.needs_include:
            crel = os.path.relpath(cfg_path, os.path.dirname(
                os.path.abspath(dest)))
            rewrite.includes_edit(f, crel)
        new = rewrite.render_file(f, rewrite.lines_read(prog, f))
        if opts.outdir or new != input_text(f):
            outputs[dest] = (f, new)
    # Keep the entries (and the user's edits) of an existing rcl-config.h:
    # the destination's, or with -o the one next to the inputs.
    old = config.existing_entries(cfg_path)
    if not old and opts.outdir:
        old = config.existing_entries(os.path.join(root, "rcl-config.h"))
    # With -o, also an rcl-config.h next to the inputs that has no entry
    # (an earlier run's, on locks no site initialises): the files that
    # include it are written under OUTDIR.
    if any(e[1] for e in entries) or old or any(
            getattr(f, "needs_config", False) for f in prog.files) or (
                opts.outdir and os.path.exists(os.path.join(
                    root, "rcl-config.h"))):
        outputs[cfg_path] = (None, config.write_config(entries, old))
    return outputs


def input_text(f):
    """The text of File @f as read from disk (before scoped.py)."""
    t = getattr(f, "input_text", None)
    return f.src.text if t is None else t


def compiler(opts):
    if opts.no_compile_check:
        return None
    cc = shlex.split(os.environ.get("CC", "cc"))
    if shutil.which(cc[0]) is None:
        print("rcl-refactor: warning: no C compiler (%s): output not "
              "compile-checked" % cc[0], file=sys.stderr)
        return None
    return cc


def rcl_cflags():
    env = os.environ.get("RCL_CFLAGS")
    if env is not None:
        return shlex.split(env)
    try:
        r = subprocess.run(["pkg-config", "--cflags", "rcl"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 0:
            return shlex.split(r.stdout)
    except OSError:
        pass
    return []


_INPUT_CHECKS = {}  # input path -> compile_check() result


def compile_check(cc, opts, path, tmpdir, extra):
    """Compile @path; (ok, first error, [ccheck.Diag]).  An input (no
    @tmpdir) is compiled once per run."""
    if tmpdir is None and path in _INPUT_CHECKS:
        return _INPUT_CHECKS[path]
    res = _compile_check(cc, opts, path, tmpdir, extra)
    if tmpdir is None:
        _INPUT_CHECKS[path] = res
    return res


def _compile_check(cc, opts, path, tmpdir, extra):
    cmd = cc + ["-std=gnu11", "-O2", "-c", "-o", os.devnull, "-Wall",
                "-pthread"]
    # The copies' root and the file's own directory, for quoted #includes
    # only (a copy in @tmpdir no longer sits beside the input): a
    # <header> is looked up through -I, as the compiler does, even when
    # one of that name sits beside the file or was copied to the root
    # (redis-benchmark.c's <sds.h> is hiredis', not src/sds.h).
    base = getattr(opts, "scratch_base", None) or opts.root
    home = os.path.dirname(os.path.abspath(extra or path))
    if tmpdir:
        cmd += ["-iquote", os.path.normpath(os.path.join(
            tmpdir, os.path.relpath(opts.root, base)))]
        # Its directory's copy before the input's directory: a header
        # beside the file, included by a header elsewhere (smd.c's
        # private-lib-system-smd.h, included by lib/core's
        # private-lib-core.h), is found in the copies, rewritten.
        rel = os.path.relpath(home, base)
        if not rel.startswith("..") and \
                os.path.isdir(os.path.join(tmpdir, rel)):
            cmd += ["-iquote", os.path.join(tmpdir, rel)]
    cmd += ["-iquote", home]
    c = frontend.command_for(opts.commands, extra or path) \
        if opts.commands else None
    if c is not None:
        # The build's own flags, its -I directories' rewritten copies first.
        flags, i = [], 0
        while i < len(c.flags):
            a = c.flags[i]
            if a in ("-I", "-iquote", "-isystem", "-include"):
                val = c.flags[i + 1]
                rel = os.path.relpath(val, base)
                alt = os.path.join(tmpdir, rel) if tmpdir else None
                if alt and not rel.startswith("..") and \
                        os.path.exists(alt):
                    flags += [a, alt]
                    if a == "-include":
                        i += 2
                        continue
                flags += [a, val]
                i += 2
                continue
            if not a.startswith("-Werror") and not a.startswith("-O"):
                flags.append(a)
            i += 1
        cmd += flags
    include, define, undef = opts.include, opts.define, opts.undef
    if c is not None and getattr(opts, "cli_flags", None) is not None:
        include, define, undef = opts.cli_flags
    for d in include:
        # -I DIR of the project: its rewritten copy first.
        rel = os.path.relpath(os.path.abspath(d), base)
        if tmpdir and not rel.startswith(".."):
            cmd += ["-I", os.path.join(tmpdir, rel)]
        cmd += ["-I", d]
    cmd += ["-D" + d for d in define]
    cmd += ["-U" + u for u in undef]
    cmd += rcl_cflags()
    cmd.append(path)
    # In the C locale: GCC quotes with ASCII apostrophes there, where a
    # UTF-8 locale gives U+2018/U+2019, which a reason copied into
    # rcl-config.h (a latin-1 file, as every file is read) cannot hold.
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, LC_ALL="C"))
    lines = r.stderr.splitlines()
    errs = [x for x in lines if " error: " in x or ": error:" in x]
    diags = ccheck.parse(r.stderr, tmpdir)
    if r.returncode != 0:
        return False, (errs or lines or ["compiler failed"])[0], diags
    return True, None, diags


def check_outputs(cc, opts, outputs, root, prog):
    """Compile every transformed file from a scratch copy of the outputs,
    and compare its diagnostics with the input's.  True when there is no
    new one; else {forced refusal: reason} for the sections (or locks)
    whose generated code has them, or None (reported) when a new
    diagnostic cannot be blamed on one."""
    rep = prog.report
    forced = {}
    unblamed = None
    gens = {getattr(s, "gen", None): s for key in prog.keys.values()
            for s in key.sections if getattr(s, "gen", None)}
    macros = {}
    held = {}  # (File, last name of the lock) -> converted keys it calls
    # last name of a converted condition -> the mutexes it waits with
    conds = {}
    for (kind, name), key in prog.keys.items():
        if kind == "cond" and not key.why:
            conds.setdefault(name.split(".")[-1], []).extend(
                prog.keys[("mutex", n)] for n in sorted(key.partners)
                if ("mutex", n) in prog.keys)
        if kind == "mutex" and not key.why:
            for f, k, _ in key.sites:
                macros[rewrite.site_macro(key, f, k) + "_ALGO"] = key
            for f in {f for calls in key.calls.values() for f, _ in calls}:
                held.setdefault((f, name.split(".")[-1]), []).append(key)
    # The scratch copy mirrors @root, or the -I directory above it whose
    # paths the files include by (Tor's "lib/lock/compat_mutex.h" through
    # -I src, the files under src/lib): else a rewritten header would be
    # missed, and the input's read in its place.
    base = _scratch_base(opts, root)
    opts.scratch_base = base
    with tempfile.TemporaryDirectory(prefix="rcl-refactor.") as tmp:
        tmp = os.path.realpath(tmp)
        mapping = {}
        for dest, (f, text) in outputs.items():
            rel = os.path.relpath(os.path.abspath(f.path) if f else
                                  os.path.join(root, "rcl-config.h"), base)
            p = os.path.join(tmp, rel)
            mapping[dest] = p
            if f is not None and f.is_header and \
                    _INCLUDE_NEXT.search(text) and text == input_text(f):
                # Unchanged and going on with `#include_next` (nbdkit's
                # replacement poll.h): from a copy, the next directory
                # searched is the input's own, and it includes itself.
                continue
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="latin-1") as fh:
                # Without the #line of the sections that keep their line
                # numbers: a diagnostic names the line of this text.
                fh.write(re.sub(r"(?m)^#line \d+ %s$" % re.escape(
                    extract.LINE_MARK), "", text))
            mapping[dest] = p
        # The files left unchanged beside them: a quoted #include looks in
        # the including file's directory first, so an unchanged header
        # read from the inputs' directory (memcached.h) would pull the
        # input versions of the headers it includes (items.h) instead of
        # their rewritten copies.
        written = {id(f) for f, _ in outputs.values() if f is not None}
        for f in prog.files:
            rel = os.path.relpath(os.path.abspath(f.path), base)
            p = os.path.join(tmp, rel)
            if id(f) in written or rel.startswith("..") or \
                    os.path.exists(p) or _INCLUDE_NEXT.search(f.src.text):
                continue  # (`#include_next`: see above)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copyfile(f.path, p)
        by_copy = {os.path.normpath(mapping[dest]): (f, text)
                   for dest, (f, text) in outputs.items() if f is not None}
        for dest, (f0, text0) in outputs.items():
            if f0 is None or f0.is_header:
                continue
            f, text = f0, text0
            good, msg, after = compile_check(cc, opts, mapping[dest], tmp,
                                             f.path)
            _, _, before = compile_check(cc, opts, f.path, None, None)
            new = ccheck.new_diags(before, after)
            if good and not new:
                continue
            if not good and not new:
                new = [d for d in after if d.kind == "error"][:1]
            if not good and not new and not unblamed:
                unblamed = "%s: the transformed file does not compile; " \
                    "nothing written: %s" % (f.display, msg)
            new.sort(key=lambda d: d.kind != "error")  # errors first
            for d in new:
                f, text = f0, text0
                here = ccheck.at_expansion(d, mapping[dest])
                if here is None and os.path.normpath(d.path) in by_copy:
                    # In another rewritten file the unit reads (a
                    # header's section, a .c file it includes).
                    f, text = by_copy[os.path.normpath(d.path)]
                    here = d
                b = ccheck.blame(here, text, gens, macros,
                                 lambda n, f=f: held.get((f, n), ()),
                                 lambda n: conds.get(n, ())) \
                    if here else None
                what = "%s: %s" % (d.kind, d.msg)
                if b and b[0] == "section":
                    sec = b[1]
                    name = _uninit_copy_in(d, text)
                    if name and here is d and ("byptr", sec.file, sec.func,
                                               name) not in prog.forced:
                        # `int gr; ... lock; ... gr = f(); ... unlock;
                        # ... use(gr)` on a path where gr was never set:
                        # copied in to come back unchanged, it would be
                        # read while indeterminate.  Try it by pointer,
                        # in every section of the function (the copy-in
                        # lines of two sections of one caller look
                        # alike: the blame may name the other one).
                        forced[("byptr", sec.file, sec.func, name)] = True
                        continue
                    if here is not d:
                        # In a macro's body (a header's #define): the line
                        # of the section that expands it.
                        tl = text.split("\n")[here.line - 1].strip()
                        ul = _user_line(f, tl)
                        where = "%s:%d, in the expansion of a macro" % (
                            f.display, ul) if ul else \
                            "at '%s', in the expansion of a macro" % tl[:60]
                    else:
                        ul = _user_line(f, d.text)
                        where = "%s:%d" % (f.display, ul) if ul else \
                            "at '%s'" % d.text[:60]
                    forced.setdefault(("section", sec.file, sec.line), (
                        "its extracted code gets a new compiler diagnostic "
                        "(%s: %s)" % (where, what)))
                elif b and b[0] == "locks":
                    ul = _user_line(f, d.text)
                    for key in b[1]:
                        forced.setdefault(("lock", key.name), (
                            "a call of it left in place gets a new compiler "
                            "diagnostic (%s: %s)" % (
                                "%s:%d" % (f.display, ul) if ul else
                                "at '%s'" % d.text.strip()[:60], what)))
                elif b and b[0] == "conds":
                    ul = _user_line(f, d.text)
                    for key in b[1]:
                        forced.setdefault(("lock", key.name), (
                            "the converted declaration of a condition it "
                            "waits on gets a new compiler diagnostic "
                            "(%s: %s)" % (
                                "%s:%d" % (f.display, ul) if ul else
                                "at '%s'" % d.text.strip()[:60], what)))
                elif b:
                    sf, sk, _ = b[1].sites[0]
                    forced.setdefault(("lock", b[1].name), (
                        "its converted initialisation at %s:%d gets a new "
                        "compiler diagnostic (%s)" % (sf.display,
                                                       sf.line(sk), what)))
                elif _inits_on_line(prog, f, d.text):
                    # On a declaration whose initialiser the compiler says
                    # gives converted mutexes a value, through macros the
                    # tool did not read as theirs: those stay POSIX.
                    ul = _user_line(f, d.text)
                    for key in _inits_on_line(prog, f, d.text):
                        forced.setdefault(("lock", key.name), (
                            "its initialisation at %s:%d gets a new "
                            "compiler diagnostic (%s)" % (f.display, ul,
                                                          what)))
                elif not unblamed:
                    ul = _user_line(f, d.text)
                    unblamed = "%s: the transformed file %s; nothing " \
                        "written: %s" % (
                            f.display, "does not compile" if not good
                            else "has a new diagnostic",
                            "%s:%d: %s" % (f.display, ul, what) if ul else
                            "%s (at '%s')" % (what, d.text[:60]))
    # Diagnostics blamed on nothing may follow from those blamed (a
    # function left unused by a broken call): try again without these.
    if not forced and unblamed:
        rep.error(unblamed)
        return None
    return forced or True


_INCLUDE_NEXT = re.compile(r"(?m)^[ \t]*#[ \t]*include_next\b")


def _scratch_base(opts, root):
    """The directory the compile check's scratch copy mirrors: @root, or
    the highest directory above it given with -I (or -iquote in the
    build's commands), not a system one."""
    dirs = [os.path.abspath(d) for d in opts.include]
    for c in opts.commands or ():
        dirs += [c.flags[i + 1] for i, a in enumerate(c.flags[:-1])
                 if a in ("-I", "-iquote")]
    above = [d for d in dirs if os.path.isabs(d) and d != os.sep and
             not d.startswith(("/usr/", "/opt/")) and
             root.startswith(d.rstrip(os.sep) + os.sep)]
    return min(above, key=len) if above else root


def _uninit_copy_in(d, text):
    """The local named by diagnostic @d when it is GCC's `may be used
    uninitialized` (or `is used`) on a context's copy-in line
    (`rcl_ctx.in.x = x;`), or on another line (GCC names the declaration
    when the copy is in a loop: axel's `off_t remaining, size;`) of
    transformed text @text that copies it in; else None."""
    m = re.match(r"[\u2018'](\w+)[\u2019'] (?:may be|is) used "
                 r"uninitiali[sz]ed", d.msg)
    if not m or d.kind != "warning":
        return None
    copy = r"\s*rcl_ctx\.in\.%s = %s;\s*" % (m.group(1), m.group(1))
    if re.fullmatch(copy, d.text or "") or \
            re.search(r"(?m)^%s$" % copy, text):
        return m.group(1)
    return None


def _inits_on_line(prog, f, text):
    """The converted mutexes that a brace initialiser gives a value on
    the line of input file @f whose text is @text, as the compiler says
    (frontend.Program.inits_at())."""
    fe = getattr(prog, "frontend", None)
    ul = _user_line(f, text) if fe is not None else 0
    if not ul:
        return []
    return [prog.keys[("mutex", n)]
            for n in sorted(fe.inits_at(f.path, ul, "mutex"))
            if ("mutex", n) in prog.keys and not prog.keys[("mutex", n)].why]


def _user_line(f, text):
    """The line of the input file @f whose text is @text, else 0."""
    for n, ln in enumerate(f.src.text.split("\n"), 1):
        if ln.strip() == text:
            return n
    return 0


def to_write(outputs):
    """The output.Output records of render_outputs()' @outputs, each
    with its line ending: a C file's is its input's; rcl-config.h's is
    the existing file's, else CRLF when every C file's is."""
    res = [output.Output(dest, text, f.path, f.eol)
           for dest, (f, text) in outputs.items() if f is not None]
    for dest, (f, text) in outputs.items():
        if f is not None:
            continue
        try:
            with open(dest, "rb") as fh:
                eol = output.line_ending(fh.read().decode("latin-1"))
        except OSError:
            eol = output.CRLF if res and all(
                o.eol == output.CRLF for o in res) else output.LF
        res.append(output.Output(dest, text, None, eol))
    return res
