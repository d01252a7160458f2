# SPDX-License-Identifier: MIT
"""The librcl pipeline as steps, for the demo and the end-to-end test.

Finds the tools in a build tree (TOP_BUILDDIR/profiler/rcl-prof,
TOP_BUILDDIR/cocci/rcl-refactor, TOP_BUILDDIR/runtime/librcl.la through
libtool) or, without a build tree, installed (PATH and pkg-config rcl).
Every step raises StepError with the command and its last output lines
when it fails: nothing is faked.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

TOOL_TIMEOUT = 300


class StepError(Exception):
    pass


def step(msg):
    print("\n==> %s" % msg, flush=True)


def _tail(text, n=15):
    lines = (text or "").strip().splitlines()
    return "\n".join("    " + line for line in lines[-n:])


def run(cmd, timeout=TOOL_TIMEOUT, echo=True, check_ok=True, **kw):
    """Run @cmd; raise StepError unless it exits 0 (or @check_ok is
    False).  Echoes its output."""
    if echo:
        print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise StepError("%s: timed out after %d s" % (cmd[0], timeout))
    except OSError as e:
        raise StepError("%s: %s" % (cmd[0], e.strerror))
    if echo:
        sys.stdout.write(p.stdout)
        sys.stdout.write(p.stderr)
        sys.stdout.flush()
    if p.returncode != 0 and check_ok:
        raise StepError("`%s` exited %d:\n%s" % (
            " ".join(shlex.quote(c) for c in cmd), p.returncode,
            _tail(p.stdout + p.stderr)))
    return p


RCL_PROBE = r"""
#include <liblock.h>
#include <stdio.h>
int main(void)
{
	liblock_algorithm_info_t info;
	const char *const *a;

	for (a = liblock_algorithms(); *a; a++)
		printf("%s\n", *a);
	return liblock_algorithm_info("rcl", &info) == 0 ? 0 : 3;
}
"""


class Tools:
    """Where the pipeline's commands are, and how to build against librcl."""

    def __init__(self, top_srcdir, top_builddir=None, cc="cc", san=""):
        """@san: the sanitizer flags librcl was built with (every program
        linked against it needs them too)."""
        self.san = shlex.split(san or "")
        self.srcdir = os.path.abspath(top_srcdir)
        self.builddir = os.path.abspath(top_builddir) if top_builddir else None
        self.cc = shlex.split(cc)
        self.prof = self._find("profiler", "rcl-prof")
        self.refactor_cmd = self._find("cocci", "rcl-refactor")

    def _find(self, folder, name):
        if self.builddir:
            p = os.path.join(self.builddir, folder, name)
            if os.access(p, os.X_OK) and os.path.isfile(p):
                return p
        return shutil.which(name)

    def missing(self):
        """Messages for every part of the pipeline that is not there."""
        out = []
        if not self.prof:
            out.append("rcl-prof not found (profiler/ not built, or not "
                       "installed in PATH)")
        if not self.refactor_cmd:
            out.append("rcl-refactor not found (cocci/ not built, or not "
                       "installed in PATH)")
        if self.builddir and not os.path.exists(
                os.path.join(self.builddir, "runtime", "librcl.la")):
            out.append("runtime/librcl.la not built in %s" % self.builddir)
        if not self.builddir and subprocess.run(
                ["pkg-config", "--exists", "rcl"]).returncode != 0:
            out.append("pkg-config cannot find rcl (run make install)")
        linkable = os.path.exists(os.path.join(
            self.builddir, "runtime", "librcl.la")) if self.builddir else \
            not any("pkg-config" in m for m in out)
        if linkable:
            algos, err = self.algorithms()
            if algos is None:
                out.append("cannot build or run a program against librcl: "
                           + err)
            elif "rcl" not in algos:
                out.append("librcl has no 'rcl' algorithm yet (it has: %s)"
                           % ", ".join(algos))
        return out

    def algorithms(self):
        """(algorithms librcl registers, None) or (None, why not)."""
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            c = os.path.join(tmp, "probe.c")
            with open(c, "w") as f:
                f.write(RCL_PROBE)
            try:
                exe = self.link(c, os.path.join(tmp, "probe"), [], [],
                                echo=False)
            except StepError as e:
                return None, str(e).splitlines()[-1].strip()
            p = subprocess.run([exe], capture_output=True, text=True,
                               timeout=30)
            if p.returncode not in (0, 3):
                err = (p.stderr.strip().splitlines() or ["?"])[0]
                return None, "probe exited %d: %s" % (p.returncode, err)
            return p.stdout.split(), None

    def link(self, csrc, out, incdirs, cflags, echo=True):
        """Compile and link @csrc against librcl; returns the executable."""
        incs = ["-I" + d for d in incdirs]
        cflags = list(cflags) + self.san
        if self.builddir:
            cmd = [os.path.join(self.builddir, "libtool"), "--quiet",
                   "--mode=link"] + self.cc + cflags + incs + [
                "-I" + os.path.join(self.srcdir, "liblock"),
                "-I" + os.path.join(self.srcdir, "runtime"),
                "-I" + self.builddir, csrc,
                os.path.join(self.builddir, "runtime", "librcl.la"),
                "-lpthread", "-o", out]
        else:
            pc = subprocess.run(["pkg-config", "--cflags", "--libs", "rcl"],
                                capture_output=True, text=True, check=True)
            cmd = self.cc + cflags + incs + [csrc, "-o", out] + \
                shlex.split(pc.stdout)
        run(cmd, echo=echo)
        return out

    def build_original(self, csrc, workdir):
        out = os.path.join(workdir, "kvcache")
        run(self.cc + ["-O2", "-g", "-pthread"] + self.san + [csrc, "-o", out])
        return out

    def profile(self, binary, workdir, args):
        """rcl-prof -o WORKDIR/profile.json -- BINARY ARGS; the JSON path."""
        prof = os.path.join(workdir, "profile.json")
        run([self.prof, "-o", prof, "--", binary] + args)
        try:
            with open(prof) as f:
                json.load(f)
        except (OSError, ValueError) as e:
            raise StepError("rcl-prof wrote no readable %s: %s" % (prof, e))
        return prof

    def refactor(self, csrc, locks, workdir, extra=()):
        """rcl-refactor --locks LOCKS -o WORKDIR/refactored CSRC."""
        outdir = os.path.join(workdir, "refactored")
        cmd = [self.refactor_cmd, "--locks", locks] + \
            self.refactor_incs() + list(extra) + ["-o", outdir, csrc]
        p = run(cmd, check_ok=False, env=self.refactor_env())
        # Exit 1 means "some sections were refused (listed above)", which
        # includes the sections of locks the profile did not select.
        if p.returncode not in (0, 1):
            raise StepError("`%s` exited %d:\n%s" % (
                " ".join(shlex.quote(c) for c in cmd), p.returncode,
                _tail(p.stdout + p.stderr)))
        for f in (os.path.basename(csrc), "rcl-config.h"):
            if not os.path.exists(os.path.join(outdir, f)):
                raise StepError("rcl-refactor (exit %d) wrote no %s in %s:\n%s"
                                % (p.returncode, f, outdir,
                                   _tail(p.stdout + p.stderr)))
        return outdir

    def refactor_env(self):
        """The build tree's rcl-refactor finds its Python package and
        semantic patches in the source tree (installed: $(pkgdatadir))."""
        env = dict(os.environ)
        if self.builddir and self.refactor_cmd.startswith(self.builddir):
            env.setdefault("RCL_REFACTOR_DATADIR",
                           os.path.join(self.srcdir, "cocci"))
        return env

    def refactor_incs(self):
        """-I options that let rcl-refactor's compile check find
        <liblock.h> in a build tree (installed, it is on the default
        path)."""
        if not self.builddir:
            return []
        return ["-I", os.path.join(self.srcdir, "liblock"),
                "-I", os.path.join(self.srcdir, "runtime")]

    def build_refactored(self, csrc, outdir, out, cflags):
        return self.link(csrc, out, [outdir], shlex.split(cflags))


