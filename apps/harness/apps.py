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
import socket
import subprocess
import time

from pipeline import StepError, run

JOBS = "-j2"


def _run_log(cmd, cwd, env, log, timeout):
    """Run @cmd with output to @log; its exit status (124: timed out)."""
    with open(log, "w") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        try:
            return subprocess.run(cmd, cwd=cwd, env=env, stdout=f,
                                  stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write("\nharness: timed out after %d s\n" % timeout)
            return 124


def _tail(path, n=12):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _grep_files(tree, pattern, files):
    rx = re.compile(pattern)
    out = []
    for f in files:
        with open(os.path.join(tree, f), errors="replace") as fh:
            if rx.search(fh.read()):
                out.append(f)
    return out


class Memcached:
    """memcached 1.6 (bookworm 1.6.18): worker threads share striped item
    locks (item_lock(hv)/item_unlock(hv) wrappers), LRU and slab locks
    (mutex_lock(x) macro); its `make test` suite (prove t/, testapp) is
    the reference the refactored server must pass."""

    name = source = "memcached"
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

    def test(self, tree, env, log, quick):
        if quick:
            cmd = ["sh", "-c", "./sizes && ./testapp && prove " +
                   " ".join(self.QUICK)]
        else:
            cmd = ["make", "test"]
        rc = _run_log(cmd, tree, env, log, 1500)
        text = open(log, errors="replace").read()
        m = re.findall(r"^(Files=\d+, Tests=\d+.*)$", text, re.M)
        res = re.findall(r"^Result: (\S+)", text, re.M)
        detail = "%s%s" % (m[-1].split(",  ")[0] if m else "",
                           ", prove: " + res[-1] if res else "")
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail

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


class Zstd:
    """zstd 1.5 (bookworm 1.5.4): multithreaded compression (-T) shares a
    job-queue mutex and condition variables (lib/common/pool.c) and buffer
    and context pools (lib/compress/zstdmt_compress.c) behind
    ZSTD_pthread_mutex_lock() macros.  Tests: poolTests (the thread pool)
    and playTests.sh (`make check`: the CLI, many -T runs)."""

    name = "zstd"
    source = "libzstd"
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
        self.env = env

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
        """64 MB of text over a 2000-word vocabulary: compressible, but
        not trivially (deterministic: the same file every run)."""
        data = os.path.join(self.ctx.work, "bench.dat")
        if not os.path.exists(data):
            rnd = random.Random(1)
            vocab = [("w%d" % rnd.randrange(10 ** 6)).encode()
                     for _ in range(2000)]
            with open(data, "wb") as f:
                for _ in range(64):
                    f.write(b" ".join(rnd.choice(vocab)
                                      for _ in range(140000))[:1 << 20])
        return data

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

    def test(self, tree, env, log, quick):
        env = dict(env, **{k: v for k, v in self.env.items()
                           if k in ("CPPFLAGS", "LDFLAGS", "LDLIBS")})
        targets = ["test-pool"] if quick else ["test-pool", "shortest"]
        rc = _run_log(["make", "-C", "tests"] + targets, tree, env, log,
                      1200)
        detail = "make -C tests %s" % " ".join(targets)
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail

    def bench(self, tree, env):
        return max(self._compress(tree, env) for _ in range(3))

    @staticmethod
    def fmt(rate):
        return "%.1f MB/s (zstd -3 -T4 -B64KiB, best of 3)" % (rate / 1e6)


class Blosc:
    """c-blosc 1.21 (bookworm 1.21.3): a multithreaded block compressor.
    Its worker threads claim blocks and count finished ones under a
    per-context count_mutex (blosc/blosc.c), synchronise through a
    mutex+condition barrier, and the legacy blosc_compress() API is
    serialised by one global mutex.  Tests: its ctest suite (1651 round
    trips over every codec, shuffle and thread count, ~3 min)."""

    name = "blosc"
    source = "c-blosc"
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
        return ["-I", "blosc"]

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

    def test(self, tree, env, log, quick):
        cmd = ["ctest", JOBS, "--output-on-failure"]
        if quick:
            cmd += ["-R", self.QUICK]
        rc = _run_log(cmd, os.path.join(tree, "_build"), env, log, 1500)
        text = open(log, errors="replace").read()
        m = re.findall(r"^(\d+% tests passed.*)$", text, re.M)
        detail = m[-1] if m else ""
        if rc != 0:
            detail += "; exit %d, tail:\n%s" % (rc, _tail(log))
        return rc == 0, detail

    def bench(self, tree, env):
        return max(self._bench(tree, env) for _ in range(2))

    @staticmethod
    def fmt(rate):
        return "%.0f MB/s (bench blosclz shuffle single 4, best of 2)" % (
            rate / 1e6)


APPS = {"memcached": Memcached, "zstd": Zstd, "blosc": Blosc}
