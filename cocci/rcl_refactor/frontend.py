# SPDX-License-Identifier: MIT
"""The C front end: libclang (Debian's python3-clang-16) parses each
translation unit with the program's real flags -- those of the build's
compile_commands.json (rcl-refactor -p BUILD_DIR), else -I/-D/-U and the
--macro-file definitions -- and gives typed facts about it:

  - every variable's declaration: type, storage class, thread-local;
  - every function definition: the calls it makes (callee, no-return or
    not), its uses of thread-dependent data (thread-local variables,
    errno, pthread_self, thread-specific data), the locals whose address
    it takes;
  - macro expansions at a location;
  - the program's call graph across the translation units given, and the
    hazards a section reaches through it (hazards()).

Nothing here edits text; the other stages ask, by file and line."""
import collections
import concurrent.futures
import ctypes
import functools
import json
import multiprocessing
import os
import re
import shlex
from dataclasses import dataclass, field

from .cparse import Skipped

try:
    import clang.cindex as ci
except ImportError:  # reported by load() with what to install
    ci = None

# The headers of the C library and the kernel's (glibc's and Linux's in
# /usr/include, with the multiarch directory): their functions call back
# into the program only through a pointer handed to them in the call.
C_LIBRARY_HEADER = re.compile(
    r"/usr/include/(?:[a-z0-9_-]+-linux-gnu/)?(?:"
    r"(?:bits|sys|gnu|arpa|net|netinet|linux|asm|asm-generic)/[\w/.-]+|"
    r"(?:assert|complex|ctype|dirent|dlfcn|err|errno|error|fcntl|fenv|"
    r"float|getopt|glob|grp|iconv|inttypes|langinfo|libgen|limits|"
    r"locale|malloc|math|memory|netdb|poll|pthread|pwd|regex|resolv|"
    r"sched|search|semaphore|setjmp|signal|spawn|stdint|stdio|stdio_ext|"
    r"stdlib|string|strings|syslog|termios|tgmath|threads|time|uchar|"
    r"unistd|utime|wchar|wctype|alloca|byteswap|endian|features|"
    r"execinfo|ifaddrs|mntent|utmp)\.h)$")

# The floating types (complex ones too): their arithmetic follows the
# thread's floating-point environment.
_FLOATS = frozenset() if ci is None else frozenset((
    ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE, ci.TypeKind.LONGDOUBLE,
    ci.TypeKind.HALF, ci.TypeKind.FLOAT128, ci.TypeKind.COMPLEX))

# The canonical path of a file libclang names: the same few headers are
# named millions of times on a large program (every cursor's location),
# and symbolic links do not change during a run.
_real = functools.lru_cache(maxsize=None)(os.path.realpath)

LIBCLANG_CANDIDATES = ("/usr/lib/llvm-16/lib/libclang-16.so.1",
                       "/usr/lib/x86_64-linux-gnu/libclang-16.so.1",
                       "/usr/lib/llvm-16/lib/libclang.so")

# The calls that end the calling thread (and only it).  A section that
# may reach one is held in place: it may leave the word held by a thread
# that is gone, whose waiters wait as POSIX's do (librcl reports the
# exit, naming the lock: runtime/word.c).
THREAD_EXITS = frozenset(("pthread_exit", "thrd_exit"))


class Hazard(str):
    """A reason why a section cannot run on another thread; @ends_thread
    when it may end the thread that holds the lock (THREAD_EXITS)."""

    def __new__(cls, text, ends_thread=False):
        h = super().__new__(cls, text)
        h.ends_thread = ends_thread
        return h


# C library functions that are no cancellation point, required or
# optional (POSIX, "Thread Cancellation"), and never block: in a program
# that cancels threads, a section may call these and still run on a
# server; any other function of no file of the program might be one.
CANCEL_SAFE = frozenset((
    "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr",
    "mempcpy", "strlen", "strnlen", "strcpy", "strncpy", "stpcpy",
    "stpncpy", "strcat", "strncat", "strcmp", "strncmp", "strcasecmp",
    "strncasecmp", "strchr", "strrchr", "strstr", "strcasestr", "strspn",
    "strcspn", "strpbrk", "strtok_r", "strdup", "strndup", "strcoll",
    "strxfrm", "bzero", "bcopy", "bcmp", "ffs", "index", "rindex",
    "malloc", "calloc", "realloc", "reallocarray", "free",
    "aligned_alloc", "posix_memalign", "memalign",
    "abs", "labs", "llabs", "div", "ldiv", "lldiv", "atoi", "atol",
    "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull",
    "strtod", "strtof", "strtold", "strtoimax", "strtoumax", "qsort",
    "bsearch", "rand", "rand_r", "random", "srand", "srandom",
    "snprintf", "sprintf", "vsnprintf", "vsprintf", "sscanf", "vsscanf",
    "isalnum", "isalpha", "isascii", "isblank", "iscntrl", "isdigit",
    "isgraph", "islower", "isprint", "ispunct", "isspace", "isupper",
    "isxdigit", "tolower", "toupper", "__ctype_b_loc",
    "__ctype_tolower_loc", "__ctype_toupper_loc", "__errno_location",
    "time", "clock_gettime", "gettimeofday", "difftime", "clock",
    "htonl", "htons", "ntohl", "ntohs", "inet_ntop", "inet_pton",
    "pthread_self", "pthread_equal", "pthread_mutex_lock",
    "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_cond_signal",
    "pthread_cond_broadcast", "pthread_getspecific", "pthread_setspecific",
    "sqrt", "pow", "exp", "log", "log2", "log10", "floor", "ceil", "fabs",
    "fmod", "round", "lround", "sin", "cos", "tan", "atan2",
    # none of these is a cancellation point either (POSIX lists them):
    # signal sets, sysconf(), the read-write and spin locks, the
    # attribute and init calls, and glibc's inline byte-order helpers
    # (le64toh() is __uint64_identity(): Knot's hold reasons named them)
    "sigemptyset", "sigfillset", "sigaddset", "sigdelset", "sigismember",
    "sysconf", "getpid", "getppid", "getenv", "sched_yield", "pthread_kill",
    "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
    "pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock",
    "pthread_rwlock_unlock", "pthread_spin_lock", "pthread_spin_trylock",
    "pthread_spin_unlock", "pthread_mutex_init", "pthread_mutex_destroy",
    "pthread_cond_init", "pthread_cond_destroy", "pthread_mutexattr_init",
    "pthread_mutexattr_destroy", "pthread_mutexattr_settype",
    "pthread_attr_init", "pthread_attr_destroy",
    "__uint16_identity", "__uint32_identity", "__uint64_identity",
    "__bswap_16", "__bswap_32", "__bswap_64"))

# Calls that never return to the section: the server thread would leave
# the section (or end) and the client would wait for ever.  abort() and
# assert()'s failure end the process from any thread alike: not hazards.
NORETURN_NAMES = frozenset((
    "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "pthread_exit",
    "exit", "_exit", "_Exit", "quick_exit", "thrd_exit"))
PROCESS_ENDS = frozenset(("abort", "__assert_fail", "__assert_perror_fail",
                          "__assert", "__builtin_trap",
                          "__builtin_unreachable"))
# Userspace RCU (liburcu): the read-side calls and the thread's
# registration work on the calling thread's reader record, which
# synchronize_rcu() waits for; on the server thread, not registered, a
# read-side section is not waited for (Knot DNS reads its configuration
# so).  Every flavour: urcu_memb_read_lock() (rcu_read_lock() of
# <urcu.h>), _urcu_qsbr_read_lock() (_LGPL_SOURCE), rcu_read_lock_bp()
# (the 0.10 names).
_RCU_THREAD_CALL = re.compile(
    r"_?(?:urcu_(?:memb|mb|signal|qsbr|bp)_|rcu_)(?:read_lock|read_unlock|"
    r"read_ongoing|quiescent_state|thread_offline|thread_online|"
    r"register_thread|unregister_thread)(?:_(?:memb|mb|sig|qsbr|bp))?")

# Calls whose result depends on the calling thread.
THREAD_CALLS = {
    "__errno_location": "errno",
    "pthread_self": "pthread_self()",
    "pthread_getspecific": "thread-specific data (pthread_getspecific)",
    "pthread_setspecific": "thread-specific data (pthread_setspecific)",
    "gettid": "gettid()",
    "thrd_current": "thrd_current()",
    "tss_get": "thread-specific data (tss_get)",
    "tss_set": "thread-specific data (tss_set)",
    "__h_errno_location": "h_errno",
    "sched_getcpu": "sched_getcpu() (the server's CPU)",
    "getcpu": "getcpu() (the server's CPU)",
    "pthread_sigmask": "the thread's signal mask (pthread_sigmask)",
    "sigprocmask": "the thread's signal mask (sigprocmask)",
    "pthread_setcancelstate": "the thread's cancellation state",
    "pthread_setcanceltype": "the thread's cancellation state",
    "pthread_testcancel": "the thread's cancellation state",
    "uselocale": "the thread's locale (uselocale)",
    "omp_get_thread_num": "omp_get_thread_num()",
    "omp_get_num_threads": "omp_get_num_threads()",
    "omp_get_team_size": "omp_get_team_size()",
    "omp_get_ancestor_thread_num": "omp_get_ancestor_thread_num()",
    "omp_in_parallel": "omp_in_parallel()",
    "omp_get_level": "omp_get_level()",
    "omp_get_active_level": "omp_get_active_level()",
    # fork() copies the calling thread only: the child would be a copy
    # of the server thread, inside the server's loop, and never run the
    # caller's code after the section.
    "fork": "fork() (the child would copy the server thread)",
    "vfork": "vfork() (the child would copy the server thread)",
    "_Fork": "_Fork() (the child would copy the server thread)",
    "daemon": "daemon() (it forks: the child would copy the server "
              "thread)",
    # Signals sent to, or waited for by, the calling thread.
    "raise": "raise() (the signal goes to the thread that runs it)",
    "sigwait": "the thread's signals (sigwait)",
    "sigwaitinfo": "the thread's signals (sigwaitinfo)",
    "sigtimedwait": "the thread's signals (sigtimedwait)",
    "sigsuspend": "the thread's signals (sigsuspend)",
    "sigpending": "the thread's pending signals (sigpending)",
    # Linux keeps these per thread: namespaces, the file table and the
    # filesystem attributes once unshared, most prctl() settings (the
    # name, no_new_privs, the parent-death signal, seccomp, the
    # capability bounding set), the filesystem ids, capabilities, the
    # I/O priority (who 0).  (A raw syscall() of those: THREAD_ARG_CALLS.)
    "unshare": "unshare() (it changes the calling thread's namespaces, "
               "file table or filesystem attributes)",
    "setns": "setns() (the calling thread joins the namespace)",
    "prctl": "prctl() (most of its settings are the calling thread's)",
    "setfsuid": "setfsuid() (the calling thread's filesystem id)",
    "setfsgid": "setfsgid() (the calling thread's filesystem id)",
    "capset": "capset() (the calling thread's capabilities)",
    "seccomp": "seccomp() (the calling thread's filter)",
    "ioprio_set": "ioprio_set() (the calling thread's I/O priority)",
    # The dynamic linker keeps its error, which dlerror() reads, per
    # thread.
    "dlopen": "dlopen() (dlerror()'s state is per thread)",
    "dlmopen": "dlmopen() (dlerror()'s state is per thread)",
    "dlsym": "dlsym() (dlerror()'s state is per thread)",
    "dlvsym": "dlvsym() (dlerror()'s state is per thread)",
    "dlclose": "dlclose() (dlerror()'s state is per thread)",
    "dlinfo": "dlinfo() (dlerror()'s state is per thread)",
    "dlerror": "dlerror() (its state is per thread)",
    # Linux schedules threads: pid 0 (and a thread's id) names the
    # calling thread, whose CPU affinity, policy and nice value these
    # read or change.
    "sched_getaffinity": "the thread's CPU affinity (sched_getaffinity)",
    "sched_setaffinity": "the thread's CPU affinity (sched_setaffinity)",
    "sched_getscheduler": "the thread's scheduling (sched_getscheduler)",
    "sched_setscheduler": "the thread's scheduling (sched_setscheduler)",
    "sched_getparam": "the thread's scheduling (sched_getparam)",
    "sched_setparam": "the thread's scheduling (sched_setparam)",
    "sched_getattr": "the thread's scheduling (sched_getattr)",
    "sched_setattr": "the thread's scheduling (sched_setattr)",
    "nice": "the thread's nice value (nice)",
    # A thread created by the server thread inherits its scheduling
    # (SCHED_FIFO), CPU affinity and blocked signals.
    "pthread_create": "pthread_create() (the new thread would inherit "
                      "the server thread's scheduling, CPU and signal "
                      "mask)",
    "thrd_create": "thrd_create() (the new thread would inherit the "
                   "server thread's scheduling, CPU and signal mask)",
    # A read-write lock's holder, and a C11 mutex's owner (recursive or
    # not, the type is not followed), is the thread that takes it: the
    # server thread could not release what its caller took, nor take
    # again what its caller holds.
    "pthread_rwlock_rdlock": "pthread_rwlock_rdlock() (an rwlock's holder "
                             "is a thread)",
    "pthread_rwlock_wrlock": "pthread_rwlock_wrlock() (an rwlock's holder "
                             "is a thread)",
    "pthread_rwlock_tryrdlock": "pthread_rwlock_tryrdlock() (an rwlock's "
                                "holder is a thread)",
    "pthread_rwlock_trywrlock": "pthread_rwlock_trywrlock() (an rwlock's "
                                "holder is a thread)",
    "pthread_rwlock_timedrdlock": "pthread_rwlock_timedrdlock() (an "
                                  "rwlock's holder is a thread)",
    "pthread_rwlock_timedwrlock": "pthread_rwlock_timedwrlock() (an "
                                  "rwlock's holder is a thread)",
    "pthread_rwlock_clockrdlock": "pthread_rwlock_clockrdlock() (an "
                                  "rwlock's holder is a thread)",
    "pthread_rwlock_clockwrlock": "pthread_rwlock_clockwrlock() (an "
                                  "rwlock's holder is a thread)",
    "pthread_rwlock_unlock": "pthread_rwlock_unlock() (an rwlock's holder "
                             "is a thread)",
    "mtx_lock": "mtx_lock() (a C11 mutex's owner is a thread)",
    "mtx_trylock": "mtx_trylock() (a C11 mutex's owner is a thread)",
    "mtx_timedlock": "mtx_timedlock() (a C11 mutex's owner is a thread)",
    "mtx_unlock": "mtx_unlock() (a C11 mutex's owner is a thread)",
    "sigaltstack": "the thread's alternate signal stack (sigaltstack)",
    # The stack it walks is the thread's that runs it.
    "backtrace": "backtrace() (it walks the stack of the thread that runs "
                 "it)",
    "_Unwind_Backtrace": "_Unwind_Backtrace() (it walks the stack of the "
                         "thread that runs it)",
    "unw_backtrace": "unw_backtrace() (it walks the stack of the thread "
                     "that runs it)",
    # A stream's lock belongs to the thread that takes it.
    "flockfile": "flockfile() (a stream's lock belongs to the thread "
                 "that takes it)",
    "ftrylockfile": "ftrylockfile() (a stream's lock belongs to the "
                    "thread that takes it)",
    "funlockfile": "funlockfile() (a stream's lock belongs to the thread "
                   "that takes it)",
    # Results kept in a per-thread buffer of glibc: the pointer would
    # name the server thread's, which its next section overwrites (not
    # when the call is an argument of a function that only reads the
    # string: BUFFER_READERS).  strerror() and strsignal() write one for
    # a number they do not know (glibc 2.32 and later).
    "inet_ntoa": "inet_ntoa() (its result is in a per-thread buffer)",
    "strerror": "strerror() (its result may be in a per-thread buffer)",
    "strsignal": "strsignal() (its result may be in a per-thread "
                 "buffer)",
    # The resolver's state (_res) is per thread.
    "res_init": "the thread's resolver state (res_init)",
    "res_query": "the thread's resolver state (res_query)",
    "res_search": "the thread's resolver state (res_search)",
    "res_querydomain": "the thread's resolver state (res_querydomain)",
    "res_mkquery": "the thread's resolver state (res_mkquery)",
    "res_send": "the thread's resolver state (res_send)",
    # A context saved or resumed is the running thread's stack.
    "getcontext": "getcontext() (the context is the server thread's)",
    "setcontext": "setcontext() (it would resume on the server thread)",
    "swapcontext": "swapcontext() (it would switch the server thread)",
    "makecontext": "makecontext() (the context is the server thread's)",
    "setjmp": "setjmp() (the saved context would be the server "
              "thread's)",
    "_setjmp": "setjmp() (the saved context would be the server "
               "thread's)",
    "sigsetjmp": "sigsetjmp() (the saved context would be the server "
                 "thread's)",
    "__sigsetjmp": "sigsetjmp() (the saved context would be the server "
                   "thread's)",
}
# Per-thread state that a program may set on one thread and that its
# sections then depend on, on the thread that runs them: name of the call
# that sets it -> the kind of state (see StateUse).  A stream locked with
# flockfile() stays locked for its owner only: a section that writes to it
# on the server thread waits for a lock its client holds, for ever.  The
# floating-point environment (rounding mode, exception flags, traps) is
# per thread: the section would compute with the server's, and raise its
# exception flags there, where the caller's fetestexcept() does not see
# them (the calls that read or clear the flags count too).
STATE_SETTERS = {
    "flockfile": "stream", "ftrylockfile": "stream",
    "fesetround": "fenv", "fesetenv": "fenv", "feupdateenv": "fenv",
    "feholdexcept": "fenv", "fesetexceptflag": "fenv",
    "feenableexcept": "fenv", "fedisableexcept": "fenv",
    "_mm_setcsr": "fenv", "__builtin_ia32_ldmxcsr": "fenv",
    "fetestexcept": "fenv", "feclearexcept": "fenv", "feraiseexcept": "fenv",
    "fegetexceptflag": "fenv", "fegetenv": "fenv", "_mm_getcsr": "fenv",
    "__builtin_ia32_stmxcsr": "fenv",
    # streams whose reads and writes call the program's functions, and
    # printf conversions the program defines: a stdio call may run the
    # program's code (Program.foreign_call())
    "fopencookie": "stdio-callback", "register_printf_function":
    "stdio-callback", "register_printf_specifier": "stdio-callback",
    # the calling thread's own locale, which conversions, classification,
    # collation and messages read (setlocale() sets every thread's)
    "uselocale": "locale",
    # a thread's own signal mask: SIGPIPE and SIGXFSZ, raised by a write
    # for the thread that writes, may be blocked on the caller's thread
    # and not on the server's (runtime/server.c)
    "pthread_sigmask": "sigmask", "sigprocmask": "sigmask",
    # the mask a thread starts with (glibc), and the older interfaces
    # (System V's sighold() and sigset(sig, SIG_HOLD), BSD's sigblock()
    # and sigsetmask())
    "pthread_attr_setsigmask_np": "sigmask", "sighold": "sigmask",
    "sigset": "sigmask", "sigblock": "sigmask", "sigsetmask": "sigmask",
    # a signalfd reads, and polls ready for, the signals pending for the
    # thread that reads it (and the process's)
    "signalfd": "signalfd", "signalfd4": "signalfd",
}

# Calls that read a descriptor or wait for it to be ready: on a signalfd,
# the calling thread's pending signals.
FD_READ_CALLS = frozenset((
    "read", "readv", "pread", "pread64", "preadv", "preadv2", "__read_chk",
    "__pread_chk", "__pread64_chk", "poll", "ppoll", "__poll_chk",
    "__ppoll_chk", "select", "pselect", "epoll_wait", "epoll_pwait",
    "epoll_pwait2"))

# Calls that fill or copy memory: on a sigset_t, they may put any signal
# in it (`memset(&set, 0xff, sizeof(set))`).
_MEM_WRITES = frozenset((
    "memset", "memcpy", "memmove", "bcopy", "__builtin_memset",
    "__builtin_memcpy", "__builtin_memmove", "__builtin___memset_chk",
    "__builtin___memcpy_chk", "__builtin___memmove_chk"))


def _may_hold_write_signal(name, call, args):
    """Whether call @name(@args) may put SIGPIPE or SIGXFSZ in a signal
    set, or in the thread's mask: sigfillset(), sigdelset() (of a set
    filled before), a memory fill or copy into a sigset_t (unless a
    memset() to 0), sigblock() and sigsetmask() (a mask the tool does
    not read), or sigaddset(), sighold() and sigset(..., SIG_HOLD) of
    one of them or of a signal that is not named.  A program whose sets
    never hold them (xfs_repair blocks SIGHUP and SIGALRM) writes on the
    server as on its own threads."""
    if name in ("sigfillset", "sigdelset", "sigblock", "sigsetmask"):
        return True
    if name in _MEM_WRITES:
        if not args or "sigset_t" not in _bare(args[0]).type.spelling:
            return False
        return not (name.endswith("memset") and len(args) > 1 and
                    "".join(t.spelling for t in args[1].get_tokens())
                    in ("0", "'\\0'", "0x0", "0x00"))
    text = "".join(t.spelling for t in call.get_tokens())
    if name == "sigset" and "SIG_HOLD" not in text:
        return False
    if not (name == "sigaddset" and len(args) == 2 or
            name == "sighold" and len(args) == 1 or
            name == "sigset" and len(args) == 2):
        return False
    # the call's own tokens: an argument that a macro expands (SIGPIPE)
    # has none of its own
    m = re.search(r"[(,](\w+)\)$" if name == "sigaddset" else
                  r"^\w+\((\w+)[,)]", text)
    return m is None or m.group(1) in ("SIGPIPE", "SIGXFSZ") or \
        not re.fullmatch(r"SIG[A-Z0-9]+", m.group(1))


# Calls that write to a file, pipe or socket (besides stdio's
# STREAM_CALLS): SIGPIPE or SIGXFSZ for the thread that makes them.
WRITE_CALLS = frozenset((
    "write", "writev", "pwrite", "pwrite64", "pwritev", "pwritev2", "send",
    "sendto", "sendmsg", "sendmmsg", "sendfile", "sendfile64", "splice",
    "vmsplice", "tee", "copy_file_range", "ftruncate", "truncate",
    "__write_chk"))
# The C library's headers whose functions may read the thread's locale,
# and the functions of theirs that do not.
_LOCALE_HEADERS = frozenset((
    "stdio.h", "stdio2.h", "stdlib.h", "ctype.h", "wchar.h", "wchar2.h",
    "wctype.h", "string.h", "string_fortified.h", "strings.h", "time.h",
    "langinfo.h", "locale.h", "monetary.h", "inttypes.h", "err.h",
    "error.h"))
_LOCALE_FREE = frozenset((
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen",
    "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr",
    "strrchr", "strstr", "strspn", "strcspn", "strpbrk", "stpcpy", "strdup",
    "strndup", "malloc", "calloc", "realloc", "free", "abs", "labs",
    "llabs", "div", "ldiv", "qsort", "bsearch", "rand", "srand", "rand_r",
    "random", "srandom", "time", "clock", "difftime", "exit", "_Exit",
    "abort", "atexit", "getenv", "setenv", "unsetenv", "fflush", "fclose",
    "fopen", "fdopen", "fileno", "fread", "fwrite", "fgets", "fputs",
    "fputc", "putc", "putchar", "puts", "getc", "fgetc", "getchar",
    "ungetc", "feof", "ferror", "clearerr", "setvbuf", "setbuf", "fseek",
    "ftell", "rewind", "remove", "rename", "tmpfile", "__memcpy_chk",
    "__memset_chk", "__memmove_chk", "__strcpy_chk", "__strncpy_chk",
    "__strcat_chk", "__stpcpy_chk", "__fread_chk", "__fgets_chk"))
