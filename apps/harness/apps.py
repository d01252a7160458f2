# SPDX-License-Identifier: MIT
"""The real applications the harness runs the pipeline on.

Each class says how to build the application, load it under the profiler,
which files and lock wrappers to give rcl-refactor, how to run its own
test suite and how to measure its throughput.  Workloads are bounded in
count and time, and memcached is only ever reached on 127.0.0.1.
"""
import glob
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import threading
import time

from pipeline import StepError, run

JOBS = "-j2"


def _run_log(cmd, cwd, env, log, timeout):
    """Run @cmd with output to @log; its exit status (124: timed out, and
    then everything it started is killed: a test suite's make leaves its
    test programs behind otherwise, spinning beside the next steps)."""
    with open(log, "w") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=f,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            f.write("\nharness: timed out after %d s\n" % timeout)
            return 124


def _tail(path, n=12):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def _terminate(proc, grace):
    """Terminate @proc; kill it if it is still there after @grace s."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _run_each(tests, log, env, timeout, label, mode="w"):
    """Run the tests of @tests, (name, shown, argv, cwd) each, one process
    each (generated lazily: a cwd may be made fresh for each), output
    to @log; (ok, detail, counts) as Recipe.test returns them: ok when
    there is at least one and every one exits 0 within @timeout s."""
    failed, n = [], 0
    with open(log, mode) as out:
        for name, shown, argv, cwd in tests:
            n += 1
            out.write("$ %s\n" % shown)
            out.flush()
            try:
                r = subprocess.run(argv, cwd=cwd, env=env, stdout=out,
                                   stderr=subprocess.STDOUT,
                                   timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                r = 124
            out.write("harness: %s exit %d\n" % (name, r))
            if r != 0:
                failed.append(name)
    detail = "%s%d/%d passed" % (label, n - len(failed), n)
    if failed:
        detail += ", failed: " + " ".join(failed)
    return not failed and n > 0, detail, {
        "passed": n - len(failed), "total": n, "failed": failed}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# A call that names a mutex or a condition variable.
PTHREAD_USE = r"\bpthread_(?:mutex|cond)_\w+\s*\("


def _grep_files(tree, pattern, files):
    rx = re.compile(pattern)
    out = []
    for f in files:
        with open(os.path.join(tree, f), errors="replace") as fh:
            if rx.search(fh.read()):
                out.append(f)
    return out


def _tests_result(kind, text, rc):
    """{'passed', 'total', 'failed': [names]} from a test log of @kind
    (automake, prove, abts, tcl, ctest, exit), or None counts when the log says
    nothing countable (the exit status alone then decides)."""
    failed, passed, total = [], None, None
    if kind == "automake":
        t = re.findall(r"^# TOTAL: (\d+)", text, re.M)
        p = re.findall(r"^# PASS: +(\d+)", text, re.M)
        s = re.findall(r"^# SKIP: +(\d+)", text, re.M)
        if t:
            total = sum(map(int, t)) - sum(map(int, s))
            passed = sum(map(int, p))
        failed = re.findall(r"^(?:FAIL|ERROR): (\S+)", text, re.M)
    elif kind == "prove":
        m = re.findall(r"^Files=(\d+), Tests=(\d+)", text, re.M)
        failed = sorted(set(re.findall(r"^(t/\S+\.t)\s+\(Wstat", text,
                                       re.M)))
        if m:
            total = int(m[-1][0])
            passed = total - len(failed)
    elif kind == "abts":
        # APR's test driver: "testlock            :  SUCCESS" per module,
        # "-FAILED 1 of 5" (or a tail of failure lines) otherwise.
        res = re.findall(r"^(\w+)\s+:\s+\W*(SUCCESS|FAILED)", text, re.M)
        if res:
            failed = [n for n, r in res if r != "SUCCESS"]
            total, passed = len(res), len(res) - len(failed)
    elif kind == "tcl":
        # Redis's Tcl runner (tests/test_helper.tcl): "[ok]: name (N ms)"
        # per test passed, "[err]: name" or "[exception]: ..." otherwise,
        # coloured when TERM says so.
        res = re.findall(r"^\[(?:\x1b\[[0-9;]*m)?(ok|err|exception)"
                         r"(?:\x1b\[[0-9;]*m)?\]: (.*?)(?: \(\d+ ms\))?$",
                         text, re.M)
        if res:
            failed = [n for r, n in res if r != "ok"]
            total, passed = len(res), len(res) - len(failed)
    elif kind == "ctest":
        m = re.findall(r"(\d+)% tests passed, (\d+) tests? failed out of "
                       r"(\d+)", text)
        failed = re.findall(r"^\s*\d+ - (\S+) \(", text, re.M)
        if m:
            total = int(m[-1][2])
            passed = total - int(m[-1][1])
    if total is None:
        total, passed = 1, 1 if rc == 0 else 0
    return {"passed": passed, "total": total, "failed": failed}


class Recipe:
    """An application as data: the harness's generic steps read these
    attributes (docs/REAL-CODE.md, "Recipes", describes each); a class
    overrides a method only for what the generic steps cannot say.

    name: the harness's name (make check-corpus APPS=name); source and
    version: the Debian bookworm source package; build_deps: Debian
    packages its build needs (checked before building); why: one line,
    which locks are hot and what its tests exercise; CONFIGURE, BUILD:
    commands run in the unpacked tree (BUILD under `bear --` so the build
    writes compile_commands.json); FILES: sources to refactor (None: the
    compiled files of compile_commands.json matching LOCK_PATTERN, less
    those whose path LOCK_EXCLUDE matches: the app's own tests);
    LOCK_FNS: lock wrapper pairs for --lock-fn; MACROS: a --macro-file
    (lock macros defined in #if branches, parser hints); COMPDB: give
    rcl-refactor the original build's compile_commands.json (-p), its
    paths moved to the tree refactored, instead of REFACTOR_ARGS:
    -I/-D/-U; REFACTOR_TIMEOUT: seconds rcl-refactor may take; WORKLOAD:
    the timed command ({tree}, {data}: a 64 MB text file); TEST, TEST_KIND: the own test suite and how its log is
    read (automake, prove, abts, tcl, ctest, exit); TESTS_ALL: the suite's test
    names when some are excluded; EXCLUDE: {test: why} left out of every
    run, recorded in the table; QUICK: a subset for --tests=quick."""

    name = source = version = None
    build_deps = ()
    why = ""
    CONFIGURE = None
    BUILD = ["make", JOBS]
    FILES = None
    LOCK_PATTERN = r"\bpthread_mutex_lock\s*\("
    LOCK_EXCLUDE = None
    LOCK_FNS = ()
    MACROS = ""
    COMPDB = False
    REFACTOR_TIMEOUT = 300
    REFACTOR_ARGS = ()
    WORKLOAD = None
    TEST = ["make", "check"]
    TEST_KIND = "automake"
    TESTS_ALL = ()
    EXCLUDE = {}
    QUICK = None
    TOP_FALLBACK = 3
    UNIT = "MB/s"

    def __init__(self, ctx):
        self.ctx = ctx

    def _sub(self, argv, tree):
        return [a.format(tree=tree, data=_bench_data(self.ctx.work),
                         jobs=JOBS) for a in argv]

    def configure(self, tree, env):
        if self.CONFIGURE:
            run(self._sub(self.CONFIGURE, tree), cwd=tree, env=env,
                echo=False, timeout=900)

    def build(self, tree, env):
        self.configure(tree, env)
        run(["bear", "--"] + self._sub(self.BUILD, tree), cwd=tree, env=env,
            echo=False, timeout=1800)

    def prepare(self, tree, env):
        """What must exist before rcl-refactor parses the sources
        (config.h): the configure step."""
        self.configure(tree, env)

    def orig_db(self, required=True):
        """The entries of the original build's compile_commands.json
        (bear); when it has none, StepError, or [] unless @required."""
        import json
        orig = os.path.join(self.ctx.work, "orig")
        try:
            with open(os.path.join(orig, "compile_commands.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            if not required:
                return []
            raise StepError("%s: the original build wrote no "
                            "compile_commands.json (bear)" % self.name)

    def compiled_files(self):
        """The C files the original build compiled (its
        compile_commands.json), relative to the tree."""
        orig = os.path.join(self.ctx.work, "orig")
        db = self.orig_db(required=False)
        out = set()
        for e in db:
            f = os.path.normpath(os.path.join(e.get("directory", orig),
                                              e["file"]))
            if f.startswith(orig + os.sep) and f.endswith(".c"):
                out.add(os.path.relpath(f, orig))
        return sorted(out)

    def lock_files(self, tree):
        files = self.FILES if self.FILES is not None else \
            self.compiled_files()
        files = [f for f in files if os.path.exists(os.path.join(tree, f))
                 and not (self.LOCK_EXCLUDE and
                          re.match(self.LOCK_EXCLUDE, f))]
        # Also every file that hands a mutex or a condition to pthreads
        # (apr's thread_cond.c waits with &mutex->mutex and locks
        # nothing): a converted lock must be converted there too.
        return _grep_files(tree, "(?:%s)|%s" % (self.LOCK_PATTERN,
                                                PTHREAD_USE), files)

    def db_flags(self, tree):
        """-I/-D/-U of the original build's compile_commands.json entries
        for the files rcl-refactor gets, with paths moved to @tree."""
        import shlex
        orig = os.path.join(self.ctx.work, "orig")
        db = self.orig_db()
        want = set(self.lock_files(tree))
        out = []
        for e in db:
            d = e.get("directory", orig)
            f = os.path.relpath(os.path.normpath(os.path.join(d, e["file"])),
                                orig)
            if f not in want:
                continue
            argv = e.get("arguments") or shlex.split(e.get("command", ""))
            i = 0
            while i < len(argv):
                a = argv[i]
                for opt in ("-I", "-D", "-U"):
                    if a == opt and i + 1 < len(argv):
                        i += 1
                        a = opt + argv[i]
                    if a.startswith(opt) and len(a) > 2:
                        v = a[2:]
                        if opt == "-I":
                            a = os.path.normpath(os.path.join(d, v))
                            v = os.path.relpath(a, orig)
                            if v.startswith(".." + os.sep) and \
                                    not a.startswith(self.ctx.work) and \
                                    os.path.isdir(a):
                                # A system directory (rsyslog's
                                # -I/usr/include/libfastjson): as is.
                                v = a
                            elif v.startswith(".." + os.sep) or \
                                    not os.path.isdir(os.path.join(orig, v)):
                                # Outside the tree (mosquitto's lib/
                                # names ../../include) or never created:
                                # rcl-refactor refuses a missing -I.
                                break
                        if [opt, v] not in [out[j:j + 2] for j in
                                            range(0, len(out), 2)]:
                            out += [opt, v]
                i += 1
        return out

    def compdb(self, tree):
        """A directory holding the original build's compile_commands.json
        with the paths of its tree moved to @tree (rcl-refactor -p)."""
        import json
        orig = os.path.join(self.ctx.work, "orig")
        db = self.orig_db()

        def moved(text):
            return re.sub(r"%s(?=/|$|\s)" % re.escape(orig),
                          lambda m: tree, text)
        for e in db:
            for k in ("directory", "file", "command", "output"):
                if k in e:
                    e[k] = moved(e[k])
            if "arguments" in e:
                e["arguments"] = [moved(a) for a in e["arguments"]]
        out = os.path.join(self.ctx.work, "compdb-" + os.path.basename(tree))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "compile_commands.json"), "w") as f:
            json.dump(db, f, indent=1)
        return out

    def refactor_args(self, tree):
        if self.COMPDB:
            args = ["-p", self.compdb(tree)]
        else:
            args = list(self.REFACTOR_ARGS) \
                if self.REFACTOR_ARGS is not None else self.db_flags(tree)
        for pair in self.LOCK_FNS:
            args += ["--lock-fn", pair]
        if self.MACROS:
            mf = os.path.join(self.ctx.work, "%s-macros.h" % self.name)
            with open(mf, "w") as f:
                f.write(self.MACROS)
            args += ["--macro-file", mf]
        return args

    def _workload(self, tree, env, prefix=()):
        t0 = time.time()
        run(list(prefix) + self._sub(self.WORKLOAD, tree), cwd=tree,
            env=env, timeout=600, echo=bool(prefix))
        dt = time.time() - t0
        if self.UNIT == "runs/s":
            return 1.0 / dt
        return os.path.getsize(_bench_data(self.ctx.work)) / dt

    def profile(self, tree, out):
        self._workload(tree, dict(os.environ),
                       [self.ctx.tools.prof, "-o", out, "--"])

    def bench(self, tree, env):
        """One sample of the workload's rate (the harness takes the
        median of three)."""
        return self._workload(tree, env)

    def fmt(self, rate):
        what = " ".join(os.path.basename(a) for a in self.WORKLOAD)
        if self.UNIT == "runs/s":
            return "%.3f runs/s (%s)" % (rate, what)
        return "%.1f MB/s (%s)" % (rate / 1e6, what)

    def test_cmd(self, quick):
        cmd = list(self.TEST)
        names = self.QUICK if quick and self.QUICK else (
            [t for t in self.TESTS_ALL if t not in self.EXCLUDE]
            if self.EXCLUDE else None)
        if names and self.TEST_KIND == "automake":
            cmd.append("TESTS=" + " ".join(names))
        elif names and self.TEST_KIND == "tcl":
            for n in names:
                cmd += ["--single", n]
        return cmd

    def test(self, tree, env, log, quick, prefix=()):
        """(passed, detail, counts) of the own test suite."""
        cmd = list(prefix) + self.test_cmd(quick)
        rc = _run_log(cmd, tree, env, log, 1800)
        text = open(log, errors="replace").read()
        counts = _tests_result(self.TEST_KIND, text, rc)
        detail = "%s/%s passed" % (counts["passed"], counts["total"])
        if counts["failed"]:
            detail += ", failed: " + " ".join(counts["failed"])
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail, counts


_BENCH_DATA_MU = threading.Lock()


def _bench_data(work):
    """64 MB of text over a 2000-word vocabulary: compressible, but
    not trivially (deterministic: the same file every run), shared by the
    compressors' workloads."""
    data = os.path.join(os.path.dirname(work), "bench.dat")
    with _BENCH_DATA_MU:  # applications run concurrently (--jobs)
        if not os.path.exists(data):
            rnd = random.Random(1)
            vocab = [("w%d" % rnd.randrange(10 ** 6)).encode()
                     for _ in range(2000)]
            with open(data + ".tmp", "wb") as f:
                for _ in range(64):
                    f.write(b" ".join(rnd.choice(vocab)
                                      for _ in range(140000))[:1 << 20])
            os.rename(data + ".tmp", data)
    return data


class Memcached(Recipe):
    """memcached 1.6 (bookworm 1.6.18): worker threads share striped item
    locks (item_lock(hv)/item_unlock(hv) wrappers), LRU and slab locks
    (mutex_lock(x) macro); its `make test` suite (prove t/, testapp) is
    the reference the refactored server must pass."""

    name = source = "memcached"
    version = "1.6.18-1"
    build_deps = ("libevent-dev", "libsasl2-dev")
    why = ("striped item locks, LRU and slab locks under 4 worker threads; "
           "its t/ suite drives the server over sockets")
    UNIT = "ops/s"
    TEST_KIND = "prove"
    QUICK = ["t/getset.t", "t/incrdecr.t", "t/cas.t", "t/noreply.t",
             "t/flush-all.t", "t/stats.t", "t/binary.t", "t/lru.t"]
    CONNS, SECONDS = 8, 4
    TOP_FALLBACK = 3

    def __init__(self, ctx):
        self.ctx = ctx
        b = ctx.tools.builddir
        self.mcload = os.path.join(b, "apps", "harness", "mcload") if b \
            else "mcload"

    def build(self, tree, env):
        run(["./configure", "-q"], cwd=tree, env=env, echo=False)
        run(["make", JOBS, "memcached", "memcached-debug", "sizes",
             "testapp", "timedrun"], cwd=tree, env=env, echo=False,
            timeout=900)

    def prepare(self, tree, env):
        """config.h must exist before rcl-refactor parses the sources."""
        run(["./configure", "-q"], cwd=tree, env=env, echo=False)

    def lock_files(self, tree):
        """The server's sources this configuration compiles (the objects
        of the original build: no proxy, no TLS) that take a lock."""
        objs = glob.glob(os.path.join(self.ctx.work, "orig",
                                      "memcached-*.o"))
        files = sorted(os.path.basename(o)[len("memcached-"):-2] + ".c"
                       for o in objs)
        files = [f for f in files if os.path.exists(os.path.join(tree, f))]
        return _grep_files(tree, r"\b(pthread_mutex_lock|mutex_lock|"
                           r"item_lock)\s*\(", files)

    # Parsing hints for Coccinelle: the X-macro lists of memcached.h are
    # used as statements without ';' (threadlocal_stats_reset() ...), which
    # spatch only parses when told they expand to nothing.  rcl-refactor
    # itself still reads their real definitions from memcached.h.
    HINTS = """\
#define THREAD_STATS_FIELDS
#define EXTSTORE_THREAD_STATS_FIELDS
#define PROXY_THREAD_STATS_FIELDS
#define SLAB_STATS_FIELDS
"""

    def refactor_args(self, tree):
        hints = os.path.join(self.ctx.work, "memcached-hints.h")
        with open(hints, "w") as f:
            f.write(self.HINTS)
        # This build is not for Windows: the #ifndef WIN32 inside sections
        # (get_stats()) read as the compiler reads them.
        return ["-I", ".", "-D", "HAVE_CONFIG_H", "-U", "WIN32",
                "--macro-file", hints, "--lock-fn", "item_lock=item_unlock"]

    def _server(self, tree, env, port, prefix=()):
        cmd = list(prefix) + [os.path.join(tree, "memcached"), "-U", "0",
                              "-l", "127.0.0.1", "-p", str(port), "-t", "4",
                              "-A"]
        if os.geteuid() == 0:
            cmd[len(prefix) + 1:len(prefix) + 1] = ["-u", "root"]
        log = open(os.path.join(self.ctx.work, "server.log"), "a")
        p = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
        deadline = time.time() + 15
        while time.time() < deadline:
            if p.poll() is not None:
                raise StepError("memcached exited %d at start-up: %s"
                                % (p.returncode, " ".join(cmd)))
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return p
            except OSError:
                time.sleep(0.1)
        p.kill()
        raise StepError("memcached did not listen on 127.0.0.1:%d" % port)

    def _stop(self, p, port):
        try:
            with socket.create_connection(("127.0.0.1", port), 2) as s:
                s.sendall(b"shutdown\r\n")
        except OSError:
            pass
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise StepError("memcached did not stop on 'shutdown'")

    def _load(self, port):
        p = run([self.mcload, "-p", str(port), "-c", str(self.CONNS),
                 "-d", str(self.SECONDS), "-n", "2000000"], timeout=60)
        m = re.search(r"^throughput: ([0-9.]+) ops/s", p.stdout, re.M)
        return float(m.group(1))

    def profile(self, tree, out):
        port = _free_port()
        p = self._server(tree, dict(os.environ), port,
                         [self.ctx.tools.prof, "-o", out, "--"])
        try:
            self._load(port)
        finally:
            self._stop(p, port)
        with open(os.path.join(self.ctx.work, "server.log")) as f:
            print(f.read()[-4000:])
        if p.returncode != 0 or not os.path.exists(out):
            raise StepError("rcl-prof -- memcached exited %d, profile %s"
                            % (p.returncode, "written" if
                               os.path.exists(out) else "missing"))

    def test(self, tree, env, log, quick, prefix=()):
        if quick:
            cmd = ["sh", "-c", "./sizes && ./testapp && prove " +
                   " ".join(self.QUICK)]
        elif self.EXCLUDE:
            keep = [t for t in sorted(glob.glob(os.path.join(tree, "t",
                                                             "*.t")))
                    if os.path.relpath(t, tree) not in self.EXCLUDE]
            cmd = ["sh", "-c", "./sizes && ./testapp && prove " +
                   " ".join(os.path.relpath(t, tree) for t in keep)]
        else:
            cmd = ["make", "test"]
        rc = _run_log(list(prefix) + cmd, tree, env, log, 1500)
        text = open(log, errors="replace").read()
        m = re.findall(r"^(Files=\d+, Tests=\d+.*)$", text, re.M)
        res = re.findall(r"^Result: (\S+)", text, re.M)
        detail = "%s%s" % (m[-1].split(",  ")[0] if m else "",
                           ", prove: " + res[-1] if res else "")
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail, _tests_result("prove", text, rc)

    def bench(self, tree, env):
        port = _free_port()
        p = self._server(tree, env, port)
        try:
            return self._load(port)
        finally:
            self._stop(p, port)

    @staticmethod
    def fmt(rate):
        return "%.0f ops/s (mcload, %d conns)" % (rate, Memcached.CONNS)


class Zstd(Recipe):
    """zstd 1.5 (bookworm 1.5.4): multithreaded compression (-T) shares a
    job-queue mutex and condition variables (lib/common/pool.c) and buffer
    and context pools (lib/compress/zstdmt_compress.c) behind
    ZSTD_pthread_mutex_lock() macros.  Tests: poolTests (the thread pool)
    and playTests.sh (`make check`: the CLI, many -T runs)."""

    name = "zstd"
    source = "libzstd"
    version = "1.5.4+dfsg2-5"
    why = ("job-queue mutex and buffer/context pools of zstd -T; "
           "poolTests and playTests.sh run many -T jobs")
    TEST_KIND = "exit"
    FILES = ["lib/common/pool.c", "lib/compress/zstdmt_compress.c"]
    TOP_FALLBACK = 3

    def __init__(self, ctx):
        self.ctx = ctx

    def build(self, tree, env):
        env["CFLAGS"] = "-O3 -g"  # debug info: rcl-prof names sites file:line
        if "LIBS" in env:
            # The refactored build: zstd's makefiles link with LINK.c,
            # which has no LDLIBS and puts LDFLAGS before the sources, so
            # librcl must be kept even though nothing needs it yet.
            env["LDFLAGS"] = env["LDFLAGS"] + " -Wl,--no-as-needed " + \
                env["LIBS"]
        run(["make", JOBS, "-C", "programs", "zstd"], cwd=tree, env=env,
            echo=False, timeout=900)
        self.envs = getattr(self, "envs", {})
        self.envs[tree] = env

    def prepare(self, tree, env):
        pass

    def lock_files(self, tree):
        return _grep_files(tree, r"ZSTD_pthread_mutex_lock\s*\(", self.FILES)

    # lib/common/threading.h defines its lock macros in #if branches (Windows,
    # POSIX, debug); tell rcl-refactor which ones this build uses.
    MACROS = """\
#define ZSTD_pthread_mutex_t pthread_mutex_t
#define ZSTD_pthread_mutex_init(a, b) pthread_mutex_init((a), (b))
#define ZSTD_pthread_mutex_destroy(a) pthread_mutex_destroy((a))
#define ZSTD_pthread_mutex_lock(a) pthread_mutex_lock((a))
#define ZSTD_pthread_mutex_unlock(a) pthread_mutex_unlock((a))
#define ZSTD_PTHREAD_MUTEX_LOCK(m) pthread_mutex_lock((m))
#define ZSTD_pthread_cond_t pthread_cond_t
#define ZSTD_pthread_cond_init(a, b) pthread_cond_init((a), (b))
#define ZSTD_pthread_cond_destroy(a) pthread_cond_destroy((a))
#define ZSTD_pthread_cond_wait(a, b) pthread_cond_wait((a), (b))
#define ZSTD_pthread_cond_signal(a) pthread_cond_signal((a))
#define ZSTD_pthread_cond_broadcast(a) pthread_cond_broadcast((a))
"""

    def refactor_args(self, tree):
        mf = os.path.join(self.ctx.work, "zstd-lock-macros.h")
        with open(mf, "w") as f:
            f.write(self.MACROS)
        return ["-I", "lib/common", "-I", "lib", "-D", "ZSTD_MULTITHREAD",
                "--macro-file", mf]

    def _data(self):
        return _bench_data(self.ctx.work)

    def _compress(self, tree, env, prefix=()):
        out = os.path.join(self.ctx.work, "bench.zst")
        cmd = list(prefix) + [os.path.join(tree, "programs", "zstd"), "-3",
                              "-T4", "-B64KiB", "-f", "-q", self._data(),
                              "-o", out]
        t0 = time.time()
        run(cmd, env=env, timeout=300, echo=bool(prefix))
        dt = time.time() - t0
        run([os.path.join(tree, "programs", "zstd"), "-t", "-q", out],
            env=env, echo=False)
        return os.path.getsize(self._data()) / dt

    def profile(self, tree, out):
        self._compress(tree, dict(os.environ),
                       [self.ctx.tools.prof, "-o", out, "--"])

    def test(self, tree, env, log, quick, prefix=()):
        # The tests link with the flags the tree was built with (the
        # original's tests under rcl-run must not get librcl's).
        env = dict(env, **{k: v for k, v in self.envs[tree].items()
                           if k in ("CPPFLAGS", "LDFLAGS", "LDLIBS")})
        targets = ["test-pool"] if quick else ["test-pool", "shortest"]
        rc = _run_log(list(prefix) + ["make", "-C", "tests"] + targets,
                      tree, env, log, 1200)
        detail = "make -C tests %s" % " ".join(targets)
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail, {"passed": len(targets) if rc == 0 else 0,
                                 "total": len(targets), "failed": []}

    def bench(self, tree, env):
        return self._compress(tree, env)

    @staticmethod
    def fmt(rate):
        return "%.1f MB/s (zstd -3 -T4 -B64KiB)" % (rate / 1e6)


class Blosc(Recipe):
    """c-blosc 1.21 (bookworm 1.21.3): a multithreaded block compressor.
    Its worker threads claim blocks and count finished ones under a
    per-context count_mutex (blosc/blosc.c), synchronise through a
    mutex+condition barrier, and the legacy blosc_compress() API is
    serialised by one global mutex.  Tests: its ctest suite (1651 round
    trips over every codec, shuffle and thread count, ~3 min)."""

    name = "blosc"
    source = "c-blosc"
    version = "1.21.3+ds-1"
    build_deps = ("cmake", "liblz4-dev", "libzstd-dev", "zlib1g-dev",
                  "libsnappy-dev")
    why = ("per-context count mutex and barrier of its worker threads, one "
           "global API mutex; ctest round-trips every thread count")
    TEST_KIND = "ctest"
    TOP_FALLBACK = 3
    QUICK = ("test_api|test_nthreads|test_noinit|test_nolock|test_getitem|"
             "test_maxout|test_forksafe|test_blosclz_shuffle")

    def __init__(self, ctx):
        self.ctx = ctx

    def build(self, tree, env):
        bdir = os.path.join(tree, "_build")
        os.makedirs(bdir, exist_ok=True)
        cflags = "-g -O2 " + env.get("CPPFLAGS", "") + " " + \
            env.get("CFLAGS", "")
        ld = env.get("LDFLAGS", "")
        # Debian builds against the system lz4, zstd and zlib (debian/rules).
        # librcl goes last on every link line (libblosc.so needs it).
        run(["cmake", "..", "-DCMAKE_BUILD_TYPE=None",
             "-DCMAKE_C_FLAGS=" + cflags,
             "-DCMAKE_SHARED_LINKER_FLAGS=" + ld,
             "-DCMAKE_EXE_LINKER_FLAGS=" + ld,
             "-DCMAKE_C_STANDARD_LIBRARIES=" + env.get("LIBS", ""),
             "-DPREFER_EXTERNAL_LZ4=ON", "-DPREFER_EXTERNAL_ZSTD=ON",
             "-DPREFER_EXTERNAL_ZLIB=ON", "-DDEACTIVATE_SNAPPY=OFF",
             "-DBUILD_FUZZERS=OFF"], cwd=bdir, env=env, echo=False)
        run(["make", JOBS], cwd=bdir, env=env, echo=False, timeout=900)

    def prepare(self, tree, env):
        pass

    def lock_files(self, tree):
        return ["blosc/blosc.c"]

    def refactor_args(self, tree):
        # blosc.c defines _POSIX_BARRIERS_MINE when <unistd.h>'s
        # _POSIX_BARRIERS says so, as glibc's does: WAIT_INIT() and
        # WAIT_FINISH() are then pthread_barrier_wait(), not their
        # mutex-and-condition #else, which the tool reads when it cannot
        # decide the #ifdef (docs/REFACTOR.md, section 6).
        return ["-I", "blosc", "-D", "_POSIX_BARRIERS_MINE"]

    def _bench(self, tree, env, prefix=()):
        p = run(list(prefix) + [os.path.join(tree, "_build", "bench",
                                             "bench"),
                                "blosclz", "shuffle", "single", "4"],
                env=env, timeout=300, echo=bool(prefix))
        m = re.search(r"Elapsed time:\s+[0-9.]+ s, ([0-9.]+) MB/s", p.stdout)
        if not m:
            raise StepError("blosc bench printed no throughput")
        return float(m.group(1)) * 1e6

    def profile(self, tree, out):
        self._bench(tree, dict(os.environ),
                    [self.ctx.tools.prof, "-o", out, "--"])

    def test(self, tree, env, log, quick, prefix=()):
        cmd = ["ctest", JOBS, "--output-on-failure"]
        if quick:
            cmd += ["-R", self.QUICK]
        if self.EXCLUDE:
            cmd += ["-E", "^(%s)$" % "|".join(sorted(self.EXCLUDE))]
        rc = _run_log(list(prefix) + cmd, os.path.join(tree, "_build"), env,
                      log, 1500)
        text = open(log, errors="replace").read()
        m = re.findall(r"^(\d+% tests passed.*)$", text, re.M)
        detail = m[-1] if m else ""
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail, _tests_result("ctest", text, rc)

    def bench(self, tree, env):
        return self._bench(tree, env)

    @staticmethod
    def fmt(rate):
        return "%.0f MB/s (bench blosclz shuffle single 4)" % (rate / 1e6)


class XzUtils(Recipe):
    """xz-utils 5.4 (bookworm 5.4.1): liblzma's multithreaded encoder and
    decoder share one coder mutex and condition between the caller and
    its worker threads (src/liblzma/common/stream_{en,de}coder_mt.c,
    mythread_mutex_lock() wrappers and the mythread_sync() block macro),
    taken per block and per output buffer.  Its `make check` suite
    round-trips files through liblzma and xz, mostly single-threaded: the
    workload (xz -T4 both ways) is what exercises the threads."""

    name = "xz"
    source = "xz-utils"
    version = "5.4.1-1+deb12u1"
    why = ("coder mutex + condition of liblzma's threaded encoder and "
           "decoder, per block; tests mostly single-threaded")
    CONFIGURE = ["./configure", "-q", "--disable-doc", "--disable-nls"]
    COMPDB = True  # 99 units, 2 of them locking (about 20 s)
    LOCK_PATTERN = r"\bmythread_(mutex_lock|sync)\s*\("
    # The static inline wrappers of src/common/mythread.h (rcl-refactor
    # does not see through them by itself: their bodies are in #if
    # branches); mythread_sync() is a scoped lock macro (two for
    # headers), read as a section of the mutex it is given.
    LOCK_FNS = ("mythread_mutex_lock=mythread_mutex_unlock",)
    WORKLOAD = ["sh", "-c", "src/xz/xz -T4 --block-size=1MiB -1 -c {data} "
                "| src/xz/xz -T4 -d -c >/dev/null"]
    TEST = ["make", "check"]
    TEST_KIND = "automake"

    def fmt(self, rate):
        return "%.1f MB/s (xz -T4 -1 | xz -T4 -d, 1 MiB blocks)" % (
            rate / 1e6)


class Apr(Recipe):
    """APR 1.7 (bookworm 1.7.2): the Apache portable runtime's mutexes
    and condition variables (locks/unix/thread_mutex.c, proc_mutex.c) wrap
    pthread_mutex_lock; its own sections are the wrappers' bookkeeping
    (timed locks emulated with a mutex + condition).  testall's testlock,
    testcond, testthread and testatomic modules run threads through them;
    the workload is its testlockperf (6 threads counting under each lock
    kind)."""

    name = "apr"
    source = "apr"
    version = "1.7.2-3+deb12u1"
    build_deps = ("uuid-dev",)
    why = ("mutex/condition wrappers of the Apache runtime; testall's "
           "testlock, testcond, testthread run threads through them")
    CONFIGURE = ["./configure", "-q"]
    BUILD = ["sh", "-c", "make {jobs} && make -C test {jobs} testall "
             "testlockperf"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    WORKLOAD = ["test/testlockperf"]
    UNIT = "runs/s"
    TEST = ["make", "check"]
    TEST_KIND = "abts"


class Microhttpd(Recipe):
    """GNU libmicrohttpd 0.9 (bookworm 0.9.75): an embeddable HTTP
    server.  Its daemon's connection lists, per-IP connection counts and
    response reference counts are guarded by mutexes taken through the
    MHD_mutex_lock_chk_() macros (src/microhttpd/mhd_locks.h: lock or
    panic), from every connection thread and the internal polling
    threads.  Its `make check` suite starts and stops daemons in every
    threading mode and drives them over loopback sockets
    (test_upgrade*, test_client_put_*, test_shutdown_*); the workload is
    test_upgrade (upgraded connections in each threading mode).  Built
    without HTTPS and without libcurl (not installed): the testcurl
    suites skip."""

    name = "microhttpd"
    source = "libmicrohttpd"
    version = "0.9.75-6"
    build_deps = ()
    why = ("daemon connection lists, per-IP counts, response refcounts "
           "from connection and polling threads; tests drive daemons in "
           "every threading mode over loopback")
    CONFIGURE = ["./configure", "-q", "--disable-doc", "--disable-examples",
                 "--disable-https"]
    BUILD = ["sh", "-c", "make {jobs} && make -C src/microhttpd {jobs} "
             "test_upgrade"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    LOCK_PATTERN = r"\bMHD_mutex_lock_chk_\s*\("
    # mhd_locks.h defines these in #if branches (POSIX, W32, no threads);
    # this build's are the POSIX ones, minus the panic on failure.
    MACROS = """\
#define MHD_mutex_init_(m) (!(pthread_mutex_init((m), NULL)))
#define MHD_mutex_destroy_chk_(m) pthread_mutex_destroy((m))
#define MHD_mutex_lock_chk_(m) pthread_mutex_lock((m))
#define MHD_mutex_unlock_chk_(m) pthread_mutex_unlock((m))
"""
    WORKLOAD = ["src/microhttpd/test_upgrade"]
    UNIT = "runs/s"
    TEST = ["make", "check"]
    TEST_KIND = "automake"


class Mosquitto(Recipe):
    """Eclipse Mosquitto 2.0 (bookworm 2.0.11): libmosquitto, the MQTT
    client library.  A client started with mosquitto_loop_start() has a
    network thread beside the caller's: both take the client's
    out_packet, current_out_packet, msgs_out/msgs_in, mid, state and
    callback mutexes (lib/packet_mosq.c, messages_mosq.c, actions.c,
    callbacks.c), plain pthread_mutex_lock() calls.  Tests: test/lib's C
    clients against its Python fake brokers (every QoS flow, will,
    keepalive, retry); the workload is mosquitto_pub -l (a publishing
    thread and the network thread) sending QoS 1 lines to the broker of
    the unmodified build on 127.0.0.1.  Only the library and the clients
    are refactored and rebuilt: the broker compiles some lib/ files again
    with WITH_BROKER, where the mutex calls expand to nothing."""

    name = "mosquitto"
    source = "mosquitto"
    version = "2.0.11-1.2+deb12u2"
    build_deps = ()
    why = ("client mutexes (out_packet, msgs_out/in, mid, callback) shared "
           "by the caller and the mosquitto_loop_start() thread; test/lib "
           "runs every QoS flow against fake brokers")
    # No TLS, cJSON, websockets, docs (not installed or not needed).
    MAKEVARS = ["WITH_TLS=no", "WITH_TLS_PSK=no", "WITH_CJSON=no",
                "WITH_DOCS=no", "WITH_SRV=no", "WITH_WEBSOCKETS=no",
                "WITH_SYSTEMD=no", "WITH_STATIC_LIBRARIES=no"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    # lib/mosquitto.c initialises every client mutex (and rcl-prof names
    # them by those lines) but locks none: it must be refactored too.
    LOCK_PATTERN = r"\bpthread_mutex_(lock|init)\s*\("
    TEST_KIND = "exit"
    UNIT = "msgs/s"
    LINES = 100000

    def build(self, tree, env):
        env = dict(env)
        if "LIBS" in env:
            # config.mk links with LDFLAGS before the objects and no LIBS:
            # keep librcl although the link line names it first.
            env["LDFLAGS"] = env["LDFLAGS"] + " -Wl,--no-as-needed " + \
                env["LIBS"]
        mk = ["make", JOBS] + self.MAKEVARS
        run(["bear", "--"] + mk + ["-C", "lib", "libmosquitto.so.1"],
            cwd=tree, env=env, echo=False, timeout=900)
        run(["bear", "--append", "--"] + mk + ["-C", "client",
                                               "mosquitto_pub",
                                               "mosquitto_sub"],
            cwd=tree, env=env, echo=False, timeout=900)
        if "LIBS" not in env:
            # The broker the workload publishes to: the unmodified one,
            # outside compile_commands.json (see the class comment).
            run(mk + ["-C", "src", "mosquitto"], cwd=tree, env=env,
                echo=False, timeout=900)
        self.envs = getattr(self, "envs", {})
        self.envs[tree] = env

    def prepare(self, tree, env):
        pass

    def refactor_args(self, tree):
        # The build's -I/-D, and what it leaves undefined: the lib/ files
        # hold #ifdef WITH_BROKER (the broker's build of the same file),
        # WITH_TLS, WIN32 branches inside sections.
        args = Recipe.refactor_args(self, tree)
        for m in ("WITH_BROKER", "WITH_TLS", "WITH_WEBSOCKETS", "WITH_SRV",
                  "WITH_ADNS", "WIN32"):
            args += ["-U", m]
        return args

    def _test_names(self, tree):
        """The C clients test/lib's `c` target runs, in its order."""
        with open(os.path.join(tree, "test", "lib", "Makefile")) as f:
            mk = f.read()
        body = re.search(r"^c : .*?\n((?:\t.*\n|#.*\n)*)", mk, re.M)
        return re.findall(r"^\t(\./\S+\.py) \$@/(\S+\.test)",
                          body.group(1), re.M) if body else []

    def test(self, tree, env, log, quick, prefix=()):
        """test/lib's C clients (its `make -C test/lib c`, whose cpp half
        needs the C++ binding, not built), one by one so that a failure
        is named and the others still run."""
        # The test clients link with the flags the tree was built with.
        env = dict(env, **{k: v for k, v in self.envs[tree].items()
                           if k in ("CPPFLAGS", "LDFLAGS")})
        lib = os.path.join(tree, "lib")
        if not os.path.exists(os.path.join(lib, "libmosquitto.so")):
            os.symlink("libmosquitto.so.1", os.path.join(lib,
                                                         "libmosquitto.so"))
        env["LIBRARY_PATH"] = env["LD_LIBRARY_PATH"] = lib
        tl = os.path.join(tree, "test", "lib")
        rc = _run_log(["make", "-C", "c"], tl, env, log, 600)
        if rc != 0:
            return False, "make -C test/lib/c exited %d, tail:\n%s" % (
                rc, _tail(log)), {"passed": 0, "total": 1, "failed": []}
        return _run_each(((t, "%s c/%s" % (py, t),
                           list(prefix) + [py, "c/" + t], tl)
                          for py, t in self._test_names(tree)
                          if t not in self.EXCLUDE),
                         log, env, 120, "test/lib C clients: ", mode="a")

    def _lines(self):
        path = os.path.join(self.ctx.work, "lines.txt")
        if not os.path.exists(path):
            with open(path + ".tmp", "w") as f:
                for i in range(self.LINES):
                    f.write("line %07d %s\n" % (i, "x" * 80))
            os.rename(path + ".tmp", path)
        return path

    def _publish(self, tree, env, prefix=()):
        broker = os.path.join(self.ctx.work, "orig", "src", "mosquitto")
        port = _free_port()
        conf = os.path.join(self.ctx.work, "broker.conf")
        with open(conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\n" % port)
        blog = open(os.path.join(self.ctx.work, "broker.log"), "a")
        b = subprocess.Popen([broker, "-c", conf], stdout=blog, stderr=blog)
        try:
            deadline = time.time() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    break
                except OSError:
                    if time.time() > deadline or b.poll() is not None:
                        raise StepError("the mosquitto broker did not "
                                        "start on port %d" % port)
                    time.sleep(0.1)
            env = dict(env, LD_LIBRARY_PATH=os.path.join(tree, "lib"))
            cmd = list(prefix) + [os.path.join(tree, "client",
                                               "mosquitto_pub"),
                                  "-h", "127.0.0.1", "-p", str(port),
                                  "-q", "1", "-t", "bench", "-l"]
            t0 = time.time()
            with open(self._lines()) as stdin:
                run(cmd, env=env, timeout=300, echo=bool(prefix),
                    stdin=stdin)
            return self.LINES / (time.time() - t0)
        finally:
            _terminate(b, 10)
            blog.close()

    def profile(self, tree, out):
        self._publish(tree, dict(os.environ),
                      [self.ctx.tools.prof, "-o", out, "--"])

    def bench(self, tree, env):
        return self._publish(tree, env)

    def fmt(self, rate):
        return "%.0f msgs/s (mosquitto_pub -l -q 1, %d lines)" % (
            rate, self.LINES)


class Libuv(Recipe):
    """libuv 1.44 (bookworm 1.44.2): the event loop behind Node.js.  Its
    thread pool (src/threadpool.c) hands work to 4 worker threads through
    one global queue mutex + condition, and each loop's wq_mutex guards
    the completed-work queue the workers fill and the loop thread
    drains; the loop metrics lock (src/uv-common.c) is taken by every
    loop iteration.  Locks go through libuv's own wrappers
    (uv_mutex_lock(uv_mutex_t *), src/unix/thread.c: abort() on error),
    given to rcl-refactor as macros; src/unix/thread.c, which defines
    them, is not refactored.  Tests: uv_run_tests, one process per test
    (the quick subset: the thread, thread-pool, barrier, condvar,
    semaphore, async and signal tests); the workload is its queue_work
    benchmark (a million empty work items through the pool)."""

    name = "libuv"
    source = "libuv1"
    version = "1.44.2-1+deb12u1"
    build_deps = ("cmake",)
    why = ("thread-pool queue mutex + condition and per-loop wq_mutex "
           "between the loop and 4 workers; uv_run_tests' thread, "
           "thread-pool, barrier, condvar and async tests")
    LOCK_PATTERN = r"\b(uv_mutex_(lock|init)|pthread_mutex_lock)\s*\("
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    # uv.h's types and src/unix/thread.c's wrappers, as this build (POSIX)
    # defines them, minus the abort() on failure.
    MACROS = """\
#define uv_mutex_t pthread_mutex_t
#define uv_cond_t pthread_cond_t
#define uv_mutex_init(m) pthread_mutex_init((m), NULL)
#define uv_mutex_destroy(m) pthread_mutex_destroy((m))
#define uv_mutex_lock(m) pthread_mutex_lock((m))
#define uv_mutex_unlock(m) pthread_mutex_unlock((m))
#define uv_cond_wait(c, m) pthread_cond_wait((c), (m))
#define uv_cond_signal(c) pthread_cond_signal((c))
#define uv_cond_broadcast(c) pthread_cond_broadcast((c))
"""
    QUICK = ["thread_create", "thread_mutex", "thread_mutex_recursive",
             "thread_rwlock", "thread_local_storage", "barrier_1",
             "barrier_2", "barrier_3", "barrier_serial_thread",
             "condvar_1", "condvar_2", "condvar_3", "condvar_4",
             "condvar_5", "semaphore_1", "semaphore_2", "semaphore_3",
             "async", "async_null_cb", "threadpool_queue_work_simple",
             "threadpool_queue_work_einval", "threadpool_cancel_work",
             "threadpool_cancel_fs", "threadpool_cancel_random",
             "threadpool_cancel_single", "fs_file_async", "fs_async_dir",
             "fs_async_sendfile", "random_async", "queue_foreach_delete",
             "metrics_idle_time_thread", "we_get_signal",
             "we_get_signals", "signal_multiple_loops",
             "fork_threadpool_queue_work_simple"]
    EXCLUDE = {"queue_foreach_delete": "fails unmodified here: it sets "
               "the times of its directory (uv_fs_utime on the source "
               "tree, test-queue-foreach-delete.c:158), which only the "
               "owner may do, and the runner refuses root: the tests run "
               "as nobody in root's tree",
               "tcp_connect_timeout": "fails unmodified here: it connects "
               "to 8.8.8.8:9999 and expects to cancel a pending connect, "
               "and this machine's network refuses the address at once "
               "(test-tcp-connect-timeout.c:42)",
               "tcp_close_while_connecting": "fails unmodified here: its "
               "connect to 1.2.3.4 fails at once with a status the test "
               "does not expect (test-tcp-close-while-connecting.c:45)"}
    WORKLOAD = ["_build/uv_run_benchmarks_a", "queue_work"]
    UNIT = "runs/s"

    def build(self, tree, env):
        bdir = os.path.join(tree, "_build")
        os.makedirs(bdir, exist_ok=True)
        cflags = "-g -O2 " + env.get("CPPFLAGS", "") + " " + \
            env.get("CFLAGS", "")
        ld = env.get("LDFLAGS", "")
        run(["cmake", "..", "-DCMAKE_BUILD_TYPE=None",
             "-DCMAKE_C_FLAGS=" + cflags,
             "-DCMAKE_SHARED_LINKER_FLAGS=" + ld,
             "-DCMAKE_EXE_LINKER_FLAGS=" + ld,
             "-DCMAKE_C_STANDARD_LIBRARIES=" + env.get("LIBS", ""),
             "-DLIBUV_BUILD_TESTS=ON", "-DLIBUV_BUILD_BENCH=ON"],
            cwd=bdir, env=env, echo=False)
        run(["bear", "--output", os.path.join(tree, "compile_commands.json"),
             "--", "make", JOBS, "uv", "uv_run_tests",
             "uv_run_benchmarks_a"], cwd=bdir, env=env, echo=False,
            timeout=1200)

    def prepare(self, tree, env):
        pass

    def lock_files(self, tree):
        # The library only (the tests lock too, built with other -D);
        # thread.c defines the wrappers the macros replace.
        return [f for f in Recipe.lock_files(self, tree)
                if f.startswith("src/") and f != "src/unix/thread.c"]

    def test(self, tree, env, log, quick, prefix=()):
        """uv_run_tests: the whole list in one run, or the quick subset
        one test per process (uv_run_tests NAME), in the source tree (its
        fixtures are test/fixtures)."""
        # The spawn tests read back, byte for byte, what a child wrote to
        # a stderr redirected to a file: librcl's one-time warning (the
        # tests run as nobody, so RCL runs degraded and says so) would
        # be read too (spawn_stdout_and_stderr_to_file2: r == 27).
        env = dict(env, UV_TEST_TIMEOUT_MULTIPLIER="2",
                   RES_OPTIONS="attempts:0", LIBLOCK_LOG="error")
        runner = os.path.join(tree, "_build", "uv_run_tests")
        if os.geteuid() == 0:
            # The runner refuses to run as root: as nobody (as
            # tests/preload/real_libuv.sh does), in a tree it may write.
            run(["chmod", "-R", "a+rwX", tree], echo=False)
            prefix = ["setpriv", "--reuid=65534", "--regid=65534",
                      "--clear-groups"] + list(prefix)
        if not quick:
            rc = _run_log(list(prefix) + [runner], tree, env, log, 1800)
            text = open(log, errors="replace").read()
            oks = re.findall(r"^ok \d+ - (\S+)", text, re.M)
            bad = re.findall(r"^not ok \d+ - (\S+)", text, re.M)
            bad = [b for b in bad if b not in self.EXCLUDE]
            n = len(oks) + len(bad)
            return rc == 0 or (bad == [] and n > 0), \
                "%d/%d passed" % (len(oks), n), \
                {"passed": len(oks), "total": n, "failed": bad}
        return _run_each(((t, "uv_run_tests " + t,
                           list(prefix) + [runner, t], tree)
                          for t in self.QUICK if t not in self.EXCLUDE),
                         log, env, 120, "")

    def fmt(self, rate):
        return "%.3f runs/s (uv_run_benchmarks_a queue_work)" % rate


class Fio(Recipe):
    """fio 3.33 (bookworm 3.33-3): the flexible I/O tester.  With
    --thread its jobs are threads of one process.  A job with
    verify_async hands every written block to verify threads through its
    io_u_lock + condition (verify.c, backend.c); io_submit_mode=offload
    goes through a work queue's per-worker and flush locks (workqueue.c,
    rate-submit.c); serialize_overlap takes one global mutex per I/O
    (backend.c overlap_check); job semaphores (fio_sem.c) and the idle
    profiler (idletime.c) are mutex + condition pairs.  Most of its
    mutexes are process-shared (pshared.c: jobs may be processes) and
    must stay POSIX.  Tests: `make test` (a threaded null-engine run and
    a verify run) and run-fio-tests.py's job tests that need neither a
    device, libaio, more than 2 CPUs nor minutes; the workload writes
    256 MB with crc32c verified by 2 verify_async threads."""

    name = "fio"
    source = "fio"
    version = "3.33-3"
    build_deps = ("zlib1g-dev",)
    why = ("io_u_lock between a job and its verify_async threads, work-"
           "queue locks of offload mode, overlap_check, job semaphores; "
           "make test and run-fio-tests.py's job tests")
    CONFIGURE = ["./configure", "--disable-native"]
    BUILD = ["make", JOBS, "fio"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    WORKLOAD = ["./fio", "--minimal", "--thread", "--name=verify",
                "--filename={tree}/fio-bench.tmp", "--unlink=1",
                "--rw=write", "--bs=4k", "--size=256m", "--verify=crc32c",
                "--verify_async=2", "--iodepth=1"]
    UNIT = "runs/s"
    # run-fio-tests.py's job tests (t/jobs/t00NN) run; the others need
    # libaio/io_uring/posixaio or run 10 s and more (t0011, t0012, t0014).
    JOB_TESTS = [1, 5, 7, 8, 16, 19, 20, 21, 22, 23, 24, 25, 26]
    EXCLUDE = {
        "t0002": "needs the libaio engine (not built: no libaio-dev)",
        "t0003": "needs the libaio engine (not built: no libaio-dev)",
        "t0004": "needs the libaio engine (not built: no libaio-dev)",
        "t0006": "needs the libaio engine (not built: no libaio-dev)",
        "t0009": "asks for CPUs 0-3 (cpus_allowed): this machine has 2",
        "t0010": "io_submit_mode=offload with the null engine never "
                 "finishes here, unmodified (stopped after 10 min)",
        "t0013": "io_submit_mode=offload (see t0010)"}
    TEST_KIND = "exit"

    def refactor_args(self, tree):
        # The build compiles every file with -include config-host.h
        # (what configure found; its compile_commands.json entries say
        # -include, which rcl-refactor does not take): its #defines as -D.
        args = Recipe.refactor_args(self, tree)
        with open(os.path.join(tree, "config-host.h")) as f:
            for name, val in re.findall(r"^#define (\w+)(?: (.*))?$",
                                        f.read(), re.M):
                args += ["-D", name + ("=" + val if val else "")]
        return args

    def test(self, tree, env, log, quick, prefix=()):
        # run-fio-tests.py fails a job whose stderr is not empty: librcl's
        # one-time warnings (rcl-run leaves fio's process-shared mutexes
        # to glibc, and says so) must not count as a failure.
        env = dict(env, LIBLOCK_LOG="error")
        rc = _run_log(list(prefix) + ["make", "test"], tree, env, log, 300)
        failed = [] if rc == 0 else ["make-test"]
        art = os.path.join(self.ctx.work, "fio-artifacts")
        shutil.rmtree(art, ignore_errors=True)
        log2 = log + ".run-fio-tests"
        rc2 = _run_log(list(prefix) + [
            "python3", "t/run-fio-tests.py", "-k", "-r", tree, "-f",
            os.path.join(tree, "fio"), "-a", art, "-o"] +
            [str(n) for n in self.JOB_TESTS if "t%04d" % n not in
             self.EXCLUDE], tree, env, log2, 900)
        text = open(log2, errors="replace").read()
        failed += ["t%04d" % int(n) for n in
                   re.findall(r"^Test (\d+) FAILED", text, re.M)]
        ran = re.findall(r"^Test (\d+) (?:PASSED|FAILED)", text, re.M)
        with open(log, "a") as f:
            f.write(text)
        n = 1 + len(ran)
        ok = rc == 0 and rc2 == 0 and not failed
        detail = "make test + run-fio-tests.py: %d/%d passed" % (
            n - len(failed), n)
        if failed:
            detail += ", failed: " + " ".join(failed)
        if not ok:
            detail += "; tail:\n%s" % _tail(log)
        return ok, detail, {"passed": n - len(failed), "total": n,
                            "failed": failed}

    def fmt(self, rate):
        return "%.3f runs/s (fio --thread, 256 MB crc32c, verify_async=2)" % (
            rate)


class Libevent(Recipe):
    """libevent 2.1 (bookworm 2.1.12): the event library behind
    memcached and tor.  With evthread_use_pthreads() every event_base has
    a th_base_lock taken by event_add/del/active from any thread and by
    the loop around each callback, every evbuffer and bufferevent its own
    lock (EVBUFFER_LOCK, BEV_LOCK), and deferred callbacks cross threads
    through the base's queue; the locks are created and taken through a
    table of function pointers (evthread_lock_fns_, evthread_pthread.c:
    recursive pthread mutexes) on `void *` lock fields.  Tests: test/regress
    (tinytest, one forked process per test); the quick subset is its
    thread/ group (100 threads adding, activating and deleting events on
    one base, condition variables, deferred-callback fairness, fork with
    threads) with the main/, evbuffer/ and bufferevent/ groups, whose
    evbuffers and bufferevents are made with locks when threads are on
    (BEV_OPT_THREADSAFE); the workload is thread/basic and
    thread/conditions_simple."""

    name = "libevent"
    source = "libevent"
    version = "2.1.12-stable-8"
    build_deps = ()
    why = ("event_base th_base_lock, evbuffer and bufferevent locks "
           "(recursive, through a function table on void * fields) from "
           "100 threads; regress' thread/, main/, evbuffer/, bufferevent/")
    # Debian's patches touch configure.ac and Makefile.am: regenerate
    # (make would otherwise ask for the upstream automake).  No OpenSSL.
    CONFIGURE = ["sh", "-c", "autoreconf -fi >/dev/null 2>&1 && "
                 "./configure -q --disable-openssl --disable-samples"]
    BUILD = ["sh", "-c", "make {jobs} && make {jobs} test/regress"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    LOCK_PATTERN = r"\b(EVBASE_ACQUIRE_LOCK|EVLOCK_LOCK|EVBUFFER_LOCK|" \
        r"BEV_LOCK)\s*\("
    # evthread-internal.h's lock macros as this build (threads, no lock
    # debugging) uses them, written as the pthread calls they end in
    # (evthread_pthread.c); the lock fields stay `void *`.
    MACROS = """\
#define EVLOCK_LOCK(lockvar, mode) pthread_mutex_lock((lockvar))
#define EVLOCK_UNLOCK(lockvar, mode) pthread_mutex_unlock((lockvar))
#define EVBASE_ACQUIRE_LOCK(base, lockvar) pthread_mutex_lock((base)->lockvar)
#define EVBASE_RELEASE_LOCK(base, lockvar) pthread_mutex_unlock((base)->lockvar)
"""
    QUICK = ["thread/..", "main/..", "evbuffer/..", "bufferevent/.."]
    EXCLUDE = {
        "dns/getaddrinfo_cancel_stress":
            "fails unmodified here, alone too: every one of its 1000 "
            "cancelled getaddrinfo requests ends freed "
            "(regress_dns.c:2105), with this machine's resolver and no "
            "network"}
    WORKLOAD = ["test/regress", "thread/basic", "thread/conditions_simple"]
    UNIT = "runs/s"
    TEST_KIND = "exit"

    def lock_files(self, tree):
        # The library, not its tests (test/regress_thread.c locks too).
        return [f for f in Recipe.lock_files(self, tree)
                if not f.startswith(("test/", "sample/"))]

    def test(self, tree, env, log, quick, prefix=()):
        """test/regress (every group, or the quick ones); tinytest ends
        with "N tests ok.  (M skipped)" or "X/N TESTS FAILED."."""
        cmd = ["test/regress"] + (list(self.QUICK) if quick else [])
        cmd += [":" + t for t in sorted(self.EXCLUDE)]  # tinytest: skip
        rc = _run_log(list(prefix) + cmd, tree, env, log, 1200)
        text = open(log, errors="replace").read()
        failed = re.findall(r"^\s*\[(\S+) FAILED\]", text, re.M)
        ok = re.findall(r"^(\d+) tests ok\.", text, re.M)
        bad = re.findall(r"^(\d+)/(\d+) TESTS FAILED", text, re.M)
        if bad:
            total, passed = int(bad[-1][1]), int(bad[-1][1]) - int(bad[-1][0])
        elif ok:
            total = passed = int(ok[-1])
        else:
            total, passed = 1, 1 if rc == 0 else 0
        detail = "%d/%d passed" % (passed, total)
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0 and passed == total, detail, {
            "passed": passed, "total": total, "failed": failed}

    def fmt(self, rate):
        return "%.3f runs/s (regress thread/basic thread/conditions_simple)" \
            % rate


class Sqlite(Recipe):
    """SQLite 3.40 (bookworm 3.40.1): built threadsafe (serialized), every
    connection has a recursive db->mutex, and the shared cache, the page
    cache (pcache1's group mutex), the memory allocator (mem0.mutex), the
    VFS list and the unix VFS's inode list (unixBigLock) are static
    mutexes, all taken through sqlite3_mutex_enter()/leave(), which call
    the pthreads implementation (src/mutex_unix.c) through a table of
    function pointers (sqlite3GlobalConfig.mutex) on an opaque
    sqlite3_mutex.  Built from the split sources (not the amalgamation)
    so that each file can be refactored.  Tests: test/threadtest3.c,
    sqlite's own multi-threaded stress program (threads sharing WAL
    databases, one connection or shared caches, concurrent checkpoints,
    triggers, vacuum), linked against the library built here, one test
    per process; the quick subset takes about a minute, the whole one
    about four.  The workload is its walthread5 (5 threads reading a
    64 MB WAL database)."""

    name = "sqlite3"
    source = "sqlite3"
    version = "3.40.1-2+deb12u2"
    build_deps = ("tcl8.6",)  # tclsh generates sources at build time
    why = ("connection, shared-cache, page-cache, allocator and unix VFS "
           "mutexes (recursive, through a function table); threadtest3's "
           "WAL, shared-cache, checkpoint and trigger stress tests")
    CONFIGURE = ["./configure", "-q", "--disable-amalgamation",
                 "--enable-threadsafe", "--disable-tcl"]
    # The library from the split sources, then threadtest3 linked against
    # it (its Makefile target links the amalgamation instead).
    BUILD = ["sh", "-c", "make {jobs} libsqlite3.la && ./libtool "
             "--mode=link ${{CC:-cc}} -g -O2 -I. -Isrc $CPPFLAGS $LDFLAGS "
             "test/threadtest3.c src/test_multiplex.c libsqlite3.la "
             "-o threadtest3 $LIBS -lpthread -lm"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    # sqlite3_mutex_enter() calls through a function table, so it is no
    # lock wrapper to give --lock-fn (rcl-refactor stops, exit 2): the
    # tool finds the pthread calls of mutex_unix.c, and with them
    # sqlite3_mutex.mutex becomes a liblock lock whose sections all run
    # in place (held); the function table reaches them unchanged.
    LOCK_PATTERN = r"\b(sqlite3_mutex_enter|pthread_mutex_lock)\s*\("
    TESTS_ALL = ("walthread1", "walthread2", "walthread3", "walthread4",
                 "walthread5", "cgt_pager_1", "dynamic_triggers",
                 "checkpoint_starvation_1", "checkpoint_starvation_2",
                 "create_drop_index_1", "lookaside1", "vacuum1", "stress1",
                 "stress2", "shared1")
    QUICK = ["walthread1", "walthread5", "cgt_pager_1",
             "checkpoint_starvation_1", "lookaside1", "stress1", "shared1"]
    WORKLOAD = ["threadtest3", "walthread5"]
    UNIT = "runs/s"
    TEST_KIND = "exit"

    def prepare(self, tree, env):
        """configure, then the headers the build generates that the
        sources include (the parser's tokens, the VDBE opcodes, the
        keyword hash, sqlite3.h): rcl-refactor compiles the sources."""
        self.configure(tree, env)
        run(["make", "-s", "sqlite3.h", "parse.h", "opcodes.h",
             "keywordhash.h"], cwd=tree, env=env, echo=False)

    def _scratch(self, tree):
        d = os.path.join(tree, "_threadtest")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def _workload(self, tree, env, prefix=()):
        t0 = time.time()
        run(list(prefix) + [os.path.join(tree, "threadtest3"),
                            "walthread5"], cwd=self._scratch(tree),
            env=env, timeout=600, echo=bool(prefix))
        return 1.0 / (time.time() - t0)

    def test(self, tree, env, log, quick, prefix=()):
        """threadtest3, one test per process in a fresh directory (it
        exits 255 and prints "N errors out of 1 tests" on a failure)."""
        return _run_each(((t, "threadtest3 " + t,
                           list(prefix) + [os.path.join(tree, "threadtest3"),
                                           t], self._scratch(tree))
                          for t in (self.QUICK if quick else self.TESTS_ALL)
                          if t not in self.EXCLUDE),
                         log, env, 300, "threadtest3: ")

    def fmt(self, rate):
        return "%.3f runs/s (threadtest3 walthread5)" % rate


class Rsyslog(Recipe):
    """rsyslog 8.2302 (bookworm 8.2302.0): the system logger.  Its
    message queues (runtime/queue.c, wtp.c, wti.c: a queue mutex + not-
    empty/not-full conditions shared by the producers and a pool of
    worker threads), the message object's lock (runtime/msg.c:
    MsgLock/MsgUnlock around lazily computed properties, taken by every
    action thread that formats the message), statistics counters
    (statsobj.c), the TCP server's session table (tcpsrv.c), regexp and
    lookup-table caches, the asynchronous file writer of omfile
    (tools/omfile.c: a writer thread per file) are plain pthread mutexes.
    Built with its test bench (imdiag, tcpflood, no external services).
    Tests: the queue and threading scripts of its tests/ (main-queue
    worker pools, linked-list, array and disk-assisted queues, omfile's
    async writer, concurrent message and local variables, many TCP
    connections), through automake's test driver; the whole suite needs
    databases, Kafka, TLS and hours and is not run.  The workload sends
    500000 messages over 4 TCP connections (tcpflood) to rsyslogd
    (imtcp, a main queue of 4 workers, omfile) and waits for the last
    to be written."""

    name = source = "rsyslog"
    version = "8.2302.0-1+deb12u1"
    build_deps = ("libestr-dev", "libfastjson-dev", "bison", "flex",
                  "zlib1g-dev")
    why = ("message queue mutex + conditions between producers and worker "
           "pools, the message object lock, omfile's async writer; its "
           "queue, threading and concurrency test scripts")
    CONFIGURE = ["./configure", "-q", "--enable-testbench",
                 "--enable-imdiag", "--enable-omstdout",
                 "--disable-libgcrypt", "--disable-liblogging-stdlog",
                 "--disable-uuid", "--disable-libsystemd", "--disable-fmhttp"]
    # The daemon and its modules, then the test bench's helpers
    # (tcpflood, msleep, ...) without running a test.
    BUILD = ["sh", "-c", "make {jobs} && make {jobs} -C tests check TESTS="]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    LOCK_PATTERN = r"\b(d_)?pthread_mutex_lock\s*\("
    QUICK = ["threadingmq.sh", "threadingmqaq.sh", "linkedlistqueue.sh",
             "arrayqueue.sh", "asynwr_simple.sh", "asynwr_simple_2.sh",
             "msgvar-concurrency.sh", "localvar-concurrency.sh"]
    TESTS_ALL = QUICK + ["msgvar-concurrency-array.sh", "imtcp-multiport.sh",
                         "da-mainmsg-q.sh", "asynwr_timeout.sh",
                         "manytcp.sh", "imtcp_conndrop.sh"]
    TEST = ["make", "-C", "tests", "check"]
    TEST_KIND = "automake"
    UNIT = "msgs/s"
    MSGS = 500000

    def lock_files(self, tree):
        # The daemon, its runtime and modules, not the test bench.
        return [f for f in Recipe.lock_files(self, tree)
                if not f.startswith("tests/")]

    def test_cmd(self, quick):
        # Always a list: the whole suite is hours and external services.
        names = self.QUICK if quick else self.TESTS_ALL
        return list(self.TEST) + ["TESTS=" + " ".join(
            t for t in names if t not in self.EXCLUDE)]

    def _flood(self, tree, env, prefix=()):
        d = os.path.join(self.ctx.work, "flood")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        portf, out = os.path.join(d, "port"), os.path.join(d, "out.log")
        conf = os.path.join(d, "rsyslog.conf")
        with open(conf, "w") as f:
            f.write('global(workDirectory="%s")\n'
                    'module(load="%s/plugins/imtcp/.libs/imtcp")\n'
                    'input(type="imtcp" port="0" listenPortFileName="%s")\n'
                    'main_queue(queue.workerThreads="4" '
                    'queue.workerThreadMinimumMessages="1000")\n'
                    'template(name="n" type="string" '
                    'string="%%msg:F,58:2%%\\n")\n'
                    'action(type="omfile" file="%s" template="n")\n'
                    % (d, tree, portf, out))
        cmd = list(prefix) + [
            os.path.join(tree, "tools", "rsyslogd"), "-n", "-C", "-i",
            os.path.join(d, "pid"), "-M", "%s/runtime/.libs:%s/.libs" % (
                tree, tree), "-f", conf]
        log = open(os.path.join(self.ctx.work, "rsyslogd.log"), "a")
        p = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
        try:
            deadline = time.time() + 30
            while not (os.path.exists(portf) and
                       open(portf).read().strip()):
                if p.poll() is not None or time.time() > deadline:
                    raise StepError("rsyslogd did not start (exit %s): %s"
                                    % (p.poll(), " ".join(cmd)))
                time.sleep(0.1)
            port = open(portf).read().strip()
            t0 = time.time()
            run([os.path.join(tree, "tests", "tcpflood"), "-t",
                 "127.0.0.1", "-p", port, "-m", str(self.MSGS), "-c", "4"],
                env=env, timeout=300, echo=False)
            n, deadline = 0, time.time() + 300
            while n < self.MSGS:
                if time.time() > deadline or p.poll() is not None:
                    raise StepError("rsyslogd wrote %d of %d messages"
                                    % (n, self.MSGS))
                time.sleep(0.05)
                with open(out, "rb") if os.path.exists(out) else \
                        open(os.devnull, "rb") as f:
                    n = f.read().count(b"\n")
            return self.MSGS / (time.time() - t0)
        finally:
            _terminate(p, 30)
            log.close()

    def profile(self, tree, out):
        self._flood(tree, dict(os.environ),
                    [self.ctx.tools.prof, "-o", out, "--"])
        if not os.path.exists(out):
            raise StepError("rcl-prof -- rsyslogd wrote no profile")

    def bench(self, tree, env):
        return self._flood(tree, env)

    def fmt(self, rate):
        return "%.0f msgs/s (tcpflood, 4 conns, %d msgs -> omfile)" % (
            rate, self.MSGS)


class Jemalloc(Recipe):
    """jemalloc 5.3 (bookworm 5.3.0): the allocator.  Every arena, bin,
    extent cache, the HPA shards, the background threads and the
    statistics have a malloc_mutex_t: a pthread mutex inside a struct with
    profiling counters, taken by malloc_mutex_lock(tsdn, m) (internal/
    mutex.h: a spinning trylock, then pthread_mutex_lock, witness
    checks), from every thread that allocates.  Configured as Debian does
    on amd64 (4 KiB pages, 2 MiB huge pages) without heap profiling.
    Tests: its test/test.sh runner on the unit and integration tests that
    run threads (mtx races, background purging threads, decay, thread
    events, thread-specific data, per-thread arenas and tcaches); the
    unit tests link the library's objects built a second time with
    JEMALLOC_JET, the integration tests libjemalloc.so, which replaces
    malloc in their process (and in rcl-run's).  The workload is the
    thread_arena and MALLOCX_ARENA integration tests (threads allocating
    from their own and shared arenas): a sign only."""

    name = source = "jemalloc"
    version = "5.3.0-1"
    build_deps = ()
    why = ("arena, bin, extent and background-thread malloc_mutex_t "
           "(spin-then-block wrappers); test.sh's mtx, background_thread, "
           "decay, tsd and thread_arena tests")
    CONFIGURE = ["./configure", "-q", "--with-lg-page=12",
                 "--with-lg-hugepage=21", "--disable-doc"]
    BUILD = ["sh", "-c", "make {jobs} && make {jobs} tests_unit "
             "tests_integration"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    # malloc_mutex_lock() spins on a trylock, counts and checks witnesses
    # around the pthread call, so it is no wrapper for --lock-fn
    # (rcl-refactor stops, exit 2): the tool reads the pthread calls of
    # internal/mutex.h and says why each stays POSIX.
    LOCK_PATTERN = r"\bmalloc_mutex_lock\s*\("
    # 62 units reading the same 880 inline header functions: about 200 s
    # on an idle 2-CPU machine, more beside the other steps' builds.
    REFACTOR_TIMEOUT = 900
    QUICK = ["test/unit/mtx", "test/unit/background_thread",
             "test/unit/background_thread_enable", "test/unit/arena_decay",
             "test/unit/tsd", "test/unit/seq", "test/unit/thread_event",
             "test/unit/hpa_background_thread",
             "test/integration/thread_arena",
             "test/integration/thread_tcache_enabled",
             "test/integration/MALLOCX_ARENA"]
    TESTS_ALL = QUICK + ["test/unit/decay", "test/unit/arena_reset",
                         "test/unit/stats", "test/unit/retained",
                         "test/unit/junk", "test/integration/mallocx",
                         "test/integration/allocated"]
    WORKLOAD = ["sh", "test/test.sh", "test/integration/thread_arena",
                "test/integration/MALLOCX_ARENA"]
    UNIT = "runs/s"
    TEST_KIND = "exit"

    def lock_files(self, tree):
        return [f for f in Recipe.lock_files(self, tree)
                if f.startswith("src/")]

    def test(self, tree, env, log, quick, prefix=()):
        """test/test.sh: "--- pass: P/N, skip: S/N, fail: F/N ---" per
        program, a suite summary at the end; a program counts as passed
        when none of its cases failed."""
        names = [t for t in (self.QUICK if quick else self.TESTS_ALL)
                 if t not in self.EXCLUDE]
        rc = _run_log(list(prefix) + ["sh", "test/test.sh"] + names, tree,
                      env, log, 1200)
        text = open(log, errors="replace").read()
        res = dict(re.findall(r"^=== (\S+) ===\n(?:.*\n)*?--- pass: \d+/"
                              r"\d+, skip: \d+/\d+, fail: (\d+)/", text,
                              re.M))
        failed = [t for t in names if res.get(t, "x") != "0"]
        n = len(names)
        detail = "test.sh: %d/%d programs passed" % (n - len(failed), n)
        if failed:
            detail += ", failed: " + " ".join(failed)
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0 and not failed, detail, {
            "passed": n - len(failed), "total": n, "failed": failed}

    def fmt(self, rate):
        return "%.3f runs/s (test.sh thread_arena MALLOCX_ARENA)" % rate


class Redis(Recipe):
    """Redis 7.0 (bookworm 7.0.15): an in-memory key-value server, one
    event loop thread plus helper threads.  Its background-I/O threads
    (src/bio.c: a job list per kind under bio_mutex[] with two
    conditions, for lazy frees, AOF fsyncs and file closes), the I/O
    threads of networking.c (io_threads_mutex[] park and wake them) and
    module.c's GIL, unblocked-clients and event-loop mutexes (module
    threads, blocked clients) are plain pthread_mutex_lock() calls;
    redis-benchmark's client threads share a live-clients mutex.  Tests:
    its Tcl suite (./runtest: servers on loopback ports, driven by
    clients; the quick subset is the units whose servers use those
    threads: lazy free, AOF fsync and rewrite, io-threads in the
    networking unit, redis-benchmark --threads).  Built with libc
    malloc (the bundled jemalloc doubles the build time and has no lock
    of the server's own); the workload is redis-benchmark --threads 2
    against a server with 2 I/O threads on a Unix socket in the tree."""

    name = source = "redis"
    version = "7.0.15-1~deb12u7"
    build_deps = ("tcl", "pkg-config")
    why = ("bio job lists (mutex + 2 conditions per kind: lazy free, AOF "
           "fsync, close), io-threads park mutexes, module GIL; runtest's "
           "lazyfree, aof, aofrw, networking and redis-benchmark units")
    # src/Makefile reads CPPFLAGS (a Debian patch) but no LIBS: librcl
    # goes in REDIS_LDFLAGS (before the objects: kept with
    # --no-as-needed); in the original build $LIBS is empty.
    BUILD = ["sh", "-c", "make {jobs} MALLOC=libc USE_SYSTEMD=no "
             "REDIS_LDFLAGS=\"-Wl,--no-as-needed $LIBS\""]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    WORKLOAD = ["sh", "-c", "s={tree}/bench.sock; rm -f $s; "
                "src/redis-server --port 0 --unixsocket $s --save '' "
                "--appendonly no --io-threads 2 --io-threads-do-reads yes "
                "--lazyfree-lazy-user-del yes >/dev/null & p=$!; i=0; "
                "while [ ! -S $s ] && [ $i -lt 150 ]; do sleep 0.1; "
                "i=$((i+1)); done; src/redis-benchmark -s $s -n 100000 "
                "-c 32 --threads 2 -P 4 -d 256 -q -t set,get,lpush,lpop "
                ">/dev/null; r=$?; src/redis-cli -s $s shutdown nosave "
                ">/dev/null 2>&1; wait $p; exit $r"]
    UNIT = "runs/s"
    TEST = ["./runtest", "--clients", "2", "--timeout", "600"]
    TEST_KIND = "tcl"
    QUICK = ["unit/lazyfree", "unit/info", "unit/networking",
             "integration/aof", "unit/aofrw", "integration/redis-benchmark"]

    def fmt(self, rate):
        return ("%.3f runs/s (redis-benchmark --threads 2 -c 32 -P 4, "
                "100000 requests x 4 commands, 2 io-threads)" % rate)


class Tor(Recipe):
    """Tor 0.4 (bookworm 0.4.9): the onion router.  Its thread pool
    (src/lib/evloop/workqueue.c: a work queue under the pool's lock and
    condition, a control lock, a reply queue lock) runs the relay's
    onion-skin crypto on worker threads; the logging system, the
    control-event queue and the RNG have mutexes too.  Every lock goes
    through tor_mutex_acquire()/tor_mutex_release() on a tor_mutex_t (a
    struct around a pthread_mutex_t, src/lib/lock/compat_mutex_pthreads.c,
    with an assert on the call's result).  Tests: `make check` (the unit
    tests in eight parts, test-slow, test-timers) and test_workqueue,
    which floods the pool from the main thread with every alert-socket
    backend (the quick subset); the workload is test_workqueue with 2
    threads.  `make check` also runs check-local, Tor's checkers of its
    sources' style (checkSpace.pl's line lengths and spacing,
    practracker's include rules, the changes files): they judge the
    rewritten text, not what it does, and stopped the build of the
    converted tree, so every run (the baseline's too) gives make
    `PERL=: PYTHON=:`, which only those targets use; the test scripts
    do not."""

    name = source = "tor"
    version = "0.4.9.11-0+deb12u1"
    build_deps = ("libevent-dev", "libssl-dev", "zlib1g-dev")
    why = ("thread pool work queue (lock + condition), its control and "
           "reply-queue locks, log and control-event mutexes, through "
           "tor_mutex_acquire(); test_workqueue floods the pool with every "
           "alert backend, the unit tests run thread/")
    CONFIGURE = ["./configure", "-q", "--disable-asciidoc",
                 "--disable-manpage", "--disable-html-manual"]
    # The test programs too, so the test steps time the tests only.
    BUILD = ["sh", "-c", "make {jobs} && make {jobs} check TESTS= "
             "PERL=: PYTHON=:"]
    REFACTOR_ARGS = None  # -I/-D of compile_commands.json
    LOCK_PATTERN = r"\btor_mutex_acquire\s*\("
    LOCK_EXCLUDE = r"src/test/"
    LOCK_FNS = ("tor_mutex_acquire=tor_mutex_release",)
    WORKLOAD = ["src/test/test_workqueue", "-T", "2", "-N", "100000",
                "-I", "1000", "-R", "50"]
    UNIT = "runs/s"
    TEST = ["make", "check", "PERL=:", "PYTHON=:"]
    TEST_KIND = "automake"
    # make check's TESTS (tor 0.4.9.11), so that one can be left out
    TESTS_ALL = (
        "src/test/test-slow", "src/test/test-memwipe",
        "src/test/test_workqueue", "src/test/test_keygen.sh",
        "src/test/test_key_expiration.sh", "src/test/test-timers",
        "src/test/fuzz_static_testcases.sh",
        "src/test/test_zero_length_keys.sh",
        "src/test/test_workqueue_cancel.sh", "src/test/test_workqueue_efd.sh",
        "src/test/test_workqueue_efd2.sh", "src/test/test_workqueue_pipe.sh",
        "src/test/test_workqueue_pipe2.sh",
        "src/test/test_workqueue_socketpair.sh", "src/test/test_switch_id.sh",
        "src/test/test_cmdline.sh", "src/test/test_parseconf.sh",
        "src/test/unittest_part1.sh", "src/test/unittest_part2.sh",
        "src/test/unittest_part3.sh", "src/test/unittest_part4.sh",
        "src/test/unittest_part5.sh", "src/test/unittest_part6.sh",
        "src/test/unittest_part7.sh", "src/test/unittest_part8.sh",
        "src/test/test_ntor.sh", "src/test/test_hs_ntor.sh",
        "src/test/test_bt.sh", "scripts/maint/practracker/test_practracker.sh",
        "scripts/maint/run_check_subsystem_order.sh",
        "src/test/test_rebind.sh", "src/test/test_include.sh",
        "scripts/maint/checkSpaceTest.sh")
    EXCLUDE = {"scripts/maint/practracker/test_practracker.sh":
               "fails unmodified here: a checker of the sources' style "
               "whose expected output lists a test directory's files in "
               "one order, and this file system enumerates them in "
               "another (ex0: 'Unusual pattern permitted.h' comes first)"}
    QUICK = ["src/test/test_workqueue", "src/test/test_workqueue_cancel.sh",
             "src/test/test_workqueue_efd.sh",
             "src/test/test_workqueue_efd2.sh",
             "src/test/test_workqueue_pipe.sh",
             "src/test/test_workqueue_pipe2.sh",
             "src/test/test_workqueue_socketpair.sh", "src/test/test-timers"]

    def fmt(self, rate):
        return ("%.3f runs/s (test_workqueue -T 2 -N 100000, 1 in 50 "
                "items RSA)" % rate)


APPS = {"memcached": Memcached, "zstd": Zstd, "blosc": Blosc,
        "xz": XzUtils, "apr": Apr, "microhttpd": Microhttpd,
        "mosquitto": Mosquitto, "libuv": Libuv,
        "fio": Fio, "libevent": Libevent,
        "sqlite3": Sqlite, "rsyslog": Rsyslog,
        "jemalloc": Jemalloc, "redis": Redis, "tor": Tor}
# Smallest build first.
ORDER = ["xz", "apr", "microhttpd", "mosquitto", "libuv", "fio", "blosc",
         "zstd", "memcached", "libevent", "sqlite3",
         "redis", "rsyslog", "jemalloc", "tor"]