_THROUGHPUT = re.compile(r"^throughput: ([0-9.]+) ops/s$", re.M)
_CHECK = re.compile(r"^check: (\S+) .*digest=([0-9a-f]+)$", re.M)


def parse_kvcache(stdout):
    """{'throughput', 'ok', 'digest'} from kvcache --check, or None."""
    t, c = _THROUGHPUT.search(stdout), _CHECK.search(stdout)
    if not t or not c:
        return None
    return {"throughput": float(t.group(1)), "ok": c.group(1) == "ok",
            "digest": c.group(2)}


def _pick(d, *names):
    for n in names:
        if n in d and d[n] is not None:
            return d[n]
    return None


def hottest_lock(profile_path):
    """(name, '% time in CS', 'misses/CS', verdict) of the profile's first
    ranked lock, or (None, '-', '-', '-')."""
    with open(profile_path) as f:
        prof = json.load(f)
    locks = prof.get("locks") if isinstance(prof, dict) else prof
    if not locks:
        return None, "-", "-", "-"
    top = locks[0]
    name = _pick(top, "name", "symbol", "site") or "?"
    pct = _pick(top, "pct_time_in_cs", "time_in_cs_pct", "cs_pct")
    pct = "%.1f%%" % pct if isinstance(pct, (int, float)) else "-"
    misses = _pick(top, "misses_per_cs", "cache_misses_per_cs")
    if isinstance(misses, (int, float)):
        misses = "%.1f" % misses
    else:
        misses = _pick(top, "misses_per_cs_note") or \
            "n/a: no hardware counters"
    verdict = _pick(top, "verdict") or "-"
    return name, pct, misses, verdict