# The C library's calls that take a FILE's lock (stdio and wide stdio;
# the *_unlocked variants do not).
STREAM_CALLS = frozenset((
    "printf", "vprintf", "fprintf", "vfprintf", "puts", "fputs", "putchar",
    "fputc", "putc", "getchar", "getc", "fgetc", "fgets", "gets", "scanf",
    "vscanf", "fscanf", "vfscanf", "fread", "fwrite", "fflush", "fseek",
    "fseeko", "ftell", "ftello", "rewind", "fclose", "fgetpos", "fsetpos",
    "ungetc", "getline", "getdelim", "perror", "setvbuf", "setbuf",
    "setbuffer", "setlinebuf", "clearerr", "feof", "ferror", "fileno",
    "fpurge", "__fpurge", "wprintf", "vwprintf", "fwprintf", "vfwprintf",
    "fputws", "fgetws", "putwc", "fputwc", "putwchar", "getwc", "fgetwc",
    "getwchar", "ungetwc", "fwide", "__printf_chk", "__fprintf_chk",
    "__vprintf_chk", "__vfprintf_chk", "__fgets_chk", "__fread_chk",
    "__fgetws_chk", "__wprintf_chk", "__fwprintf_chk", "__vfwprintf_chk",
    "__getdelim",
))
STATE_WHY = {
    "stream": "the program holds streams' locks with %s() at %s, and a "
              "stream's lock belongs to the thread that takes it: on the "
              "server thread the section would wait for its caller's lock",
    "fenv": "the program sets or reads the floating-point environment "
            "with %s() at %s, and it is per thread: the section would "
            "compute in the server thread's, and raise its exception flags "
            "there",
    "locale": "the program sets a thread's own locale with %s() at %s: "
              "the section would convert, classify, compare or print by "
              "the server thread's",
    "sigmask": "the program sets a thread's signal mask with %s() at %s: "
               "the SIGPIPE or SIGXFSZ the section's write may raise would "
               "go to the server thread, which does not block them",
    "signalfd": "the program reads signals through a descriptor made by "
                "%s() at %s, which gives the signals pending for the "
                "thread that reads it: on the server thread the section "
                "would not see its caller's",
}
# Library functions that leave errno alone (C11 7.5: a function may set
# errno unless its description says otherwise; these describe no error):
# the sections that call only these and the program's own functions need
# not carry errno between the threads.
ERRNO_FREE = frozenset((
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen",
    "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr",
    "strrchr", "strstr", "strspn", "strcspn", "strpbrk", "stpcpy",
    "abs", "labs", "llabs", "__builtin_memcpy", "__builtin_memset",
    "__builtin_memmove", "__builtin_memcmp", "__builtin_strlen",
    "__builtin_expect", "__builtin_unreachable", "__builtin_trap",
    "__builtin_clz", "__builtin_clzl", "__builtin_clzll", "__builtin_ctz",
    "__builtin_ctzl", "__builtin_ctzll", "__builtin_popcount",
    "__builtin_popcountl", "__builtin_popcountll", "__builtin_bswap16",
    "__builtin_bswap32", "__builtin_bswap64", "__builtin_prefetch",
    "__builtin_constant_p", "__builtin_object_size", "__memcpy_chk",
    "__memset_chk", "__memmove_chk", "__strcpy_chk", "__strncpy_chk",
    "__strcat_chk", "__stpcpy_chk", "pthread_cond_signal",
    "pthread_cond_broadcast", "pthread_mutex_lock", "pthread_mutex_unlock",
    "pthread_mutex_trylock", "pthread_cond_wait", "pthread_cond_timedwait",
    "liblock_cond_timedwait", "liblock_lock",
    "liblock_unlock", "liblock_trylock", "liblock_cond_signal",
    "liblock_cond_broadcast", "liblock_cond_wait", "liblock_exec",
    "__assert_fail", "__assert_perror_fail", "abort", "toupper", "tolower",
    "isalpha", "isdigit", "isalnum", "isspace", "isupper", "islower",
    "isxdigit", "isprint", "ispunct", "iscntrl", "isgraph", "__ctype_b_loc",
    "__ctype_tolower_loc", "__ctype_toupper_loc", "htons", "htonl",
    "ntohs", "ntohl", "atomic_load_explicit", "atomic_store_explicit",
    "atomic_fetch_add_explicit", "atomic_fetch_sub_explicit",
))
# Calls that give the frame of the function they are written in: in the
# extracted function, that frame is no longer the caller's.
FRAME_CALLS = frozenset(("__builtin_frame_address",
                         "__builtin_return_address"))
# Calls through which a thread owns a mutex: a mutex with attributes
# (recursive: taken again by its owner; error-checking: checked against
# it) sees the server thread as another thread.
OWNER_CALLS = frozenset(("pthread_mutex_lock", "pthread_mutex_trylock",
                         "pthread_mutex_timedlock", "pthread_mutex_clocklock",
                         "pthread_mutex_unlock"))
_OWNED_INITIALIZERS = ("PTHREAD_RECURSIVE_MUTEX_INITIALIZER",
                       "PTHREAD_ERRORCHECK_MUTEX_INITIALIZER")
BUFFER_CALLS = frozenset(("inet_ntoa", "strerror", "strsignal"))
# C library functions that read a string argument during the call and
# keep no pointer to it: a BUFFER_CALLS result handed straight to them is
# used up on the thread that made it.
BUFFER_READERS = frozenset((
    "printf", "fprintf", "sprintf", "snprintf", "dprintf", "puts", "fputs",
    "syslog", "perror", "strcpy", "strncpy", "strcat", "strncat", "strlen",
    "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp", "strdup",
    "strndup", "memcpy", "memmove", "strchr", "strstr", "atoi", "atol",
    "strtol", "strtoul", "warn", "warnx", "err", "errx", "fwrite",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk",
    "__dprintf_chk", "__strcpy_chk", "__strncpy_chk", "__strcat_chk",
    "__strncat_chk", "__memcpy_chk", "__memmove_chk", "__syslog_chk"))
# Calls whose result depends on the calling thread when given one of these
# arguments (the tokens of the call, as written).
THREAD_ARG_CALLS = {
    # raise()'s older spelling: the process's signal, which Linux gives
    # the thread that sends it when it does not block it
    "kill": {"getpid": "kill() of its own process (the signal would go "
             "to the thread that runs the section)"},
    "tgkill": {"gettid": "tgkill() of its own thread"},
    "syscall": dict({"SYS_gettid": "gettid()", "__NR_gettid": "gettid()",
                     "SYS_getcpu": "getcpu() (the server's CPU)",
                     "__NR_getcpu": "getcpu() (the server's CPU)",
                     "SYS_tgkill": "tgkill() of its own thread",
                     "__NR_tgkill": "tgkill() of its own thread"}, **{
        # the raw calls act on the calling thread only (glibc's setuid()
        # and the like make every thread call them)
        pre + call: "the raw %s system call (it acts on the calling "
        "thread only)" % call
        for pre in ("SYS_", "__NR_")
        for call in ("setuid", "setgid", "setreuid", "setregid",
                     "setresuid", "setresgid", "setfsuid", "setfsgid",
                     "setgroups", "capset", "unshare", "setns", "prctl",
                     "seccomp", "sigaltstack", "rt_sigprocmask",
                     "sched_setaffinity", "sched_getaffinity",
                     "sched_setscheduler", "sched_setparam",
                     "sched_setattr", "ioprio_set", "set_robust_list",
                     "set_tid_address")}),
    "sigqueue": {"getpid": "sigqueue() to its own process (the signal "
                 "would go to the thread that runs the section)"},
    "clock_gettime": {"CLOCK_THREAD_CPUTIME_ID": "the thread's CPU clock"},
    "clock_getres": {"CLOCK_THREAD_CPUTIME_ID": "the thread's CPU clock"},
    "getrusage": {"RUSAGE_THREAD": "the thread's resource usage"},
    "getpriority": {"PRIO_PROCESS": "the thread's nice value "
                    "(getpriority)"},
    "setpriority": {"PRIO_PROCESS": "the thread's nice value "
                    "(setpriority)"},
}


class FrontEndError(Exception):
    """A one-line error about the front end or the compile database."""


@dataclass(frozen=True)
class Loc:
    path: str   # real path of the file
    line: int
    col: int

    def __str__(self):
        return "%s:%d" % (_display(self.path), self.line)

    def pos(self):
        return (self.line, self.col)


@dataclass
class VarDecl:
    name: str
    type: str
    storage: str          # "static", "extern", "register", "auto", "none"
    thread_local: bool
    file_scope: bool
    loc: Loc


@dataclass
class Call:
    callee: str
    key: str              # call-graph key of the callee (see _fn_key)
    loc: Loc
    noreturn: bool
    # the file that declares the callee ("" when the compiler does:
    # a builtin); says, for a function the program does not define,
    # whether it is the C library's (C_LIBRARY_HEADER)
    decl_file: str = ""


@dataclass
class IndirectCall:
    """A call through a function pointer: @ftype the canonical spelling
    of the function type it calls, None when unknown; @cast when the
    pointer went through an explicit cast (any function may be behind
    it); @node the structure field, variable or parameter the pointer
    is read from (_callee_node()), None for any other expression."""
    loc: Loc
    ftype: object
    cast: bool
    node: object = None


@dataclass
class FnAddr:
    """A function whose address a function takes (a callback handed to
    qsort(), stored in a structure, ...): whoever has it may call it."""
    callee: str
    key: str
    loc: Loc


@dataclass
class LockCall:
    """A call of a pthread mutex function through which a thread owns
    the mutex (lock, trylock, timed lock, unlock): @lock the mutex, a
    variable's name or ".field"; @text the call as written."""
    lock: str
    text: str
    loc: Loc


@dataclass
class SyncPun:
    """A conversion at @loc (@text as written) of a pointer of type
    @source into a pointer to a @kind ("mutex" or "cond"): the objects
    it may point into are @reach: a tuple of "TAG.field" ("?.field" for
    a structure without a tag) when @source points to a structure (its
    fields of that kind, at any depth), "lead" for a pointer to no
    structure (`void *`, `char *`: the fields that begin a structure,
    Unit.lead_fields, of the whole program), "all" for an address
    computed by arithmetic (any field)."""
    loc: Loc
    text: str
    kind: str
    source: str
    reach: object
    # What the converted pointer is read from: ("param", function,
    # index), ("var", real path, line, name) of a local, ("ret",
    # function) of a call's result, or None: program.sync_puns() leaves
    # a conversion of a lock handle (handles.py) to that module.
    operand: tuple = None


@dataclass
class ThreadUse:
    what: str             # "thread-local variable 'x'", "errno", ...
    loc: Loc


@dataclass
class StateUse:
    """A use of per-thread state that only matters when the program sets
    it (STATE_SETTERS): @kind "stream" (a call that takes a FILE's lock)
    or "fenv" (floating-point arithmetic, a <math.h> or <fenv.h> call)."""
    kind: str
    what: str
    loc: Loc


@dataclass
class LocalDecl:
    """A local variable or parameter of a function, as the compiler
    declares it (also when a macro's expansion declares it: rsyslog's
    `DEFiRet;` is `rsRetVal iRet = RS_RET_OK`)."""
    name: str
    type: str             # the type's spelling ("rsRetVal", "char *")
    loc: Loc              # its name (the macro's, when a macro declares it)
    is_param: bool
    has_init: bool
    storage: str          # as VarDecl.storage
    is_array: bool
    anonymous: bool       # of a structure or union type without a name
    # A parameter declared with an array type (`vec3 v`, `va_list ap`,
    # `char s[16]`): @type is the pointer it is (`long *`), None when it
    # cannot be spelled; @is_array is false.
    decayed: bool = False
    # Of a variably modified type (`char buf[n]`, `char (*p)[n]`): its
    # size is computed where it is declared, and again wherever the type
    # is written.
    variable: bool = False


def _decayed_from(t):
    """What a parameter declared with array type @t points to once it
    decays: the element type (`char s[n][4]`: `char [4]`)."""
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                  ci.TypeKind.VARIABLEARRAY):
        return t.element_type
    return t.get_pointee() if t.kind == ci.TypeKind.POINTER else t


def _variably_modified(t):
    """Whether clang type @t is variably modified: a variable-length
    array, or a pointer to or an array of one."""
    for _ in range(16):
        t = t.get_canonical()
        if t.kind == ci.TypeKind.VARIABLEARRAY:
            return True
        if t.kind == ci.TypeKind.POINTER:
            t = t.get_pointee()
        elif t.kind in (ci.TypeKind.CONSTANTARRAY,
                        ci.TypeKind.INCOMPLETEARRAY):
            t = t.element_type
        else:
            return False
    return False


@dataclass
class LocalRef:
    """A use of a local of the function (a DECL_REF_EXPR), where the
    compiler puts it after preprocessing.  @loc is where it is expanded in
    the file (the macro's name, for a use that a macro's expansion holds),
    @spell where it is spelled: a use written in the file or passed as a
    macro argument is spelled in the file's text at or after @loc; a use
    in a macro's body is not.  @access: "read", "write" (assigned),
    "rw" (++, --, op=, or a use the front end cannot classify), "addr"
    (its address, or that of a part of it, is taken: &x, &x.f)."""
    name: str
    decl: Loc
    loc: Loc
    spell: Loc
    access: str


@dataclass
class Jump:
    """A goto, return, break or continue of the function: @loc where it
    is expanded, @spell where spelled (as LocalRef), @label the goto's
    label, @target where the loop or switch a break or continue leaves
    starts and ends (expansion locations)."""
    kind: str             # "goto" | "return" | "break" | "continue"
    loc: Loc
    spell: Loc
    label: str = ""
    target: tuple = ()    # (Loc, Loc)


@dataclass
class Function:
    name: str
    key: str
    loc: Loc
    end: Loc
    is_static: bool
    noreturn: bool
    calls: list = field(default_factory=list)        # [Call]
    thread_uses: list = field(default_factory=list)  # [ThreadUse]
    addr_taken: set = field(default_factory=set)     # local names
    locals: dict = field(default_factory=dict)  # (Loc, name) -> LocalDecl
    local_refs: list = field(default_factory=list)   # [LocalRef]
    jumps: list = field(default_factory=list)        # [Jump]
    indirect: list = field(default_factory=list)     # [IndirectCall]
    fn_addrs: list = field(default_factory=list)     # [FnAddr]
    # keys of the functions whose address it takes, wherever the address
    # goes (_runs(): the targets its program's pointers may hold)
    fn_taken: set = field(default_factory=set)
    # the start routines of the threads it creates (pthread_create()):
    # they run in the same process, not in the caller (_programs())
    thread_starts: list = field(default_factory=list)  # [FnAddr]
    # (thread slot, start routine, Loc) of its pthread_create() calls and
    # (thread slot, Loc) of its pthread_cancel() calls (_thread_slot(),
    # _routine()); (callee key, {argument index: slot or routine}) of its
    # calls that pass a thread slot or a function (a wrapper's callers)
    thread_creates: list = field(default_factory=list)
    thread_cancels: list = field(default_factory=list)
    # thread slots it assigns otherwise (`t = pthread_self();`, a copy):
    # they may hold any thread (_cancel_targets())
    thread_assigns: list = field(default_factory=list)
    call_args: list = field(default_factory=list)
    lock_calls: list = field(default_factory=list)   # [LockCall]
    frame_uses: list = field(default_factory=list)   # [Call] of FRAME_CALLS
    state_uses: list = field(default_factory=list)   # [StateUse]
    # it builds a signal set that may hold SIGPIPE or SIGXFSZ
    # (_may_hold_write_signal())
    sig_write_sets: bool = False
    # every lock, trylock and unlock call of a pthread mutex, named or
    # not: (role "lock"|"unlock", LockCall.lock or "?", text, Loc)
    mutex_ops: list = field(default_factory=list)
    # Where the one call is that the body makes besides checks (see
    # _SoleCall), when it is such a body: a lock wrapper's
    # pthread_mutex_lock() behind declarations, assertions and a fatal
    # check of its result.  None otherwise.
    sole_call: object = None
    # Whether that body, as compiled, is the call alone: `CALL;` or
    # `return CALL;` (behind macros of the text, OpenLDAP's `return
    # ERRVAL(pthread_mutex_init(...));` with ERRVAL(val) `(val)`): it
    # checks nothing.
    sole_plain: bool = False
    # For such a body, the integer every return gives when it returns one
    # integer constant (a lock wrapper's `return 1;` after the call, for a
    # scoped lock macro's `for` head).  None otherwise.
    returns: object = None
    # Whether it returns void (a scope guard's `return E;` keeps its value
    # in a temporary only in a function that returns one: scoped.py)
    returns_void: bool = False
    # For a function that returns a pointer: the globals whose addresses
    # its returns give, when every return gives a null pointer or one
    # (unbound's `void *log_get_lock(void)`, `return (void *)&log_lock;`),
    # else None (_pointer_returns())
    pointer_returns: frozenset = None

    def contains(self, path, line):
        return path == self.loc.path and \
            self.loc.line <= line <= self.end.line


@dataclass
class MacroUse:
    name: str
    loc: Loc
    defn: Loc = None  # where the expanded #define is (None: built in)


@dataclass(frozen=True)
class MacroField:
    """A mutex or condition field declared by an object-like macro's
    body (libuv's UV_LOOP_PRIVATE_FIELDS declares the loop's wq_mutex):
    where its type is spelled in the #define, and the structure whose
    body expands the macro."""
    type_loc: Loc         # the type name token in the #define
    type_name: str        # its text (pthread_mutex_t, uv_mutex_t, ...)
    field: str
    tag: str              # "" when the structure has no name the tool
    #                       keys fields by (an anonymous one)
    kind: str             # "mutex" | "cond"
    macro: str
    define: Loc           # the #define
    # A function-like macro (`#define lws_pthread_mutex(name)
    # pthread_mutex_t name;`): the invocation in the structure's body,
    # (start, end) Locs, which is rewritten there, as the #define
    # declares other fields too; None for an object-like macro.
    call: tuple = None
    # the array bounds of such a macro's field, the invocation's arguments
    # put in (SPLASH-2's `#define ALOCKDEC(a, n) pthread_mutex_t a[n];`,
    # ALOCKDEC(celllock, NCELL): "[NCELL]")
    bounds: str = ""


@dataclass
class Command:
    """One entry of compile_commands.json, as the front end uses it."""
    file: str             # real path of the source
    directory: str
    flags: list           # preprocessor and language flags, paths absolute
    forced: list          # -include FILE (absolute when found)


@dataclass
class Unit:
    path: str
    command: Command
    decls: list = field(default_factory=list)      # [VarDecl]
    functions: dict = field(default_factory=dict)  # key -> Function
    macros: list = field(default_factory=list)     # [MacroUse]
    # Names of the macros expanded in the unit whose expansion reads the
    # line number (__LINE__, __builtin_LINE(), also through the macros
    # they expand: assert(), a program's TRACE()).
    line_macros: set = field(default_factory=set)
    files: set = field(default_factory=set)        # every file it reads
    errors: list = field(default_factory=list)     # "file:line: msg"
    # "file:line" of the first `#error` directive the preprocessor reached
    # (a file of another platform or configuration), else None.
    error_directive: str = None
    # Mutexes: "name" of a global, ".name" of a structure field.
    mutex_decls: dict = field(default_factory=dict)  # name -> [(Loc, storage)]
    # named in code, defined: "m", ".field", and "TAG.field" or "?.field"
    # (see _field_use); "local m" for a mutex local to a function
    mutex_uses: set = field(default_factory=set)
    # (Loc of the member name, field, structure tag) of every x.f / x->f
    # naming a mutex or condition field: the structure as the compiler
    # knows it, through macros and function results.
    member_refs: list = field(default_factory=list)
    # (Loc of the member name, field, kind) of every x.f / x->f whose
    # field f is named like a mutex or condition field of the unit, kind
    # "mutex", "cond" or "other" (the field the compiler resolved is of
    # another type: struct sem lock beside pthread_mutex_t lock).
    field_refs: list = field(default_factory=list)
    # (real path, line) -> {(kind, "TAG.field")} of the mutex and
    # condition fields that a brace initialiser gives a value there, as
    # the compiler reads it (a macro's body at the line of its use: h2o's
    # `H2O_BARRIER_INITIALIZER(n)` in a positional initialiser of an
    # anonymous structure).
    sync_inits: dict = field(default_factory=dict)
    # Names of the mutex and condition fields the unit declares.
    sync_fields: set = field(default_factory=set)
    # Typedef names of the program (not of system headers) that are
    # pthread_mutex_t or pthread_cond_t, through any chain of typedefs:
    # name -> "mutex" | "cond".
    sync_types: dict = field(default_factory=dict)
    macro_fields: list = field(default_factory=list)  # [MacroField]
    # What the preprocessor skipped in each file (real path) with this
    # unit's flags: a cparse.Skipped.
    skipped: dict = field(default_factory=dict)
    # Functions whose address is taken anywhere in the unit (a function
    # body or a static initialiser): the possible targets of a call
    # through a pointer.  key -> (name, canonical function type, erased:
    # the address went through an explicit cast, so its type says
    # nothing).
    addr_funcs: dict = field(default_factory=dict)
    # Where function addresses go (see _flow_of()): (source,
    # destination) pairs, a source ("fn", key) or a node (a pointer: a
    # structure field, _field_node(); a variable, _var_node(); a
    # parameter of function pointer type, ("param", function key,
    # index)), a destination a node or "esc" (anywhere: a return value,
    # a call through a pointer, through a pointer, ...); and ("pun",
    # record USR) pairs, a cast between pointers to two structures (each
    # one's fields may be read as the other's).
    flows: set = field(default_factory=set)
    # Mutexes (as LockCall.lock) initialised with attributes (a
    # pthread_mutex_init() whose second argument is not a null pointer)
    # or a recursive, error-checking or adaptive static initialiser:
    # which thread owns them matters (a recursive one is taken again by
    # its owner, an error-checking one fails for another thread).
    owned_locks: dict = field(default_factory=dict)  # name -> (Loc, how)
    # kind -> (name, Loc) of the first call that sets that per-thread
    # state (STATE_SETTERS)
    state_set: dict = field(default_factory=dict)
    # Conversions of a pointer to something else into a pointer to a
    # mutex or condition (`(pthread_mutex_t *)obj`, a `void *` argument
    # handed to pthread_mutex_lock()): [SyncPun].  The lock behind such
    # a pointer has no name the tool can read.
    sync_puns: list = field(default_factory=list)
    # (kind, "TAG.field") of the mutex and condition fields that begin
    # their structure (the first field; any field of a union): a pointer
    # to the structure is also a pointer to them.
    lead_fields: set = field(default_factory=set)
    # (tag, function, Loc) of the structures (and those they hold by
    # value) whose memory the unit gives back, the function that does and
    # where: a pointer to one passed to free(), realloc() or a function
    # named for freeing (xfree(), mosquitto__free()).
    freed_tags: set = field(default_factory=set)
    # Tags of the structures whose pointers the unit stores in a `void *`
    # (a generic container's slot: `l->items[n] = obj`), and whether it
    # gives back memory it cannot type: free() of a `void *`, or the
    # address of free() or of a function named for freeing handed out
    # (`lst.destroy = free`, g_hash_table_new_full(..., g_free)).
    void_tags: set = field(default_factory=set)
    frees_untyped: bool = False
    # ("tag", T) of the structures thread-local variables hold by value
    # and ("var", name) of thread-local mutexes: each thread has its copy
    # of the lock in them.
    tls_locks: set = field(default_factory=set)

    def _index(self):
        """(macros by file and by line, macros by name, member_refs and
        field_refs by line and field) of the unit, built on the first question: the
        lists are complete once parse() returns, and every question asked
        of each of Tor's 973 units was a walk of them."""
        ix = self.__dict__.get("_ix")
        if ix is None:
            at, named, members, kinds = {}, {}, {}, {}
            for m in self.macros:
                at.setdefault((m.loc.path, m.loc.line), []).append(m)
                at.setdefault(m.loc.path, []).append(m)
                named.setdefault(m.name, []).append(m)
            for loc, f, t in self.member_refs:
                members.setdefault((loc.path, loc.line, f), []).append(
                    (loc, t))
            for loc, f, k in self.field_refs:
                kinds.setdefault((loc.path, loc.line, f), []).append(
                    (loc, k))
            ix = self.__dict__["_ix"] = (at, named, members, kinds)
        return ix

    def macro_uses(self, name):
        """The MacroUses of macro @name."""
        return self._index()[1].get(name, ())

    def macros_in(self, path):
        """The MacroUses of @path."""
        return self._index()[0].get(path, ())

    def macros_at(self, path, line):
        """Macros expanded on @line of @path."""
        return [m.name for m in self._index()[0].get((path, line), ())]

    def member_owner(self, path, line, fieldname, col=None):
        """Tag of the structure whose field @fieldname is named on @line
        of @path (at column @col when given: a macro expanded there,
        where libclang places the member its body names), when all such
        uses there agree; else None."""
        tags = {t for loc, t in self._index()[2].get(
                    (path, line, fieldname), ())
                if col in (None, loc.col)}
        if len(tags) != 1 or "()" in tags:
            return None  # several, or reached through a call
        return tags.pop()

    def macro_member_tags(self, path, line, name, fieldname):
        """Tags of the structures whose field @fieldname the expansions
        (in this unit) of macro @name, defined on @line of @path, name in
        the tokens of its body, as the compiler resolved them ("" for a
        field that is no mutex or condition); None when an expansion
        names no such field or one the compiler could not tie to a
        named structure.  The member a macro body names sits where the
        outermost expansion is (libclang's expansion location)."""
        tags = set()
        _, named, members, fkinds = self._index()
        for m in named.get(name, ()):
            if m.defn is None or (m.defn.path, m.defn.line) != (path, line):
                continue
            at = (m.loc.path, m.loc.line, fieldname)
            kinds = [k for loc, k in fkinds.get(at, ()) if loc == m.loc]
            owners = [t for loc, t in members.get(at, ()) if loc == m.loc]
            locks = [k for k in kinds if k != "other"]
            if not kinds or len(owners) != len(locks) or "()" in owners:
                return None
            tags.update(owners)
            if len(locks) < len(kinds):
                tags.add("")
        return tags

    def member_kinds(self, path, line, col, fieldname):
        """Kinds ("mutex", "cond", "other") of the fields named
        @fieldname at (@line, @col) of @path as the compiler resolved
        them (every use on the line when none starts at @col: a macro
        expansion); an empty set when the unit has none there."""
        on_line = self._index()[3].get((path, line, fieldname), ())
        exact = {k for loc, k in on_line if loc.col == col}
        return exact or {k for _, k in on_line}

    def function_at(self, path, line):
        for fn in self.functions.values():
            if fn.contains(path, line):
                return fn
        return None


