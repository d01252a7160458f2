# SPDX-License-Identifier: MIT
"""rcl-prof's command line: options and their checks, the thresholds, the
RCL runtime's variables, and main(), which runs the stages in order:
launch (run CMD under the library), dumps (read what each process
wrote), model (the report), then the table, the JSON profile
(librcl_profile), --folded, --plot and --colocate-plan."""
import argparse
import json
import os
import shutil
import sys
import tempfile

import librcl_profile

from .colocation import colocation, write_colocate_plan
from .dumps import load_dumps
from .errors import Error, die
from .folded import write_folded
from .launch import die_like, find_library, run
from .model import build_report
from .plot import write_plot
from .symbols import Symbols
from .table import print_table


class Parser(argparse.ArgumentParser):
    """Errors on one line ("rcl-prof: --top: invalid int value: 'x'")."""

    def error(self, message):
        if message.startswith("argument "):
            message = message[len("argument "):]
        die(message)


ENV_HELP = """\
environment:
  RCL_DEGRADED, RCL_STATS
        checked, then passed to CMD: each must be unset, empty, 0 or 1 (any
        other value is an error before CMD runs); a CMD that uses the RCL
        runtime honours them (1: servers without SCHED_FIFO; 1: per-server
        statistics on stderr at exit), other programs are not affected
  RCL_SERVERS
        checked the same way: a CPU list (3, 2,3 or 2-3) whose CPUs are all
        in rcl-prof's CPU affinity mask (under taskset, the CPUs it allows)
  RCLPROF_LIB
        the profiler library to preload (default: next to rcl-prof in a
        build tree, else the package library directory)
"""


