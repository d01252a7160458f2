# SPDX-License-Identifier: MIT
"""Running the command under the profiler library."""
import os
import shutil
import signal
import subprocess
import sys

from .dumps import LIBNAME
from .errors import die


def find_command(cmd):
    if "/" in cmd:
        path = cmd
        if not os.path.exists(path):
            die("%s: no such file" % cmd, 127)
    else:
        path = shutil.which(cmd)
        if path is None:
            die("%s: command not found" % cmd, 127)
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        die("%s: not executable" % cmd, 126)
    return path


def find_library(bindir, pkglibdir):
    """The library to preload: $RCLPROF_LIB, else the build tree's next to
    rcl-prof (@bindir: the launcher's directory), else the installed
    one."""
    env = os.environ.get("RCLPROF_LIB")
    here = bindir
    for cand in ([env] if env else []) + [
            os.path.join(here, ".libs", LIBNAME),
            os.path.join(pkglibdir, LIBNAME)]:
        if os.path.isfile(cand):
            return os.path.abspath(cand)
    die("cannot find %s (set RCLPROF_LIB)" % LIBNAME)



def run(a, outdir, lib):
    """Run a.command with @lib preloaded, its dumps going to @outdir; its
    exit status (128+N for a death by signal N, a.died_of = N)."""
    path = find_command(a.command[0])
    env = dict(os.environ)
    pre = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = lib + (" " + pre if pre else "")
    env["RCLPROF_OUT"] = outdir
    env["RCLPROF_DEPTH"] = str(a.depth)
    env["RCLPROF_SAMPLE"] = str(a.sample)
    # stacks and timelines only when asked for: they cost a backtrace per
    # timed acquisition
    env["RCLPROF_TRACE"] = "1" if a.folded or a.plot else "0"
    # A sanitized program wants its runtime first in the library list; the
    # profiler only wraps pthread calls, so let it come second.
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + \
        "verify_asan_link_order=0"
    try:
        child = subprocess.Popen([path] + a.command[1:], env=env)
    except OSError as e:
        die("%s: %s" % (a.command[0], e.strerror), 126)
    # The terminal's ^C reaches CMD directly; pass on what is sent to us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, lambda sig, _f: child.send_signal(sig))
    while True:
        try:
            rc = child.wait()
            break
        except InterruptedError:
            continue
    if rc < 0:
        a.died_of = -rc
    return 128 - rc if rc < 0 else rc


def die_like(sig):
    """End rcl-prof by the signal that ended CMD, so that its caller sees
    the same death (a shell stops a loop on SIGINT, `$?` is 128+N)."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core of ours
    except (ImportError, ValueError, OSError):
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