_ROOT = [None]


def _display(path):
    root = _ROOT[0]
    if root:
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            return rel
    return path


def display(path):
    """@path as the tool names files: relative to the program's root."""
    return _display(path)


def set_display_root(root):
    _ROOT[0] = os.path.realpath(root)


def load():
    """The libclang bindings, loaded; FrontEndError says what to install."""
    if ci is None:
        raise FrontEndError("libclang's Python bindings (clang.cindex) are "
                            "missing from this Python; install "
                            "python3-clang-16 or set PYTHON3")
    try:
        return ci.Index.create()
    except Exception as first:  # noqa: BLE001 - the bindings raise plain ones
        for lib in [os.environ.get("RCL_LIBCLANG", "")] + \
                list(LIBCLANG_CANDIDATES):
            if lib and os.path.exists(lib):
                try:
                    ci.Config.set_library_file(lib)
                    return ci.Index.create()
                except Exception:  # noqa: BLE001
                    continue
        raise FrontEndError("cannot load libclang (%s); install libclang-16 "
                            "or set RCL_LIBCLANG" % first)


# -- the compile database ---------------------------------------------------
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include",
               "-imacros")
_DROP_WITH_ARG = ("-o", "-MF", "-MT", "-MQ", "-x", "--serialize-diagnostics")
_DROP = ("-c", "-S", "-E", "-MD", "-MMD", "-MP", "-M", "-MM", "-pipe")
# Options whose value is the next argument, kept with it: that value does
# not start with '-' and would be dropped as a stray word, leaving the
# option to swallow the next flag (Tor's `--param ssp-buffer-size=1
# -fPIE` became `--param -fPIE`, which gcc refuses).
_KEEP_WITH_ARG = ("--param", "-Xclang", "-Xpreprocessor", "-Xassembler",
                  "-Xlinker", "-mllvm", "-target", "-arch", "-aux-info")