def parse_args(argv, version="?"):
    p = Parser(
        prog="rcl-prof",
        usage="rcl-prof [options] [--] CMD [ARGS...]\n"
              "       rcl-prof [options] --from DIR",
        description="Run CMD under the lock profiler, print the ranked "
                    "lock table and write a JSON profile.  The exit status "
                    "is CMD's (if CMD dies of a signal, rcl-prof reports, "
                    "then dies of the same signal).",
        epilog=ENV_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", default="rcl-prof.json", metavar="FILE",
                   help="JSON profile to write (default rcl-prof.json; "
                        "'-' for stdout, 'none' to skip)")
    p.add_argument("--lower", type=float, metavar="PCT",
                   help="%% time in CS at or above which RCL may help "
                        "(default 15)")
    p.add_argument("--upper", type=float, metavar="PCT",
                   help="%% time in CS at or above which RCL is recommended "
                        "(default 60)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="thresholds file (JSON {\"lower\":..,\"upper\":..} "
                        "or lines lower=PCT / upper=PCT), e.g. written by "
                        "rcl-bench calibrate; --lower/--upper override it")
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="rows in the table, at least 0 (default 20, "
                        "0 = all)")
    p.add_argument("--table", choices=["stderr", "stdout", "none"],
                   default="stderr", help="where the table goes "
                   "(default stderr, so CMD's stdout is unchanged)")
    p.add_argument("--depth", type=int, default=4, metavar="N",
                   help="backtrace frames that identify a site (1-8, "
                        "default 4)")
    p.add_argument("--sample", type=int, default=1, metavar="N",
                   help="time one outermost critical section in N per "
                        "thread and scale (default 1: time all); counts, "
                        "waits and blame stay exact (a hold that finds "
                        "waiters queued is also charged the hand-over gap "
                        "before it)")
    p.add_argument("--folded", metavar="FILE",
                   help="write the wait and hold time of every lock by call "
                        "stack as folded stacks (flamegraph.pl, inferno, "
                        "speedscope): 'wait;LOCK;root;...;caller NS' and "
                        "'hold;LOCK;...' lines, counts in nanoseconds "
                        "('-' for stdout); a backtrace per timed lock "
                        "(~1 us): add --sample N to lock-heavy programs")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw a timeline of the top locks (per thread: "
                        "held, waiting, running) over the share of CPUs "
                        "left idle, with gnuplot (with --keep DIR, its "
                        "script and data stay in DIR)")
    p.add_argument("--colocate-plan", metavar="FILE",
                   help="write a co-location plan for rcl-run --colocate: "
                        "the groups of threads that mostly take one lock "
                        "(see the table's co-location advice), one CPU "
                        "each; not written when no such groups exist")
    p.add_argument("--keep", metavar="DIR",
                   help="keep the raw per-process dumps in DIR")
    p.add_argument("--from", dest="from_dir", metavar="DIR",
                   help="do not run anything: report the dumps in DIR "
                        "(made with --keep)")
    p.add_argument("--version", action="version",
                   version="rcl-prof " + version)
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the program to profile and its arguments")
    a = p.parse_args(argv)
    if a.command and a.command[0] == "--":
        a.command = a.command[1:]
    if a.from_dir and a.command:
        die("--from and a command are exclusive")
    if not a.from_dir and not a.command:
        die("no command given (usage: rcl-prof [-o FILE] -- CMD [ARGS])")
    if not 1 <= a.depth <= 8:
        die("--depth %d: must be between 1 and 8" % a.depth)
    if a.sample < 1:
        die("--sample %d: must be at least 1" % a.sample)
    if a.top < 0:
        die("--top %d: must be 0 (all rows) or more" % a.top)
    for opt, v in (("--lower", a.lower), ("--upper", a.upper)):
        if v is not None and not 0 <= v <= 100:  # also rejects nan
            die("%s %g: must be a percentage between 0 and 100" % (opt, v))
    if a.plot is not None:
        if not a.plot.endswith(".png"):
            die("--plot %s: the file name must end in .png" % a.plot)
        if not shutil.which("gnuplot"):
            die("--plot: gnuplot not found in PATH")
    for opt, v in (("--folded", a.folded), ("--plot", a.plot),
                   ("--colocate-plan", a.colocate_plan)):
        if v is not None and v != "-":
            d = os.path.dirname(os.path.abspath(v))
            if not os.path.isdir(d):
                die("%s %s: no directory %s" % (opt, v, d))
    if a.plot == "-":
        die("--plot -: a PNG file name is needed")
    if a.colocate_plan == "-":
        die("--colocate-plan -: a file name is needed")
    if a.command:
        check_rcl_env(os.environ)
    return a


def parse_cpu_list(text):
    """CPUs of "3", "2,3", "4-7,9" (the runtime's RCL_SERVERS syntax), or
    None when @text is not such a list."""
    cpus = []
    for part in text.split(","):
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            return None
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            return None
        cpus.extend(range(a, b + 1))
    return cpus


def check_rcl_env(env):
    """The RCL runtime's variables, checked before CMD runs: a value the
    runtime would silently ignore, or a CPU CMD may not use, is an
    error."""
    for var in ("RCL_DEGRADED", "RCL_STATS"):
        v = env.get(var)
        if v not in (None, "", "0", "1"):
            die("%s='%s': must be 0 or 1" % (var, v))
    v = env.get("RCL_SERVERS")
    if not v:
        return
    cpus = parse_cpu_list(v)
    if cpus is None:
        die("RCL_SERVERS='%s': not a CPU list (e.g. 3 or 2,3 or 2-3)" % v)
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return
    ncpu = os.cpu_count() or 0
    for c in cpus:
        if ncpu and c >= ncpu:
            die("RCL_SERVERS='%s': CPU %d is not online (CPUs: %s)"
                % (v, c, cpu_ranges(range(ncpu))))
        if c not in allowed:
            die("RCL_SERVERS='%s': CPU %d is not in this process's CPU "
                "affinity mask (allowed: %s)" % (v, c, cpu_ranges(allowed)))


def cpu_ranges(cpus):
    """{0, 1, 2, 5} -> "0-2,5"."""
    out, run = [], []
    for c in sorted(cpus):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1
                       else "%d-%d" % (run[0], run[-1]))
        run = [c]
    if run:
        out.append(str(run[0]) if len(run) == 1
                   else "%d-%d" % (run[0], run[-1]))
    return ",".join(out)