def load_compdb(build_dir):
    """[Command] of BUILD_DIR/compile_commands.json (C sources only)."""
    path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.isdir(build_dir):
        raise FrontEndError("-p %s: no such directory" % build_dir)
    try:
        with open(path) as fh:
            data = json.load(fh)
    except OSError:
        raise FrontEndError("-p %s: no compile_commands.json there (make one "
                            "with `bear -- make` or CMake's "
                            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" % build_dir)
    except ValueError as e:
        raise FrontEndError("%s: not valid JSON: %s" % (path, e))
    if not isinstance(data, list):
        raise FrontEndError("%s: expected a list of commands" % path)
    out, seen = [], set()
    for n, ent in enumerate(data):
        if not isinstance(ent, dict) or "file" not in ent or \
                "directory" not in ent or not (ent.get("arguments") or
                                               ent.get("command")):
            raise FrontEndError("%s: entry #%d lacks file, directory or "
                                "command/arguments" % (path, n))
        d = ent["directory"]
        if not os.path.isabs(d):
            d = os.path.join(build_dir, d)
        src = ent["file"] if os.path.isabs(ent["file"]) else \
            os.path.join(d, ent["file"])
        if not src.endswith(".c"):
            continue
        src = os.path.realpath(src)
        if src in seen:
            continue  # built twice (static and shared): one is enough
        seen.add(src)
        argv = ent.get("arguments") or shlex.split(ent["command"])
        flags, forced = _flags(argv[1:], d, src)
        out.append(Command(src, os.path.realpath(d), flags, forced))
    return out


def _flags(args, directory, src):
    """The flags of a compiler command line that matter to parsing: the
    output, dependency and source arguments dropped, paths made absolute
    (a forced include is searched first in the command's directory)."""
    flags, forced = [], []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a in _DROP:
            continue
        if a in _DROP_WITH_ARG:
            i += 1
            continue
        if a in _KEEP_WITH_ARG:
            flags += args[i - 1:i + 1]
            i += 1
            continue
        if any(a.startswith(x) and len(a) > len(x) for x in ("-o", "-MF",
                                                             "-MT", "-MQ")):
            continue
        if not a.startswith("-") and os.path.realpath(
                os.path.join(directory, a)) == src:
            continue
        for pf in _PATH_FLAGS:
            if a == pf or (a.startswith(pf) and pf in ("-I",)):
                val = a[len(pf):] if a != pf else (args[i] if i < len(args)
                                                   else "")
                if a == pf:
                    i += 1
                cand = os.path.join(directory, val)
                if pf in ("-include", "-imacros"):
                    if os.path.isfile(cand):
                        val = os.path.realpath(cand)
                    if pf == "-include":
                        forced.append(val)
                else:
                    val = os.path.normpath(cand)
                flags += [pf, val]
                break
        else:
            if a.startswith("-"):
                flags.append(a)
    return flags, forced


def command_for(cmds, path):
    rp = os.path.realpath(path)
    for c in cmds:
        if c.file == rp:
            return c
    return None


def single_command(path, includes, defines, undefs, macro_files):
    """A Command for a file named without -p: -I/-D/-U of the command
    line, the --macro-file definitions after the file's own (see
    parse())."""
    flags = ["-std=gnu11", "-pthread"]
    for d in includes:
        flags += ["-I", os.path.abspath(d)]
    flags += ["-D" + d for d in defines] + ["-U" + u for u in undefs]
    flags += ["-I", os.path.dirname(os.path.abspath(path))]
    return Command(os.path.realpath(path),
                   os.path.dirname(os.path.realpath(path)), flags,
                   [os.path.abspath(m) for m in macro_files])


# -- parsing -----------------------------------------------------------------
def parse(index, cmd):
    """Unit of @cmd, read from the files on disk (_extent_text() reads
    them too)."""
    args = list(cmd.flags)
    if "-pthread" not in args:
        args.append("-pthread")
    # gcc's warning options clang does not know (-Wlogical-op): libclang's
    # driver would print a line for each on every unit
    args.append("-Wno-unknown-warning-option")
    # libclang reads -include FILE as the driver does; a file it cannot
    # find is reported as an error of the unit below.
    for f in cmd.forced:
        if "-include" not in args or f not in args:
            args += ["-include", f]
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    try:
        tu = index.parse(cmd.file, args=args, options=opts)
    except ci.TranslationUnitLoadError:
        # A flag of another compiler clang refuses: keep those that say
        # what the code means (paths, macros, forced includes, language).
        keep, i = [], 0
        while i < len(args):
            a = args[i]
            if a in _PATH_FLAGS:
                keep += args[i:i + 2]
                i += 2
                continue
            if a.startswith(("-I", "-D", "-U", "-std=", "-pthread")):
                keep.append(a)
            i += 1
        try:
            tu = index.parse(cmd.file, args=keep, options=opts)
        except ci.TranslationUnitLoadError as e:
            raise FrontEndError("%s: libclang cannot parse it (%s)" % (
                _display(cmd.file), e))
    unit = Unit(cmd.file, cmd)
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error:
            loc = d.location
            where = "%s:%d" % (_display(_real(loc.file.name)),
                               loc.line) if loc.file else _display(cmd.file)
            unit.errors.append("%s: %s" % (where, d.spelling))
            if unit.error_directive is None and loc.file and \
                    _is_error_directive(loc.file.name, loc.line):
                unit.error_directive = where
    files = {cmd.file: tu.get_file(cmd.file)}
    for inc in tu.get_includes():
        unit.files.add(_real(inc.include.name))
        files.setdefault(_real(inc.include.name), inc.include)
    unit.files.add(cmd.file)
    for path, fobj in files.items():
        if not path.startswith(("/usr/include/", "/usr/lib/")):
            unit.skipped[path] = _skipped_lines(tu, fobj)
    _Walker(unit).run(tu.cursor)
    return unit


_BUILD_FILES = ("GNUmakefile", "makefile", "Makefile", "build.ninja")


def build_texts(cmds, paths):
    """The logical lines (continuations joined, comments dropped:
    automake comments out what a conditional left off) of the build
    files of the directories the commands of @cmds ran in and of the
    directories of @paths: make's Makefiles, CMake's per-target
    build.make, Ninja's build.ninja.  Empty when there is none (a build
    this cannot read)."""
    dirs = {c.directory for c in cmds} | {os.path.dirname(p)
                                          for p in paths}
    names = set()
    for d in sorted(dirs):
        names |= {os.path.join(d, n) for n in _BUILD_FILES}
        cm = os.path.join(d, "CMakeFiles")
        if os.path.isdir(cm):
            for t in sorted(os.listdir(cm)):
                names.add(os.path.join(cm, t, "build.make"))
    out = []
    for n in sorted(names):
        try:
            with open(n, errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for ln in re.sub(r"\\\n", " ", text).split("\n"):
            if ln.strip() and not ln.lstrip().startswith("#"):
                out.append(ln)
    return out


_OBJ_SUFFIX = r"\.(?:c\.)?(?:o|lo|obj|\$\(OBJEXT\))(?![\w.])"
_ASSIGN = re.compile(r"\s*(?:export\s+|override\s+)?([\w.${}()-]+)\s*"
                     r"(?:[:+?!]|::)?=")
_RULE = re.compile(r"(?:build\s+)?([^\t:=][^:=]*?)\s*:{1,2}(?!=)(.*)")


def built_by(lines, path):
    """Whether the build files' logical lines @lines (build_texts())
    build the C file @path: a variable (not a distribution list, whose
    name says DIST) or a rule's prerequisites name it or its object
    (`x.o`, libtool's `x.lo`, automake's `prog-x.$(OBJEXT)`, CMake's and
    Ninja's `x.c.o`), or a recipe of a rule that makes something else
    than its object compiles it.  The rule that makes its object from it
    says nothing: automake writes one for every source, of configured
    targets or not (collectd's write_riemann_threshold.c, of a plugin
    left off, is named only there and in EXTRA_DIST)."""
    stem = re.escape(os.path.splitext(os.path.basename(path))[0])
    pre = r"(?:^|[\s/=:\"'-])"
    name = re.compile(pre + stem + r"(?:\.c\b|" + _OBJ_SUFFIX + ")")
    own = re.compile(pre + stem + _OBJ_SUFFIX)
    targets = None  # of the rule whose recipe the lines are
    for ln in lines:
        if ln.startswith("\t"):
            if targets is not None and \
                    not all(own.search(" " + t) for t in targets) and \
                    name.search(ln):
                return True
            continue
        m = _ASSIGN.match(ln)
        if m and not _RULE.match(ln[:m.end() - 1]):
            if "DIST" not in m.group(1) and name.search(ln[m.end():]):
                return True
            targets = None
            continue
        m = _RULE.match(ln)
        if m is None:
            targets = None
            continue
        targets = m.group(1).split()
        if not all(own.search(" " + t) for t in targets) and \
                name.search(" " + m.group(2)):
            return True
    return False


def _is_error_directive(path, line):
    """Whether line @line of @path is an `#error` directive."""
    try:
        with open(path, errors="replace") as fh:
            for n, text in enumerate(fh, 1):
                if n == line:
                    return bool(re.match(r"\s*#\s*error\b", text))
    except OSError:
        pass
    return False


# A worker is worth starting for this many units: each spends about a
# tenth of a second importing the bindings and the driver, a unit of a
# real program (xz's) a fifth to half a second in libclang and the walk.
UNITS_PER_JOB = 2


def parse_all(index, cmds, jobs, tolerant=False):
    """The Units of @cmds, in order, parsed by up to @jobs processes.

    Each worker parses a contiguous run of the commands, in order, so the
    facts of a definition shared by several units (_FN_FACTS) come from
    the first of its run that reads it: the same on every run with the
    same number of jobs.  Workers are spawned, not forked: libclang may
    have threads of its own in this process.  @tolerant: a unit libclang
    cannot parse is None instead of a FrontEndError."""
    jobs = min(jobs, len(cmds) // UNITS_PER_JOB)
    if jobs <= 1:
        return _parse_run(None, cmds, tolerant, index)
    n = len(cmds)
    runs = [cmds[i * n // jobs:(i + 1) * n // jobs] for i in range(jobs)]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as ex:
        parts = list(ex.map(_parse_run, [_ROOT[0]] * jobs, runs,
                            [tolerant] * jobs))
    return [u for part in parts for u in part]


def _parse_run(root, cmds, tolerant, index=None):
    """parse_all()'s worker: the Units of @cmds."""
    if index is None:
        set_display_root(root)
        index = load()
    out = []
    for c in cmds:
        try:
            out.append(parse(index, c))
        except FrontEndError:
            if not tolerant:
                raise
            out.append(None)
    return out


# How many files under the program's tree stray_commands() reads at most,
# and how deep a tree must be to be looked through at all (a database
# whose sources share only "/" or "/home" names no project).
STRAY_FILES_MAX = 20000
STRAY_ROOT_DEPTH = 2


def stray_commands(cmds, names):
    """Commands for the C files of the program's tree that @cmds (the
    compilation database) does not list, but whose text names one of
    @names (identifiers: a global lock, or a lock field): a test program
    the database's build target did not compile (unbound's
    testcode/unitanchor.c, built only by `make unittest`, unlocks
    `&ta->lock`).  Each is read with the command of its nearest neighbour
    in the database (the unit whose directory shares the longest path
    with its own), which is how the same build would compile it.  The
    tree is the directory holding every unit of the database; files
    under hidden directories are not read.  Returns (commands, the root
    when more than STRAY_FILES_MAX files were there and the others were
    not read, else None)."""
    if not cmds or not names:
        return [], None
    listed = {c.file for c in cmds}
    dirs = sorted({os.path.dirname(c.file) for c in cmds})
    root = os.path.commonpath(dirs)
    if root.count(os.sep) < STRAY_ROOT_DEPTH:
        return [], None
    word = re.compile(r"\b(?:%s)\b" % "|".join(
        re.escape(n) for n in sorted(names)))
    out, seen = [], 0
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
        for n in sorted(files):
            if not n.endswith(".c"):
                continue
            seen += 1
            if seen > STRAY_FILES_MAX:
                return out, root
            path = os.path.realpath(os.path.join(d, n))
            if path in listed:
                continue
            try:
                with open(path, errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if not word.search(text):
                continue
            near = _neighbour(cmds, path, text)
            out.append(Command(path, near.directory, list(near.flags),
                               list(near.forced)))
    return out, None


def _neighbour(cmds, path, text):
    """The command of @cmds to read the file @path (text @text) with:
    the one whose -I directories find most of the headers it includes
    with quotes, then the one whose unit's directory shares the longest
    path with its own, then the first (zstd's tests/poolTests.c, in a
    directory with no unit, includes "pool.h": programs/' command finds
    it in lib/common, lib/'s first one does not)."""
    here = os.path.dirname(path)
    wanted = re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', text, re.M)
    found = {}

    def score(c):
        dirs = [c.flags[i + 1] for i, a in enumerate(c.flags[:-1])
                if a in ("-I", "-iquote", "-isystem", "-idirafter")]
        key = tuple(dirs)
        if key not in found:
            found[key] = sum(
                1 for h in wanted
                if os.path.isfile(os.path.join(here, h)) or any(
                    os.path.isfile(os.path.join(d, h)) for d in dirs))
        return (found[key], len(os.path.commonpath(
            [here, os.path.dirname(c.file)])))
    return max(cmds, key=score)


def preprocess_alone(path, includes, defines, undefs):
    """How the preprocessor reads the file @path given -I/-D/-U: (where,
    skipped), @where the `#error` directive it reaches in the file or a
    header it includes ("file:line", else None), @skipped the lines of
    @path it skips (cparse.Skipped).  A file that says it is not for this
    configuration (Tor's compat_mutex_winthreads.c, `#error "orconfig.h
    didn't define WINVER"`) is not part of this build; other errors (a
    header the build generates later, not found) say nothing of the
    kind.  None when libclang cannot read the file."""
    cmd = single_command(path, includes, defines, undefs, [])
    index = load()
    # The detailed record keeps the skipped ranges.
    opts = ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | \
        ci.TranslationUnit.PARSE_INCOMPLETE | \
        ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    try:
        tu = index.parse(cmd.file, args=cmd.flags + [
            "-Wno-unknown-warning-option"], options=opts)
    except ci.TranslationUnitLoadError:
        return None
    where = None
    for d in tu.diagnostics:
        loc = d.location
        if d.severity >= ci.Diagnostic.Error and loc.file is not None and \
                _is_error_directive(loc.file.name, loc.line):
            where = "%s:%d" % (_display(_real(loc.file.name)), loc.line)
            break
    return where, _skipped_lines(tu, tu.get_file(cmd.file))


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint),
                ("ranges", ctypes.POINTER(ci.SourceRange) if ci else
                 ctypes.c_void_p)]


def _skipped_lines(tu, fobj):
    """cparse.Skipped of file @fobj of @tu: the lines the preprocessor
    skipped (strictly between the directives that open and close each
    skipped range) and the lines of the directives that open one
    (clang_getSkippedRanges)."""
    lib = ci.conf.lib
    fn = lib.clang_getSkippedRanges
    fn.argtypes = [ci.TranslationUnit, ci.File]
    fn.restype = ctypes.POINTER(_RangeList)
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
    rl = fn(tu, fobj)
    lines, starts = set(), set()
    try:
        for i in range(rl.contents.count):
            r = rl.contents.ranges[i]
            starts.add(r.start.line)
            lines.update(range(r.start.line + 1, r.end.line))
    finally:
        lib.clang_disposeSourceRangeList(rl)
    return Skipped(lines, starts)


LINE_NAMES = ("__LINE__", "__builtin_LINE")


def _line_macros(names, defs):
    """Those of macros @names whose expansion reads the line number: a
    body (@defs: name -> MACRO_DEFINITION cursor) that names __LINE__ or
    __builtin_LINE, or a macro that does, transitively."""
    memo = {}

    def reads(name):
        if name not in memo:
            memo[name] = False  # a macro does not expand itself again
            d = defs.get(name)
            body = [t.spelling for t in d.get_tokens()][1:] if d else []
            memo[name] = any(t in LINE_NAMES or t != name and t in defs and
                             reads(t) for t in body)
        return memo[name]
    return {n for n in names if reads(n)}


def _loc(cur):
    loc = cur.location
    if loc.file is None:
        return None
    return Loc(_real(loc.file.name), loc.line, loc.column)


def _spelling_loc(cur):
    """Where the token of @cur is spelled: its argument's place in the
    file for a macro argument, the expansion's place (as _loc) for a token
    of a macro's body (libclang's clang_getSpellingLocation does not go
    into the #define)."""
    lib = ci.conf.lib
    fn = lib.clang_getSpellingLocation
    fn.argtypes = [ci.SourceLocation, ctypes.POINTER(ci.c_object_p),
                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(
                       ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    fn.restype = None
    f, line, col, off = ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), \
        ctypes.c_uint()
    fn(cur.location, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col),
       ctypes.byref(off))
    if not f:
        return None
    name = ci.File(f).name
    return Loc(_real(name), line.value, col.value)


def _has_init(cur):
    """Whether the VarDecl @cur has an initialiser."""
    fn = ci.conf.lib.clang_Cursor_getVarDeclInitializer
    fn.argtypes = [ci.Cursor]
    fn.restype = ci.Cursor
    init = fn(cur)
    return not ci.conf.lib.clang_Cursor_isNull(init)


def _canon(t):
    return t.get_canonical().spelling


_ARRAY_KINDS = ("CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY",
                "DEPENDENTSIZEDARRAY")


def _param_array(cur):
    """Whether @cur, a PARM_DECL, is declared with an array type (`long
    v[3]`, or a typedef of one: `vec3 v`, `uuid_t id`, `va_list ap`):
    libclang gives that type as written, but the parameter is a pointer
    to the element (C11 6.7.6.3p7)."""
    return cur.kind == ci.CursorKind.PARM_DECL and \
        cur.type.get_canonical().kind.name in _ARRAY_KINDS


def _decayed_type(t):
    """The type spelling of a parameter declared with the array type @t:
    a pointer to the element, spelled with the element's own name (`long
    *` for `vec3`), or through __typeof__ when that name cannot be
    written (gcc's `__va_list_tag`, an element of array or anonymous
    type): `__typeof__(**(va_list *)0) *`."""
    u, elem = t, None
    for _ in range(32):
        if u.kind.name in _ARRAY_KINDS:
            elem = u.element_type.spelling
            break
        if u.kind == ci.TypeKind.ELABORATED:
            u = u.get_named_type()
        elif u.kind == ci.TypeKind.TYPEDEF:
            u = u.get_declaration().underlying_typedef_type
        else:
            break
    if elem is None or "__va_list_tag" in elem or any(
            c in elem for c in "([") or "unnamed" in elem or \
            "anonymous" in elem:
        if "[" in t.spelling or "(" in t.spelling:
            return None
        return "__typeof__(**(%s *)0) *" % t.spelling
    quals = [q for q, on in (("const", t.is_const_qualified()),
                             ("volatile", t.is_volatile_qualified()))
             if on and q not in elem.split()]
    return " ".join(quals + [elem, "*"])


def _access(chain):
    """How the DECL_REF_EXPR at the end of @chain ([(cursor, index of the
    next one among its children)], outermost first, the reference last)
    uses its variable: see LocalRef.access.  A parameter declared with an
    array type is the pointer it really is: its value read, not an
    array's address taken."""
    K = ci.CursorKind
    i = len(chain) - 1
    cur = chain[i][0]
    ref = cur.referenced
    parm = ref is not None and _param_array(ref)
    decayed = False  # a member array of it, as a pointer
    while i > 0:
        par, pos = chain[i - 1]
        if par.kind == K.PAREN_EXPR or (par.kind == K.MEMBER_REF_EXPR and
                                        not decayed):
            # (x), x.f: still the variable's own storage; x.f with f an
            # array is the array (its decay below).
            cur, i = par, i - 1
            continue
        if par.kind == K.UNEXPOSED_EXPR and cur.kind == K.MEMBER_REF_EXPR \
                and cur.type.get_canonical().kind in (
                    ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY) \
                and par.type.get_canonical().kind == ci.TypeKind.POINTER:
            decayed = True
            cur, i = par, i - 1
            continue
        if decayed and par.kind == K.ARRAY_SUBSCRIPT_EXPR and pos == 0:
            cur, i, decayed = par, i - 1, False  # x.arr[i]: an element
            continue
        break
    if i == 0:
        return "rw"
    par, pos = chain[i - 1]
    if decayed:
        # x.arr as a pointer: into the variable's own storage, which the
        # pointer may reach after the use (char *w = r.tag;)
        return "addr"
    if par.kind == K.UNEXPOSED_EXPR:
        # An implicit conversion: its value (lvalue to rvalue), or the
        # address of an array (the variable is one: it travels by
        # pointer anyway).
        t = cur.type.get_canonical().kind
        return "addr" if t in (ci.TypeKind.CONSTANTARRAY,
                               ci.TypeKind.INCOMPLETEARRAY,
                               ci.TypeKind.VARIABLEARRAY) and not parm \
            else "read"
    if par.kind == K.UNARY_OPERATOR:
        pt = par.type.get_canonical()
        if pt.kind == ci.TypeKind.POINTER and \
                _canon(pt.get_pointee()) == _canon(cur.type):
            return "addr"
        if parm and pt.kind == ci.TypeKind.POINTER and \
                pt.get_pointee().kind == ci.TypeKind.POINTER and \
                _canon(pt.get_pointee().get_pointee()) == \
                _canon(cur.type.get_canonical().element_type):
            return "addr"  # &v: the pointer's address
        return "rw"  # ++, --
    if par.kind == K.BINARY_OPERATOR and pos == 0:
        return "write"  # x = ... (a comma's left side: as good as one)
    if par.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and pos == 0:
        return "rw"
    if par.kind in (K.CXX_UNARY_EXPR, K.CSTYLE_CAST_EXPR):
        return "read"  # sizeof x, alignof x, (void)x
    return "rw"


def _hash_key(cur):
    """A key that names expression @cur (its extent and kind)."""
    e = cur.extent
    return (e.start.file.name if e.start.file else "", e.start.offset,
            e.end.offset, cur.kind.value)


def _end(cur):
    e = cur.extent.end
    if e.file is None:
        return None
    return Loc(_real(e.file.name), e.line, e.column)


def _fn_key(cur):
    """Call-graph key: the name for external functions (one program-wide
    definition), file and name for static ones."""
    if cur.storage_class == ci.StorageClass.STATIC:
        loc = _loc(cur)
        return "%s:%s" % (loc.path if loc else "?", cur.spelling)
    return cur.spelling


# Whether the declaration at (file, offset) is no-return, for every unit
# of the run: a header's declarations are the same in each unit that reads
# it with the same flags, and reading their attributes' tokens was most of
# the front end's time on xz (99 units parsed, 24,615 declarations, 282
# distinct).  A system header's are the same under any flags.
_NORETURN_AT = {}


def _is_noreturn(cur, config=None):
    """Whether the function declared at @cur never returns.  @config, the
    flags of the unit read (hashable), lets the answer be reused by the
    other units read with the same flags."""
    if cur is None:
        return False
    if cur.spelling in NORETURN_NAMES:
        return True
    if cur.spelling in PROCESS_ENDS:
        return False
    if _in_system_header(cur):
        config = ()
    elif config is None:
        return _noreturn_decl(cur)
    loc = cur.location
    key = (config, loc.file.name if loc.file else None, loc.offset,
           cur.spelling)
    got = _NORETURN_AT.get(key)
    if got is None:
        got = _NORETURN_AT[key] = _noreturn_decl(cur)
    return got


def _noreturn_decl(cur):
    if "noreturn" in cur.type.spelling:
        return True
    for ch in cur.get_children():
        # C11's _Noreturn and [[noreturn]] are attributes libclang does
        # not expose (those it exposes, visibility or pure, are others).
        # Their text where they are written, not their tokens: libclang
        # tokenizes the whole extent, which was most of the front end's
        # time on xz's 99 units.
        if ch.kind == ci.CursorKind.UNEXPOSED_ATTR and \
                _NORETURN_WORD.search(_extent_text(ch)):
            return True
    return False


_NORETURN_WORD = re.compile(rb"\b(?:_Noreturn|noreturn|__noreturn__)\b")


@functools.lru_cache(maxsize=64)
def _file_bytes(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _extent_text(cur):
    """The bytes of @cur's extent in its file (a macro's use, for an
    attribute a macro expands to), its last token taken as a word."""
    e = cur.extent
    f = e.start.file
    if f is None or e.end.file is None or e.end.file.name != f.name:
        return b""
    data = _file_bytes(f.name)
    a, b = e.start.offset, max(e.start.offset, e.end.offset)
    return data[a:_WORD.match(data, b).end()]


_WORD = re.compile(rb"\w*")


def _call_text(call, name):
    """The text of call @call of function @name, for a message: its
    tokens; `name(...)` when they are not the call's alone (the extent of
    a call that a macro's expansion makes may span the whole function
    around it: lmdb's UNLOCK_MUTEX())."""
    toks = [t.spelling for t in call.get_tokens()]
    if not toks or len(toks) > 40 or any(t in (";", "{", "}")
                                         for t in toks):
        return name + "(...)"
    return "".join(toks)


def _mutex_named(call, n):
    """The mutex that argument @n of @call names (as LockCall.lock): a
    variable's name, or ".field"; None otherwise."""
    args = list(call.get_arguments())
    if len(args) <= n:
        return None
    K = ci.CursorKind
    for c in args[n].walk_preorder():
        ref = c.referenced if c.kind in (K.DECL_REF_EXPR,
                                         K.MEMBER_REF_EXPR) else None
        if ref is None or not _is_mutex_type(ref.type):
            continue
        if ref.kind == K.FIELD_DECL:
            return "." + ref.spelling
        if ref.kind == K.VAR_DECL:
            return ref.spelling
    return None


def _null_pointer(arg):
    """Whether the expression @arg is a null pointer constant (NULL, 0,
    (void *)0): it names no object and calls nothing (an attribute
    object is named: &attr, attrp, make_attr())."""
    K = ci.CursorKind
    return not any(x.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR,
                              K.CALL_EXPR, K.ARRAY_SUBSCRIPT_EXPR)
                   for x in arg.walk_preorder())


def _pointee_fn_type(t):
    """Canonical spelling of the function type a callee expression of
    type @t calls, or None."""
    t = t.get_canonical()
    if t.kind == ci.TypeKind.POINTER:
        t = t.get_pointee().get_canonical()
    if t.kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO):
        return t.spelling
    return None


def _storage(cur):
    sc = cur.storage_class
    return {ci.StorageClass.STATIC: "static",
            ci.StorageClass.EXTERN: "extern",
            ci.StorageClass.REGISTER: "register",
            ci.StorageClass.AUTO: "auto"}.get(sc, "none")


def _is_mutex_type(t):
    t = t.get_canonical()
    while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        t = t.element_type.get_canonical()
    return t.spelling in ("pthread_mutex_t", "union pthread_mutex_t") or \
        t.spelling.endswith("pthread_mutex_t")


def _initialized_fields(init, out, at):
    """Add to @out the names of the mutex fields (".name") that brace
    initialiser @init (an INIT_LIST_EXPR) gives a value, by position or
    by designator, in nested structures and arrays of them: the unit
    writes their initialisers (`struct stats st = { PTHREAD_MUTEX_
    INITIALIZER, 0 }` where the header declares the structure).  Append
    to @at (Loc of the value, kind, "TAG.field") of each mutex and
    condition field of a structure with a name."""
    K = ci.CursorKind
    t = init.type.get_canonical()
    fields = list(t.get_fields()) if t.kind == ci.TypeKind.RECORD else None
    i = 0
    for ch in init.get_children():
        val, desig = ch, None
        if ch.kind == K.UNEXPOSED_EXPR:  # .f = v, .f.g = v, [n] = v
            kids = list(ch.get_children())
            refs = [x for x in kids if x.kind == K.MEMBER_REF]
            if refs and fields is not None:
                names = [f.spelling for f in fields]
                if refs[0].spelling in names:
                    i = names.index(refs[0].spelling)
            if refs:
                desig = refs[-1].spelling
            if len(kids) > 1:
                val = kids[-1]
        fld = fields[i] if fields is not None and i < len(fields) else None
        kind = "mutex" if _is_mutex_type(val.type) or (
            fld is not None and _is_mutex_type(fld.type)) else "cond" \
            if fld is not None and _sync_kind(fld.type) == "cond" else None
        if kind:
            name = desig or (fld.spelling if fld is not None else None)
            if name:
                use = _field_use(t.get_declaration() if fld is not None and
                                 fld.spelling == name else None, name)
                if kind == "mutex":
                    out.update(("." + name, use))
                loc = _loc(val)
                if loc is not None and not use.startswith("?."):
                    at.append((loc, kind, use))
        elif val.kind == K.INIT_LIST_EXPR:
            _initialized_fields(val, out, at)
        i += 1


def _is_sync_type(t):
    t = t.get_canonical()
    while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        t = t.element_type.get_canonical()
    return t.spelling.endswith(("pthread_mutex_t", "pthread_cond_t"))


def _is_sync_ptr(t):
    """A pointer to a mutex or condition (rsyslog's `pthread_mutex_t *mut`
    field): whose structure a field access names matters as much."""
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and _is_sync_type(t.get_pointee())


def _is_mutex_ptr(t):
    """A pointer to a mutex."""
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and _is_mutex_type(t.get_pointee())


def _sync_kind(t):
    """"mutex", "cond" or "other": what a field of type @t is."""
    if _is_mutex_type(t):
        return "mutex"
    return "cond" if _is_sync_type(t) else "other"


def _field_kind(t):
    """What a field of type @t names for Unit.member_kinds(): a pointer to
    a mutex or condition (a pointer key, `pthread_mutex_t *lock`) is of
    its pointee's kind."""
    t = t.get_canonical()
    if t.kind == ci.TypeKind.POINTER and _is_sync_type(t.get_pointee()):
        return _sync_kind(t.get_pointee())
    return _sync_kind(t)


# A call whose result is fresh memory, not a pointer into an object of
# the program: a `pthread_mutex_t *m = xmalloc(sizeof *m)` hands out no
# lock.  The C library's allocators and any function named for
# allocating (xmalloc, g_malloc0, zalloc, my_calloc), or declared with
# __attribute__((malloc)).
_FRESH_CALL = re.compile(r"alloc|^mmap$|^strn?dup$")


def _fresh_memory(call):
    fn = _called_function(call)
    if fn is None:
        return False
    if _FRESH_CALL.search(fn.spelling.lower()):
        return True
    return any(c.kind == ci.CursorKind.UNEXPOSED_ATTR and
               b"malloc" in _extent_text(c) for c in fn.get_children())


def _sync_fields_of(rec, kind, out, depth=0):
    """Add to @out the "TAG.field" of every field of @kind in the
    structure or union type @rec, in nested structures and arrays of
    them too."""
    for f in rec.get_fields():
        if _sync_kind(f.type) == kind:
            out.add(_field_use(f.semantic_parent, f.spelling))
            continue
        et = _element(f.type)
        if et.kind == ci.TypeKind.RECORD and depth < 8:
            _sync_fields_of(et, kind, out, depth + 1)


def _sync_pun(cast):
    """The SyncPun fields (kind, source, reach) of conversion @cast (an
    explicit cast, or a CursorKind.UNEXPOSED_EXPR, clang's implicit
    conversion) when it turns a pointer to something other than a mutex
    or condition into a pointer to one; None otherwise, and for a null
    pointer or fresh memory (_fresh_memory())."""
    K = ci.CursorKind
    t = cast.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    kind = _sync_kind(t.get_pointee())
    if kind == "other":
        return None
    kids = list(cast.get_children())
    if not kids:
        return None
    src = kids[-1].type.get_canonical()
    if src.kind in (ci.TypeKind.POINTER, ci.TypeKind.CONSTANTARRAY,
                    ci.TypeKind.INCOMPLETEARRAY):
        inner = src.get_pointee() if src.kind == ci.TypeKind.POINTER \
            else src
        if _sync_kind(inner) == kind:
            return None  # one of the same kind, or an array of them
    e = _bare(kids[-1])
    if _null_pointer(e) or (e.kind == K.CALL_EXPR and _fresh_memory(e)):
        return None
    et = e.type.get_canonical()
    source = kids[-1].type.spelling
    if e.kind not in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.CALL_EXPR,
                      K.ARRAY_SUBSCRIPT_EXPR, K.UNARY_OPERATOR) or \
            et.kind != ci.TypeKind.POINTER:
        return kind, source, "all", None
    rec = et.get_pointee().get_canonical()
    if rec.kind == ci.TypeKind.RECORD:
        out = set()
        _sync_fields_of(rec, kind, out)
        return (kind, source, tuple(sorted(out)), None) if out else None
    return kind, source, "lead", _operand(e)


def _operand(e):
    """SyncPun.operand of expression @e."""
    K = ci.CursorKind
    ref = e.referenced if e.kind in (K.DECL_REF_EXPR, K.CALL_EXPR) \
        else None
    if ref is None:
        return None
    if e.kind == K.CALL_EXPR:
        return ("ret", ref.spelling) if ref.kind == K.FUNCTION_DECL \
            else None
    fn = ref.semantic_parent
    if ref.kind == K.PARM_DECL and fn is not None and \
            fn.kind == K.FUNCTION_DECL:
        params = [c for c in fn.get_children() if c.kind == K.PARM_DECL]
        for i, c in enumerate(params):
            if c == ref:
                return "param", fn.spelling, i
        return None
    loc = _loc(ref)
    if ref.kind == K.VAR_DECL and loc is not None and fn is not None and \
            fn.kind == K.FUNCTION_DECL:
        return "var", loc.path, loc.line, ref.spelling
    return None


# Functions that give back memory: free(), realloc() and reallocarray()
# that of their first argument; any other named for freeing, that of its
# one argument (xfree(), g_free(), mosquitto__free()) or of its last,
# after the allocator it goes back to (xfsprogs' kmem_cache_free(cache,
# obj), ngx_pfree(pool, p), g_slice_free1(size, mem)).  Taking an object
# that is not given back for freed refuses its locks (Program.
# _undestroyed_fields()); missing one leaks a converted lock's memory
# with each object.
_FREES = re.compile(r"^(?:free|realloc|reallocarray)$")
_FREES_ONE = re.compile(r"free$", re.I)


def _held_tags(t):
    """For a pointer type @t: the tags of the structure or union it points
    to and of those that structure holds by value (fields, arrays of
    them), recursively; empty for any other type (void *)."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return set()
    return _record_tags(t.get_pointee())


def _is_void_ptr(t):
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and \
        t.get_pointee().get_canonical().kind == ci.TypeKind.VOID


def _record_tags(t):
    """The tags of structure or union type @t (or of an array of one) and
    of those it holds by value, recursively."""
    out, todo = set(), [t]
    while todo:
        r = todo.pop().get_canonical()
        while r.kind in (ci.TypeKind.CONSTANTARRAY,
                         ci.TypeKind.INCOMPLETEARRAY):
            r = r.element_type.get_canonical()
        if r.kind != ci.TypeKind.RECORD:
            continue
        tag = re.sub(r"^(?:const |volatile )*(?:struct|union) ", "",
                     r.spelling)
        if tag in out:
            continue
        out.add(tag)
        todo.extend(fl.type for fl in r.get_fields())
    return out


def _bare(e):
    """@e under casts, parentheses and implicit conversions (a cast's
    operand is its last child, after the type's)."""
    K = ci.CursorKind
    while e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
        kids = list(e.get_children())
        if not kids:
            break
        e = kids[-1]
    return e


def _param_index(ref, fn):
    """The index of parameter @ref among @fn's, or None."""
    if ref is None or ref.kind != ci.CursorKind.PARM_DECL or \
            ref.semantic_parent != fn:
        return None
    params = [c for c in fn.get_children()
              if c.kind == ci.CursorKind.PARM_DECL]
    return next((i for i, c in enumerate(params) if c == ref), None)


def _pointer_returns(cur):
    """The names of the globals whose addresses function @cur returns,
    when each of its returns gives a null pointer constant or the address
    of a mutex or condition declared outside any function (casts and
    parentheses aside), else None.  The address of a structure that holds
    one is None: a pointer to it points to its first field."""
    K = ci.CursorKind
    out = set()
    for st in cur.walk_preorder():
        if st.kind != K.RETURN_STMT:
            continue
        kids = list(st.get_children())
        if len(kids) != 1:
            return None
        e = _bare(kids[0])
        if _null_pointer(e):
            continue
        tok = next(iter(e.get_tokens()), None)
        ops = list(e.get_children())
        if e.kind != K.UNARY_OPERATOR or tok is None or \
                tok.spelling != "&" or len(ops) != 1:
            return None
        ref = _bare(ops[0])
        var = ref.referenced if ref.kind == K.DECL_REF_EXPR else None
        if var is None or var.kind != K.VAR_DECL or \
                var.semantic_parent is None or \
                var.semantic_parent.kind != K.TRANSLATION_UNIT or \
                _sync_kind(var.type) == "other":
            return None
        out.add(var.spelling)
    return frozenset(out)


def _thread_slot(e, fn):
    """Where a thread's id lives, from a pthread_create() first argument
    (`&w->tid`, `&tids[i]`, `tids + i`) or a pthread_cancel() one
    (`w->tid`, `tids[i]`): ("field", name), ("var", USR), ("param",
    index) of function @fn, ("self",) for pthread_self(), or None."""
    K = ci.CursorKind
    e = _bare(e)
    if e.kind == K.UNARY_OPERATOR:
        kids = list(e.get_children())
        tok = next(iter(e.get_tokens()), None)
        if len(kids) == 1 and tok is not None and tok.spelling == "&":
            e = _bare(kids[0])
    while e.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.BINARY_OPERATOR):
        kids = list(e.get_children())
        if not kids:
            return None
        e = _bare(kids[0])
    if e.kind == K.MEMBER_REF_EXPR and e.referenced is not None:
        return "field", e.referenced.spelling
    if e.kind == K.CALL_EXPR and e.referenced is not None and \
            e.referenced.spelling == "pthread_self":
        return ("self",)
    if e.kind == K.DECL_REF_EXPR and e.referenced is not None:
        i = _param_index(e.referenced, fn)
        if i is not None:
            return "param", i
        if e.referenced.kind == K.VAR_DECL:
            return "var", e.referenced.get_usr() or e.referenced.spelling
    return None


def _routine(e, fn):
    """A thread's start routine, from pthread_create()'s third argument:
    ("fn", key), ("param", index) of function @fn, or None."""
    K = ci.CursorKind
    e = _bare(e)
    if e.kind == K.UNARY_OPERATOR:
        kids = list(e.get_children())
        if len(kids) == 1:
            e = _bare(kids[0])
    ref = e.referenced if e.kind == K.DECL_REF_EXPR else None
    if ref is not None and ref.kind == K.FUNCTION_DECL:
        return "fn", _fn_key(ref)
    i = _param_index(ref, fn)
    return ("param", i) if i is not None else None


def _field_use(rec, name):
    """How Unit.mutex_uses names a use of the mutex field @name of the
    structure @rec (a cursor, or None): "TAG.field" as --locks names it,
    "?.field" when the structure has no tag (its key is then a typedef's
    name, or OUTER.member): any selected "X.field" may be it."""
    return "%s.%s" % (_record_name(rec) or "?", name)


def names_at(units, sites):
    """{(file name, line): names} of the mutexes that the code at each of
    @sites ((file name, line), as rcl-prof names a lock) refers to: a
    member of a structure with a tag ("TAG.field"), or a mutex defined at
    file scope."""
    out = {}
    for u in units:
        for loc, fld, tag in u.member_refs:
            at = (os.path.basename(loc.path), loc.line)
            if at in sites and tag != "()":
                out.setdefault(at, set()).add("%s.%s" % (tag, fld))
        for name, decls in u.mutex_decls.items():
            for loc, _ in decls if not name.startswith(".") else ():
                at = (os.path.basename(loc.path), loc.line)
                if at in sites:
                    out.setdefault(at, set()).add(name)
    return out


def _record_name(rec):
    """The name rcl-refactor gives a structure: its tag, else the name of
    the typedef of the anonymous structure; None when it has neither."""
    if rec is None or rec.kind not in (ci.CursorKind.STRUCT_DECL,
                                       ci.CursorKind.UNION_DECL):
        return None
    name = rec.spelling
    if name and "(" not in name and " " not in name:
        return name
    return None


def _float_header(ref):
    """Whether the function @ref is declared by <math.h>, <complex.h> or
    <fenv.h> (glibc declares most of it in bits/mathcalls.h): its result
    may depend on the thread's floating-point environment."""
    f = ref.location.file
    if f is None:
        return False
    base = os.path.basename(f.name)
    return base in ("math.h", "fenv.h", "complex.h", "tgmath.h") or \
        base.startswith("mathcalls")


# Library functions whose function-pointer argument starts a thread: it
# runs there, not in the caller's section.
THREAD_STARTS = frozenset(("pthread_create", "thrd_create"))
# glibc's pthread_cleanup_push() and pthread_cleanup_pop() expand to
# calls of its unwinder, which a report names by the macro the user wrote.
_UNWINDS = {"__pthread_unwind_next": "__pthread_unwind_next() of "
            "pthread_cleanup_push", "__pthread_unwind": "__pthread_unwind() "
            "of pthread_cleanup_push"}


def _element(t):
    """Canonical type @t, or its elements' for an array (of arrays)."""
    t = t.get_canonical()
    while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        t = t.element_type.get_canonical()
    return t


def _is_fn_pointer(t):
    """Whether type @t is a pointer to a function, or an array of them."""
    t = _element(t)
    return t.kind == ci.TypeKind.POINTER and \
        t.get_pointee().get_canonical().kind in (
            ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def _is_pointer(t):
    """Whether type @t is a pointer (to anything: a function's address
    converted to void * is one), or an array of them."""
    return _element(t).kind == ci.TypeKind.POINTER


def _fn_shape(ftype):
    """(kind of result, number of parameters) of the canonical function
    type spelled @ftype ("void *(void *)"), the number None for a
    variadic or unprototyped one; None when the spelling is not that
    simple (a function returning a function pointer)."""
    if not ftype.endswith(")"):
        return None
    depth = 0
    for i in range(len(ftype) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(ftype[i], 0)
        if depth == 0:
            break
    ret, params = ftype[:i].strip(), ftype[i + 1:-1].strip()
    if not ret or "(" in ret:
        return None
    kind = "pointer" if ret.endswith("*") else "void" if ret == "void" \
        else "float" if ret.split()[-1] in ("float", "double") \
        else "record" if ret.startswith(("struct ", "union ")) \
        else "integer"
    args, depth, cur = [], 0, ""
    for ch in params:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur.strip())
    if not args or "..." in args:
        return (kind, None)
    return (kind, 0 if args == ["void"] else len(args))


def _shapes_agree(call, fn):
    """Whether a function of canonical type @fn may be called through a
    pointer of type @call that does not match it: the cast a program
    writes to call a function stored as `void *` or as another type
    changes what its parameters point to (uv's `(uv_async_cb)queue_cb`),
    not how many there are or what kind of value comes back, which
    would make the call undefined; so a comparison function's call
    (`int (const void *, const void *)`) does not reach a thread's start
    routine (`void *(void *)`).  Unknown shapes agree."""
    a, b = _fn_shape(call), _fn_shape(fn)
    if a is None or b is None:
        return True
    if a[0] != b[0]:
        return False
    return a[1] is None or b[1] is None or a[1] == b[1]


def _field_node(fd):
    """The node of field @fd: ("field", USR of its structure, name); a
    union's members are one node (each may be read as another)."""
    rec = fd.semantic_parent
    usr = rec.get_usr() if rec is not None else ""
    if rec is not None and rec.kind == ci.CursorKind.UNION_DECL:
        return ("field", usr, "")
    return ("field", usr, fd.spelling)


def _stored_field(fd):
    """Where a function stored into field @fd goes: the field's node, or
    anywhere ("esc") for a structure of a system header, whose library
    may call it (fopencookie()'s cookie_io_functions_t, sigaction)."""
    return "esc" if _in_system_header(fd) else _field_node(fd)


def _var_node(ref):
    """The node of variable @ref (a VAR_DECL of pointer type): ("var",
    its USR), the same in every unit for a global."""
    return ("var", ref.get_usr())


def _callee_node(e, params):
    """The node (a field, a variable, or one of @params: cursor hash ->
    node) whose pointer callee expression @e calls: s->fn(x),
    (*s->fn)(x), s->fns[i](x), ops[i](x), cb(x) for a parameter cb;
    None for any other."""
    K = ci.CursorKind
    while True:
        kids = list(e.get_children())
        if e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.UNARY_OPERATOR,
                      K.CSTYLE_CAST_EXPR) and kids:
            e = kids[-1]
        elif e.kind == K.ARRAY_SUBSCRIPT_EXPR and kids:
            e = kids[0]
        else:
            break
    ref = e.referenced
    if ref is None:
        return None
    if e.kind == K.MEMBER_REF_EXPR and ref.kind == K.FIELD_DECL and \
            _is_pointer(ref.type):
        return _field_node(ref)
    if e.kind == K.DECL_REF_EXPR:
        if ref.kind == K.VAR_DECL and _is_pointer(ref.type):
            return _var_node(ref)
        return params.get(ref.hash)
    return None


def _record_pun(cast, operand):
    """(USR, USR) of the two structures when explicit cast @cast turns a
    pointer to one into a pointer to another, else None.  Not when one
    begins with the other (its first member, at any depth): a pointer
    to the container and one to its first member reach the same fields
    under the same names (OpenLDAP's `OpExtraSync` begins with the
    `OpExtra` its list links)."""
    def rec(t):
        t = t.get_canonical()
        if t.kind != ci.TypeKind.POINTER:
            return None
        d = t.get_pointee().get_canonical().get_declaration()
        if d is None or d.kind not in (ci.CursorKind.STRUCT_DECL,
                                       ci.CursorKind.UNION_DECL):
            return None
        return d

    def begins_with(outer, inner):
        usr = inner.get_usr()
        for _ in range(8):
            first = next((f for f in outer.get_children()
                          if f.kind == ci.CursorKind.FIELD_DECL), None)
            if first is None:
                return False
            outer = first.type.get_canonical().get_declaration()
            if outer is None or outer.kind not in (
                    ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL):
                return False
            if outer.get_usr() == usr:
                return True
        return False
    a, b = rec(operand.type), rec(cast.type)
    if a is None or b is None:
        return None
    ua, ub = a.get_usr(), b.get_usr()
    if not ua or not ub or ua == ub or begins_with(a, b) or \
            begins_with(b, a):
        return None
    return ua, ub


def _binary_op(cur, lhs, rhs):
    """The spelling of binary operator @cur, whose operands are @lhs and
    @rhs: the first token between them; None when the tokens do not say
    (a macro's expansion).  Only that gap is read: the extent of an
    operator that a macro's expansion makes may span a whole function."""
    a, b = lhs.extent.end, rhs.extent.start
    if a.file is None:
        return None
    if b.file is None or b.file.name != a.file.name:
        b = cur.extent.end  # x = NULL: NULL's extent is in <stddef.h>
    if b.file is None or a.file.name != b.file.name or \
            not 0 < b.offset - a.offset <= 256:
        return None
    tu = cur.translation_unit
    # file locations (the ends of a macro's use are not, and the range
    # would give no token)
    rng = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(tu, a.file, a.offset),
        ci.SourceLocation.from_offset(tu, b.file, b.offset))
    for t in tu.get_tokens(extent=rng):
        if t.extent.start.offset >= a.offset:
            return t.spelling if t.kind == ci.TokenKind.PUNCTUATION \
                else None
    return None


# Operators whose result says nothing of where a function's address goes
# (a comparison, arithmetic on a converted integer, a test).
_NO_FLOW_OPS = frozenset((
    "==", "!=", "<", ">", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%",
    "&", "|", "^", "<<", ">>"))


def _init_field(il, i):
    """The field that element @i of initialiser list @il (of a structure
    or union) initialises, or None when it cannot be told (brace
    elision, a designator after positions, a nested designator)."""
    K = ci.CursorKind
    kids = list(il.get_children())
    el = kids[i]
    if el.kind == K.UNEXPOSED_EXPR:
        parts = list(el.get_children())
        refs = [x for x in parts if x.kind == K.MEMBER_REF]
        if refs:
            if len(refs) != 1 or parts[0] != refs[0]:
                return None
            return refs[0].referenced
    d = il.type.get_canonical().get_declaration()
    if d is None:
        return None
    fields = [f for f in d.get_children() if f.kind == K.FIELD_DECL]
    if d.kind == K.UNION_DECL:
        return fields[0] if i == 0 and fields else None
    if i >= len(fields):
        return None
    for f, x in zip(fields, kids[:i + 1]):
        if x.kind == K.UNEXPOSED_EXPR and \
                any(y.kind == K.MEMBER_REF for y in x.get_children()):
            return None
        ft = f.type.get_canonical()
        if ft.kind in (ci.TypeKind.RECORD, ci.TypeKind.ELABORATED,
                       ci.TypeKind.CONSTANTARRAY,
                       ci.TypeKind.INCOMPLETEARRAY) and \
                x.type.get_canonical() != ft and \
                x.kind != K.INIT_LIST_EXPR:
            return None  # braces elided: the positions shift
    return fields[i]


def _flow_of(cur, up, params):
    """Where the value of expression @cur goes, read from its parents
    (@up: (parent cursor, index of the child, the parent's link)), and
    whether an explicit cast is on the way: ("call", _) called there,
    the callee by name (_called_function()); ("calledvia", _) called
    there through an expression (`(c ? f : g)(x)`, `((fn_t)f)(x)`);
    ("none", _) compared, tested, converted to a number, discarded or
    written; ("lib", _) handed to a function of the C library (or a
    system library) in a parameter of function pointer type, which may
    call it but not hand it back; ("start", _) handed to one that starts
    a thread with it (THREAD_STARTS); (NODE, _) stored into a pointer (a
    structure field, a variable) or handed to a parameter of function
    pointer type of a function of the program; ("esc", _) anywhere
    else."""
    K = ci.CursorKind
    cast = False
    direct = True  # only parentheses, conversions, * and & on the way
    first = True  # @cur's own parent
    while up is not None:
        par, i, up = up
        k = par.kind
        if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            first = False  # (also a designated initialiser's .f = VALUE)
            continue
        if k == K.CALL_EXPR:
            if i == 0:
                return ("call" if direct else "calledvia"), cast
            ref = par.referenced
            if ref is None or ref.kind != K.FUNCTION_DECL:
                return "esc", cast
            args = list(ref.get_arguments())
            if i - 1 >= len(args) or not _is_fn_pointer(args[i - 1].type):
                return "esc", cast
            if _in_system_header(ref):
                if _is_fn_pointer(ref.result_type):
                    return "esc", cast  # signal() hands the old one back
                return ("start" if ref.spelling in THREAD_STARTS
                        else "lib"), cast
            return ("param", _fn_key(ref), i - 1), cast
        if k == K.CSTYLE_CAST_EXPR:
            t = par.type.get_canonical().kind
            if t == ci.TypeKind.VOID:
                return "none", cast
            cast = True
            direct = False
            first = False
            continue
        if k == K.UNARY_OPERATOR:
            tok = next(iter(par.get_tokens()), None)
            op = tok.spelling if tok is not None else None
            if op == "*" or (op == "&" and cur.kind == K.DECL_REF_EXPR and
                             cur.referenced is not None and
                             cur.referenced.kind == K.FUNCTION_DECL and
                             first):
                first = False
                continue
            if op in ("!", "-", "~", "+", "++", "--"):
                return "none", cast
            return "esc", cast  # &s->fn: the field's address
        if k == K.CONDITIONAL_OPERATOR:
            if i == 0 and len(list(par.get_children())) == 3:
                return "none", cast
            direct = False
            first = False
            continue
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            if i != 0:
                return "none", cast
            direct = False
            first = False
            continue
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return "none", cast
        if k == K.BINARY_OPERATOR:
            kids = list(par.get_children())
            op = _binary_op(par, kids[0], kids[1]) if len(kids) == 2 \
                else None
            if op == ",":
                if i == 0:
                    return "none", cast
                direct = False
                first = False
                continue
            if op in _NO_FLOW_OPS:
                return "none", cast
            if op != "=":
                return "esc", cast
            if i == 0:
                return "none", cast  # written
            lhs = _strip(kids[0])
            ref = lhs.referenced
            if lhs.kind == K.MEMBER_REF_EXPR and ref is not None and \
                    ref.kind == K.FIELD_DECL and _is_pointer(ref.type):
                return _stored_field(ref), cast
            if lhs.kind == K.DECL_REF_EXPR and ref is not None and \
                    ref.hash in params:
                return params[ref.hash], cast
            if lhs.kind == K.DECL_REF_EXPR and ref is not None and \
                    ref.kind == K.VAR_DECL and _is_pointer(ref.type):
                return _var_node(ref), cast
            return "esc", cast
        if k == K.INIT_LIST_EXPR:
            t = par.type.get_canonical()
            if t.kind in (ci.TypeKind.CONSTANTARRAY,
                          ci.TypeKind.INCOMPLETEARRAY):
                first = False
                continue  # an element of an array: as the array
            fd = _init_field(par, i)
            if fd is not None and fd.kind == K.FIELD_DECL and \
                    _is_pointer(fd.type):
                return _stored_field(fd), cast
            return "esc", cast
        if k == K.MEMBER_REF_EXPR:
            return "none", cast  # the object whose member is read
        if k == K.VAR_DECL and _is_pointer(par.type):
            return _var_node(par), cast
        if k == K.RETURN_STMT or k == K.VAR_DECL:
            return "esc", cast
        if k == K.COMPOUND_STMT and up is not None and \
                up[0].kind.name == "StmtExpr":
            return "esc", cast  # ({ ...; VALUE; }) (any statement of it)
        if k.is_statement() or k == K.FUNCTION_DECL or \
                k.name in ("CXX_UNARY_EXPR",):
            return "none", cast  # an expression statement, a test, sizeof
        return "esc", cast
    return "esc", cast


def _in_system_header(cur):
    loc = cur.location
    try:
        fn = ci.conf.lib.clang_Location_isInSystemHeader
        fn.argtypes = [ci.SourceLocation]
        fn.restype = ci.c_int
        return bool(fn(loc))
    except AttributeError:
        return loc.file is not None and \
            loc.file.name.startswith(("/usr/include/", "/usr/lib/"))


# Calls a check of a wrapper's result may make and go on: reporting only
# (a check whose branch ends the process may call anything first).
REPORT_CALLS = frozenset((
    "fprintf", "printf", "fputs", "puts", "perror", "fputc", "putc",
    "fwrite", "fflush", "vfprintf", "vprintf", "dprintf", "syslog",
    "vsyslog", "strerror", "strerror_r", "__fprintf_chk", "__printf_chk",
    "__vfprintf_chk", "__vprintf_chk", "__dprintf_chk", "__syslog_chk",
    "__vsyslog_chk", "__builtin_expect"))
# The pthread calls that give 0 whenever the program is correct (not a
# trylock, a timed call or an init): a wrapper's check of one may give up
# (_SoleCall._gives_up()), as that code never runs.
GIVE_ZERO = frozenset(("pthread_mutex_lock", "pthread_mutex_unlock",
                       "pthread_mutex_destroy", "pthread_cond_wait",
                       "pthread_cond_signal", "pthread_cond_broadcast",
                       "pthread_cond_destroy"))
# An init may fail (memory): a wrapper that checks one and gives up is
# read only to be named in the refusal, "checks the result of
# pthread_mutex_init()" (find.CHECKED_API: never followed), not taken
# for a use of the lock the tool does not understand.
CHECKED_INITS = frozenset(("pthread_mutex_init", "pthread_cond_init"))
# The branch hints of a condition: no call, a hint to the compiler.
_HINTS = frozenset(("__builtin_expect", "__builtin_expect_with_probability"))


class _SoleCall:
    """The one call a function body makes besides checks, as the
    compiler sees it after preprocessing: Tor's tor_mutex_acquire()

        int err;
        raw_assert(m);
        err = pthread_mutex_lock(&m->mutex);
        if (PREDICT_UNLIKELY(err)) { log...; abort(); }

    makes pthread_mutex_lock() and checks.  Besides the call (a statement,
    the initialiser of a local, the value assigned to a local, the
    condition of a check, or the value returned), the body may only
    declare locals (without an initialiser that calls or writes),
    assert or test without side effects (assert() expands to a test
    whose failing branch ends the process), silence a local ((void)r),
    check with an `if` whose branches end the process (a no-return or
    abort() call last, after anything: a report) or only report
    (REPORT_CALLS), and return nothing, a local (the result) or an
    integer constant.  find() gives the CALL_EXPR, or None for
    any other body."""

    def __init__(self, cur, noreturn_keys):
        self.cur, self.noreturn_keys = cur, noreturn_keys
        self.call = None
        self.ok = True

    def find(self):
        body = [c for c in self.cur.get_children()
                if c.kind == ci.CursorKind.COMPOUND_STMT]
        if len(body) != 1:
            return None
        stmts = list(body[0].get_children())
        if not stmts or not self._stmts(stmts, True):
            return None
        return self.call if self.ok else None

    # -- statements --------------------------------------------------------
    def _stmts(self, stmts, top):
        """Statements of the body (@top: the call may be among them, and
        a return end them) or of a check (no call but hints), through do
        { } while (0) and, in a check, blocks."""
        K = ci.CursorKind
        for n, s in enumerate(stmts):
            k = s.kind
            if k == K.NULL_STMT:
                continue
            if k == K.COMPOUND_STMT and not top:
                ok = self._stmts(list(s.get_children()), False)
            elif k == K.DECL_STMT:
                ok = all(self._decl(d, top) for d in s.get_children())
            elif k == K.IF_STMT:
                kids = list(s.get_children())
                ok = self._expr(kids[0], top) and \
                    all(self._branch(b) for b in kids[1:])
                if ok and any(not self._stmts([b], False) and
                              not self._dies(b) for b in kids[1:]):
                    # a branch that reports and goes on: dropped with
                    # the call, so only on the call's failure, which
                    # liblock's calls never report
                    ok = self._on_result(kids[0])
            elif k == K.RETURN_STMT and top:
                ok = n == len(stmts) - 1 and self._returns(s)
            elif k == K.DO_STMT:
                kids = list(s.get_children())
                ok = len(kids) == 2 and _zero(kids[1]) and (
                    kids[0].kind == K.COMPOUND_STMT and
                    self._stmts(list(kids[0].get_children()), True)
                    if top else self._stmts([kids[0]], False))
            elif k.is_expression():
                ok = self._expr(s, top)
            else:
                ok = False
            if not ok:
                return False
        return self.ok

    def _returns(self, ret):
        """Whether return statement @ret gives nothing, the call's result
        or a constant: a wrapper that returns anything else (a pointer to
        what the lock guards) is more than a lock."""
        K = ci.CursorKind
        kids = list(ret.get_children())
        r = _strip(kids[0]) if kids else None
        return r is None or r.kind == K.INTEGER_LITERAL or \
            r.kind == K.DECL_REF_EXPR and self._local(r) or \
            r.kind == K.CALL_EXPR and self._expr(r, True) or \
            self._pure(r, ()) and _int_value(r) is not None

    def returned(self):
        """After find() gave the call: the integer the function returns
        on every path that returns, when its body's one return statement
        is its last and gives an integer constant (converted to the
        function's integer result type, as the caller sees it); the other
        paths are checks that end the process.  None otherwise: no
        return, several, a value that is not a constant, a result type
        that is not an integer."""
        K = ci.CursorKind
        body = [c for c in self.cur.get_children()
                if c.kind == K.COMPOUND_STMT]
        if len(body) != 1:
            return None
        rets = [x for x in body[0].walk_preorder()
                if x.kind == K.RETURN_STMT]
        flat = [x for x in self._flat(body[0]) if x.kind != K.NULL_STMT]
        if len(rets) != 1 or not flat or flat[-1] != rets[0]:
            return None
        kids = list(rets[0].get_children())
        rt = self.cur.result_type.get_canonical()
        if len(kids) != 1 or rt.kind not in _INT_TYPES or \
                not self._pure(kids[0], ()):
            return None
        return _int_value(kids[0])

    def _decl(self, d, top):
        K = ci.CursorKind
        if d.kind != K.VAR_DECL:
            return d.kind in (K.TYPE_REF, K.STRUCT_DECL, K.UNION_DECL,
                              K.ENUM_DECL)
        if d.storage_class in (ci.StorageClass.STATIC,
                               ci.StorageClass.EXTERN):
            return False
        if not _has_init(d):
            return True
        init = [c for c in d.get_children() if c.kind.is_expression()]
        return len(init) == 1 and self._expr(init[-1], top)

    def _branch(self, b):
        """A branch of a check: nothing, checks, a report, the end of
        the process, or giving up (on the call's failure only: see
        _stmts())."""
        return self._stmts([b], False) or self._dies(b) or \
            self._reports(b) or self._gives_up(b)

    def _gives_up(self, b):
        """Whether branch @b reports and returns: statements without
        jumps (calls of anything, as before an abort()), then a `return`
        of nothing or of an integer constant (lrzip's `fatal_return(("Failed
        to pthread_mutex_lock\\n"), false)`: the program's error function,
        then `return false;`).  Only a branch taken when the call fails
        may do this (the caller checks _on_result()): locking a plain
        mutex gives 0, so it never runs, as liblock's calls never fail
        on a correct program."""
        K = ci.CursorKind
        if self.call is None or _callee(self.call) not in GIVE_ZERO and \
                _callee(self.call) not in CHECKED_INITS:
            return False  # a trylock's EBUSY is no failure
        flat = [s for s in self._flat(b) if s.kind != K.NULL_STMT]
        if not flat or flat[-1].kind != K.RETURN_STMT:
            return False
        kids = list(flat[-1].get_children())
        if kids and not (self._pure(kids[0], ()) and
                         _int_value(kids[0]) is not None):
            return False
        for s in flat[:-1]:
            if not s.kind.is_expression() and s.kind != K.DECL_STMT:
                return False
            if any(x.kind in (K.GOTO_STMT, K.RETURN_STMT, K.BREAK_STMT,
                              K.CONTINUE_STMT, K.INDIRECT_GOTO_STMT)
                   for x in s.walk_preorder()):
                return False
        return True

    def _flat(self, s):
        """The statements of @s, through blocks, do { } while (0) and a
        statement expression used as a statement, (void)({ ... }) (Tor's
        STMT_BEGIN and STMT_END under GCC)."""
        K = ci.CursorKind
        if s.kind == K.COMPOUND_STMT:
            return [x for c in s.get_children() for x in self._flat(c)]
        if s.kind == K.DO_STMT:
            kids = list(s.get_children())
            if len(kids) == 2 and _zero(kids[1]):
                return self._flat(kids[0])
        e = s
        while e.kind in (K.CSTYLE_CAST_EXPR, K.PAREN_EXPR, K.UNEXPOSED_EXPR):
            kids = [c for c in e.get_children() if c.kind != K.TYPE_REF]
            if len(kids) != 1:
                break
            e = kids[0]
        if e.kind.name == "StmtExpr":
            kids = list(e.get_children())
            if len(kids) == 1 and kids[0].kind == K.COMPOUND_STMT:
                return self._flat(kids[0])
        return [s]

    def _dies(self, b):
        """Whether branch @b ends the process: its last statement calls
        a no-return function (abort(), exit(), assert's failure, one
        declared noreturn); the statements before it are calls, checks
        or tests (a report, privoxy's `if (mutex != &log_mutex)
        log_error(...);`), without jumps."""
        K = ci.CursorKind
        flat = [s for s in self._flat(b) if s.kind != K.NULL_STMT]
        if not flat:
            return False
        last = _strip(flat[-1])
        if last.kind != K.CALL_EXPR or not self._ends(last):
            return False
        for s in flat[:-1]:
            if not s.kind.is_expression() and s.kind not in (
                    K.DECL_STMT, K.IF_STMT, K.COMPOUND_STMT):
                return False
            if any(x.kind in (ci.CursorKind.GOTO_STMT,
                              ci.CursorKind.RETURN_STMT,
                              ci.CursorKind.BREAK_STMT,
                              ci.CursorKind.CONTINUE_STMT)
                   for x in s.walk_preorder()):
                return False
        return True

    def _reports(self, b):
        """Whether branch @b only reports: calls of REPORT_CALLS with
        arguments that do not write."""
        flat = [s for s in self._flat(b) if s.kind != ci.CursorKind.NULL_STMT]
        if not flat:
            return False
        for s in flat:
            c = _strip(s)
            if c.kind != ci.CursorKind.CALL_EXPR or \
                    _callee(c) not in REPORT_CALLS:
                return False
            if not all(self._pure(a, REPORT_CALLS)
                       for a in c.get_arguments()):
                return False
        return True

    def _ends(self, call):
        ref = call.referenced
        if ref is None or ref.kind != ci.CursorKind.FUNCTION_DECL:
            return False
        return ref.spelling in PROCESS_ENDS or \
            _fn_key(ref) in self.noreturn_keys or _is_noreturn(ref)

    # -- expressions -------------------------------------------------------
    def _expr(self, e, top):
        """Expression @e (of the body when @top: it may make the call,
        once in the whole body, and assign its result to a local)."""
        K = ci.CursorKind
        s = _strip(e)
        if top and s.kind == K.BINARY_OPERATOR:
            kids = list(s.get_children())
            lhs = _strip_parens(kids[0])
            if len(kids) == 2 and lhs.kind == K.DECL_REF_EXPR and \
                    self._local(lhs) and \
                    _strip(kids[1]).kind == K.CALL_EXPR:
                # r = CALL(...), or a test of (r = CALL(...))
                return self._the_call(_strip(kids[1]))
        if top and s.kind == K.CALL_EXPR and _callee(s) not in _HINTS:
            return self._the_call(s)
        if top and not self._pure(s, ()):
            # a test of the call's result: CALL(...) != 0,
            # __builtin_expect(!!(CALL(...)), 0), !(r = CALL(...))
            calls = _calls(s)
            if len(calls) == 1:
                inner = calls[0]
                return self._pure(s, (), skip=inner, top=True) and \
                    self._the_call(inner)
        return self._pure(s, ())

    def _the_call(self, call):
        if self.call is not None:
            self.ok = False
            return False
        if not all(self._pure(a, ()) for a in call.get_arguments()):
            return False
        self.call = call
        return True

    def _on_result(self, cond):
        """Whether condition @cond tests the call's result: it holds the
        call, or reads only locals of the function (the one assigned the
        result) once the call was seen; not a global switch
        (`if (lock_debug) fprintf(...)`), which would report on every
        call."""
        nodes = list(cond.walk_preorder())
        if self.call is not None and any(x == self.call for x in nodes):
            return True
        refs = [x for x in nodes if x.kind == ci.CursorKind.DECL_REF_EXPR]
        return self.call is not None and bool(refs) and \
            all(self._local(r) for r in refs)

    def _local(self, ref):
        d = ref.referenced
        return d is not None and d.kind == ci.CursorKind.VAR_DECL and \
            d.semantic_parent == self.cur and \
            d.storage_class not in (ci.StorageClass.STATIC,
                                    ci.StorageClass.EXTERN)

    def _pure(self, e, calls_ok, skip=None, top=False):
        """Whether @e has no side effect: no call but hints and @calls_ok
        (the subtree @skip aside: the call, whose result may be assigned
        to a local when @top), no assignment, increment or decrement
        (an operand the compiler does not convert to its value is
        written, or its address taken), statement expressions of checks
        only (assert())."""
        K = ci.CursorKind
        todo = [e]
        while todo:
            c = todo.pop()
            if skip is not None and c == skip:
                continue
            k = c.kind
            kids = list(c.get_children())
            if k == K.CALL_EXPR:
                if _callee(c) not in _HINTS and _callee(c) not in calls_ok:
                    return False
                todo.extend(kids[1:])
                continue
            if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                return False
            if k == K.BINARY_OPERATOR and kids and \
                    _written(_strip_parens(kids[0])):
                lhs = _strip_parens(kids[0])
                if top and skip is not None and len(kids) == 2 and \
                        lhs.kind == K.DECL_REF_EXPR and self._local(lhs) \
                        and _strip(kids[1]) == skip:
                    continue  # (r = CALL(...)) in a test
                return False  # x = ..., or x, ... (as good as one)
            if k == K.UNARY_OPERATOR and kids and \
                    _written(_strip_parens(kids[0])):
                pt = c.type.get_canonical()
                if not (pt.kind == ci.TypeKind.POINTER and
                        _canon(pt.get_pointee()) == _canon(kids[0].type)):
                    return False  # ++, -- (not &x)
            if k.name == "StmtExpr":
                if not self._stmts(kids, False):
                    return False
                continue
            if k == K.UNEXPOSED_EXPR and len(kids) > 1:
                # an expression libclang does not expose, with operands:
                # C11's atomic_fetch_add() and the __atomic builtins
                # (AtomicExpr) write through their first; multipath's
                # lock() counts its waiters so.  Not known to be pure.
                return False
            todo.extend(kids)
        return True


def _calls(e):
    """The calls of expression @e but hints, outside statement
    expressions."""
    K = ci.CursorKind
    out, todo = [], [e]
    while todo:
        c = todo.pop()
        if c.kind.name == "StmtExpr":
            continue
        if c.kind == K.CALL_EXPR and _callee(c) not in _HINTS:
            out.append(c)
        todo.extend(c.get_children())
    return out


def _callee_cast(e):
    """Whether the function pointer that callee expression @e calls went
    through an explicit cast: `((fn_t)p)(x)`, `(*(fn_t)p)(x)`, a branch
    of `c ? (fn_t)p : q`, an element of a cast array.  Not a cast of the
    object whose member it is, `((struct vec *)v)->cmp(a, b)` (wget2):
    the member's declared type says what may be stored there."""
    K = ci.CursorKind
    while True:
        kids = list(e.get_children())
        if e.kind == K.CSTYLE_CAST_EXPR:
            return True
        if e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.UNARY_OPERATOR) \
                and len(kids) == 1:
            e = kids[0]
            continue
        if e.kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            return _callee_cast(kids[1]) or _callee_cast(kids[2])
        if e.kind in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR, K.CALL_EXPR):
            return False
        return any(x.kind == K.CSTYLE_CAST_EXPR for x in e.walk_preorder())


def _strip(c):
    """@c under implicit conversions and parentheses."""
    K = ci.CursorKind
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _plain_body(cur, call):
    """Whether function @cur's body is the statement `CALL;` or `return
    CALL;` of cursor @call, and nothing else."""
    K = ci.CursorKind
    body = [c for c in cur.get_children() if c.kind == K.COMPOUND_STMT]
    stmts = list(body[0].get_children()) if len(body) == 1 else []
    if len(stmts) != 1:
        return False
    st = stmts[0]
    if st.kind == K.RETURN_STMT:
        kids = list(st.get_children())
        st = kids[0] if len(kids) == 1 else None
    return st is not None and _strip(st) == call


def _strip_parens(c):
    while c.kind == ci.CursorKind.PAREN_EXPR:
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _written(c):
    """Whether operand @c is an object the operator may write (or take
    the address of): an lvalue the compiler did not convert to its value
    (x, s.f, a[i], *p); a value read is under an implicit conversion."""
    K = ci.CursorKind
    if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR,
                  K.ARRAY_SUBSCRIPT_EXPR):
        ref = c.referenced if c.kind != K.ARRAY_SUBSCRIPT_EXPR else None
        # a function's name or an enumerator is no object
        return ref is None or ref.kind not in (K.FUNCTION_DECL,
                                               K.ENUM_CONSTANT_DECL)
    if c.kind != K.UNARY_OPERATOR:
        return False
    kids = list(c.get_children())
    if not kids:
        return False
    kt = kids[0].type.get_canonical()
    return kt.kind == ci.TypeKind.POINTER and \
        _canon(kt.get_pointee()) == _canon(c.type)


def _callee(call):
    ref = call.referenced
    return ref.spelling if ref is not None else None


def _callee_ref(call):
    """The DECL_REF_EXPR naming what CALL_EXPR @call calls, also when the
    name is in parentheses or dereferenced (`(ber_errno_addr)()`, a
    macro's way to keep a function-like macro of the same name from
    expanding; `(*f)()`), or None."""
    K = ci.CursorKind
    kids = list(call.get_children())
    e = kids[0] if kids else None
    while e is not None and e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR,
                                       K.UNARY_OPERATOR):
        inner = list(e.get_children())
        if len(inner) != 1:
            return None
        if e.kind == K.UNARY_OPERATOR:
            tok = next(iter(e.get_tokens()), None)
            if tok is None or tok.spelling not in ("*", "&"):
                return None
        e = inner[0]
    return e if e is not None and e.kind == K.DECL_REF_EXPR else None