def load_thresholds(a):
    lower, upper, source = 15.0, 60.0, "default"
    if a.thresholds:
        try:
            with open(a.thresholds) as f:
                text = f.read()
        except OSError as e:
            die("%s: %s" % (a.thresholds, e.strerror))
        vals = {}
        try:
            vals = json.loads(text)
            if not isinstance(vals, dict):
                raise ValueError
        except ValueError:
            vals = {}
            for n, line in enumerate(text.splitlines(), 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                k, sep, v = line.partition("=")
                if not sep:
                    die("%s:%d: expected lower=PCT or upper=PCT"
                        % (a.thresholds, n))
                vals[k.strip()] = v.strip()
        try:
            lower = float(vals.get("lower", lower))
            upper = float(vals.get("upper", upper))
        except (TypeError, ValueError):
            die("%s: lower/upper must be numbers" % a.thresholds)
        source = a.thresholds
    if a.lower is not None:
        lower, source = a.lower, "options"
    if a.upper is not None:
        upper, source = a.upper, "options"
    if not 0 <= lower <= upper <= 100:
        die("thresholds must satisfy 0 <= lower (%g) <= upper (%g) <= 100"
            % (lower, upper))
    return {"lower": lower, "upper": upper, "source": source}


def check_output(path):
    """Fail before running CMD if the JSON cannot be written."""
    if path in ("-", "none"):
        return
    d = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        die("cannot write %s: is a directory" % path)
    if not os.path.isdir(d):
        die("cannot write %s: no such directory %s" % (path, d))
    target = path if os.path.exists(path) else d
    if not os.access(target, os.W_OK):
        die("cannot write %s: permission denied" % path)


def main(argv, version="?", pkglibdir="", bindir=""):
    """rcl-prof ARGV; @version, @pkglibdir (where librclprof.so is
    installed) and @bindir (the launcher's directory, where a build tree
    has .libs/librclprof.so) come from the launcher.  Returns the exit
    status (CMD's)."""
    a = parse_args(argv, version)
    th = load_thresholds(a)
    check_output(a.output)
    status = 0
    tmp = None
    if a.from_dir:
        outdir = a.from_dir
    else:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            outdir = os.path.abspath(a.keep)
        else:
            tmp = tempfile.TemporaryDirectory(prefix="rcl-prof.")
            outdir = tmp.name
        status = run(a, outdir, find_library(bindir, pkglibdir))
    try:
        procs = load_dumps(outdir)
        if not procs:
            raise Error("no profile was written (did %s exec, or die of "
                        "SIGKILL or an unwatched signal?)"
                        % (a.command[0] if a.command else outdir))
        syms = Symbols()
        rep = build_report(procs, th, a.command, status, syms,
                           "rcl-prof " + version)
        rep.colocation = colocation(procs, rep)
        # the files asked for are written after the table (below); they
        # need the report's lock names, the symbols and the dumps
        traced = [p for p in procs if p.get("site_rows") and p["traced"]]
        if (a.folded or a.plot) and not traced:
            raise Error("no stacks or timeline in the dumps (%s)" % (
                "they were not made with --folded or --plot"
                if a.from_dir else "no lock was used"))
    except Error as e:
        sys.stderr.write("rcl-prof: %s\n" % e)
        if getattr(a, "died_of", None):
            die_like(a.died_of)
        return status if status else 1
    finally:
        if tmp:
            tmp.cleanup()
    if a.table != "none":
        print_table(rep, a.top, sys.stdout if a.table == "stdout"
                    else sys.stderr)
    if a.output != "none":
        try:
            librcl_profile.write(rep, a.output)
        except librcl_profile.ProfileError as e:
            die(str(e))
    try:
        if a.folded:
            write_folded(traced, rep, syms, a.folded)
        if a.plot:
            write_plot(traced, rep, a.plot, a.keep or a.from_dir)
        if a.colocate_plan:
            write_colocate_plan(rep, a.colocate_plan)
    except Error as e:
        sys.stderr.write("rcl-prof: %s\n" % e)
        if not status:
            status = 1
    if getattr(a, "died_of", None):
        die_like(a.died_of)
    return status