def _called_function(call):
    """The function CALL_EXPR @call calls by name (_callee_ref()): its
    FUNCTION_DECL cursor, or None for a call through a pointer."""
    K = ci.CursorKind
    ref = call.referenced
    if ref is not None and ref.kind == K.FUNCTION_DECL:
        return ref
    e = _callee_ref(call)
    ref = e.referenced if e is not None else None
    return ref if ref is not None and ref.kind == K.FUNCTION_DECL else None


# Integer result types (a wrapper's constant result is read for these).
_INT_TYPES = () if ci is None else tuple(
    getattr(ci.TypeKind, n) for n in (
        "BOOL", "CHAR_U", "UCHAR", "USHORT", "UINT", "ULONG", "ULONGLONG",
        "CHAR_S", "SCHAR", "SHORT", "INT", "LONG", "LONGLONG", "ENUM"))


def _zero(e):
    """Whether @e is the constant 0 (of do { } while (0))."""
    return _int_value(_strip(e)) == 0


def _int_value(e):
    """The value of @e when the compiler folds it to an integer
    (clang_Cursor_Evaluate), else None."""
    lib = ci.conf.lib
    ev = lib.clang_Cursor_Evaluate
    ev.argtypes = [ci.Cursor]
    ev.restype = ctypes.c_void_p
    res = ev(e)
    if not res:
        return None
    try:
        kind = lib.clang_EvalResult_getKind
        kind.argtypes = [ctypes.c_void_p]
        kind.restype = ctypes.c_int
        if kind(res) != 1:  # CXEval_Int
            return None
        unsigned = lib.clang_EvalResult_isUnsignedInt
        unsigned.argtypes = [ctypes.c_void_p]
        unsigned.restype = ctypes.c_uint
        if unsigned(res):
            as_int = lib.clang_EvalResult_getAsUnsigned
            as_int.restype = ctypes.c_ulonglong
        else:
            as_int = lib.clang_EvalResult_getAsLongLong
            as_int.restype = ctypes.c_longlong
        as_int.argtypes = [ctypes.c_void_p]
        return int(as_int(res))
    finally:
        dispose = lib.clang_EvalResult_dispose
        dispose.argtypes = [ctypes.c_void_p]
        dispose(res)


# What analysing one function definition of a header contributed, to
# give the next unit that reads the same definition the same way without
# walking it again: on a large program every unit reads the same hundreds
# of inline functions of the headers (jemalloc: 62 units, ~880 each), and
# walking them was nearly all of the front end's time.  The key says
# "read the same way": the unit's flags and forced includes, the
# definition's extent, the definitions of the macros expanded in it (none
# of the unit's own file, which another unit does not have), the lines the
# preprocessor skipped in it, and the functions the unit knows not to
# return.  Not in it: the declarations the definition uses, which a
# unit's own #define before its #include could change elsewhere in the
# headers (a typedef under #ifdef); such a definition gets the facts of
# the first unit that read it.  The files do not change during a run
# (outputs are written at its end), so an extent names the same text.
# Checked on jemalloc's 62 units: every fact the same as when every
# definition is walked in every unit (docs/REFACTOR.md, section 7).
_FN_FACTS = {}


@dataclass
class _FnFacts:
    function: object  # Function
    decls: list       # unit.decls appended
    member_refs: list  # unit.member_refs appended
    field_refs: list  # _Walker.field_refs appended
    effects: list     # ("use", name) | ("owned", name, how) |
    #                   ("pun", SyncPun) |
    #                   ("state", kind, (name, Loc)) | ("addr", key, val) |
    #                   ("flow", source, destination)


class _Walker:
    def __init__(self, unit):
        self.unit = unit
        self.config = (tuple(unit.command.flags),
                       tuple(unit.command.forced))  # see _is_noreturn()
        self.noreturn_keys = set()
        self.end_keys = set()  # see _infer_noreturn()
        self.field_refs = []  # every member reference, filtered in run()
        self.expansions = {}  # Loc -> MACRO_INSTANTIATION cursor
        self.effects = None   # the _FnFacts.effects being recorded
        self._unit_key = None
        self._macro_defs = None  # path -> [(line, col, name, definition)]

    def run(self, root):
        K = ci.CursorKind
        defs = {}
        for cur in root.get_children():
            if cur.kind == K.MACRO_DEFINITION:
                defs[cur.spelling] = cur
            elif cur.kind == K.MACRO_INSTANTIATION:
                if _in_system_header(cur):
                    # glibc's own (__THROW...), four in five of a unit's:
                    # no question is asked about a system header's lines,
                    # and its functions are not walked (_function)
                    continue
                loc = _loc(cur)
                if loc:
                    d = cur.referenced
                    self.unit.macros.append(MacroUse(
                        cur.spelling, loc, _loc(d) if d is not None
                        else None))
                    self.expansions[loc] = cur
            elif cur.kind == K.FUNCTION_DECL:
                if _is_noreturn(cur, self.config):
                    self.noreturn_keys.add(_fn_key(cur))
        self._infer_noreturn(root)
        for cur in root.get_children():
            if cur.kind == K.VAR_DECL:
                self._var(cur, True)
                if not _in_system_header(cur):
                    self._fn_refs(cur)  # static struct ops o = { f };
            elif cur.kind == K.FUNCTION_DECL and cur.is_definition():
                self._function(cur)
            elif cur.kind in (K.STRUCT_DECL, K.UNION_DECL, K.TYPEDEF_DECL):
                self._fields(cur)
            if cur.kind == K.TYPEDEF_DECL and not _in_system_header(cur):
                t = cur.underlying_typedef_type.get_canonical()
                kind = _sync_kind(t)
                if t.kind not in (ci.TypeKind.CONSTANTARRAY,
                                  ci.TypeKind.INCOMPLETEARRAY,
                                  ci.TypeKind.POINTER) and kind != "other":
                    self.unit.sync_types[cur.spelling] = kind
        self.unit.field_refs = [r for r in self.field_refs
                                if r[1] in self.unit.sync_fields]
        self.unit.line_macros = _line_macros(
            {m.name for m in self.unit.macros}, defs)

    def _use(self, name):
        self.unit.mutex_uses.add(name)
        if self.effects is not None:
            self.effects.append(("use", name))

    def _init_at(self, loc, kind, key):
        self.unit.sync_inits.setdefault((loc.path, loc.line), set()).add(
            (kind, key))
        if self.effects is not None:
            self.effects.append(("init", loc, kind, key))

    def _owned(self, name, how):
        self.unit.owned_locks.setdefault(name, how)
        if self.effects is not None:
            self.effects.append(("owned", name, how))

    def _pun(self, pun):
        self.unit.sync_puns.append(pun)
        if self.effects is not None:
            self.effects.append(("pun", pun))

    def _freed(self, tags):
        self.unit.freed_tags |= tags
        if self.effects is not None:
            self.effects.append(("freed", tags))

    def _voided(self, tags, untyped):
        self.unit.void_tags |= tags
        self.unit.frees_untyped |= untyped
        if self.effects is not None:
            self.effects.append(("voided", tags, untyped))

    def _tls(self, names):
        self.unit.tls_locks |= names
        if self.effects is not None:
            self.effects.append(("tls", names))

    def _state(self, kind, val):
        self.unit.state_set.setdefault(kind, val)
        if self.effects is not None:
            self.effects.append(("state", kind, val))

    def _addr(self, key, name, ftype, cast):
        old = self.unit.addr_funcs.get(key)
        self.unit.addr_funcs[key] = (name, ftype, cast or bool(old and old[2]))
        if self.effects is not None:
            self.effects.append(("addr", key, (name, ftype, cast)))

    def _replay(self, facts):
        self.unit.decls.extend(facts.decls)
        self.unit.member_refs.extend(facts.member_refs)
        self.field_refs.extend(facts.field_refs)
        for e in facts.effects:
            if e[0] == "use":
                self._use(e[1])
            elif e[0] == "owned":
                self._owned(e[1], e[2])
            elif e[0] == "state":
                self._state(e[1], e[2])
            elif e[0] == "flow":
                self._flow(e[1], e[2])
            elif e[0] == "init":
                self._init_at(*e[1:])
            elif e[0] == "pun":
                self._pun(e[1])
            elif e[0] == "freed":
                self._freed(e[1])
            elif e[0] == "voided":
                self._voided(e[1], e[2])
            elif e[0] == "tls":
                self._tls(e[1])
            else:
                self._addr(e[1], *e[2])
        self.unit.functions[facts.function.key] = facts.function

    def _infer_noreturn(self, root):
        """Functions of the program that never return without saying so:
        void, no return statement, and a last statement that calls a
        no-return function (pigz's fail() reports, then exit()s).  Those
        ending in exit() and the like join noreturn_keys; those ending
        in abort() or assert's failure, end_keys (a check that calls one
        ends the process, as one calling abort() does: _SoleCall)."""
        K = ci.CursorKind
        cands = []
        for cur in root.get_children():
            if cur.kind != K.FUNCTION_DECL or not cur.is_definition() or \
                    _in_system_header(cur) or \
                    cur.result_type.kind != ci.TypeKind.VOID or \
                    _fn_key(cur) in self.noreturn_keys or \
                    cur.spelling in PROCESS_ENDS:
                continue  # (a program's own __assert_fail() is still one)
            body = next((c for c in cur.get_children()
                         if c.kind == K.COMPOUND_STMT), None)
            last = None
            for last in body.get_children() if body is not None else ():
                pass
            last = _strip(last) if last is not None else None
            if last is not None and last.kind == K.CALL_EXPR:
                cands.append((cur, body, last))
        for _ in range(4):  # functions that end in calls of such ones
            changed = False
            for cur, body, last in cands:
                key = _fn_key(cur)
                if key in self.noreturn_keys or key in self.end_keys:
                    continue
                ref = last.referenced
                if ref is None or ref.kind != K.FUNCTION_DECL:
                    continue
                rk = _fn_key(ref)
                if rk in self.noreturn_keys or \
                        _is_noreturn(ref, self.config):
                    into = self.noreturn_keys
                elif ref.spelling in PROCESS_ENDS or rk in self.end_keys:
                    into = self.end_keys
                else:
                    continue
                if any(x.kind == K.RETURN_STMT
                       for x in body.walk_preorder()):
                    continue
                into.add(key)
                changed = True
            if not changed:
                break

    def _facts_key(self, cur, loc, end):
        """The _FN_FACTS key of definition @cur (@loc to @end), or None
        when it must be walked: in the unit's own file, or expanding a
        macro that file defines."""
        if loc.path == self.unit.path or loc.path != end.path:
            return None
        if self._unit_key is None:
            cmd = self.unit.command
            self._unit_key = (tuple(cmd.flags), tuple(cmd.forced),
                              frozenset(self.noreturn_keys),
                              frozenset(self.end_keys))
            self._macro_defs = {}
            for ml, mc in self.expansions.items():
                d = mc.referenced
                dl = _loc(d) if d is not None else None
                self._macro_defs.setdefault(ml.path, []).append(
                    (ml.line, ml.col, mc.spelling,
                     (dl.path, dl.line, dl.col) if dl else None))
            for v in self._macro_defs.values():
                v.sort(key=lambda m: (m[0], m[1]))
        macros = []
        for m in self._macro_defs.get(loc.path, ()):
            if m[0] < loc.line or m[0] > end.line:
                continue
            if m[3] is not None and m[3][0] == self.unit.path:
                return None
            macros.append(m)
        sk = self.unit.skipped.get(loc.path)
        skipped = tuple(n for n in range(loc.line, end.line + 1)
                        if n in sk.lines or n in sk.starts) if sk else None
        return (self._unit_key, _fn_key(cur), loc, end, tuple(macros),
                skipped)

    def _fn_refs(self, root, fn=None):
        """The functions whose address @root takes, where those addresses
        go (_flow_of()), and (into @fn) its calls through pointers.  A
        function named as the callee of a call is called, not taken: the
        callee is the call's first child, under implicit casts and
        parentheses."""
        K = ci.CursorKind
        params = {}
        if fn is not None:
            for i, a in enumerate(root.get_arguments()):
                if _is_fn_pointer(a.type):
                    params[a.hash] = ("param", fn.key, i)
        # (cursor, callee position, cast, parent link): the link is
        # (parent cursor, index among its children, its own link)
        todo = [(root, False, False, None)]
        while todo:
            c, callee, cast, up = todo.pop()
            k = c.kind
            kids = list(c.get_children())
            if k == K.CALL_EXPR and kids:
                if fn is not None and _called_function(c) is None:
                    cl = _loc(c)
                    if cl is not None:
                        fn.indirect.append(IndirectCall(
                            cl, _pointee_fn_type(kids[0].type),
                            _callee_cast(kids[0]),
                            _callee_node(kids[0], params)))
                todo.append((kids[0], True, False, (c, 0, up)))
                todo.extend((x, False, False, (c, i + 1, up))
                            for i, x in enumerate(kids[1:]))
                continue
            if k == K.DECL_REF_EXPR and not callee:
                ref = c.referenced
                if ref is not None and ref.kind == K.FUNCTION_DECL and \
                        not _in_system_header(ref):
                    to, erased = _flow_of(c, up, params)
                    if to not in ("none", "call"):
                        key = _fn_key(ref)
                        self._addr(key, ref.spelling,
                                   ref.type.get_canonical().spelling,
                                   cast or erased)
                        if fn is not None:
                            fn.fn_taken.add(key)
                        if to not in ("lib", "start", "calledvia"):
                            self._flow(("fn", key), to)
                        cl = _loc(c)
                        # called here through an expression, or handed
                        # to code that may call it now: the C library
                        # (qsort()), or anywhere; one stored into a
                        # pointer of the program runs where a call
                        # through that pointer does (edges())
                        if fn is not None and cl is not None and \
                                to in ("lib", "esc", "calledvia"):
                            fn.fn_addrs.append(FnAddr(ref.spelling, key,
                                                      cl))
                        elif fn is not None and cl is not None and \
                                to == "start":
                            fn.thread_starts.append(FnAddr(
                                ref.spelling, key, cl))
                elif ref is not None and (ref.hash in params or (
                        ref.kind == K.VAR_DECL and _is_pointer(ref.type))):
                    self._node_read(ref, c, up, params, fn)
            elif k == K.MEMBER_REF_EXPR and not callee:
                ref = c.referenced
                if ref is not None and ref.kind == K.FIELD_DECL and \
                        _is_pointer(ref.type):
                    self._node_read(ref, c, up, params, fn)
            elif k == K.CSTYLE_CAST_EXPR and kids:
                pun = _record_pun(c, kids[-1])
                if pun is not None:
                    self._flow(("pun", pun[0]), ("pun", pun[1]))
            keep = k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR)
            cast = (cast and keep) or k == K.CSTYLE_CAST_EXPR
            todo.extend((x, callee and keep, cast, (c, i, up))
                        for i, x in enumerate(kids))

    def _node_read(self, ref, c, up, params, fn):
        """A read at @c of the pointer that field, variable or parameter
        @ref holds: where the functions it may hold go from there.
        Handed to the C library (qsort()), they may be called there: a
        call through the pointer of @fn."""
        to, cast = _flow_of(c, up, params)
        if to in ("none", "call", "calledvia", "start"):
            return  # a call through it is an IndirectCall
        node = params.get(ref.hash) or (
            _var_node(ref) if ref.kind == ci.CursorKind.VAR_DECL
            else _field_node(ref))
        if to == "lib":
            cl = _loc(c)
            if fn is not None and cl is not None:
                fn.indirect.append(IndirectCall(
                    cl, _pointee_fn_type(c.type), cast, node))
        elif to != node:
            self._flow(node, to)

    def _flow(self, src, dst):
        self.unit.flows.add((src, dst))
        if self.effects is not None:
            self.effects.append(("flow", src, dst))

    def _var(self, cur, file_scope):
        loc = _loc(cur)
        if loc is None:
            return
        if _is_mutex_type(cur.type):
            init = next((t.spelling for t in cur.get_tokens()
                         if t.spelling.startswith(_OWNED_INITIALIZERS)),
                        None)
            if init:
                self._owned(cur.spelling, (loc, "with " + init))
        inits, at = set(), []
        for ch in cur.get_children():
            if ch.kind == ci.CursorKind.INIT_LIST_EXPR:
                _initialized_fields(ch, inits, at)
        for name in sorted(inits):
            self._use(name)
        for loc, kind, use in at:
            self._init_at(loc, kind, use)
        tls = cur.tls_kind != ci.TLSKind.NONE
        if tls:
            self._tls({("tag", t) for t in _record_tags(cur.type)} | (
                {("var", cur.spelling)} if _is_mutex_type(cur.type)
                else set()))
        self.unit.decls.append(VarDecl(cur.spelling, cur.type.spelling,
                                       _storage(cur), tls, file_scope, loc))
        if file_scope and _is_mutex_type(cur.type):
            st = _storage(cur)
            self.unit.mutex_decls.setdefault(cur.spelling, []).append(
                (loc, st))
            if st != "extern" and loc.path == self.unit.path:
                self._use(cur.spelling)  # its definition

    def _fields(self, cur):
        for ch in cur.walk_preorder():
            if ch.kind in (ci.CursorKind.STRUCT_DECL,
                           ci.CursorKind.UNION_DECL):
                fs = [f for f in ch.get_children()
                      if f.kind == ci.CursorKind.FIELD_DECL]
                if ch.kind == ci.CursorKind.STRUCT_DECL:
                    fs = fs[:1]
                for f in fs:
                    if _is_sync_type(f.type):
                        self.unit.lead_fields.add((
                            _sync_kind(f.type),
                            _field_use(ch, f.spelling)))
            if ch.kind == ci.CursorKind.FIELD_DECL and \
                    _is_sync_type(ch.type):
                self.unit.sync_fields.add(ch.spelling)
            if ch.kind == ci.CursorKind.FIELD_DECL and \
                    _is_sync_type(ch.type):
                mf = self._macro_field(ch)
                if mf is not None:
                    self.unit.macro_fields.append(mf)
            if ch.kind == ci.CursorKind.FIELD_DECL and \
                    _is_mutex_type(ch.type):
                loc = _loc(ch)
                if loc:
                    self.unit.mutex_decls.setdefault(
                        "." + ch.spelling, []).append((loc, "field"))

    def _macro_field(self, ch):
        """The MacroField of the field @ch when a macro expanded in its
        structure's body declares it alone: `TYPE NAME;` or `TYPE
        NAME[N];` in the macro's body (the type being the one name
        before it); None otherwise (the field is in the file's text, or
        declared in a way whose type token cannot be told)."""
        inst = self.expansions.get(_loc(ch))
        tag = _record_name(ch.semantic_parent) or ""
        if inst is None:
            return None
        defn = inst.referenced
        if defn is None or defn.kind != ci.CursorKind.MACRO_DEFINITION or \
                _in_system_header(defn):
            return None
        toks = list(defn.get_tokens())
        body = 1  # after the macro's name
        if len(toks) > 1 and toks[1].spelling == "(" and \
                toks[1].extent.start.offset == toks[0].extent.end.offset:
            return self._call_field(ch, inst, defn, toks, tag)
        found = []
        for i in range(body + 1, len(toks)):
            t = toks[i]
            if t.spelling != ch.spelling or \
                    t.kind != ci.TokenKind.IDENTIFIER:
                continue
            ty, before = toks[i - 1], toks[i - 2].spelling if i - 2 >= \
                body else ";"
            if ty.kind != ci.TokenKind.IDENTIFIER or before not in (
                    ";", "{", "}", "const", "volatile") and i - 1 != body:
                continue
            j = i + 1
            while j < len(toks) and toks[j].spelling == "[":
                while j < len(toks) and toks[j].spelling != "]":
                    j += 1
                j += 1
            if j < len(toks) and toks[j].spelling == ";":
                found.append(ty)
        dl = _loc(defn)
        if len(found) != 1 or dl is None:
            return None
        tl = found[0].location
        if tl.file is None:
            return None
        return MacroField(Loc(_real(tl.file.name), tl.line,
                              tl.column), found[0].spelling, ch.spelling,
                          tag, _sync_kind(ch.type), inst.spelling, dl)

    def _call_field(self, ch, inst, defn, toks, tag):
        """The MacroField of field @ch declared by the expansion @inst of
        the function-like macro @defn (tokens @toks), when its whole body
        is `TYPE NAME;` or `TYPE NAME[BOUND]...;`, NAME a parameter (or
        the field's own name) and TYPE no parameter: the invocation is
        what is rewritten."""
        params, i = [], 2
        while i < len(toks) and toks[i].spelling != ")":
            if toks[i].kind == ci.TokenKind.IDENTIFIER:
                params.append(toks[i].spelling)
            i += 1
        body = toks[i + 1:]
        if len(body) < 3 or body[-1].spelling != ";" or \
                body[0].kind != ci.TokenKind.IDENTIFIER or \
                body[0].spelling in params or \
                body[1].kind != ci.TokenKind.IDENTIFIER or \
                (body[1].spelling not in params and
                 body[1].spelling != ch.spelling):
            return None
        bounds = self._macro_bounds(body[2:-1], params, inst)
        if bounds is None:
            return None
        start, end = inst.extent.start, inst.extent.end
        dl, tl = _loc(defn), body[0].location
        if start.file is None or end.file is None or dl is None or \
                tl.file is None or \
                _real(start.file.name) != _real(end.file.name):
            return None
        return MacroField(
            Loc(_real(tl.file.name), tl.line, tl.column), body[0].spelling,
            ch.spelling, tag, _sync_kind(ch.type), inst.spelling, dl,
            (Loc(_real(start.file.name), start.line, start.column),
             Loc(_real(end.file.name), end.line, end.column)), bounds)

    @staticmethod
    def _macro_bounds(toks, params, inst):
        """The text of the array bounds @toks (`[ n ]`, tokens of a
        macro's body after the field's name) with the arguments of the
        invocation @inst for parameters @params; "" for none, None when
        they are not bounds or the arguments cannot be read."""
        if not toks:
            return ""
        depth, parts = 0, []
        for t in toks:
            if t.spelling == "[":
                depth += 1
            elif t.spelling == "]":
                depth -= 1
            elif depth == 0 or t.spelling in ("#", "##"):
                return None
            parts.append(t.spelling)
        if depth:
            return None
        call = [t.spelling for t in inst.get_tokens()]
        if len(call) < 3 or call[1] != "(" or call[-1] != ")":
            return None
        args, cur, depth = [], [], 0
        for w in call[2:-1]:
            if w == "," and depth == 0:
                args.append(" ".join(cur))
                cur = []
                continue
            depth += w in ("(", "[", "{")
            depth -= w in (")", "]", "}")
            cur.append(w)
        args.append(" ".join(cur))
        if len(args) != len(params):
            return None
        given = dict(zip(params, args))
        return "".join(given.get(w, w) for w in parts)

    def _locals(self, cur, fn):
        """fn.locals, fn.local_refs, fn.jumps of the definition @cur."""
        K = ci.CursorKind
        loops = (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT)
        # [(cursor, index of the child being walked)], and the loops and
        # switches around it (for break and continue).
        todo = [(cur, [], ())]
        while todo:
            c, chain, around = todo.pop()
            k = c.kind
            if k in (K.VAR_DECL, K.PARM_DECL) and \
                    c.semantic_parent == cur:
                loc = _loc(c)
                if loc is not None:
                    ct = c.type.get_canonical()
                    ty, decayed = c.type.spelling, False
                    if _param_array(c):
                        # A pointer: its type as the compiler adjusts it.
                        ty, decayed = _decayed_type(c.type), True
                    # by name too: a macro's expansion declares several
                    # at one place (min()'s `_a` and `_b`)
                    fn.locals[(loc, c.spelling)] = LocalDecl(
                        c.spelling, ty, loc,
                        k == K.PARM_DECL,
                        k == K.VAR_DECL and _has_init(c), _storage(c),
                        ct.kind in (ci.TypeKind.CONSTANTARRAY,
                                    ci.TypeKind.INCOMPLETEARRAY,
                                    ci.TypeKind.VARIABLEARRAY) and
                        not decayed,
                        "(unnamed" in c.type.spelling or
                        "(anonymous" in c.type.spelling, decayed,
                        _variably_modified(_decayed_from(ct) if decayed
                                           else ct))
            elif k == K.DECL_REF_EXPR:
                ref = c.referenced
                if ref is not None and ref.kind in (K.VAR_DECL,
                                                    K.PARM_DECL) and \
                        ref.semantic_parent == cur:
                    loc, dl, sp = _loc(c), _loc(ref), _spelling_loc(c)
                    if loc and dl and sp:
                        fn.local_refs.append(LocalRef(
                            c.spelling, dl, loc, sp,
                            _access(chain + [(c, 0)])))
            elif k in (K.GOTO_STMT, K.RETURN_STMT, K.BREAK_STMT,
                       K.CONTINUE_STMT):
                loc, sp = _loc(c), _spelling_loc(c)
                if loc and sp:
                    j = Jump(k.name.split("_")[0].lower(), loc, sp)
                    if k == K.GOTO_STMT:
                        j.label = next((x.spelling for x in c.get_children()
                                        if x.kind == K.LABEL_REF), "")
                    elif k != K.RETURN_STMT:
                        t = next((a for a in reversed(around) if
                                  k == K.BREAK_STMT or a.kind in loops),
                                 None)
                        if t is not None and _loc(t) and _end(t):
                            j.target = (_loc(t), _end(t))
                    fn.jumps.append(j)
            if k in loops or k == K.SWITCH_STMT:
                around = around + (c,)
            kids = list(c.get_children())
            for n in range(len(kids) - 1, -1, -1):
                todo.append((kids[n], chain + [(c, n)], around))

    def _function(self, cur):
        loc, end = _loc(cur), _end(cur)
        if loc is None or end is None:
            return
        if _in_system_header(cur):
            return  # the C library's inline functions are not followed
        fkey = self._facts_key(cur, loc, end)
        if fkey is not None and fkey in _FN_FACTS:
            self._replay(_FN_FACTS[fkey])
            return
        n = (len(self.unit.decls), len(self.unit.member_refs),
             len(self.field_refs))
        self.effects = [] if fkey is not None else None
        try:
            fn = self._walk_function(cur, loc, end)
        finally:
            effects, self.effects = self.effects, None
        if fkey is not None:
            _FN_FACTS[fkey] = _FnFacts(fn, self.unit.decls[n[0]:],
                                       self.unit.member_refs[n[1]:],
                                       self.field_refs[n[2]:], effects)

    def _walk_function(self, cur, loc, end):
        """Walk definition @cur (@loc to @end) into self.unit; its
        Function."""
        K = ci.CursorKind
        key = _fn_key(cur)
        fn = Function(cur.spelling, key, loc, end,
                      cur.storage_class == ci.StorageClass.STATIC,
                      key in self.noreturn_keys or
                      _is_noreturn(cur, self.config))
        fn.returns_void = cur.result_type.get_canonical().kind == \
            ci.TypeKind.VOID
        if cur.result_type.get_canonical().kind == ci.TypeKind.POINTER:
            fn.pointer_returns = _pointer_returns(cur)
        self._locals(cur, fn)
        self._fn_refs(cur, fn)
        sole = _SoleCall(cur, self.noreturn_keys | self.end_keys)
        call = sole.find()
        # where its name is spelled: in the file for a call written as a
        # macro's argument (LIKELY(e = pthread_mutex_lock(m))), else the
        # macro's name
        fn.sole_call = _spelling_loc(call) if call is not None else None
        fn.sole_plain = call is not None and _plain_body(cur, call)
        fn.returns = sole.returned() if call is not None else None
        read_args = set()  # BUFFER_CALLS handed to a BUFFER_READERS
        callees = set()  # the DECL_REF_EXPRs that name a called function
        for ch in cur.walk_preorder():
            k = ch.kind
            if k == K.BINARY_OPERATOR and \
                    ch.type.spelling.endswith("pthread_t"):
                kids = list(ch.get_children())
                if len(kids) == 2 and \
                        _binary_op(ch, kids[0], kids[1]) in ("=", None):
                    fn.thread_assigns.append(_thread_slot(kids[0], cur))
            elif k == K.BINARY_OPERATOR and _is_void_ptr(ch.type):
                kids = list(ch.get_children())
                if len(kids) == 2 and \
                        _binary_op(ch, kids[0], kids[1]) in ("=", None):
                    tags = _held_tags(_bare(kids[1]).type)
                    if tags:
                        self._voided(tags, False)
            elif k == K.DECL_REF_EXPR and _FREES_ONE.search(ch.spelling) \
                    and ch.hash not in callees and \
                    ch.referenced is not None and \
                    ch.referenced.kind == K.FUNCTION_DECL:
                self._voided(set(), True)  # free's address handed out
            if k == K.CALL_EXPR:
                callee = _callee_ref(ch)
                if callee is not None:
                    callees.add(callee.hash)
            elif k == K.VAR_DECL and ch.type.spelling.endswith(
                    "pthread_t") and _has_init(ch):
                fn.thread_assigns.append(
                    ("var", ch.get_usr() or ch.spelling))
            if k == K.CALL_EXPR:
                ref = _called_function(ch)
                cl = _loc(ch)
                if cl is None:
                    continue
                if ref is None:
                    continue  # through a pointer: _fn_refs()
                if ref.spelling in BUFFER_READERS:
                    # preorder: the arguments come after their call
                    read_args.update(_hash_key(_strip(a))
                                     for a in ch.get_arguments())
                ck = _fn_key(ref)
                df = ref.location.file
                args = list(ch.get_arguments())
                if args and (_FREES.match(ref.spelling) or
                             _FREES_ONE.search(ref.spelling)):
                    given = args[0] if _FREES.match(ref.spelling) else \
                        args[-1]
                    tags = _held_tags(_bare(given).type)
                    if tags:
                        self._freed({(t, cur.spelling, cl) for t in tags})
                    elif _is_void_ptr(_bare(given).type):
                        self._voided(set(), True)
                if ref.spelling == "pthread_create" and len(args) > 2:
                    fn.thread_creates.append((_thread_slot(args[0], cur),
                                              _routine(args[2], cur), cl))
                elif ref.spelling == "pthread_cancel" and args:
                    fn.thread_cancels.append((_thread_slot(args[0], cur),
                                              cl))
                elif ref.kind == K.FUNCTION_DECL and args:
                    passed = {}
                    for i, a in enumerate(args):
                        t = a.type.get_canonical()
                        if t.kind == ci.TypeKind.POINTER and \
                                t.get_pointee().get_canonical().spelling \
                                in ("pthread_t", "unsigned long"):
                            passed[i] = _thread_slot(a, cur)
                        elif _is_fn_pointer(a.type):
                            passed[i] = _routine(a, cur)
                    if any(passed.values()):
                        fn.call_args.append((ck, passed))
                fn.calls.append(Call(ref.spelling, ck, cl,
                                     ck in self.noreturn_keys or
                                     _is_noreturn(ref, self.config),
                                     _real(df.name) if df else ""))
                if ref.spelling in FRAME_CALLS:
                    fn.frame_uses.append(fn.calls[-1])
                if ref.spelling in OWNER_CALLS:
                    lk = _mutex_named(ch, 0)
                    text = _call_text(ch, ref.spelling)
                    fn.mutex_ops.append((
                        "unlock" if ref.spelling == "pthread_mutex_unlock"
                        else "lock", lk or "?", text, cl))
                    if lk:
                        fn.lock_calls.append(LockCall(lk, text, cl))
                elif ref.spelling == "pthread_mutex_init":
                    lk = _mutex_named(ch, 0)
                    args = list(ch.get_arguments())
                    if lk and len(args) > 1 and not _null_pointer(args[1]):
                        self._owned(lk, (cl, "with attributes"))
                if ref.spelling in STATE_SETTERS:
                    self._state(STATE_SETTERS[ref.spelling],
                                (ref.spelling, cl))
                if _may_hold_write_signal(ref.spelling, ch, args):
                    fn.sig_write_sets = True
                if ref.spelling in STREAM_CALLS or \
                        ref.spelling in WRITE_CALLS:
                    fn.state_uses.append(StateUse(
                        "sigmask", ref.spelling + "()", cl))
                if ref.spelling in FD_READ_CALLS:
                    fn.state_uses.append(StateUse(
                        "signalfd", ref.spelling + "()", cl))
                if ref.spelling in STREAM_CALLS:
                    fn.state_uses.append(StateUse(
                        "stream", ref.spelling + "()", cl))
                elif _float_header(ref):
                    fn.state_uses.append(StateUse(
                        "fenv", ref.spelling + "()", cl))
                if ref.spelling not in _LOCALE_FREE and \
                        ref.location.file is not None and \
                        os.path.basename(ref.location.file.name) in \
                        _LOCALE_HEADERS:
                    fn.state_uses.append(StateUse(
                        "locale", ref.spelling + "()", cl))
                if ref.spelling in BUFFER_CALLS and \
                        _hash_key(ch) in read_args:
                    pass  # its string is read on the server, then dropped
                elif ref.spelling in THREAD_CALLS:
                    fn.thread_uses.append(ThreadUse(
                        THREAD_CALLS[ref.spelling], cl))
                elif _RCU_THREAD_CALL.fullmatch(ref.spelling):
                    fn.thread_uses.append(ThreadUse(
                        "the thread's RCU reader state (%s())" %
                        ref.spelling, cl))
                elif ref.spelling in THREAD_ARG_CALLS:
                    args = THREAD_ARG_CALLS[ref.spelling]
                    toks = [t.spelling for t in ch.get_tokens()]
                    what = next((args[t] for t in toks if t in args), None)
                    # SIGKILL and SIGSTOP, the last argument as written,
                    # act on the whole process whichever thread sends
                    # them (xfsprogs' platform_crash(): kill(getpid(),
                    # SIGKILL))
                    if what and ref.spelling == "kill" and \
                            toks[-3:-1] in ([",", "SIGKILL"],
                                            [",", "SIGSTOP"]):
                        what = None
                    if what:
                        fn.thread_uses.append(ThreadUse(what, cl))
            elif k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR,
                       K.CSTYLE_CAST_EXPR):
                # arithmetic, comparisons and conversions of floating
                # values round and raise flags by the thread's environment
                if ch.type.get_canonical().kind in _FLOATS or \
                        k == K.BINARY_OPERATOR and any(
                            a.type.get_canonical().kind in _FLOATS
                            for a in ch.get_children()):
                    cl = _loc(ch)
                    if cl is not None:
                        fn.state_uses.append(StateUse(
                            "fenv", "floating-point arithmetic", cl))
            elif k == K.DECL_REF_EXPR:
                ref = ch.referenced
                if ref is not None and ref.kind == K.VAR_DECL and \
                        ref.tls_kind != ci.TLSKind.NONE:
                    cl = _loc(ch)
                    if cl:
                        fn.thread_uses.append(ThreadUse(
                            "thread-local variable '%s'" % ref.spelling, cl))
            elif k == K.UNARY_OPERATOR:
                # the operator is the first token (the bindings have no
                # operator kind): not the whole operand's
                tok = next(iter(ch.get_tokens()), None)
                if tok is not None and tok.spelling == "&":
                    kids = list(ch.get_children())
                    if kids and kids[0].kind == K.DECL_REF_EXPR and \
                            kids[0].referenced is not None and \
                            kids[0].referenced.kind in (K.VAR_DECL,
                                                        K.PARM_DECL) and \
                            kids[0].referenced.semantic_parent == cur:
                        fn.addr_taken.add(kids[0].spelling)
            elif k == K.VAR_DECL:
                self._var(ch, False)
            if k in (K.CSTYLE_CAST_EXPR, K.UNEXPOSED_EXPR):
                pun = _sync_pun(ch)
                cl = _loc(ch) if pun is not None else None
                if cl is not None:
                    self._pun(SyncPun(cl, _extent_text(ch).decode(
                        "latin-1") or "?", *pun))
            if k == K.MEMBER_REF_EXPR and ch.referenced is not None and \
                    ch.referenced.kind == K.FIELD_DECL:
                cl = _loc(ch)
                if cl:
                    self.field_refs.append((cl, ch.referenced.spelling,
                                            _field_kind(ch.referenced.type)))
            if k in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
                ref = ch.referenced
                if ref is not None and ref.kind == K.FIELD_DECL and \
                        k == K.MEMBER_REF_EXPR and \
                        (_is_sync_type(ref.type) or _is_sync_ptr(ref.type)):
                    tag = _record_name(ref.semantic_parent)
                    cl = _loc(ch)
                    # A call in the object expression (even behind a
                    # macro) makes the owner unusable: see member_owner.
                    if any(x.kind == K.CALL_EXPR for x in ch.walk_preorder()):
                        tag = "()"
                    if tag and cl:
                        self.unit.member_refs.append((cl, ref.spelling,
                                                      tag))
                # (a pointer to a mutex too, a field or a global, as the
                # pointer keys are named: curl's `curl_mutex_t *mtx` of
                # struct thread_sync_data, which it allocates)
                ptr = ref is not None and _is_mutex_ptr(ref.type) and (
                    ref.kind == K.FIELD_DECL or ref.kind == K.VAR_DECL and
                    ref.semantic_parent is not None and
                    ref.semantic_parent.kind == K.TRANSLATION_UNIT)
                if ref is not None and (_is_mutex_type(ref.type) or ptr):
                    if ref.kind == K.FIELD_DECL:
                        self._use("." + ref.spelling)
                        self._use(_field_use(ref.semantic_parent,
                                             ref.spelling))
                    elif ref.kind == K.VAR_DECL and \
                            ref.semantic_parent is not None and \
                            (ref.semantic_parent.kind ==
                             K.TRANSLATION_UNIT or ref.storage_class ==
                             ci.StorageClass.EXTERN):
                        self._use(ref.spelling)
                    elif ref.kind == K.VAR_DECL and \
                            ref.semantic_parent is not None and \
                            ref.semantic_parent.kind == K.FUNCTION_DECL:
                        # A function's own mutex (`static pthread_mutex_t
                        # m = PTHREAD_MUTEX_INITIALIZER;` in its body):
                        # the lock --locks names m, but no other unit's.
                        self._use("local " + ref.spelling)
        self.unit.functions[key] = fn
        return fn


# -- the whole program -------------------------------------------------------
class Program:
    """The units parsed, their call graph, and what a section reaches."""

    def __init__(self, units):
        self.units = list(units)
        self.defs = {}
        self.def_unit = {}  # key -> the unit whose definition defs holds
        self.addr_funcs = {}
        self.flows = set()
        self._held_by = None  # see held_by()
        self.owned_locks = {}
        self.state_set = {}
        for u in self.units:
            for name, how in u.owned_locks.items():
                self.owned_locks.setdefault(name, how)
            for kind, val in u.state_set.items():
                self.state_set.setdefault(kind, val)
        for u in self.units:
            for key, fn in u.functions.items():
                if key not in self.defs:
                    self.defs[key] = fn
                    self.def_unit[key] = u
            for key, (name, ftype, erased) in u.addr_funcs.items():
                old = self.addr_funcs.get(key)
                self.addr_funcs[key] = (name, ftype,
                                        erased or bool(old and old[2]))
            self.flows |= u.flows
        # functions whose address goes into a pointer or anywhere: what a
        # call through a pointer no node names may reach (pointer_targets)
        self.stored_fns = {src[1] for src, _ in self.flows if src[0] == "fn"}
        # The units do not change once parsed: pointer_targets() by the
        # call's (cast, type), _section_reach() by section (Tor's 973
        # units: 46 sections, each reaching thousands of functions that
        # call through pointers, spent minutes sorting addr_funcs)
        self._targets = {}
        self._reached = {}
        # Files of the tree the compilation database does not list that
        # name a selected lock (cli._read_strays()): Units apart from the
        # program's, and (file, error) of those that do not compile.
        self.strays = []
        self.stray_faults = []
        self.stray_noted = set()  # (file, locks) said in a note

    def unit_of(self, path):
        rp = os.path.realpath(path)
        for u in self.units:
            if u.path == rp:
                return u
        return None

    def member_owner(self, path, line, fieldname, col=None):
        """Unit.member_owner() over every unit that reads @path."""
        rp = os.path.realpath(path)
        tags = {u.member_owner(rp, line, fieldname, col) for u in self.units
                if rp in u.files}
        tags.discard(None)
        return tags.pop() if len(tags) == 1 else None

    def called_on(self, path, line):
        """Names of the functions called on @line of @path, as the
        compiler reads the program (calls inside function bodies)."""
        if not hasattr(self, "_calls_by_line"):
            self._calls_by_line = {}
            for u in self.units:
                for fn in u.functions.values():
                    for c in fn.calls:
                        self._calls_by_line.setdefault(
                            (c.loc.path, c.loc.line), set()).add(c.callee)
        return self._calls_by_line.get((os.path.realpath(path), line), set())

    def end_line_of(self, path):
        """A function of a line of @path: the last line of the function
        definition whose extent holds it, or None."""
        rp = os.path.realpath(path)

        def end(line):
            # Only from code that compiles: a brace really missing is an
            # error of the input, not a macro's.
            if any(u.errors for u in self.units if rp in u.files):
                return None
            for u in self.units:
                fn = u.function_at(rp, line)
                if fn is not None:
                    return fn.end.line
            return None
        return end

    def line_macro_lines(self, path):
        """The lines of @path where a unit expands a macro that reads
        the line number (Unit.line_macros)."""
        rp = os.path.realpath(path)
        return {m.loc.line for u in self.units if rp in u.files
                for m in u.macros_in(rp) if m.name in u.line_macros}

    def skipped_lines(self, path):
        """The cparse.Skipped of @path over every unit that reads it (None
        when none does).  A header compiled two ways (a library built
        static and shared, with different -D) gets what the build as a
        whole does: a line is skipped when every unit skips it, and a
        branch is dead when no unit compiles it (cparse.Skipped.merge)."""
        rp = os.path.realpath(path)
        seen = {u.skipped.get(rp) for u in self.units if rp in u.skipped}
        return Skipped.merge(seen) if seen else None

    def macro_fields(self):
        """Every MacroField of the program, once."""
        out = []
        for u in self.units:
            for mf in u.macro_fields:
                if mf not in out:
                    out.append(mf)
        return out

    def sync_types(self):
        """{typedef name: "mutex" | "cond"} of every unit (see
        Unit.sync_types)."""
        out = {}
        for u in self.units:
            out.update(u.sync_types)
        return out

    def macro_member_tags(self, path, line, name, fieldname):
        """Unit.macro_member_tags() over every unit; None when one of
        them cannot tell, or when no unit expands the macro."""
        rp = os.path.realpath(path)
        out, seen = set(), False
        for u in self.units:
            if rp not in u.files:
                continue
            tags = u.macro_member_tags(rp, line, name, fieldname)
            if tags is None:
                return None
            seen = seen or bool(tags)
            out |= tags
        return out if seen else None

    def member_kinds(self, path, line, col, fieldname):
        """Unit.member_kinds() over every unit that reads @path."""
        rp = os.path.realpath(path)
        out = set()
        for u in self.units:
            if rp in u.files:
                out |= u.member_kinds(rp, line, col, fieldname)
        return out

    def sole_call(self, path, line, name):
        """Function.sole_call of the definition of @name whose name is on
        @line of @path, when every unit that compiles it agrees (a header
        read with other macros by another unit may differ); else None."""
        return self._agreed(path, line, name, "sole_call")

    def sole_plain(self, path, line, name):
        """Function.sole_plain of that definition, on the same terms."""
        return bool(self._agreed(path, line, name, "sole_plain"))

    def sole_return(self, path, line, name):
        """Function.returns of that definition, on the same terms."""
        return self._agreed(path, line, name, "returns")

    def _agreed(self, path, line, name, attr):
        rp = os.path.realpath(path)
        seen = set()
        for u in self.units:
            if rp not in u.files:
                continue
            for fn in u.functions.values():
                if fn.name == name and fn.loc.path == rp and \
                        fn.loc.line == line:
                    seen.add(getattr(fn, attr))
        return seen.pop() if len(seen) == 1 else None

    def inits_at(self, path, line, kind):
        """The keys ("TAG.field") of the fields of @kind ("mutex",
        "cond") that brace initialisers give a value on line @line of
        @path, in any unit (Unit.sync_inits)."""
        rp = os.path.realpath(path)
        return {n for u in self.units
                for kd, n in u.sync_inits.get((rp, line), ()) if kd == kind}

    def held_by(self):
        """(node -> the keys of the functions it may hold, the keys of
        the functions whose address may be anywhere), from the units'
        flows: a function stored into a pointer (a structure field, a
        variable) or handed to a parameter of a function of the program
        is in that node, a node stored or handed on is in the next one,
        and a function (or a node's functions) that goes anywhere else
        -- a return value, a call through a pointer, through a pointer,
        the node's own address -- may be anywhere.  So are the functions of a parameter of a
        function the program does not define, and of the fields of a
        structure a cast reads as another."""
        if self._held_by is not None:
            return self._held_by
        holds, nexts, anywhere = {}, {}, set()
        punned = set()
        for src, dst in self.flows:
            if src[0] == "pun":
                punned.update((src[1], dst[1]))
            elif src[0] == "fn":
                if dst == "esc":
                    anywhere.add(src[1])
                else:
                    holds.setdefault(dst, set()).add(src[1])
            else:
                nexts.setdefault(src, set()).add(dst)
        nodes = set(holds) | set(nexts)
        for n in nodes:
            if (n[0] == "param" and n[1] not in self.defs) or \
                    (n[0] == "field" and n[1] in punned):
                nexts.setdefault(n, set()).add("esc")
        changed = True
        while changed:
            changed = False
            for n, dsts in nexts.items():
                got = holds.get(n, set())
                for d in dsts:
                    if d == "esc":
                        if not got <= anywhere:
                            anywhere |= got
                            changed = True
                    elif not got <= holds.setdefault(d, set()):
                        holds[d] |= got
                        changed = True
        self._held_by = (holds, anywhere)
        return self._held_by

    def pointer_targets(self, ind):
        """Keys and names of the functions of the program a call through
        a pointer (@ind, an IndirectCall) may reach: those whose address
        is taken with the type it calls, and those whose address went
        through a cast; every one whose address is taken when the call
        casts the pointer or its type is unknown.  A call through a
        structure field, a variable or a parameter (@ind.node) reaches
        only those of them the node may hold or that may be anywhere
        (held_by()); any other, only those whose address is stored into
        a pointer of the program or goes anywhere: not a function whose
        address is only handed to the C library (a qsort() comparator)
        or to pthread_create() (a thread's start routine, which libgit2's
        call of a comparator cast from `void *` reached).  Of those, the
        ones of the call's type, or of its shape when the call or the
        function's address went through a cast (_shapes_agree())."""
        how = (bool(ind.cast), ind.ftype, ind.node)
        if how not in self._targets:
            if ind.node is not None:
                holds, anywhere = self.held_by()
                may = holds.get(ind.node, set()) | anywhere
            else:
                may = self.stored_fns
            self._targets[how] = [
                (key, name) for key, (name, ftype, erased)
                in sorted(self.addr_funcs.items())
                if key in may and
                (ind.ftype is None or ftype == ind.ftype or (
                    (ind.cast or erased) and
                    _shapes_agree(ind.ftype, ftype)))]
        return self._targets[how]

    def edges(self, fn, where=None, hows=None):
        """(key, chain start) of what @fn may run next, for the calls
        where @where(loc) holds (all of them when None): its direct
        calls, the functions it hands out by address (a callback given
        to qsort() or stored for later runs on whoever calls it), and
        the possible targets of its calls through pointers.  @hows: the
        kinds of call through a pointer (cast, type) whose targets are
        already given, to leave out (and the kinds given here added)."""
        def ok(loc):
            return where is None or where(loc)
        out = [(c.key, [c.callee]) for c in fn.calls if ok(c.loc)]
        out += [(a.key, ["&" + a.callee]) for a in fn.fn_addrs
                if ok(a.loc)]
        for ind in fn.indirect:
            if ok(ind.loc):
                if hows is not None:
                    how = (bool(ind.cast), ind.ftype, ind.node)
                    if how in hows:
                        continue
                    hows.add(how)
                out += [(key, ["(*pointer)", name])
                        for key, name in self.pointer_targets(ind)]
        return out

    def _resolve(self, key, unit):
        """(Function, unit) that a call of @key from code of @unit runs:
        a static function is the unit's own (each unit that includes a
        header has its copy, read with that unit's macros: a #define
        before the #include may give it another body), any other the
        program's one definition; (None, None) when there is none."""
        fn = unit.functions.get(key) if unit is not None else None
        if fn is not None and (fn.is_static or fn.loc.path == unit.path):
            # static, or defined by the unit's own file: a program links
            # the caller's unit with that definition and no other (a tree
            # that builds two programs may define a name in each)
            return fn, unit
        fn = self.defs.get(key)
        return (fn, self.def_unit[key]) if fn is not None else (None, None)

    def reach(self, seeds, unit):
        """{(key, unit path): (Function, [names of the call chain])} of
        every function of the program reached from @seeds ((key, chain)
        pairs, see edges()) of code of @unit, transitively."""
        out = {}
        todo = collections.deque((key, chain, unit) for key, chain in seeds)
        # Per unit, the kinds of call through a pointer whose targets are
        # queued: a later call of the same kind from code of the same unit
        # would queue them again behind the first ones, and each would be
        # dropped when reached (Tor: thousands of functions reached, as
        # many taken by address, for every section).
        hows = {}
        while todo:
            key, chain, u = todo.popleft()
            fn, fu = self._resolve(key, u)
            if fn is None or (key, fu.path) in out:
                continue
            if fn.name in PROCESS_ENDS:
                # the program's own assert handler (or abort): the
                # process ends there, whichever thread calls it
                continue
            out[(key, fu.path)] = (fn, chain)
            for k, more in self.edges(fn, hows=hows.setdefault(fu.path,
                                                               set())):
                todo.append((k, chain + more, fu))
        return out

    def _fn_id(self, fn, u):
        """(key, unit path) of function @fn of unit @u, as reach() names
        it; None for a function of external linkage that units define
        differently (two programs' `usage()`): which one a call runs
        cannot be told by name."""
        if fn.is_static or fn.loc.path == u.path:
            return fn.key, u.path
        if len(self._definers().get(fn.key, ())) > 1:
            return None
        du = self.def_unit.get(fn.key)
        return (fn.key, du.path) if du is not None else None

    def _definers(self):
        if not hasattr(self, "_defs_by_key"):
            self._defs_by_key = {}
            for u in self.units:
                for key, fn in u.functions.items():
                    if not fn.is_static:
                        self._defs_by_key.setdefault(key, set()).add(
                            (fn.loc.path, fn.loc.line))
        return self._defs_by_key

    def _programs(self):
        """One set per main() of the units: the functions (as reach()
        names them) that it runs, called or handed out by address
        (thread start routines, handlers).  A tree may build several
        programs (squashfs-tools' mksquashfs and unsquashfs, a server and
        its tests): what one of them does is not another's."""
        if not hasattr(self, "_mains"):
            self._mains = []
            for u in self.units:
                for key, fn in u.functions.items():
                    if fn.name == "main" and fn.loc.path == u.path:
                        self._mains.append(self._runs(fn, u))
        return self._mains

    def _runs(self, fn, u):
        """Every function (key, unit path) that @fn of @u may run, in
        its thread or in the threads it starts.  A call through a pointer
        runs only those of its targets (pointer_targets()) whose address
        a function already found takes, or a unit outside any function (a
        static table's initialiser): the handlers that another program
        of the tree hands to a loop both link are not this program's
        (redis-benchmark and redis-server on ae.c's event loop)."""
        seen, todo = {(fn.key, u.path)}, [(fn, u)]
        taken = set(self._taken_outside_functions())
        indirect = []  # (IndirectCall, unit) of the functions found

        def reach(k, fu):
            g, gu = self._resolve(k, fu)
            if g is not None and (k, gu.path) not in seen:
                seen.add((k, gu.path))
                todo.append((g, gu))
        while todo:
            while todo:
                f, fu = todo.pop()
                taken |= f.fn_taken
                indirect += [(ind, fu) for ind in f.indirect]
                for k in [c.key for c in f.calls] + \
                        [a.key for a in f.fn_addrs + f.thread_starts]:
                    reach(k, fu)
            # the addresses taken so far: a target found now may take
            # more, hence the loop
            for ind, fu in indirect:
                for k, _ in self.pointer_targets(ind):
                    if k in taken:
                        reach(k, fu)
        return seen

    def _taken_outside_functions(self):
        """Keys of the functions whose address a unit takes outside its
        functions (`static struct ops o = { f };`), or in code whose
        facts name no taker: every program may call them through a
        pointer."""
        if not hasattr(self, "_outside"):
            self._outside = set()
            for u in self.units:
                inside = set()
                for f in u.functions.values():
                    inside |= f.fn_taken
                self._outside |= set(u.addr_funcs) - inside
        return self._outside

    def _same_program(self, a, b):
        """Whether functions @a and @b ((Function, Unit) pairs) may run
        in one process: some main() reaches both, or one of them is
        reached by none (a library's function, or one that cannot be
        told apart by name: it may be anyone's)."""
        ia, ib = self._fn_id(*a), self._fn_id(*b)
        mains = self._programs()
        if ia is None or ib is None or not mains:
            return True
        ina = [ia in m for m in mains]
        inb = [ib in m for m in mains]
        if not any(ina) or not any(inb):
            return True
        return any(x and y for x, y in zip(ina, inb))

    def _cancels(self, where=None):
        """Where the program cancels a thread: "pthread_cancel() at LOC",
        or None; with @where (Function, Unit), only a call in a program
        that also runs that function (_same_program()), and that may
        cancel a thread that runs it (_cancelled())."""
        if not hasattr(self, "_cancel_calls"):
            self._cancel_calls = [
                (loc, slot, (fn, u)) for u in self.units
                for fn in u.functions.values()
                for slot, loc in fn.thread_cancels]
        for loc, slot, at in self._cancel_calls:
            if where is None or self._same_program(where, at) and \
                    self._may_cancel(slot, where):
                return "pthread_cancel() at %s" % loc
        return None

    def _may_cancel(self, slot, where):
        """Whether a pthread_cancel() of the thread kept in @slot
        (_thread_slot()) may cancel a thread that runs @where's function:
        one whose start routine runs it, when the call names the thread
        as the pthread_create() of known start routines stored it
        (`&w->tid` there, `w->tid` here: the same field, variable or
        array); any thread when that cannot be told (pthread_self(), a
        parameter, a thread whose routine is a pointer)."""
        targets = self._cancel_targets(slot)
        if targets is None:
            return True
        wid = self._fn_id(*where)
        return wid is None or wid in targets

    def _creates(self):
        """[(thread slot, routine (Function, Unit) or None)] of every
        pthread_create() of the units, and of every call of a function
        whose own pthread_create() takes its slot or routine from its
        parameters (fuse_start_thread(&f->prune_thread, fuse_prune_nodes,
        f)): the routine of such a call's argument."""
        if hasattr(self, "_create_list"):
            return self._create_list
        out, wrappers = [], {}
        for u in self.units:
            for fn in u.functions.values():
                for slot, routine, _ in fn.thread_creates:
                    if slot is not None and slot[0] == "param" or \
                            routine is not None and routine[0] == "param":
                        wrappers.setdefault(fn.key, []).append(
                            (slot, routine))
                    else:
                        out.append((slot, self._routine_fn(routine, u)))
        for u in self.units:
            for fn in u.functions.values():
                for key, passed in fn.call_args:
                    for slot, routine in wrappers.get(key, ()):
                        if slot is not None and slot[0] == "param":
                            slot = passed.get(slot[1])
                        if routine is not None and routine[0] == "param":
                            routine = passed.get(routine[1])
                        if slot is not None and slot[0] == "param" or \
                                routine is not None and \
                                routine[0] == "param":
                            slot = routine = None  # two levels: unknown
                        out.append((slot, self._routine_fn(routine, u)))
        self._create_list = out
        return out

    def _routine_fn(self, routine, u):
        if routine is None or routine[0] != "fn":
            return None
        fn, fu = self._resolve(routine[1], u)
        return (fn, fu) if fn is not None else None

    def _cancel_targets(self, slot):
        """The functions ((key, unit path)) that the threads stored in
        @slot run, or None when that cannot be told."""
        if slot is None or slot[0] in ("self", "param"):
            return None
        cache = self.__dict__.setdefault("_targets_of", {})
        if not hasattr(self, "_assigned"):
            self._assigned = {a for u in self.units
                              for fn in u.functions.values()
                              for a in fn.thread_assigns}
        if slot not in cache:
            routines = [r for s, r in self._creates() if s == slot or
                        s is None]
            if not routines or slot in self._assigned or \
                    None in self._assigned or \
                    any(r is None for r in routines):
                cache[slot] = None
            else:
                out = set()
                for fn, fu in routines:
                    out |= set(self.reach(self.edges(fn), fu))
                    out.add((fn.key, fu.path))
                cache[slot] = out
        return cache[slot]

    def cancel_near(self, path, line):
        """_cancels() for the code of @path at @line: a pthread_cancel()
        of a program that runs the function there (any, when none of the
        units defines that function)."""
        at = self.functions_at(path, line)
        for where in at:
            found = self._cancels(where)
            if found is not None:
                return found
        return None if at else self._cancels(None)

    def _cancel_point(self, calls, reached, u, fn=None):
        """When the program cancels threads: why the section (its @calls,
        and the functions of the program it reaches, @reached) may be
        where a thread is cancelled -- it calls a function of no file of
        the program that may be a cancellation point (read(), printf(),
        a library's) -- else None.  On a server thread the cancelled one
        would wait on, not be cancelled (a read() there could block the
        server for ever), so the section is held: it runs on its own
        thread, cancellable where it was.  Cancelled there, the thread
        ends holding the lock word as it would have ended holding the
        mutex; a later wait for the lock, a hang under POSIX, stops the
        process with a message naming it (runtime/word.c).  A call that
        ends the process (abort(), a failed assert()) is none: the
        process ends there."""
        at = self._cancels((fn, u) if fn is not None else None)
        if at is None:
            return None
        for c, via in [(c, None) for c in calls] + [
                (c, (g, chain)) for _, (g, chain) in reached
                for c in g.calls]:
            if c.callee in CANCEL_SAFE or c.callee in PROCESS_ENDS or \
                    not c.decl_file or c.callee.startswith("__builtin_") or \
                    self._resolve(c.key, u)[0] is not None:
                continue
            where = "in the section" if via is None else \
                "in %s(), called from the section (through %s)" % (
                    via[0].name, " -> ".join(
                        n + "()" if n.isidentifier() else n
                        for n in via[1]))
            return "%s() %s at %s may be a cancellation point, and the " \
                "program cancels threads (%s)" % (c.callee, where, c.loc, at)
        return None

    def hazards(self, path, start, end, skip=()):
        """See _hazards(): the reasons, each a Hazard."""
        return [r if isinstance(r, Hazard) else Hazard(r)
                for r in self._hazards(path, start, end, skip)]

    def functions_at(self, path, line):
        """[(Function, Unit)] of the function at @line of @path: of the
        unit whose file it is, or, for a header, of every unit that
        compiles that function (a header's static function, or liburcu's
        urcu-call-rcu-impl.h, which urcu.c, urcu-bp.c and urcu-qsbr.c
        include, each unit with its own callees and its own program)."""
        rp = os.path.realpath(path)
        u = self.unit_of(rp)
        out = []
        for unit in [u] if u is not None else \
                [x for x in self.units if rp in x.files]:
            fn = unit.function_at(rp, line)
            if fn is not None:
                out.append((fn, unit))
        return out

    def _hazards(self, path, start, end, skip=()):
        """Reasons a section of @path from (line, col) @start to @end may
        not run on another thread: no-return calls and thread-dependent
        data, in it or in any function of the program it calls, as each
        unit that compiles it reads it.  @skip: spans of it that the
        extracted code does not run (its early unlocks, which a checking
        macro may follow with an exit() that only runs when unlocking
        fails)."""
        out, seen = [], set()
        for fn, u in self.functions_at(path, start[0]):
            for r in self._unit_hazards(fn, u, path, start, end, skip):
                if str(r) not in seen:
                    seen.add(str(r))
                    out.append(r)
        return out

    def _unit_hazards(self, fn, u, path, start, end, skip):
        """_hazards() of the section in Function @fn of Unit @u."""
        rp = os.path.realpath(path)

        def inside(loc):
            return loc.path == rp and start <= loc.pos() < end and \
                not any(a <= loc.pos() < b for a, b in skip)
        calls = [c for c in fn.calls if inside(c.loc)]
        seeds = self.edges(fn, lambda loc: inside(loc))
        out = []
        for c in calls:
            if c.noreturn:
                out.append(Hazard(
                    "no-return call %s() in the section (at %s; it would "
                    "leave the section on the server thread)" %
                    (_UNWINDS.get(c.callee, c.callee), c.loc),
                    c.callee in THREAD_EXITS))
        for t in fn.thread_uses:
            # errno is carried (errno_reached()); the others, written in
            # the section or reached through a macro expanded in it
            # (memcached's LOGGER_LOG() calls pthread_getspecific()),
            # which the Coccinelle pass does not see
            if inside(t.loc) and t.what != "errno":
                out.append("%s in the section (at %s; the server thread "
                           "has its own)" % (t.what, t.loc))
        first = {}  # the first use of each kind of state the program sets
        for t in fn.state_uses:
            if inside(t.loc) and self._state_for(t.kind, (fn, u)):
                first.setdefault(t.kind, t)
        for kind, t in sorted(first.items()):
            out.append("%s in the section (at %s): %s" % (
                t.what, t.loc, self._state_why(kind, (fn, u))))
        for c in fn.frame_uses:
            if inside(c.loc):
                out.append("%s() in the section (at %s; it would give the "
                           "extracted function's frame, not its caller's)"
                           % (c.callee, c.loc))
        for lc in fn.lock_calls:
            if inside(lc.loc) and lc.lock in self.owned_locks:
                out.append("%s in the section (at %s): %s" % (
                    lc.text, lc.loc, self._owned_why(lc.lock)))
        reached = sorted(self.reach(seeds, u).items(),
                         key=lambda kv: kv[0])
        cancel = self._cancel_point(calls, reached, u, fn)
        if cancel:
            out.append(cancel)
        for _, (g, chain) in reached:
            via = " -> ".join(n + "()" if n.isidentifier() else n
                              for n in chain)
            # One per function: a thread exit first, whatever comes
            # before it (lbzip2's bailout() calls _exit() on one path and
            # pthread_exit() on another; the first alone hid the second).
            ends = [c for c in g.calls if c.noreturn]
            c = next((c for c in ends if c.callee in THREAD_EXITS),
                     ends[0] if ends else None)
            if c is not None:
                out.append(Hazard(
                    "no-return call in a function called from the "
                    "section: %s() in %s() at %s (through %s)" % (
                        c.callee, g.name, c.loc, via),
                    c.callee in THREAD_EXITS))
            balanced = self._stream_locks_balanced(g, u)
            for t in g.thread_uses:
                if t.what == "errno":
                    continue  # carried: see errno_reached()
                if balanced and t.what in (THREAD_CALLS["flockfile"],
                                           THREAD_CALLS["funlockfile"]):
                    continue
                out.append("thread-dependent data in a function called from "
                           "the section: %s in %s() at %s (through %s; the "
                           "server thread has its own)" % (
                               t.what, g.name, t.loc, via))
                break
            t = next((t for t in g.state_uses
                      if self._state_for(t.kind, (fn, u))), None)
            if t is not None:
                out.append("%s in %s() at %s, a function called from the "
                           "section (through %s): %s" % (
                               t.what, g.name, t.loc, via,
                               self._state_why(t.kind, (fn, u))))
            for lc in g.lock_calls:
                if lc.lock in self.owned_locks:
                    out.append("a lock call in a function called from the "
                               "section: %s in %s() at %s (through %s): %s"
                               % (lc.text, g.name, lc.loc, via,
                                  self._owned_why(lc.lock)))
                    break
        # A mutex that the functions the section calls take and do not
        # release, or release and do not take (Knot's rrl_hash() calls
        # rrl_lock(), pthread_mutex_lock(tbl->lk + id), whose unlock comes
        # after the section): the server thread would own it, and the
        # caller's unlock would not be its owner's.  Taken and released
        # among them (a nested section through wrappers) is not.
        roles = {}
        for _, (g, chain) in reached:
            for role, lk, text, loc in g.mutex_ops:
                roles.setdefault(lk, {}).setdefault(role, (g, chain, text,
                                                           loc))
        for lk, got in sorted(roles.items()):
            if len(got) == 1:
                role, (g, chain, text, loc) = next(iter(got.items()))
                out.append("a function called from the section %s a mutex "
                           "and returns: %s in %s() at %s (through %s; the "
                           "server thread would %s it)" % (
                               "takes" if role == "lock" else "releases",
                               text, g.name, loc, " -> ".join(
                                   n + "()" if n.isidentifier() else n
                                   for n in chain),
                               "own" if role == "lock" else "release"))
                break
        return out

    def _state_for(self, kind, where):
        """(name, Loc) of the first call that sets per-thread state of
        @kind in a program that runs @where ((Function, Unit): the
        section's function, _same_program()), or None."""
        if kind not in self.state_set:
            return None
        if kind == "sigmask":
            # only a mask that may hold SIGPIPE or SIGXFSZ, built by the
            # same program, makes a write differ on the server
            if not hasattr(self, "_sig_write_fns"):
                self._sig_write_fns = [
                    (fn, u) for u in self.units
                    for fn in u.functions.values() if fn.sig_write_sets]
            if not any(self._same_program(where, at)
                       for at in self._sig_write_fns):
                return None
        if not hasattr(self, "_setters"):
            self._setters = [
                (STATE_SETTERS[c.callee], (c.callee, c.loc), (fn, u))
                for u in self.units for fn in u.functions.values()
                for c in fn.calls if c.callee in STATE_SETTERS and not (
                    STATE_SETTERS[c.callee] == "stream" and
                    self._stream_region_waits_nothing(fn, u, c))]
        return next((val for k, val, at in self._setters
                     if k == kind and self._same_program(where, at)), None)

    def _stream_region_waits_nothing(self, fn, u, c):
        """Whether the stream lock that flockfile() call @c of Function
        @fn (of Unit @u) takes is held only while its thread waits for no
        lock: funlockfile() follows in @fn, nothing between jumps out (a
        return, a goto, a break of a loop around), and nothing between -- in @fn or in a function of the program it may
        call -- takes or waits on a mutex or condition variable, calls
        through a pointer, or calls outside the program and the C
        library.  Then a section's stdio call on the server thread waits
        for that stream at most until its holder goes on by itself: no
        thread holds a stream while it waits for the server."""
        if c.callee != "flockfile":
            return False
        ends = [d.loc.pos() for d in fn.calls
                if d.callee == "funlockfile" and d.loc.path == c.loc.path
                and d.loc.pos() > c.loc.pos()]
        if not ends:
            return False
        a, b = c.loc.pos(), max(ends)

        def inside(loc):
            return loc.path == c.loc.path and a < loc.pos() < b
        def leaves(j):
            # a return, a goto (its label may be anywhere), a break or
            # continue of a loop or switch that does not lie inside
            return inside(j.loc) and (
                j.kind in ("return", "goto") or not j.target or
                not (inside(j.target[0]) and inside(j.target[1])))
        if any(leaves(j) for j in fn.jumps) or \
                any(inside(i.loc) for i in fn.indirect) or \
                any(inside(m[3]) for m in fn.mutex_ops):
            return False
        reached = [g for g, _ in self.reach(self.edges(fn, inside),
                                            u).values()]
        calls = [d for d in fn.calls if inside(d.loc)] + \
            [d for g in reached for d in g.calls]
        return not any(g.mutex_ops or g.indirect for g in reached) and \
            not any(d.callee.startswith(("pthread_mutex_", "pthread_cond_",
                                         "liblock_", "pthread_rwlock_",
                                         "pthread_spin_", "sem_",
                                         "pthread_join", "pthread_barrier_",
                                         "mtx_", "cnd_", "thrd_join")) or
                    (self._resolve(d.key, u)[0] is None and d.decl_file and
                     not C_LIBRARY_HEADER.match(d.decl_file))
                    for d in calls)

    def _stream_locks_balanced(self, g, u):
        """Whether every stream lock that Function @g (of Unit @u) takes
        it gives back before it returns, waiting for nothing meanwhile
        (_stream_region_waits_nothing()), and it gives back only those:
        nbdkit's log_stderr_verror(), reached from its sections through
        nbdkit_error(), holds stderr for one message.  On the server
        thread that is as on its caller's: the stream's lock is not held
        once the section ends."""
        takes = [c for c in g.calls
                 if c.callee in ("flockfile", "ftrylockfile")]
        gives = [c for c in g.calls if c.callee == "funlockfile"]
        return all(self._stream_region_waits_nothing(g, u, c)
                   for c in takes) and \
            all(any(c.loc.path == d.loc.path and c.loc.pos() < d.loc.pos()
                    for c in takes) for d in gives)

    def _state_why(self, kind, where):
        name, loc = self._state_for(kind, where)
        return STATE_WHY[kind] % (name, loc)

    def _section_reach(self, path, start, end):
        """[(Function, Unit, inside(loc), [Function reached])] of the
        section of @path from (line, col) @start to @end, one for each
        unit that compiles it (functions_at()): the function it is in,
        whether a location is in it, and the functions of the program it
        may call; empty when the front end lacks the function."""
        rp = os.path.realpath(path)
        if (rp, start, end) in self._reached:
            return self._reached[(rp, start, end)]

        def inside(loc):
            return loc.path == rp and start <= loc.pos() < end
        out = [(fn, u, inside,
                [g for g, _ in self.reach(self.edges(fn, inside),
                                          u).values()])
               for fn, u in self.functions_at(rp, start[0])]
        self._reached[(rp, start, end)] = out
        return out

    def foreign_call(self, path, start, end):
        """The first call, in the section (of @path from (line, col)
        @start to @end) or in a function of the program it reaches, of a
        function that neither the program nor the C library defines
        (C_LIBRARY_HEADER): "NAME() at LOC", or None.  Such a function
        may call back into the program through a pointer it was given
        before, which no reading of the program follows."""
        for fn, u, inside, reached in self._section_reach(path, start,
                                                          end):
            hooks = self._state_for("stdio-callback", (fn, u))
            for c in [c for c in fn.calls if inside(c.loc)] + \
                    [c for g in reached for c in g.calls]:
                if self._resolve(c.key, u)[0] is not None:
                    continue
                if c.decl_file and not C_LIBRARY_HEADER.match(c.decl_file):
                    return "%s() at %s" % (c.callee, c.loc)
                if hooks and c.callee in STREAM_CALLS:
                    return "%s() at %s (the program hands stdio its own " \
                        "functions with %s() at %s)" % (
                            c.callee, c.loc, hooks[0], hooks[1])
        return None

    def _owned_why(self, lock):
        loc, how = self.owned_locks[lock]
        return ("'%s' is initialised %s at %s, and a recursive or "
                "error-checking mutex would take the server thread, not "
                "the caller, for the thread that owns it"
                % (lock.lstrip("."), how, loc))

    def outside(self, name, worked, headers, units=None):
        """Files of units not in @worked (real paths) that see the lock
        @name in a way a rewrite of @worked would not follow: they use or
        define it, or declare it in their own text or in a header not
        among @headers (@units: those looked at, by default the
        program's).  @name: "m", or "TAG.field" (a use of the field
        of a structure without a tag, "?.field", may be it: the key of a
        nested anonymous structure's member is "OUTER.member.field")."""
        names = {name}
        if "." in name:
            names.add("?." + name.rsplit(".", 1)[1])
        out = []
        for u in units if units is not None else self.units:
            if u.path in worked:
                continue
            if names & u.mutex_uses:
                out.append(_display(u.path))
                continue
            for loc, st in u.mutex_decls.get(name, []):
                if st != "static" and "." not in name and \
                        (loc.path == u.path or loc.path not in headers):
                    out.append(_display(u.path))
                    break
        return out

    def defined_in(self, name, reach=None):
        """The files where a unit of the program defines a function named
        @name (a header's static inline once, whatever the units that
        read it).  With @reach (real paths of files), not those whose
        definition is static in a unit's own file outside @reach: no
        call written in those files reaches it."""
        if not hasattr(self, "_def_files"):
            self._def_files = {}
            for u in self.units:
                for fn in u.functions.values():
                    self._def_files.setdefault(fn.name, set()).add(
                        (fn.loc.path, fn.is_static and
                         fn.loc.path == u.path))
        return {p for p, own in self._def_files.get(name, ())
                if reach is None or not own or p in reach}

    def pointer_returns(self, name):
        """The globals whose addresses a function named @name may return
        (Function.pointer_returns of every definition of the program),
        or None when one of them may return anything else or none is
        known."""
        out, found = set(), False
        for u in self.units:
            for fn in u.functions.values():
                if fn.name != name:
                    continue
                if fn.pointer_returns is None:
                    return None
                found = True
                out |= fn.pointer_returns
        return frozenset(out) if found else None

    def declared_in(self, name):
        """Files that declare the global lock @name, and whether one of
        the declarations is static."""
        files, static = set(), False
        for u in self.units:
            for loc, st in u.mutex_decls.get(name, []):
                files.add(loc.path)
                static = static or st == "static"
        return files, static

    def errno_reached(self, path, start, end):
        """Whether the section (from @start to @end, (line, col), in
        @path) or a function of the program it calls may use errno: names
        it, or calls a function the program does not define (the C
        library's set errno on failure, and perror() or printf's %m read
        it), or through a pointer."""
        for fn, u, inside, reached in self._section_reach(path, start,
                                                          end):
            if any(t.what == "errno" and inside(t.loc)
                   for t in fn.thread_uses):
                return True
            calls = [c for c in fn.calls if inside(c.loc)] + \
                [c for g in reached for c in g.calls]
            if any(inside(i.loc) for i in fn.indirect) or \
                    any(g.indirect for g in reached):
                return True
            if any(c.callee not in ERRNO_FREE and
                   self._resolve(c.key, u)[0] is None for c in calls):
                return True
            if any(t.what == "errno" for g in reached
                   for t in g.thread_uses):
                return True
        return False

    def thread_locals(self):
        """Names of the thread-local variables of the program."""
        return {d.name for u in self.units for d in u.decls
                if d.thread_local}
