#!/bin/sh
# SPDX-License-Identifier: MIT
# Whole programs through libclang (rcl-refactor -p BUILD_DIR):
#  - jobq (wholeprog/jobq): four units built with `-include config.h`
#    (the sources never include it: they do not compile without the
#    build's flags).  With -p and no file named, the units that use a
#    lock are rewritten, the others left alone; the result, built with
#    -Wall -Werror, prints what the original prints under each algorithm.
#    compile_commands.json is written by hand here (both the "arguments"
#    and the "command" forms), and by `bear -- make` when bear is there.
#  - naming only some units: the non-static stats_lock, used by main.c,
#    is refused naming main.c; the static queue lock is still converted.
#  - hazards (wholeprog/hazards): sections that call, directly or through
#    functions of other units, no-return functions (exit, longjmp,
#    pthread_exit, a function declared noreturn) or that use thread-local
#    data (a __thread or _Thread_local variable) are held with file:line
#    (one that may pthread_exit() too); errno set by a function the
#    section calls travels back
#    to the caller; the rest is converted and the output unchanged.
#  - hdrinline (wholeprog/hdrinline): a header's static inline function
#    is each unit's own, read with its macros: the section whose copy may
#    exit() is held, the other delegated, whatever the units' order.
#  - wrapunits (wholeprog/wrapunits): with -p and no file named, a unit
#    that locks only through lock functions of another unit is rewritten.
#  - selunits (wholeprog/selunits): with -p and no file named, a unit
#    whose only mutex is a function's static one, and with --locks
#    TAG.field the units using or initialising that field, are rewritten.
#  - umbrella (wholeprog/umbrella): --in-place where an unchanged header
#    includes a rewritten one; the compile check sees the rewritten copy.
#  - libstyle (wholeprog/libstyle): a library's private header compiled
#    twice (static and shared), opening `extern "C" {` for C++, with
#    static inline lock helpers, and including a header that sits beside
#    another unit (see its section below).
#  - hdrsect (wholeprog/hdrsect): sections in a header's static inline
#    helpers and in a .c file a unit includes are found and extracted
#    there (they were not read: "0 section(s) found").
#  - deadinc (wholeprog/deadinc): what the compiler skips does not count: a
#    header included only under a false #ifdef, a typedef in a skipped
#    branch, and with -p, macros in a skipped branch.
#  - statushdr (wholeprog/statushdr): locals a header's macros declare,
#    set and return (rsyslog's DEFiRet, ABORT_FINALIZE, RETiRet) travel in
#    the context; an error inside a header's #define is blamed on the
#    section that expands the macro, which alone is held.
#  - with -p, a section in code the build skips is held with that reason.
#  - tightinc: a unit whose first definition is on the line after its
#    last #include gets our includes before the extracted function that
#    goes there (errno was undeclared, the section held).
#  - checkedwrap: with -p and no file named, the unit defining lock
#    wrappers that report and abort when pthread fails is read too.
#  - opaquewrap: lock wrappers, called through macros, of a structure the
#    callers see only as a handle (pigz's yarn.c): the held section keeps
#    its macro call (it became liblock_lock() on an incomplete type).
#  - guardunits: a scope guard (nbdkit's ACQUIRE_LOCK_FOR_CURRENT_SCOPE)
#    whose cleanup function another unit defines is read and delegated.
#  - guardheader: a scope guard in a header's static inline function,
#    returning a value computed under the lock, is read (held).
#  - buildflags: the compile check gives each unit its own -D (not every
#    unit's), and does not copy an unchanged header that goes on with
#    #include_next (nbdkit's replacement poll.h).
#  - samebase: a/util.c and b/util.c, each with a static lock on the
#    same line, get an rcl-config.h entry each.
#  - --macro-file definitions win over the file's own.
#  - a build with -std=gnu99 -pedantic -Wdeclaration-after-statement
#    -Werror: the extracted code declares before its statements, and
#    liblock.h's C11 atomics give no -Wpedantic warning (nothing held or
#    refused for either: rrdtool builds so).
#  - cxxcompat (wholeprog/cxxcompat): zstd's flags, -Wc++-compat and
#    -Wdeclaration-after-statement: the extracted functions convert
#    their void * argument explicitly, and a declaration that follows
#    hoisted ones in the section's block moves to the function's top
#    (both held before: a new warning).
#  - coverage (wholeprog/coverage): a section that reads its line
#    numbers (assert(), __LINE__) keeps them, and its extracted function
#    still builds with --coverage -Werror (its head was numbered after
#    its end: -Wcoverage-invalid-line-number, memcached-debug's build).
#  - stubbed (wholeprog/stubbed): memcached's testapp.c stubs out
#    STATS_LOCK(), which thread.c defines, and stats_prefix.c is linked
#    with either: its sections called a companion of thread.c's, and
#    testapp did not link; they stay in place.
#  - twolocks (wholeprog/twolocks): counted.h's static inline lock(),
#    which also counts waiters (multipath-tools' lock.h), and plugin.c's
#    global trivial lock(): a name two files define is no wrapper (main.c's
#    section called plugin.c's companion, and the count was lost); a
#    --lock-fn naming it is refused.
#  - cleanupunits: a cancellation cleanup handler that unlocks its
#    `void *`, not static, pushed with a structure's first member: held
#    when every push and call of the build names its lock, POSIX when a
#    unit not rewritten calls it with any pointer.
#  - staticcopies: the same static mutex_lock(pthread_mutex_t *)
#    wrapper in two units (liburcu's urcu.c, urcu-bp.c, ...) is one
#    parameter wrapper; copies that differ keep the name no wrapper.
#  - headerhazard: a section in a header whose callee creates a thread
#    is held (the compiler's facts were looked up only in a unit's own
#    file, and the section was delegated: liburcu's call_rcu thread).
#  - ptrfield: a structure's pointer to a mutex it allocates after an
#    #endif, taken through macros (curl's asyn-thread.c): -p picks the
#    unit, and the allocation is followed.
#  - voidret (wholeprog/voidret): a function whose returns give NULL or
#    the address of one global mutex (unbound's log_get_lock()), whose
#    result a unit not rewritten converts to a mutex pointer, reaches
#    that mutex only: the structure locks stay convertible.
#  - twoprogs (wholeprog/twoprogs): a tree that builds two programs
#    (squashfs-tools' mksquashfs and unsquashfs): pack.c cancels a thread
#    and sets a signal mask, unpack.c does neither; unpack.c's sections
#    (a condition wait, a printf() through its own report(), which pack.c
#    also defines) are delegated (they were refused for pack.c's
#    pthread_cancel()); pack.c's cancelled spinner's section, around a
#    printf(), is held, and its packer's section on the same lock is
#    delegated.
#  - sharedloop (wholeprog/sharedloop): two programs, srv and bench, link
#    one event loop that runs their handlers through a pointer (redis'
#    ae.c under redis-server and redis-benchmark); srv's handler cancels
#    a thread it kept in a copied slot; bench's section, which prints, is
#    delegated (it was held: the loop's pointer was taken to reach srv's
#    handler in bench too), srv's worker's section is held.
#  - localalias (wholeprog/localalias): note.c's `#define mutex_t
#    pthread_mutex_t` holds in note.c only; box.h's mutex_t is a
#    structure holding the mutex, and box.c's `static mutex_t l = {
#    PTHREAD_MUTEX_INITIALIZER }` initialises its field (icecast 2.4.4's
#    log.c and thread.h: the initialiser was left as pthread's, and the
#    compile check wrote nothing at all).
#  - initmacro: an initialiser macro of a shared header that a unit not
#    being rewritten expands too keeps its lock POSIX, with that file's
#    name (rewriting its body broke that unit's build: rrdtool's
#    MUTEX_INITIALIZER, src/mutex.h).
#  - skiponly: a lock that only branches the build skips declare and use
#    (mbuffer's LogMut under NEED_IO_INTERLOCK, in log.h, log.c and
#    mbuffer.c) stays POSIX in every file; its extern in log.h and the
#    calls in main.c were converted, log.c (no other lock) was not read,
#    and a build defining NEED_IO_INTERLOCK failed.
#  - paramwrap: with -p and no file named, the unit that defines lock
#    wrappers on their parameter (rrdtool's mutex_lock(mutex_t *m) in
#    mutex.c) is rewritten with the units that call them; it was left
#    out, and nothing was converted.
#  - anglehdr: a project header included as <setup.h> (siege's style),
#    found through -I (or -p), is read like "setup.h": its structure's
#    lock is converted; with no -I, the field names that structure, and
#    the one structure read with a field of that name is not taken for
#    it (it was, and the rewrite called liblock on a pthread_mutex_t).
#  - opaque: a library's mutex inside a structure that bar.c sees only
#    as a handle (wget2's struct _wget_thread_mutex_st), and bar.c's own
#    structure whose handle field has the same name (`mutex`): that field
#    is no lock, and the library's lock is converted (bar.c's
#    wget_thread_mutex_init(&bar->mutex) kept it POSIX, "used outside").
#  - tiedcond: a lock selected by --locks and one not selected wait on
#    one condition key; the other becomes liblock's on posix, the
#    selected one moves (both stayed POSIX).
#  - skipmacro: a call in skipped code through a macro that only the
#    skipped lines define names the macro's member, not its argument's
#    words (apr's proc_pthread_mutex_cond(mutex)).
#  - sametag (wholeprog/sametag): type names several units define
#    differently, lock helpers a header defines, -Wbad-function-cast,
#    -j 1 against -j 2 (see its section below).
#  - profsites (wholeprog/profsites): a profile that names heap locks by
#    the lines initialising them (init.c) selects those of work.c's
#    sections: with -p and no file named, the units that take them are
#    read (none was: "no translation unit uses a selected lock"), and a
#    selected lock's section nested in another's is called from the outer
#    section's function (it was extracted, left uncalled, and both held).
#  - stray: a test program of the tree that the database does not list
#    (unbound's testcode/unitanchor.c, built by `make unittest` only)
#    takes a lock: the lock stays POSIX, the file named (it was
#    converted, and the test handed pthreads a liblock lock); a file that
#    stops at an #error is another platform's; one that does not compile
#    with its neighbours' flags, or that no rule of the build's Makefiles
#    builds (a plugin left off), gets a note if it uses a converted lock.
#  - bad -p input: one line each, exit 2.
. "$(dirname "$0")/common.sh"
WP="$top_srcdir/tests/cocci/wholeprog"

registered_algorithms
algos=
for a in posix mcs rcl; do
	echo "$avail" | grep -qx "$a" && algos="$algos $a"
done
[ -n "$algos" ] || fail "none of posix, mcs, rcl is registered"

# same_output NAME WANT PROGRAM: PROGRAM prints WANT under every algorithm.
same_output() {
	for a in $algos; do
		LIBLOCK_LOCK=$a timeout 60 "$3" >"$TMP/$1.got" 2>"$TMP/$1.err"
		rc=$?
		[ $rc -eq 0 ] || { cat "$TMP/$1.err"; fail "$1 under $a: exit $rc$(
			[ $rc -eq 124 ] && echo ' (timed out after 60 s)')"; }
		cmp -s "$2" "$TMP/$1.got" ||
			{ diff -u "$2" "$TMP/$1.got"; fail "$1 under $a: output differs"; }
		echo "ok $1 $a"
	done
}

# each_config NAME SRC WANT FLAG...: SRC, built with each FLAG in turn (a
# configuration: -DX, -UX), prints WANT under rcl, posix and mcs.
each_config() {
	name=$1 src=$2 want=$3
	shift 3
	for d in "$@"; do
		cc_rcl "$TMP/$name.bin" "$src" "$d" 2>"$TMP/cc" ||
			{ cat "$TMP/cc"; fail "$name: the result does not build with $d"; }
		for a in rcl posix mcs; do
			out=$(LIBLOCK_LOCK=$a timeout 120 "$TMP/$name.bin")
			[ "$out" = "$want" ] ||
				fail "$name $d $a: printed '$out', want '$want'"
		done
	done
}

# ---- jobq, compile_commands.json by hand ----
# (with an option whose value is the next argument, `--param
# ssp-buffer-size=1`, as Tor's build passes it: kept with its value)
cp -R "$WP/jobq" "$TMP/jobq" && chmod -R u+w "$TMP/jobq"
cd "$TMP/jobq" || exit 1
{
	echo '['
	for u in main queue stats; do
		printf '{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-include", "config.h", "-pthread", "--param", "ssp-buffer-size=1", "-fPIE", "-c", "-o", "%s.o", "%s.c"]},\n' \
			"$TMP/jobq" "$u" "$u" "$u"
	done
	printf '{"directory": "%s", "file": "%s/util.c", "command": "cc -std=gnu11 -O2 -include config.h -c -o util.o util.c"}\n' \
		"$TMP/jobq" "$TMP/jobq"
	echo ']'
} >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread -include config.h main.c queue.c \
	stats.c util.c -o "$TMP/jobq.orig" || fail "jobq does not build"
timeout 60 "$TMP/jobq.orig" >"$TMP/jobq.want" || fail "jobq fails"
# Without the build's flags queue.c does not compile (QUEUE_CAP is in
# config.h): the file named alone is refused as such.
"$RCLR" --locks all -o "$TMP/bad" queue.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "queue.c without -p: want exit 1"; }
grep -q "queue.c: the input does not compile" "$TMP/log" ||
	{ cat "$TMP/log"; fail "queue.c without -p: message"; }

"$RCLR" -p . --locks all -o "$TMP/jout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "jobq -p: rcl-refactor failed"; }
grep -q "5 section(s) found, 5 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "jobq -p: summary"; }
for u in main queue stats; do
	grep -q liblock_exec "$TMP/jout/$u.c" || fail "jobq -p: $u.c not rewritten"
done
[ ! -e "$TMP/jout/util.c" ] || fail "jobq -p: util.c (no lock) was written"
grep -q "extern liblock_lock_t stats_lock;" "$TMP/jout/stats.h" ||
	fail "jobq -p: stats.h's declaration not converted"
cc_rcl "$TMP/jobq.new" "$TMP/jout/main.c" -include "$TMP/jout/config.h" \
	"$TMP/jout/queue.c" "$TMP/jout/stats.c" util.c ||
	fail "jobq -p: the result does not build with -Wall -Werror"
same_output jobq "$TMP/jobq.want" "$TMP/jobq.new"

# Only stats.c and queue.c named: stats_lock is seen by main.c.
"$RCLR" -p . --locks all -o "$TMP/jout2" stats.c queue.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "jobq subset: want exit 1"; }
grep -qx "stats.c:9: not transformed: lock stats_lock stays POSIX: not static, and seen by main.c, which is not being rewritten (name it too, or make the lock static)" "$TMP/log" ||
	{ cat "$TMP/log"; fail "jobq subset: the refusal"; }
grep -q "liblock_exec(&q_lock" "$TMP/jout2/queue.c" ||
	fail "jobq subset: the static queue lock was not converted"
grep -q "pthread_mutex_lock(&stats_lock)" "$TMP/jout2/stats.c" ||
	fail "jobq subset: stats.c was changed"

# The same with bear's compile_commands.json.
if command -v bear >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
	rm -f compile_commands.json
	bear -- make -s CC="$CC" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log"; fail "bear -- make"; }
	[ -s compile_commands.json ] || fail "bear wrote no compile_commands.json"
	make -s clean >/dev/null
	"$RCLR" -p . --locks all -o "$TMP/jout3" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log"; fail "jobq -p (bear): rcl-refactor failed"; }
	grep -q "5 section(s) found, 5 delegated, 0 held, 0 refused" "$TMP/log" ||
		{ cat "$TMP/log"; fail "jobq -p (bear): summary"; }
	cmp -s "$TMP/jout/queue.c" "$TMP/jout3/queue.c" ||
		fail "jobq -p (bear): a different queue.c"
	echo "ok jobq bear"
else
	echo "bear or make missing: the bear run is skipped"
fi

# In place (config.h, forced on every unit, is not rewritten: the compile
# check must find it where it is).
"$RCLR" -p . --locks all --in-place >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "jobq -p --in-place: rcl-refactor failed"; }
grep -q "liblock_exec(&q_lock" queue.c || fail "jobq --in-place: queue.c"
cc_rcl "$TMP/jobq.ip" main.c -include config.h queue.c stats.c util.c ||
	fail "jobq --in-place: the result does not build"
same_output jobq-in-place "$TMP/jobq.want" "$TMP/jobq.ip"

# ---- hazards ----
cp -R "$WP/hazards" "$TMP/hz" && chmod -R u+w "$TMP/hz"
cd "$TMP/hz" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c ops.c util.c \
	-o "$TMP/hz.orig" || fail "hazards does not build"
timeout 60 "$TMP/hz.orig" >"$TMP/hz.want" || fail "hazards fails"
# The sections that cannot run on the server are held: they stay in
# their thread, on the lock word, one that may end its thread
# (pthread_exit()) with the lock held too (its waiters wait as POSIX's
# do: runtime/word.c, the orphan's grace).
"$RCLR" --locks all -o "$TMP/hout" ops.c util.c main.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "hazards: want exit 0 (all held or moved)"; }
W="(runs in place on the lock word)"
cat >"$TMP/hz.reasons" <<EOR
ops.c:31: held: thread-dependent data in a function called from the section: thread-local variable 'nnotes' in note() at util.c:18 (through note(); the server thread has its own) $W
ops.c:43: held: no-return call in a function called from the section: exit() in bail() at util.c:29 (through bail()) $W
ops.c:56: held: no-return call fatal() in the section (at ops.c:58; it would leave the section on the server thread) $W
ops.c:69: held: no-return call pthread_exit() in the section (at ops.c:71; it would leave the section on the server thread) $W
ops.c:82: held: thread-local variable 'req_id' in the section (at ops.c:83; the server thread has its own) $W
ops.c:105: held: no-return call in a function called from the section: longjmp() in unwind() at util.c:52 (through step() -> unwind()) $W
EOR
grep "held: \|not transformed" "$TMP/log" >"$TMP/hz.refused"
diff -u "$TMP/hz.reasons" "$TMP/hz.refused" || fail "hazards: the held sections"
grep -q "8 section(s) found, 2 delegated, 6 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "hazards: summary"; }
grep -q "pthread_mutex_\(un\)*lock" "$TMP/hout/ops.c" &&
	fail "hazards: a pthread lock call left on a converted lock"
grep -q "liblock_lock(&quit_lock)" "$TMP/hout/ops.c" ||
	fail "hazards: quit_lock (a section may pthread_exit()) not held in place"
grep -q "liblock_exec(&ok_lock" "$TMP/hout/ops.c" ||
	fail "hazards: the section of ok_lock (scale() is harmless) not converted"
# parse_num() sets errno: it travels with the section instead.
grep -q "errno = rcl_ctx.out.rcl_errno;" "$TMP/hout/ops.c" ||
	fail "hazards: errno set by parse_num() is not carried back"
cc_rcl "$TMP/hz.new" "$TMP/hout/ops.c" "$TMP/hout/main.c" \
	"$TMP/hout/util.c" || fail "hazards: the result does not build"
same_output hz "$TMP/hz.want" "$TMP/hz.new"
# The same facts through -p (the helpers' unit is found in the build).
{
	echo '['
	for u in main ops; do
		printf '{"directory": "%s", "file": "%s.c", "command": "cc -std=gnu11 -O2 -c %s.c"},\n' "$TMP/hz" "$u" "$u"
	done
	printf '{"directory": "%s", "file": "util.c", "command": "cc -std=gnu11 -O2 -c util.c"}\n' "$TMP/hz"
	echo ']'
} >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/hout2" ops.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "hazards -p: want exit 0"; }
grep "held: \|not transformed" "$TMP/log" >"$TMP/hz.refused"
diff -u "$TMP/hz.reasons" "$TMP/hz.refused" || fail "hazards -p: the held sections"

# ---- hdrinline: a header's static inline functions, per unit ----
# Every unit has its own copy of a header's static function, read with its
# own macros: strict.c defines TALLY_STRICT before the #include, so its
# tally_check() may exit() and its section is held; plain.c's copy may
# not, and its section is delegated.  Whichever unit the build lists
# first (the front end reads a header's definition once per way it is
# read and gives it to the next unit reading it the same way), the run is
# the same.
cp -R "$WP/hdrinline" "$TMP/hi" && chmod -R u+w "$TMP/hi"
cd "$TMP/hi" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c plain.c strict.c \
	-o "$TMP/hi.orig" || fail "hdrinline does not build"
timeout 60 "$TMP/hi.orig" >"$TMP/hi.want" || fail "hdrinline fails"
for order in "plain strict main" "strict main plain"; do
	{
		echo '['
		sep=
		for u in $order; do
			printf '%s{"directory": "%s", "file": "%s.c", "command": "cc -std=gnu11 -O2 -c %s.c"}\n' "$sep" "$TMP/hi" "$u" "$u"
			sep=,
		done
		echo ']'
	} >compile_commands.json
	o=$(echo "$order" | cut -d' ' -f1)
	"$RCLR" -p . --locks all -o "$TMP/hi.$o" >"$TMP/hi.$o.log" 2>&1
	[ $? -eq 0 ] || { cat "$TMP/hi.$o.log"; fail "hdrinline ($order): want exit 0"; }
	grep -q "^strict.c:7: held: no-return call in a function called from the section: exit() in tally_check() at tally.h:36 (through tally_check())" \
		"$TMP/hi.$o.log" ||
		{ cat "$TMP/hi.$o.log"; fail "hdrinline ($order): strict.c's section not held for its exit()"; }
	grep -q "2 section(s) found, 1 delegated, 1 held, 0 refused" \
		"$TMP/hi.$o.log" ||
		{ cat "$TMP/hi.$o.log"; fail "hdrinline ($order): plain.c's section not delegated"; }
done
diff -r "$TMP/hi.plain" "$TMP/hi.strict" ||
	fail "hdrinline: the output depends on the order of the units"
cmp -s "$TMP/hi.plain.log" "$TMP/hi.strict.log" ||
	fail "hdrinline: the report depends on the order of the units"
cc_rcl "$TMP/hi.new" "$TMP/hi.plain/main.c" "$TMP/hi.plain/plain.c" \
	"$TMP/hi.plain/strict.c" || fail "hdrinline: the result does not build"
same_output hi "$TMP/hi.want" "$TMP/hi.new"

# ---- wrapunits: lock functions in their own unit ----
# main.c locks only through guard_acquire()/guard_release(), defined in
# guard.c: it names no mutex, but with -p and no file named it is one of
# the units rewritten, and its section is delegated.
cp -R "$WP/wrapunits" "$TMP/wu" && chmod -R u+w "$TMP/wu"
cd "$TMP/wu" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c guard.c \
	-o "$TMP/wu.orig" || fail "wrapunits does not build"
timeout 60 "$TMP/wu.orig" >"$TMP/wu.want" || fail "wrapunits fails"
{
	echo '['
	printf '{"directory": "%s", "file": "guard.c", "command": "cc -std=gnu11 -O2 -c guard.c"},\n' "$TMP/wu"
	printf '{"directory": "%s", "file": "main.c", "command": "cc -std=gnu11 -O2 -c main.c"}\n' "$TMP/wu"
	echo ']'
} >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/wu.out" >"$TMP/log" 2>&1
[ $? -eq 0 ] || { cat "$TMP/log"; fail "wrapunits: want exit 0"; }
grep -q "1 section(s) found, 1 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "wrapunits: main.c's section not found"; }
grep -q "guard_acquire_rcl_exec(&tally_guard" "$TMP/wu.out/main.c" ||
	fail "wrapunits: main.c not rewritten"
cc_rcl "$TMP/wu.new" "$TMP/wu.out/main.c" "$TMP/wu.out/guard.c" ||
	fail "wrapunits: the result does not build"
same_output wu "$TMP/wu.want" "$TMP/wu.new"

# ---- selunits: which units -p picks, by the locks selected ----
# table.c's only mutex is its function's own static one; tally.c locks a
# field of struct tally, stamp.c one of a typedef'd structure without a
# tag; main.c only initialises both fields.  With -p and no file named,
# the same sections are found as when every file is named, and
# --locks TAG.field or a function's static mutex picks its units (once
# "no translation unit uses a selected lock").
cp -R "$WP/selunits" "$TMP/su" && chmod -R u+w "$TMP/su"
cd "$TMP/su" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c tally.c stamp.c table.c \
	-o "$TMP/su.orig" || fail "selunits does not build"
timeout 60 "$TMP/su.orig" >"$TMP/su.want" || fail "selunits fails"
{
	echo '['
	for u in main tally stamp; do
		printf '{"directory": "%s", "file": "%s.c", "command": "cc -std=gnu11 -O2 -pthread -c %s.c"},\n' "$TMP/su" $u $u
	done
	printf '{"directory": "%s", "file": "table.c", "command": "cc -std=gnu11 -O2 -pthread -c table.c"}\n' "$TMP/su"
	echo ']'
} >compile_commands.json
"$RCLR" --locks all -o "$TMP/su.named" main.c tally.c stamp.c table.c \
	>"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "selunits named: want exit 0"; }
grep -q "3 section(s) found, 3 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "selunits named: three sections"; }
"$RCLR" -p . --locks all -o "$TMP/su.out" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "selunits -p: want exit 0"; }
grep -q "3 section(s) found, 3 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "selunits -p: the sections of the named files"; }
for u in main tally stamp table; do
	cmp -s "$TMP/su.named/$u.c" "$TMP/su.out/$u.c" ||
		fail "selunits: -p writes $u.c otherwise than naming it"
done
cc_rcl "$TMP/su.new" "$TMP/su.out/main.c" "$TMP/su.out/tally.c" \
	"$TMP/su.out/stamp.c" "$TMP/su.out/table.c" ||
	fail "selunits: the result does not build"
same_output su "$TMP/su.want" "$TMP/su.new"
# --locks LOCK: the units it names (a header is written with its unit)
for pick in "tally.mu:main.c tally.c" "stamp_t.guard:main.c stamp.c" \
	"table_lock:table.c" "mu:main.c tally.c"; do
	lk=${pick%%:*}
	rm -rf "$TMP/su.pick"
	"$RCLR" -p . --locks "$lk" -o "$TMP/su.pick" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log"; fail "selunits --locks $lk: want exit 0"; }
	grep -q "1 section(s) found, 1 delegated, 0 held, 0 refused" \
		"$TMP/log" || { cat "$TMP/log"; fail "selunits --locks $lk"; }
	got=$(cd "$TMP/su.pick" && ls *.c | tr '\n' ' ')
	[ "$got" = "${pick#*:} " ] ||
		fail "selunits --locks $lk: wrote $got, want ${pick#*:}"
	echo "ok selunits --locks $lk"
done

# ---- umbrella: --in-place, an unchanged header includes a rewritten one ----
# main.c includes only app.h, which nothing changes, and app.h includes
# shards.h, whose extern lock array becomes liblock_lock_t.  The compile
# check of the rewritten main.c must see the rewritten shards.h through
# the unchanged app.h (it once saw the input's and wrote nothing).
cp -R "$WP/umbrella" "$TMP/um" && chmod -R u+w "$TMP/um"
cd "$TMP/um" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c shards.c -o "$TMP/um.orig" ||
	fail "umbrella does not build"
timeout 60 "$TMP/um.orig" >"$TMP/um.want" || fail "umbrella fails"
cp app.h "$TMP/um.app.h"
"$RCLR" --locks all --in-place main.c shards.c >"$TMP/log" 2>&1
[ $? -eq 0 ] || { cat "$TMP/log"; fail "umbrella --in-place: want exit 0"; }
grep -q "2 section(s) found, 2 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "umbrella: summary"; }
grep -q "extern liblock_lock_t shard_locks" shards.h ||
	fail "umbrella: shards.h's declaration not rewritten"
cmp -s app.h "$TMP/um.app.h" || fail "umbrella: app.h changed"
grep -q "liblock_exec(&shard_locks\[i\]" main.c ||
	fail "umbrella: main.c's section not delegated"
cc_rcl "$TMP/um.new" main.c shards.c || fail "umbrella: the result does not build"
same_output um "$TMP/um.want" "$TMP/um.new"

# ---- libstyle: a library's layout (libwebsockets 4.1.6) ----
# lib/core/private-core.h opens `extern "C" {` under #ifdef __cplusplus,
# defines its lock helpers static inline through a VH_INLINE macro, and
# is compiled twice (the static and the shared library, -DVH_BUILDING_SHARED
# for one): it once came out as one block with no function in it (the
# sections refused "in a function whose braces come from macros").  It
# includes lib/peers/private-peers.h through -I lib/peers: the compile
# check of peers.c, beside that header, read the input's copy (a
# pthread_mutex_t given to liblock: nothing written).  peers.c includes
# the helpers and calls none: their generated companion must not warn.
cp -R "$WP/libstyle" "$TMP/ls" && chmod -R u+w "$TMP/ls"
cd "$TMP/ls" || exit 1
{
	echo '['
	for u in lib/core/vhost lib/peers/peers; do
		for shared in "" '"-DVH_BUILDING_SHARED", "-fPIC", '; do
			printf '{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", %s"-I%s/include", "-I%s/lib/core", "-I%s/lib/peers", "-pthread", "-c", "-o", "%s.o", "%s.c"]},\n' \
				"$TMP/ls" "$u" "$shared" "$TMP/ls" "$TMP/ls" "$TMP/ls" "$u${shared:+.pic}" "$u"
		done
	done
	printf '{"directory": "%s", "file": "test/main.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-I%s/include", "-pthread", "-c", "-o", "test/main.o", "test/main.c"]}\n' \
		"$TMP/ls" "$TMP/ls"
	echo ']'
} >compile_commands.json
lsflags="-Iinclude -Ilib/core -Ilib/peers"
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread $lsflags lib/core/vhost.c \
	lib/peers/peers.c test/main.c -o "$TMP/ls.orig" || fail "libstyle does not build"
timeout 60 "$TMP/ls.orig" >"$TMP/ls.want" || fail "libstyle fails"
"$RCLR" -p . --locks all -o "$TMP/lsout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "libstyle -p: rcl-refactor failed"; }
grep -q "4 section(s) found, 4 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "libstyle -p: summary"; }
grep -q "liblock_lock_t lock_peers;" "$TMP/lsout/peers/private-peers.h" ||
	fail "libstyle: private-peers.h's field not converted"
grep -q "vhost_lock_rcl_exec(vh, rcl_cs_" "$TMP/lsout/core/vhost.c" ||
	fail "libstyle: vhost.c's sections do not use the helper's companion"
# (written under lib/, the common directory of what changed)
cp -R "$TMP/ls" "$TMP/ls.new.d" && cp -R "$TMP/lsout/." "$TMP/ls.new.d/lib/"
( cd "$TMP/ls.new.d" && cc_rcl "$TMP/ls.new" lib/core/vhost.c -Wextra $lsflags \
	lib/peers/peers.c test/main.c ) ||
	fail "libstyle: the result does not build with -Wall -Wextra -Werror"
same_output libstyle "$TMP/ls.want" "$TMP/ls.new"
echo "ok libstyle"

# ---- hdrsect: sections in a header's static inline helpers, and in a .c
# file that a unit includes ----
# Coccinelle read the units' .c files only: a program whose sections are
# all in counter.h's helpers came out "0 section(s) found", exit 0, with
# nothing converted and nothing said.  The helpers' sections are now
# extracted in the header (each unit's copy calls its own), ring.c's in
# ring.c, and idle.c, which calls no helper, still builds with -Wextra
# -Werror.  GCC's "may be used uninitialized" on a copy-in line of ring.c,
# found compiling main.c, is repaired there (it was blamed on nothing:
# nothing written).
cp -R "$WP/hdrsect" "$TMP/hs" && chmod -R u+w "$TMP/hs"
cd "$TMP/hs" || exit 1
{
	echo '['
	for u in main work idle; do
		printf '{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-pthread", "-c", "-o", "%s.o", "%s.c"]}%s\n' \
			"$TMP/hs" "$u" "$u" "$u" "$([ $u = idle ] || echo ,)"
	done
	echo ']'
} >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread main.c work.c idle.c \
	-o "$TMP/hs.orig" || fail "hdrsect does not build"
timeout 60 "$TMP/hs.orig" >"$TMP/hs.want" || fail "hdrsect fails"
"$RCLR" -p . --locks all -o "$TMP/hsout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "hdrsect -p: rcl-refactor failed"; }
grep -q "4 section(s) found, 4 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "hdrsect -p: summary"; }
grep -q "liblock_exec(&c->lock, rcl_cs_counter_add_1" "$TMP/hsout/counter.h" ||
	fail "hdrsect: counter.h's helper not extracted"
grep -q "liblock_exec(&r->lock_ring, rcl_cs_ring_push_1" "$TMP/hsout/ring.c" ||
	fail "hdrsect: ring.c's section not extracted"
[ -e "$TMP/hsout/idle.c" ] || cp "$TMP/hs/idle.c" "$TMP/hsout/"
( cd "$TMP/hsout" && cc_rcl "$TMP/hs.new" main.c -Wextra work.c idle.c ) ||
	fail "hdrsect: the result does not build with -Wall -Wextra -Werror"
same_output hdrsect "$TMP/hs.want" "$TMP/hs.new"
echo "ok hdrsect"

# ---- deadinc: a header included only in a branch the compiler skips ----
# guard.h defines guard_take() as pthread_mutex_lock() unless GUARD_DEBUG,
# where guard_debug.h defines it as a tracing call.  That header is not
# compiled, so its macros must not count (they once won: 0 sections found,
# exit 0).  Nor does the skipped mutex version of table_lock_t (an rwlock
# here; a converted field once broke the table's initialiser).  Named
# alone, without -p, the file's condition on GUARD_NO_RWLOCK, which nobody
# gives, reads both branches: the table's sections are refused, with
# reasons.  With -p the build's flags decide, as the compiler does: they
# are rwlock sections, refused as such (rwlocks are not converted).
cp -R "$WP/deadinc" "$TMP/di" && chmod -R u+w "$TMP/di"
cd "$TMP/di" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c -o "$TMP/di.orig" ||
	fail "deadinc does not build"
timeout 60 "$TMP/di.orig" >"$TMP/di.want" || fail "deadinc fails"
"$RCLR" --locks all -o "$TMP/dout" main.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "deadinc: want exit 1"; }
grep -q "4 section(s) found, 2 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "deadinc: summary"; }
[ "$(grep -c "^main.c:[0-9]*: not transformed: lock .lock stays POSIX" \
	"$TMP/log")" -eq 2 ] || { cat "$TMP/log"; fail "deadinc: refusals"; }
[ ! -e "$TMP/dout/guard_debug.h" ] ||
	fail "deadinc: guard_debug.h (never compiled) was read and written"
grep -q "table_lock_t lock;" "$TMP/dout/main.c" ||
	fail "deadinc: the rwlock's field changed type"
cc_rcl "$TMP/di.new" "$TMP/dout/main.c" || fail "deadinc: the result does not build"
same_output di "$TMP/di.want" "$TMP/di.new"
printf '[{"directory": "%s", "file": "main.c", "command": "cc -std=gnu11 -O2 -c main.c"}]\n' \
	"$TMP/di" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/dout2" main.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "deadinc -p: want exit 1"; }
grep -q "4 section(s) found, 2 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "deadinc -p: summary"; }
[ "$(grep -c "^main.c:[0-9]*: not transformed: pthread_rwlock_[rw][dr]lock() takes a read-write lock (pthread_rwlock_t, in macro table_" \
	"$TMP/log")" -eq 2 ] || { cat "$TMP/log"; fail "deadinc -p: the rwlock sections"; }
cc_rcl "$TMP/di.new2" "$TMP/dout2/main.c" ||
	fail "deadinc -p: the result does not build"
same_output di2 "$TMP/di.want" "$TMP/di.new2"

# ---- a section in code the build skips, and an #if it decides ----
# An #ifdef inside a section on a macro that nothing defines
# (HAVE_LOG_TAG, tinyproxy's HAVE_VSYSLOG_H) is held named alone ("give
# -D or -U") and, with -p, read as the compiler reads it with the
# build's flags: the section is delegated, and the branch that build
# skips gets an #error in the extracted function.
# With -p, a section in a branch the build skips (#ifdef QUERY_CACHE,
# #undef in config.h, as opendkim's dkim-cache.c) is held with that
# reason, not "give -D or -U"; named alone, the file may lack its flags
# and that branch is read as before (delegated).  An #if on a
# function-like macro inside a section (opendkim's DB_VERSION_CHECK(x,y,z))
# is held named alone, and with -p read as the compiler reads it, whatever
# the expression: the #else that build skips gets the #error too
# (docs/REFACTOR.md section 6).
mkdir -p "$TMP/vg" && cd "$TMP/vg" || exit 1
cat >config.h <<'EOC'
#define API_VERSION 3
/* #undef QUERY_CACHE */
EOC
cat >vg.c <<'EOC'
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#define API_AT_LEAST(v) (API_VERSION >= (v))
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total, adds;
static void add(long v)
{
	pthread_mutex_lock(&mu);
#if API_AT_LEAST(2)
	total += v;
#else
	total -= v;
#endif
	adds++;
	pthread_mutex_unlock(&mu);
}
static void note(long v)
{
	pthread_mutex_lock(&mu);
#ifdef HAVE_LOG_TAG
	total += 2 * v;
#else
	total += v;
#endif
	adds++;
	pthread_mutex_unlock(&mu);
}
#ifdef QUERY_CACHE
long cached(void)
{
	long v;

	pthread_mutex_lock(&mu);
	v = total;
	pthread_mutex_unlock(&mu);
	return v;
}
#endif
static void *worker(void *arg)
{
	for (long i = 0; i < 20000; i++)
		i % 3 ? add((long)arg + i % 7) : note((long)arg);
	return NULL;
}
int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", total, adds);
	return 0;
}
EOC
$CC -std=gnu11 -O2 -Wall -Werror -pthread vg.c -o "$TMP/vg.orig" ||
	fail "vg does not build"
timeout 60 "$TMP/vg.orig" >"$TMP/vg.want" || fail "vg fails"
"$RCLR" --locks all -o "$TMP/vgout" vg.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "vg: rcl-refactor failed"; }
grep -q "3 section(s) found, 1 delegated, 2 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "vg: summary"; }
grep -q "^vg.c:20: held: #ifdef HAVE_LOG_TAG inside the section: give -D" \
	"$TMP/log" || { cat "$TMP/log"; fail "vg: the #ifdef section's reason"; }
printf '[{"directory": "%s", "file": "vg.c", "command": "cc -std=gnu11 -O2 -c vg.c"}]\n' \
	"$TMP/vg" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/vgout2" vg.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "vg -p: rcl-refactor failed"; }
grep -q "3 section(s) found, 2 delegated, 1 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "vg -p: summary"; }
grep -q "^vg.c:20:" "$TMP/log" && { cat "$TMP/log"; fail "vg -p: #ifdef held"; }
grep -q "^vg.c:9:" "$TMP/log" && { cat "$TMP/log"; fail "vg -p: #if held"; }
# ... and the branch that build leaves out cannot be compiled silently by
# another configuration: its context was computed without it.
$CC -std=gnu11 -fsyntax-only -DHAVE_LOG_TAG $RCL_CFLAGS -I"$TMP/vgout2" \
	"$TMP/vgout2/vg.c" >"$TMP/cclog" 2>&1 &&
	fail "vg -p: the branch the build skips compiles with -DHAVE_LOG_TAG"
grep -q "#error \"rcl-refactor extracted this section for a build that skips" \
	"$TMP/cclog" || { cat "$TMP/cclog"; fail "vg -p: no #error in the skipped branch"; }
cp -R "$TMP/vgout2" "$TMP/vg1" && echo "#define API_VERSION 1" >"$TMP/vg1/config.h"
$CC -std=gnu11 -fsyntax-only $RCL_CFLAGS "$TMP/vg1/vg.c" >"$TMP/cclog" 2>&1 &&
	fail "vg -p: the #else the build skips compiles with API_VERSION 1"
grep -q "vg.c:[0-9]*:[0-9]*: error: #error \"rcl-refactor extracted this section" \
	"$TMP/cclog" || { cat "$TMP/cclog"; fail "vg -p: no #error in the #else"; }
grep -q "^vg.c:34: held: in code the build does not compile" "$TMP/log" ||
	{ cat "$TMP/log"; fail "vg -p: the skipped section's reason"; }
cc_rcl "$TMP/vg.new" "$TMP/vgout2/vg.c" || fail "vg -p: the result does not build"
same_output vg "$TMP/vg.want" "$TMP/vg.new"

# units_whole NAME SUMMARY UNIT...: the units of the current directory,
# listed in a compile_commands.json, built and run as they are, then
# through `rcl-refactor -p . --locks all` (whose last line must hold
# SUMMARY) and built again from its output (a unit it leaves alone as
# it is): the same output under every algorithm.
units_whole() {
	name=$1 summary=$2
	shift 2
	sep= db=
	for u in "$@"; do
		db="$db$sep{\"directory\": \"$PWD\", \"file\": \"$u\", \"arguments\": [\"cc\", \"-std=gnu11\", \"-Wall\", \"-c\", \"$u\"]}"
		sep=", "
	done
	printf '[%s]\n' "$db" >compile_commands.json
	$CC -std=gnu11 -O2 -Wall -Werror -pthread "$@" -o "$TMP/$name.orig" ||
		fail "$name does not build"
	timeout 60 "$TMP/$name.orig" >"$TMP/$name.want" || fail "$name fails"
	"$RCLR" -p . --locks all -o "$TMP/$name.out" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log"; fail "$name: rcl-refactor failed"; }
	grep -q "$summary" "$TMP/log" || { cat "$TMP/log"; fail "$name: summary"; }
	units=$*
	set --
	for u in $units; do
		[ -f "$TMP/$name.out/$u" ] || cp "$u" "$TMP/$name.out/"
		set -- "$@" "$TMP/$name.out/$u"
	done
	src=$1
	shift
	cc_rcl "$TMP/$name.new" "$src" "$@" ||
		fail "$name: the result does not build"
	same_output "$name" "$TMP/$name.want" "$TMP/$name.new"
}

# ---- tightinc: a definition on the line after the last #include ----
# main.c's lock comes from a header and its first definition, main(),
# starts on the line after its last #include: the extracted function,
# which carries errno (it calls printf()), goes at that offset too, and
# went before the includes: "'errno' undeclared", the section held.
mkdir -p "$TMP/ti" && cd "$TMP/ti" || exit 1
cat >ti.h <<'EOC'
#include <pthread.h>
extern pthread_mutex_t total_mu;
extern long total;
void *work(void *);
EOC
cat >lib.c <<'EOC'
#include "ti.h"
pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;
long total;
void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&total_mu);
		total += (long)arg;
		pthread_mutex_unlock(&total_mu);
	}
	return NULL;
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "ti.h"
int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_lock(&total_mu);
	printf("total %ld\n", total);
	pthread_mutex_unlock(&total_mu);
	return 0;
}
EOC
units_whole tightinc "2 section(s) found, 2 delegated, 0 held, 0 refused" \
	lib.c main.c

# ---- checkedwrap: checked lock wrappers in a unit of their own ----
# util.c's xlock()/xunlock() report and abort when pthread fails; with
# -p and no file named, util.c was not read (only wrappers whose body is
# the pthread call alone were), so count.c's calls were no lock calls:
# "0 section(s) found".
mkdir -p "$TMP/cw" && cd "$TMP/cw" || exit 1
cat >util.h <<'EOC'
#include <pthread.h>
void xlock(pthread_mutex_t *m);
void xunlock(pthread_mutex_t *m);
EOC
cat >util.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
void xlock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_lock(m);

	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", __func__, strerror(rc));
		abort();
	}
}
void xunlock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_unlock(m);

	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", __func__, strerror(rc));
		abort();
	}
}
EOC
cat >count.c <<'EOC'
#include <stdio.h>
#include "util.h"
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;
static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		xlock(&mu);
		total += (long)arg;
		xunlock(&mu);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return 0;
}
EOC
units_whole checkedwrap "1 section(s) found, 1 delegated, 0 held, 0 refused" \
	util.c count.c

# ---- opaquewrap: lock wrappers of a handle the callers cannot open ----
# gate.c's structure is opaque to main.c, which locks through macros that
# pass __FILE__ and __LINE__ to gate.c's checked wrappers (pigz's yarn.c,
# possess() and release()).  main.c's held section had its macro call
# replaced by liblock_lock(&g->mu), which cannot compile there: the lock
# stayed POSIX.  The macro calls now stay and the wrappers' bodies take
# the lock; the other section goes through hold_()'s companion.
mkdir -p "$TMP/ow" && cd "$TMP/ow" || exit 1
cat >gate.h <<'EOC'
typedef struct gate gate;
gate *gate_new_(const char *file, long line);
void hold_(gate *g, const char *file, long line);
void drop_(gate *g, const char *file, long line);
void gate_free(gate *g);
#define gate_new() gate_new_(__FILE__, __LINE__)
#define hold(g) hold_(g, __FILE__, __LINE__)
#define drop(g) drop_(g, __FILE__, __LINE__)
EOC
cat >gate.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "gate.h"
struct gate {
	pthread_mutex_t mu;
	long uses;
};
static void fail(int rc, const char *file, long line, const char *what)
{
	fprintf(stderr, "%s:%ld: %s failed (%d)\n", file, line, what, rc);
	exit(1);
}
gate *gate_new_(const char *file, long line)
{
	gate *g = malloc(sizeof *g);
	int rc;

	if (g == NULL)
		fail(0, file, line, "malloc");
	rc = pthread_mutex_init(&g->mu, NULL);
	if (rc)
		fail(rc, file, line, "mutex_init");
	g->uses = 0;
	return g;
}
void hold_(gate *g, const char *file, long line)
{
	int rc = pthread_mutex_lock(&g->mu);

	if (rc)
		fail(rc, file, line, "mutex_lock");
}
void drop_(gate *g, const char *file, long line)
{
	int rc = pthread_mutex_unlock(&g->mu);

	if (rc)
		fail(rc, file, line, "mutex_unlock");
}
void gate_free(gate *g)
{
	pthread_mutex_destroy(&g->mu);
	free(g);
}
EOC
cat >main.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include "gate.h"
static gate *g;
static long total, entered;
static void add(long x)
{
	hold(g);
	total += x;
	drop(g);
}
static void enter(void)
{
	hold(g);
	entered++;
}
static void leave(void)
{
	drop(g);
}
static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		add((long)arg);
		enter();
		total++;
		leave();
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];

	g = gate_new();
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("total %ld entered %ld\n", total, entered);
	gate_free(g);
	return 0;
}
EOC
units_whole opaquewrap "2 section(s) found, 1 delegated, 1 held, 0 refused" \
	gate.c main.c
grep -q "hold(g);" "$TMP/opaquewrap.out/main.c" ||
	fail "opaquewrap: the held section's hold() call was replaced"

# ---- guardunits: a scope guard whose cleanup function is another unit's ----
# nbdkit's cleanup.h: ACQUIRE_LOCK_FOR_CURRENT_SCOPE() declares a mutex
# pointer that __attribute__ ((cleanup (cleanup_mutex_unlock))) unlocks
# when the block ends; cleanup.c defines that function and names no lock,
# so it is not rewritten.  The use in main.c is read as lock ... unlock
# (the function's body checked from the compiler's facts) and delegated.
mkdir -p "$TMP/gu" && cd "$TMP/gu" || exit 1
cat >cleanup.h <<'EOC'
#include <assert.h>
#include <pthread.h>
extern void cleanup_mutex_unlock (pthread_mutex_t **ptr);
#define CLEANUP_MUTEX_UNLOCK __attribute__ ((cleanup (cleanup_mutex_unlock)))
#define ACQUIRE_LOCK_FOR_CURRENT_SCOPE(mutex) \
  CLEANUP_MUTEX_UNLOCK pthread_mutex_t *_lock = mutex; \
  do { int _r = pthread_mutex_lock (_lock); assert (!_r); } while (0)
EOC
cat >cleanup.c <<'EOC'
#include "cleanup.h"
void
cleanup_mutex_unlock (pthread_mutex_t **ptr)
{
  int r = pthread_mutex_unlock (*ptr);
  assert (!r);
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "cleanup.h"
struct counter {
  pthread_mutex_t lock;
  long n;
};
static struct counter c = { .lock = PTHREAD_MUTEX_INITIALIZER };
static long
bump (long by)
{
  long was;
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&c.lock);
  was = c.n;
  c.n += by;
  return was;
}
static void *
work (void *arg)
{
  for (int i = 0; i < 10000; i++)
    bump ((long) arg);
  return NULL;
}
int
main (void)
{
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, work, (void *) i);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  printf ("n %ld\n", bump (0));
  return 0;
}
EOC
units_whole guardunits "1 section(s) found, 1 delegated, 0 held, 0 refused" \
	main.c cleanup.c

# ---- guardheader: a scope guard in a header's static inline function ----
# nbdkit's filters/log/log.h: get_id() takes the lock with
# ACQUIRE_LOCK_FOR_CURRENT_SCOPE() and returns a value it computes under
# it.  Headers were not read for scope guards, so that use kept the lock
# POSIX for every unit; its return's value now goes to a temporary
# before the unlock (the section held), main.c's section is delegated.
mkdir -p "$TMP/gh" && cd "$TMP/gh" || exit 1
cp "$TMP/gu/cleanup.h" "$TMP/gu/cleanup.c" . || exit 1  # guardunits' own
cat >counter.h <<'EOC'
#include "cleanup.h"
struct counter {
  pthread_mutex_t lock;
  long n;
};
extern struct counter c;
static inline long
next_id (void)
{
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&c.lock);
  return ++c.n;
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "counter.h"
struct counter c = { .lock = PTHREAD_MUTEX_INITIALIZER };
static long
bump (long by)
{
  long was;
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&c.lock);
  was = c.n;
  c.n += by;
  return was;
}
static void *
work (void *arg)
{
  for (int i = 0; i < 10000; i++) {
    bump ((long) arg);
    next_id ();
  }
  return NULL;
}
int
main (void)
{
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, work, (void *) i);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  printf ("n %ld\n", bump (0));
  return 0;
}
EOC
units_whole guardheader "2 section(s) found, 1 delegated, 1 held, 0 refused" \
	main.c cleanup.c

# ---- buildflags: each unit's own flags in the compile check ----
# server.c is built with -Dlibdir="..." (nbdkit's server defines libdir
# so, and its vddk plugin declares a variable libdir) and -Irepl, whose
# poll.h goes on with #include_next (nbdkit's common/replacements).  The
# compile check gave every unit the -D of all of them: paths.c "did not
# compile" and nothing was done.  And the scratch copy of the unchanged
# poll.h, searched first, made #include_next find the input's poll.h,
# which includes nothing more: struct pollfd incomplete, nothing written.
mkdir -p "$TMP/bf/repl" && cd "$TMP/bf" || exit 1
cat >repl/poll.h <<'EOC'
#ifndef REPL_POLL_H
#define REPL_POLL_H
#include_next <poll.h>
#endif
EOC
cat >paths.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
char *libdir = "/opt/plugins";
static pthread_mutex_t paths_lock = PTHREAD_MUTEX_INITIALIZER;
static long lookups;
long lookup (const char *name)
{
	long n;

	pthread_mutex_lock (&paths_lock);
	n = ++lookups;
	pthread_mutex_unlock (&paths_lock);
	return n + (name[0] == libdir[0]);
}
EOC
cat >server.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include "poll.h"
long lookup (const char *name);
static pthread_mutex_t fds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pollfd fds[4];
static int nfds;
static void *work (void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock (&fds_lock);
		fds[nfds % 4].fd = (int) (long) arg;
		nfds++;
		pthread_mutex_unlock (&fds_lock);
		lookup (libdir);
	}
	return NULL;
}
int main (void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create (&t[i], NULL, work, (void *) i);
	for (int i = 0; i < 4; i++)
		pthread_join (t[i], NULL);
	printf ("%d %d %s\n", nfds, lookup ("x") > 4000, libdir);
	return 0;
}
EOC
cat >compile_commands.json <<EOJ
[{"directory": "$PWD", "file": "paths.c", "arguments": ["cc", "-std=gnu11", "-Wall", "-c", "paths.c"]},
 {"directory": "$PWD", "file": "server.c", "arguments": ["cc", "-std=gnu11", "-Wall", "-Irepl", "-Dlibdir=\\"/usr/lib/plugins\\"", "-c", "server.c"]}]
EOJ
$CC -std=gnu11 -O2 -Wall -Werror -pthread -c paths.c -o "$TMP/bf-paths.o" &&
	$CC -std=gnu11 -O2 -Wall -Werror -pthread -Irepl \
		'-Dlibdir="/usr/lib/plugins"' server.c "$TMP/bf-paths.o" \
		-o "$TMP/bf.orig" || fail "buildflags does not build"
"$TMP/bf.orig" >"$TMP/bf.want" || fail "buildflags fails"
"$RCLR" -p . --locks all -o "$TMP/bf.out" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "buildflags: rcl-refactor failed"; }
grep -q "2 section(s) found, 2 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "buildflags: summary"; }
$CC -std=gnu11 -O2 -Wall -Werror $SAN_CFLAGS -pthread -I"$top_srcdir/liblock" \
	-I"$top_srcdir/runtime" -c "$TMP/bf.out/paths.c" -o "$TMP/bf-paths.o" ||
	fail "buildflags: paths.c does not build"
cc_rcl "$TMP/bf.new" "$TMP/bf.out/server.c" -Irepl \
	'-Dlibdir="/usr/lib/plugins"' "$TMP/bf-paths.o" ||
	fail "buildflags: server.c does not build"
same_output buildflags "$TMP/bf.want" "$TMP/bf.new"

# ---- samebase: two units of the same name ----
# a/util.c and b/util.c each have a static `lock` on line 3: two sites,
# two rcl-config.h entries (they were one, named by the file's name).
mkdir -p "$TMP/sb/a" "$TMP/sb/b" && cd "$TMP/sb" || exit 1
for d in a b; do
	cat >$d/util.c <<EOC
#include <pthread.h>
static long n;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
long ${d}_bump(void)
{
	long v;

	pthread_mutex_lock(&lock);
	v = ++n;
	pthread_mutex_unlock(&lock);
	return v;
}
EOC
done
printf '[{"directory": "%s", "file": "a/util.c", "arguments": ["cc", "-c", "a/util.c"]}, {"directory": "%s", "file": "b/util.c", "arguments": ["cc", "-c", "b/util.c"]}]\n' \
	"$TMP/sb" "$TMP/sb" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/sbout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "samebase: rcl-refactor failed"; }
for d in a b; do
	grep -q "^#define RCL_lock_${d}_util_c_3_ALGO \"rcl\"" "$TMP/sbout/rcl-config.h" ||
		{ cat "$TMP/sbout/rcl-config.h"; fail "samebase: no entry for $d/util.c"; }
	grep -q "LIBLOCK_INITIALIZER_ALGO(RCL_lock_${d}_util_c_3_ALGO" "$TMP/sbout/$d/util.c" ||
		{ cat "$TMP/sbout/$d/util.c"; fail "samebase: $d/util.c does not use its entry"; }
done
echo "ok samebase"

# ---- --macro-file wins over the file's definition ----
mkdir -p "$TMP/mf" && cd "$TMP/mf" || exit 1
cat >m.c <<'EOC'
#include <pthread.h>
#include <stdlib.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#ifdef SINGLE_THREADED
#define LOCK(m) ((void)0)
#define UNLOCK(m) ((void)0)
#else
#define LOCK(m) do { if (pthread_mutex_lock(&(m))) abort(); } while (0)
#define UNLOCK(m) do { if (pthread_mutex_unlock(&(m))) abort(); } while (0)
#endif
static long n;
long bump(void)
{
	long v;

	LOCK(mu);
	v = ++n;
	UNLOCK(mu);
	return v;
}
EOC
printf '#define LOCK(m) pthread_mutex_lock(&(m))\n#define UNLOCK(m) pthread_mutex_unlock(&(m))\n' >hints.h
"$RCLR" --locks mu --macro-file hints.h -o out m.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "--macro-file: rcl-refactor failed"; }
grep -q "1 section(s) found, 1 delegated" "$TMP/log" ||
	{ cat "$TMP/log"; fail "--macro-file: its LOCK did not win"; }
grep -q "liblock_exec(&mu" out/m.c || fail "--macro-file: mu not converted"

# ---- statushdr: locals named only through a header's macros ----
# DEFRC (status.h) declares the status local, FAIL() and CHK() set it and
# jump to `out:`, RETRC returns it: take()'s section is delegated with the
# local in its context (it was undeclared in the extracted function, and
# the error, inside status.h, was blamed on no section: nothing written).
# add()'s section names add()'s own enumeration constant through
# TOO_BIG(): the compiler's error in status.h is blamed, through its "in
# expansion of macro" note, on that section alone, which is held.
cp -R "$WP/statushdr" "$TMP/sh" && chmod -R u+w "$TMP/sh"
cd "$TMP/sh" || exit 1
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c -o "$TMP/sh.orig" ||
	fail "statushdr does not build"
timeout 60 "$TMP/sh.orig" >"$TMP/sh.want" || fail "statushdr fails"
"$RCLR" --locks all -o "$TMP/shout" main.c >"$TMP/log" 2>&1
[ $? -eq 0 ] || { cat "$TMP/log"; fail "statushdr: want exit 0"; }
grep -q "2 section(s) found, 1 delegated, 1 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "statushdr: summary"; }
grep -q "^main.c:32: held: .*main.c:33, in the expansion of a macro: error: .*LIMIT" \
	"$TMP/log" || { cat "$TMP/log"; fail "statushdr: add() not held"; }
grep -q "rc_t rc = rcl_ctx->in.rc;" "$TMP/shout/main.c" ||
	fail "statushdr: take()'s status local not in its context"
cc_rcl "$TMP/sh.new" "$TMP/shout/main.c" -I "$TMP/sh" ||
	fail "statushdr: the result does not build"
same_output sh "$TMP/sh.want" "$TMP/sh.new"

# ---- a build with -std=gnu99 -pedantic -Wdeclaration-after-statement ----
# The extracted functions declare everything before their first statement
# (the errno restore, `(void)rcl_arg;`), or each would get a new warning
# and stay held; liblock.h, found through -I, is a system header, or its
# _Atomic fields would be a new -Wpedantic warning and nothing written.
mkdir -p "$TMP/c90" && cd "$TMP/c90" || exit 1
cat >tally.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static long tally, left = 3000;

static int take(const char *step)
{
	int got = 0;

	pthread_mutex_lock(&tally_lock);
	if (left == 0) {
		pthread_mutex_unlock(&tally_lock);
		return -1;
	}
	left--;
	got = (int)strtol(step, NULL, 10);
	tally += got;
	pthread_mutex_unlock(&tally_lock);
	return got;
}

static void *worker(void *arg)
{
	while (take(arg) >= 0)
		;
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int i;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, "2");
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("tally %ld left %ld\n", tally, left);
	return 0;
}
EOC
printf '[{"directory": "%s", "file": "tally.c", "arguments": ["cc", "-std=gnu99", "-pedantic", "-O2", "-Wall", "-Wdeclaration-after-statement", "-Werror", "-pthread", "-c", "tally.c"]}]\n' \
	"$TMP/c90" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/c90out" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "c90: rcl-refactor failed"; }
grep -q "1 section(s) found, 1 delegated, 0 held" "$TMP/log" ||
	{ cat "$TMP/log"; fail "c90: the section was not delegated"; }
cc_rcl "$TMP/c90.new" "$TMP/c90out/tally.c" -std=gnu99 -pedantic \
	-Wdeclaration-after-statement ||
	fail "c90: the result gets a warning"
echo "tally 6000 left 0" >"$TMP/c90.want"
same_output c90 "$TMP/c90.want" "$TMP/c90.new"
cd "$TMP" || exit 1

# ---- cxxcompat: zstd's flags, -Wc++-compat -Wdeclaration-after-statement ----
cp -R "$WP/cxxcompat" "$TMP/cxx" && chmod -R u+w "$TMP/cxx"
cd "$TMP/cxx" || exit 1
cxxflags="-std=gnu99 -Wall -Wextra -Wc++-compat -Wdeclaration-after-statement"
printf '[{"directory": "%s", "file": "pool.c", "arguments": ["cc", %s, "-O2", "-pthread", "-c", "pool.c"]}]\n' \
	"$TMP/cxx" "$(echo "$cxxflags" | sed 's/[^ ]*/"&"/g; s/ /, /g')" \
	>compile_commands.json
# shellcheck disable=SC2086
$CC $cxxflags -Werror -O2 -pthread pool.c -o "$TMP/cxx.orig" ||
	fail "cxxcompat does not build"
timeout 60 "$TMP/cxx.orig" >"$TMP/cxx.want" || fail "cxxcompat fails"
"$RCLR" -p . --locks all -o "$TMP/cxxout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "cxxcompat: rcl-refactor failed"; }
grep -q "5 section(s) found, 5 delegated, 0 held" "$TMP/log" ||
	{ cat "$TMP/log"; fail "cxxcompat: a section was not delegated"; }
# shellcheck disable=SC2086
cc_rcl "$TMP/cxx.new" "$TMP/cxxout/pool.c" $cxxflags ||
	fail "cxxcompat: the result gets a warning"
same_output cxxcompat "$TMP/cxx.want" "$TMP/cxx.new"
cd "$TMP" || exit 1

# ---- coverage: a build with --coverage -Werror (memcached-debug's) ----
cp -R "$WP/coverage" "$TMP/cov" && chmod -R u+w "$TMP/cov"
cd "$TMP/cov" || exit 1
printf '[{"directory": "%s", "file": "stack.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-Werror", "--coverage", "-pthread", "-c", "stack.c"]}]\n' \
	"$TMP/cov" >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread stack.c -o "$TMP/cov.orig" ||
	fail "coverage does not build"
timeout 60 "$TMP/cov.orig" >"$TMP/cov.want" || fail "coverage fails"
"$RCLR" -p . --locks all -o "$TMP/covout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "coverage: rcl-refactor failed"; }
grep -q "1 section(s) found, 1 delegated, 0 held" "$TMP/log" ||
	{ cat "$TMP/log"; fail "coverage: the section was not delegated"; }
if [ -z "$SAN_CFLAGS" ]; then
	cc_rcl "$TMP/cov.gcov" "$TMP/covout/stack.c" --coverage \
		-fprofile-dir="$TMP/cov" ||
		fail "coverage: the result does not build with --coverage"
fi
cc_rcl "$TMP/cov.new" "$TMP/covout/stack.c" ||
	fail "coverage: the result does not build"
same_output coverage "$TMP/cov.want" "$TMP/cov.new"
cd "$TMP" || exit 1

# ---- stubbed: a test program stubs out the lock functions ----
cp -R "$WP/stubbed" "$TMP/stb" && chmod -R u+w "$TMP/stb"
cd "$TMP/stb" || exit 1
{
	echo '['
	for u in thread prefix server; do
		printf '{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "%s.c"]},\n' \
			"$TMP/stb" "$u" "$u"
	done
	printf '{"directory": "%s", "file": "testapp.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-c", "testapp.c"]}\n' \
		"$TMP/stb"
	echo ']'
} >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread server.c prefix.c thread.c \
	-o "$TMP/stb.orig" || fail "stubbed does not build"
timeout 60 "$TMP/stb.orig" >"$TMP/stb.want" || fail "stubbed fails"
"$RCLR" -p . --locks all -o "$TMP/stbout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "stubbed: rcl-refactor failed"; }
! grep -q "STATS_LOCK_rcl_exec" "$TMP/stbout/prefix.c" ||
	fail "stubbed: prefix.c calls a companion testapp.c does not have"
cc_rcl "$TMP/stb.new" "$TMP/stbout/prefix.c" "$TMP/stbout/thread.c" \
	server.c -I. || fail "stubbed: the server does not build"
same_output stubbed "$TMP/stb.want" "$TMP/stb.new"
cc_rcl "$TMP/stb.test" "$TMP/stbout/prefix.c" testapp.c -I. ||
	fail "stubbed: testapp does not link"
[ "$("$TMP/stb.test")" = "testapp 3" ] || fail "stubbed: testapp's output"
cd "$TMP" || exit 1

# ---- twolocks: two functions named lock() in two files ----
cp -R "$WP/twolocks" "$TMP/tl" && chmod -R u+w "$TMP/tl"
cd "$TMP/tl" || exit 1
printf '[{"directory": "%s", "file": "main.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "main.c"]}, {"directory": "%s", "file": "plugin.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "plugin.c"]}]\n' \
	"$TMP/tl" "$TMP/tl" >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c plugin.c -o "$TMP/tl.orig" ||
	fail "twolocks does not build"
timeout 60 "$TMP/tl.orig" >"$TMP/tl.want" || fail "twolocks fails"
"$RCLR" -p . --locks all -o "$TMP/tlout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "twolocks: rcl-refactor failed"; }
! grep -q "lock_rcl_exec" "$TMP/tlout/main.c" ||
	fail "twolocks: main.c calls plugin.c's lock() companion"
cc_rcl "$TMP/tl.new" "$TMP/tlout/main.c" "$TMP/tlout/plugin.c" -I. ||
	fail "twolocks: the result does not build"
same_output twolocks "$TMP/tl.want" "$TMP/tl.new"
"$RCLR" -p . --locks all --lock-fn lock=unlock -o "$TMP/tlout2" \
	>"$TMP/log" 2>&1
[ $? -eq 2 ] && grep -q "lock() is defined in several files (counted.h, plugin.c)" \
	"$TMP/log" || { cat "$TMP/log"; fail "twolocks: --lock-fn lock=unlock"; }
cd "$TMP" || exit 1

# ---- staticcopies: one static lock wrapper copied into several units ----
# liburcu's urcu.c, urcu-qsbr.c, urcu-bp.c and rculfhash.c each define
# the same `static void mutex_lock(pthread_mutex_t *mutex)` (and unlock),
# which checks the call's result.  A name several files define was no
# wrapper, so each copy's body was read as a section on its parameter and
# every lock they take stayed POSIX.  Identical static copies are one
# parameter wrapper; each unit's copy is left unused and marked so.  A
# copy whose text differs (slow.c's also counts) keeps the name no
# wrapper, and nothing it locks moves through it.
mkdir -p "$TMP/sc" && cd "$TMP/sc" || exit 1
for u in a b; do
	cat >$u.c <<EOC
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define die(rc) do { \\
	fprintf(stderr, "%s: %s\n", __func__, strerror(rc)); \\
	abort(); \\
} while (0)

static void mutex_lock(pthread_mutex_t *mutex)
{
	int ret;

	ret = pthread_mutex_lock(mutex);
	if (ret)
		die(ret);
}

static void mutex_unlock(pthread_mutex_t *mutex)
{
	int ret;

	ret = pthread_mutex_unlock(mutex);
	if (ret)
		die(ret);
}

static pthread_mutex_t ${u}_lock = PTHREAD_MUTEX_INITIALIZER;
static long ${u}_count;

void ${u}_add(long x)
{
	mutex_lock(&${u}_lock);
	${u}_count += x;
	mutex_unlock(&${u}_lock);
}

long ${u}_get(void)
{
	long v;

	mutex_lock(&${u}_lock);
	v = ${u}_count;
	mutex_unlock(&${u}_lock);
	return v;
}
EOC
done
cat >main.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
void a_add(long x);
void b_add(long x);
long a_get(void);
long b_get(void);
static void *work(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		a_add((long)arg);
		b_add(1);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("a %ld b %ld\n", a_get(), b_get());
	return 0;
}
EOC
units_whole staticcopies "4 section(s) found, 4 delegated, 0 held, 0 refused" \
	a.c b.c main.c
for u in a b; do
	grep -q "__attribute__((unused)) static void mutex_lock" \
		"$TMP/staticcopies.out/$u.c" ||
		fail "staticcopies: $u.c's copy of mutex_lock() not kept unused"
done
sed -e 's/^	ret = pthread_mutex_lock(mutex);/	locked++;\n&/' \
	-e 's/^static void mutex_lock/static long locked;\n&/' b.c >slow.c
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]}, {"directory": "%s", "file": "slow.c", "arguments": ["cc", "-c", "slow.c"]}]\n' \
	"$PWD" "$PWD" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/scout2" >"$TMP/log" 2>&1
grep -q "2 section(s) found, 0 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "staticcopies: copies that differ read as one wrapper"; }
cd "$TMP" || exit 1

# ---- headerhazard: a section in a header calls pthread_create() ----
# liburcu's urcu-call-rcu-impl.h, included by urcu.c, urcu-bp.c and
# urcu-qsbr.c: get_default_call_rcu_data()'s section creates the call_rcu
# thread.  The compiler's reading of a section was looked up in the unit
# whose file holds it, and a header is no unit's file: the section was
# delegated, and the thread it created inherited the server thread's
# SCHED_FIFO, CPU and signal mask.  Each unit that compiles the header's
# function is read now; the section is held.
mkdir -p "$TMP/hh" && cd "$TMP/hh" || exit 1
cat >impl.h <<'EOC'
struct data { pthread_t tid; long n; };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct data *dflt;
static void *thr(void *arg)
{
	struct data *d = arg;

	d->n++;
	return NULL;
}
static void data_init(struct data **dp)
{
	struct data *d = calloc(1, sizeof(*d));

	if (d == NULL)
		abort();
	*dp = d;
	if (pthread_create(&d->tid, NULL, thr, d))
		abort();
}
static struct data *get_default(void)
{
	pthread_mutex_lock(&mu);
	if (dflt != NULL) {
		pthread_mutex_unlock(&mu);
		return dflt;
	}
	data_init(&dflt);
	pthread_mutex_unlock(&mu);
	return dflt;
}
EOC
cat >main.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "impl.h"
int main(void)
{
	struct data *d = get_default();

	pthread_join(d->tid, NULL);
	printf("%ld %d\n", d->n, get_default() == d);
	return 0;
}
EOC
units_whole headerhazard "1 section(s) found, 0 delegated, 1 held, 0 refused" \
	main.c
grep -q "impl.h:.*held: thread-dependent data.*pthread_create()" "$TMP/log" ||
	{ cat "$TMP/log"; fail "headerhazard: the reason"; }
cd "$TMP" || exit 1

# ---- ptrfield: a lock a structure points to, allocated after an #endif ----
# curl 7.88.1's lib/asyn-thread.c: struct thread_sync_data holds a
# `curl_mutex_t *mtx` (curl_threads.h: pthread_mutex_t), allocated with
# malloc(sizeof(curl_mutex_t)) on the line after an #endif, and taken
# through Curl_mutex_acquire().  -p with no file named found no unit
# using a lock (a pointer to one was not a use), and, the unit named,
# the allocation after the #endif was "used outside lock/unlock".
mkdir -p "$TMP/pf" && cd "$TMP/pf" || exit 1
cat >threads.h <<'EOC'
#include <pthread.h>
#if defined(HAVE_PTHREAD_H)
#  define sync_mutex_t pthread_mutex_t
#  define sync_mutex_init(m) pthread_mutex_init(m, NULL)
#  define sync_mutex_acquire(m) pthread_mutex_lock(m)
#  define sync_mutex_release(m) pthread_mutex_unlock(m)
#  define sync_mutex_destroy(m) pthread_mutex_destroy(m)
#endif
EOC
cat >resolve.c <<'EOC'
#define HAVE_PTHREAD_H 1
#include <stdlib.h>
#include "threads.h"
#include "resolve.h"
struct sync_data {
	sync_mutex_t *mtx;
	int done;
	long answers;
};
static struct sync_data *sync_new(int port)
{
	struct sync_data *sd = calloc(1, sizeof(*sd));

	if (!sd)
		return NULL;
#ifdef HAVE_PORTS
	sd->port = port;
#else
	(void)port;
#endif
	sd->mtx = malloc(sizeof(sync_mutex_t));
	if (!sd->mtx) {
		free(sd);
		return NULL;
	}
	sync_mutex_init(sd->mtx);
	return sd;
}
static void *resolver(void *arg)
{
	struct sync_data *sd = arg;

	for (int i = 0; i < 1000; i++) {
		sync_mutex_acquire(sd->mtx);
		sd->answers++;
		sync_mutex_release(sd->mtx);
	}
	return NULL;
}
long resolve_all(int n)
{
	struct sync_data *sd = sync_new(53);
	pthread_t t[8];
	long got;

	if (!sd || n > 8)
		return -1;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, resolver, sd);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	sync_mutex_acquire(sd->mtx);
	sd->done = 1;
	got = sd->answers;
	sync_mutex_release(sd->mtx);
	sync_mutex_destroy(sd->mtx);
	free(sd->mtx);
	free(sd);
	return got;
}
EOC
echo 'long resolve_all(int n);' >resolve.h
cat >main.c <<'EOC'
#include <stdio.h>
#include "resolve.h"
int main(void)
{
	printf("%ld\n", resolve_all(4));
	return 0;
}
EOC
units_whole ptrfield "2 section(s) found, 2 delegated, 0 held, 0 refused" \
	resolve.c main.c
cd "$TMP" || exit 1

# ---- voidret: a global lock handed out as a void pointer ----
# unbound 1.17's util/log.c: `void *log_get_lock(void)` returns
# `(void *)&log_lock` or NULL, and daemon/unbound.c (a unit not being
# rewritten) destroys it through `(lock_basic_type *)log_get_lock()`.
# That conversion was taken to reach every mutex that begins a
# structure, and tally.lock stayed POSIX.  Every return gives the
# address of log_mu or NULL: only log_mu (address taken) stays POSIX.
# When the function returns a structure that begins with a mutex, the
# conversion still reaches tally.lock's kind of field.
mkdir -p "$TMP/vr" && cd "$TMP/vr" || exit 1
cp "$WP/voidret/"*.c "$WP/voidret/"*.h . && chmod u+w ./*
db= sep=
for u in log.c tally.c main.c; do
	db="$db$sep{\"directory\": \"$PWD\", \"file\": \"$u\", \"arguments\": [\"cc\", \"-std=gnu11\", \"-Wall\", \"-c\", \"$u\"]}"
	sep=", "
done
printf '[%s]\n' "$db" >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread log.c tally.c main.c \
	-o "$TMP/vr.orig" || fail "voidret does not build"
timeout 60 "$TMP/vr.orig" >"$TMP/vr.want" || fail "voidret fails"
"$RCLR" -p . --locks all -o "$TMP/vr.out" log.c tally.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "voidret: want exit 1 (log_mu)"; }
grep -q "4 section(s) found, 2 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "voidret: summary"; }
grep -q "tally.lock stays POSIX" "$TMP/log" &&
	{ cat "$TMP/log"; fail "voidret: tally.lock kept POSIX"; }
cp main.c "$TMP/vr.out/"
cc_rcl "$TMP/vr.new" "$TMP/vr.out/main.c" "$TMP/vr.out/log.c" \
	"$TMP/vr.out/tally.c" || fail "voidret: the result does not build"
same_output voidret "$TMP/vr.want" "$TMP/vr.new"
# The same getter returning a structure whose first field is a mutex.
sed 's/return (void \*)&log_mu;/return (void *)\&log_box;/' log.c >log2.c &&
	mv log2.c log.c
grep -q "&log_box;" log.c || fail "voidret: the struct variant"
"$RCLR" -p . --locks all -o "$TMP/vr.out2" log.c tally.c >"$TMP/log" 2>&1
grep -q "tally.lock stays POSIX: 'void \*' is converted" "$TMP/log" ||
	{ cat "$TMP/log"; fail "voidret: a structure's address reaches tally.lock"; }
cd "$TMP" || exit 1

# ---- cleanupunits: a cancellation cleanup handler other units may call ----
# tgt's and rsyslog's shape: `void mutex_cleanup(void *mutex)`, not
# static, unlocks whatever it is pushed with; worker.c pushes it with its
# structure's first member.  Its `void *` conversion was taken to reach
# every structure that begins with a mutex.  With -p, every push and
# call of the build names its lock: the popped section is held, the
# other delegated.  A unit not rewritten (other.c uses no lock) that
# calls the handler with any pointer keeps the lock POSIX again.
mkdir -p "$TMP/cu" && cd "$TMP/cu" || exit 1
cp "$WP/cleanupunits/srutil.h" "$WP/cleanupunits/worker.c" . &&
	chmod u+w ./*
units_whole cleanupunits "2 section(s) found, 1 delegated, 1 held, 0 refused" \
	worker.c
grep -q "^worker.c:24: held: unlocked by the cleanup handler" "$TMP/log" ||
	{ cat "$TMP/log"; fail "cleanupunits: the popped section is not held"; }
cp "$WP/cleanupunits/other.c" . && chmod u+w other.c
db= sep=
for u in worker.c other.c; do
	db="$db$sep{\"directory\": \"$PWD\", \"file\": \"$u\", \"arguments\": [\"cc\", \"-std=gnu11\", \"-Wall\", \"-c\", \"$u\"]}"
	sep=", "
done
printf '[%s]\n' "$db" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/cu.out2" >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "cleanupunits: want exit 1 (other.c)"; }
grep -q "pool_info.pending_lock stays POSIX: 'void \*' is converted" "$TMP/log" ||
	{ cat "$TMP/log"; fail "cleanupunits: other.c's call of the handler is not seen"; }
cd "$TMP" || exit 1

# ---- twoprogs: two programs of one tree ----
cp -R "$WP/twoprogs" "$TMP/tp" && chmod -R u+w "$TMP/tp"
cd "$TMP/tp" || exit 1
printf '[{"directory": "%s", "file": "pack.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "pack.c"]}, {"directory": "%s", "file": "unpack.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "unpack.c"]}]\n' \
	"$TMP/tp" "$TMP/tp" >compile_commands.json
for p in pack unpack; do
	$CC -std=gnu11 -O2 -Wall -Werror -pthread $p.c -o "$TMP/$p.orig" ||
		fail "twoprogs: $p does not build"
	timeout 60 "$TMP/$p.orig" >"$TMP/$p.want" || fail "twoprogs: $p fails"
done
"$RCLR" -p . --locks all -o "$TMP/tpout" >"$TMP/log" 2>&1
grep -q "^pack.c:29: held: printf() in the section" "$TMP/log" ||
	{ cat "$TMP/log"; fail "twoprogs: pack.c's cancelled spinner's section is not held"; }
grep -q "liblock_exec(&pack_lock" "$TMP/tpout/pack.c" ||
	{ cat "$TMP/tpout/pack.c"; fail "twoprogs: pack.c's packer section is not delegated"; }
! grep -q "^unpack.c" "$TMP/log" ||
	{ cat "$TMP/log"; fail "twoprogs: unpack.c was read as pack.c's program (its cancel, its signal mask, its report())"; }
[ "$(grep -c "liblock_exec" "$TMP/tpout/unpack.c")" -eq 4 ] ||
	{ cat "$TMP/tpout/unpack.c"; fail "twoprogs: unpack.c's 4 sections are not delegated"; }
for p in pack unpack; do
	cc_rcl "$TMP/$p.new" "$TMP/tpout/$p.c" ||
		fail "twoprogs: the rewritten $p does not build"
	same_output "twoprogs-$p" "$TMP/$p.want" "$TMP/$p.new"
done
cd "$TMP" || exit 1

# ---- sharedloop: two programs on one loop that calls through pointers ----
cp -R "$WP/sharedloop" "$TMP/sl" && chmod -R u+w "$TMP/sl"
cd "$TMP/sl" || exit 1
{
	printf '['
	sep=
	for u in loop srv bench; do
		printf '%s{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "%s.c"]}' \
			"$sep" "$TMP/sl" "$u" "$u"
		sep=', '
	done
	printf ']\n'
} >compile_commands.json
for p in srv bench; do
	$CC -std=gnu11 -O2 -Wall -Werror -pthread $p.c loop.c -o "$TMP/sl-$p.orig" ||
		fail "sharedloop: $p does not build"
	timeout 60 "$TMP/sl-$p.orig" >"$TMP/sl-$p.want" || fail "sharedloop: $p fails"
done
"$RCLR" -p . --locks all -o "$TMP/slout" >"$TMP/log" 2>&1
grep -q "^srv.c:[0-9]*: held: printf() in the section at srv.c:[0-9]* may be a cancellation point" "$TMP/log" ||
	{ cat "$TMP/log"; fail "sharedloop: srv.c's cancelled worker's section is not held"; }
! grep -q "^bench.c" "$TMP/log" ||
	{ cat "$TMP/log"; fail "sharedloop: bench.c was read as running srv.c's handler"; }
grep -q "liblock_exec(&bench_lock" "$TMP/slout/bench.c" ||
	{ cat "$TMP/slout/bench.c"; fail "sharedloop: bench.c's section is not delegated"; }
grep -q "liblock_exec(&srv_lock" "$TMP/slout/srv.c" ||
	{ cat "$TMP/slout/srv.c"; fail "sharedloop: srv.c's handler's section is not delegated"; }
for p in srv bench; do
	cp loop.c loop.h "$TMP/slout/"
	cc_rcl "$TMP/sl-$p.new" "$TMP/slout/$p.c" "$TMP/slout/loop.c" ||
		fail "sharedloop: the rewritten $p does not build"
	same_output "sharedloop-$p" "$TMP/sl-$p.want" "$TMP/sl-$p.new"
done
cd "$TMP" || exit 1

# ---- localalias: a .c file's #define of a type name another file uses ----
cp -R "$WP/localalias" "$TMP/la" && chmod -R u+w "$TMP/la"
cd "$TMP/la" || exit 1
{
	printf '['
	sep=
	for u in main box note; do
		printf '%s{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-pthread", "-c", "%s.c"]}' \
			"$sep" "$TMP/la" "$u" "$u"
		sep=', '
	done
	printf ']\n'
} >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c box.c note.c \
	-o "$TMP/la.orig" || fail "localalias does not build"
timeout 60 "$TMP/la.orig" >"$TMP/la.want" || fail "localalias fails"
"$RCLR" -p . --locks all -o "$TMP/laout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "localalias: rcl-refactor failed"; }
grep -q "4 section(s) found, 4 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "localalias: summary"; }
grep -q "total_lock = { LIBLOCK_INITIALIZER_ALGO" "$TMP/laout/box.c" ||
	fail "localalias: box.c's initialiser of the structure's field"
[ ! -e "$TMP/laout/main.c" ] || fail "localalias: main.c (no lock) was written"
cp main.c "$TMP/laout/" # beside the rewritten box.h it includes
cc_rcl "$TMP/la.new" "$TMP/laout/main.c" "$TMP/laout/box.c" \
	"$TMP/laout/note.c" || fail "localalias: the result does not build"
same_output localalias "$TMP/la.want" "$TMP/la.new"
cd "$TMP" || exit 1

# ---- initmacro: a shared initialiser macro, one of its users named ----
mkdir -p "$TMP/initmacro" && cd "$TMP/initmacro" || exit 1
cat >mtx.h <<'EOC'
#include <pthread.h>
#define MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
EOC
cat >counter.c <<'EOC'
#include "mtx.h"
long counter_add(long v);
static pthread_mutex_t lock = MUTEX_INITIALIZER;
static long total;
long counter_add(long v)
{
	long r;

	pthread_mutex_lock(&lock);
	total += v;
	r = total;
	pthread_mutex_unlock(&lock);
	return r;
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "mtx.h"
long counter_add(long v);
static pthread_mutex_t names_lock = MUTEX_INITIALIZER;
int main(void)
{
	pthread_mutex_lock(&names_lock);
	printf("%ld\n", counter_add(2));
	pthread_mutex_unlock(&names_lock);
	return 0;
}
EOC
printf '[{"directory": "%s", "file": "counter.c", "arguments": ["cc", "-O2", "-c", "counter.c"]},\n {"directory": "%s", "file": "main.c", "arguments": ["cc", "-O2", "-c", "main.c"]}]\n' \
	"$TMP/initmacro" "$TMP/initmacro" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/imout" counter.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "initmacro: want exit 1"; }
grep -qx "counter.c:9: not transformed: lock lock stays POSIX: macro MUTEX_INITIALIZER at mtx.h:2 initialises it, and main.c:4, which is not being rewritten, also expands it (name it too)" "$TMP/log" ||
	{ cat "$TMP/log"; fail "initmacro: the refusal"; }
[ ! -e "$TMP/imout/mtx.h" ] || ! grep -q LIBLOCK "$TMP/imout/mtx.h" ||
	fail "initmacro: mtx.h's macro was rewritten"
cd "$TMP" || exit 1

# ---- skiponly: a lock only the skipped branches use ----
mkdir -p "$TMP/skiponly" && cd "$TMP/skiponly" || exit 1
cat >log.h <<'EOC'
#include <pthread.h>
#ifdef NEED_IO_INTERLOCK
extern pthread_mutex_t LogMut;
#endif
void logmsg(const char *s);
EOC
cat >log.c <<'EOC'
#include <string.h>
#include <unistd.h>
#include "log.h"
#ifdef NEED_IO_INTERLOCK
pthread_mutex_t LogMut = PTHREAD_MUTEX_INITIALIZER;
#endif
void logmsg(const char *s)
{
#ifdef NEED_IO_INTERLOCK
	pthread_mutex_lock(&LogMut);
#endif
	(void)write(1, s, strlen(s));
#ifdef NEED_IO_INTERLOCK
	pthread_mutex_unlock(&LogMut);
#endif
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include <unistd.h>
#include "log.h"
static long count;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static void *work(void *a)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&cm);
		count++;
		pthread_mutex_unlock(&cm);
	}
#ifdef NEED_IO_INTERLOCK
	pthread_mutex_lock(&LogMut);
	(void)write(1, "w\n", 2);
	pthread_mutex_unlock(&LogMut);
#endif
	return a;
}
int main(void)
{
	pthread_t t[2];
	char b[32];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, work, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	snprintf(b, sizeof(b), "count %ld\n", count);
	logmsg(b);
	return 0;
}
EOC
printf '[{"directory": "%s", "file": "log.c", "arguments": ["cc", "-O2", "-c", "log.c"]},\n {"directory": "%s", "file": "main.c", "arguments": ["cc", "-O2", "-c", "main.c"]}]\n' \
	"$TMP/skiponly" "$TMP/skiponly" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/soout" >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "skiponly: want exit 1 (a refusal)"; }
grep -q "lock LogMut stays POSIX: no critical section of it in the code this build compiles" "$TMP/log" ||
	{ cat "$TMP/log"; fail "skiponly: LogMut's reason"; }
! grep -q "liblock.*LogMut\|LogMut.*liblock" "$TMP/soout"/* ||
	{ grep -n LogMut "$TMP/soout"/*; fail "skiponly: LogMut converted somewhere"; }
grep -q "liblock" "$TMP/soout/main.c" ||
	fail "skiponly: cm, used in compiled code, was not converted"
mkdir -p "$TMP/sobuild" && cp log.h log.c main.c "$TMP/sobuild/" &&
	cp "$TMP/soout"/* "$TMP/sobuild/" || exit 1
for d in -UNEED_IO_INTERLOCK -DNEED_IO_INTERLOCK; do
	cc_rcl "$TMP/so.bin" "$TMP/sobuild/main.c" "$d" "$TMP/sobuild/log.c" \
		2>"$TMP/cc" ||
		{ cat "$TMP/cc"; fail "skiponly: the result does not build with $d"; }
done
cd "$TMP" || exit 1
echo "ok skiponly: a lock only skipped branches use stays POSIX in every file"

# ---- skipfield: skipped calls on a field two structures have ----
# apr's thread_mutex.c: the #else of a configuration test destroys and
# locks `&m->mutex`, where m is a parameter; another structure (reached
# through a macro that casts a void *) has a field `mutex` too.  The
# skipped calls name the parameter's structure: they are renamed with its
# lock (which is converted), and the other lock is left alone.
mkdir -p "$TMP/skipfield" && cd "$TMP/skipfield" || exit 1
cat >sf.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
struct tmutex {
	pthread_mutex_t mutex;
	long n;
};
struct handle {
	void *area;
};
typedef struct {
	pthread_mutex_t mutex;
	long hits;
} box_t;
#define BOX(h) ((box_t *)(h)->area)
#define BOX_MUTEX(h) (BOX(h)->mutex)
static struct tmutex *tm_create(void)
{
	struct tmutex *m = calloc(1, sizeof(*m));

	if (pthread_mutex_init(&m->mutex, NULL) != 0) {
#ifdef OLD_API
		pthread_mutex_destroy(&m->mutex);
#endif
		free(m);
		return NULL;
	}
	return m;
}
static void tm_add(struct tmutex *m)
{
#ifdef OLD_API
	pthread_mutex_lock(&m->mutex);
	m->n += 1;
	pthread_mutex_unlock(&m->mutex);
#else
	pthread_mutex_lock(&m->mutex);
	m->n++;
	pthread_mutex_unlock(&m->mutex);
#endif
}
static void box_hit(struct handle *h)
{
	pthread_mutex_lock(&BOX_MUTEX(h));
	BOX(h)->hits++;
	pthread_mutex_unlock(&BOX_MUTEX(h));
}
static struct tmutex *tm;
static box_t box = { PTHREAD_MUTEX_INITIALIZER, 0 };
static struct handle hd = { &box };
static void *work(void *a)
{
	for (int i = 0; i < 10000; i++) {
		tm_add(tm);
		box_hit(&hd);
	}
	return a;
}
int main(void)
{
	pthread_t t[3];

	tm = tm_create();
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, work, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	printf("%ld %ld\n", tm->n, box.hits);
	return 0;
}
EOC
printf '[{"directory": "%s", "file": "sf.c", "arguments": ["cc", "-O2", "-c", "sf.c"]}]\n' \
	"$TMP/skipfield" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/sfout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "skipfield: want every lock converted"; }
grep -q "0 refused" "$TMP/log" || { cat "$TMP/log"; fail "skipfield: refusals"; }
for call in liblock_destroy liblock_lock liblock_unlock; do
	sed -n '/#ifdef OLD_API/,/#e/p' "$TMP/sfout/sf.c" | grep -q "$call" ||
		{ cat "$TMP/sfout/sf.c"; fail "skipfield: the skipped $call"; }
done
each_config skipfield "$TMP/sfout/sf.c" "30000 30000" -UOLD_API -DOLD_API
cd "$TMP" || exit 1
echo "ok skipfield: skipped calls on a field are renamed with its structure's lock"

# ---- skipmacro: a skipped call through a macro only skipped code defines ----
# apr's proc_mutex.c: under #if APR_USE_PROC_PTHREAD_MUTEX_COND (0 in this
# build) the structure has a condition and a macro reaching it, and the
# cleanup destroys `&proc_cond(mutex)`, `mutex` being a variable.  The
# macro's definition is skipped too: the call names the field `cond`, not
# every structure's `mutex` (with -p apr's thread mutex, the other
# `mutex`, stayed POSIX and 49 sections were refused).
mkdir -p "$TMP/skipmacro" && cd "$TMP/skipmacro" || exit 1
cat >sm.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef USE_COND
#define USE_COND 0
#endif
typedef struct {
	pthread_mutex_t mutex;
	long hits;
} tmutex_t;
struct proc {
	int refs;
#if USE_COND
	pthread_cond_t cond;
#define proc_cond(p) ((p)->cond)
#endif
};
static tmutex_t tm = { PTHREAD_MUTEX_INITIALIZER, 0 };
static void proc_cleanup(struct proc *mutex)
{
#if USE_COND
	pthread_cond_destroy(&proc_cond(mutex));
#endif
	mutex->refs = 0;
}
static void *work(void *a)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&tm.mutex);
		tm.hits++;
		pthread_mutex_unlock(&tm.mutex);
	}
	return a;
}
int main(void)
{
	pthread_t t[3];
	struct proc *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return 1;
#if USE_COND
	pthread_cond_init(&proc_cond(p), NULL);
#endif
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, work, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	proc_cleanup(p);
	free(p);
	printf("%ld\n", tm.hits);
	return 0;
}
EOC
printf '[{"directory": "%s", "file": "sm.c", "arguments": ["cc", "-O2", "-c", "sm.c"]}]\n' \
	"$TMP/skipmacro" >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/smout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "skipmacro: want every lock converted"; }
grep -qx "rcl-refactor: 1 section(s) found, 1 delegated, 0 held, 0 refused" \
	"$TMP/log" || { cat "$TMP/log"; fail "skipmacro: tmutex_t.mutex refused"; }
each_config skipmacro "$TMP/smout/sm.c" "30000" -UUSE_COND -DUSE_COND=1
cd "$TMP" || exit 1
echo "ok skipmacro: a skipped call's macro defined in skipped code"

# ---- paramwrap: wrappers on their parameter, in a unit of their own ----
mkdir -p "$TMP/paramwrap" && cd "$TMP/paramwrap" || exit 1
cat >mtx.h <<'EOC'
#include <pthread.h>
int mutex_lock(pthread_mutex_t *m);
int mutex_unlock(pthread_mutex_t *m);
EOC
cat >mtx.c <<'EOC'
#include "mtx.h"
int mutex_lock(pthread_mutex_t *m) { return pthread_mutex_lock(m); }
int mutex_unlock(pthread_mutex_t *m) { return pthread_mutex_unlock(m); }
EOC
cat >counter.c <<'EOC'
#include "mtx.h"
long counter_add(long v);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
long counter_add(long v)
{
	long r;

	mutex_lock(&lock);
	total += v;
	r = total;
	mutex_unlock(&lock);
	return r;
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "mtx.h"
long counter_add(long v);
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;
static long calls;
static void *worker(void *arg)
{
	for (int i = 0; i < 5000; i++) {
		counter_add((long)arg);
		mutex_lock(&calls_lock);
		calls++;
		mutex_unlock(&calls_lock);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("total %ld calls %ld\n", counter_add(0), calls);
	return 0;
}
EOC
{
	echo '['
	for u in main counter; do
		printf '{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-c", "%s.c"]},\n' "$TMP/paramwrap" "$u" "$u"
	done
	printf '{"directory": "%s", "file": "mtx.c", "arguments": ["cc", "-std=gnu11", "-O2", "-Wall", "-c", "mtx.c"]}]\n' "$TMP/paramwrap"
} >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread main.c counter.c mtx.c \
	-o "$TMP/pw.orig" || fail "paramwrap does not build"
timeout 60 "$TMP/pw.orig" >"$TMP/pw.want" || fail "paramwrap fails"
"$RCLR" -p . --locks all -o "$TMP/pwout" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "paramwrap -p: rcl-refactor failed"; }
grep -q "2 section(s) found, 2 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "paramwrap -p: summary"; }
cp -R "$TMP/paramwrap" "$TMP/pwnew" && cp "$TMP/pwout/"* "$TMP/pwnew/"
cd "$TMP/pwnew" || exit 1
cc_rcl "$TMP/pw.new" main.c counter.c mtx.c ||
	fail "paramwrap -p: the result does not build with -Wall -Werror"
same_output pw "$TMP/pw.want" "$TMP/pw.new"
cd "$TMP/paramwrap" || exit 1
# The callers named, not the wrappers' unit: each section is refused at
# its call, naming the file to add, and nothing changes type (mtx.h's
# prototypes were retyped: their parameter `m` was taken for a global
# lock, and the compile check then wrote nothing).
"$RCLR" -p . --locks all -o "$TMP/pwpart" main.c counter.c \
	>"$TMP/log" 2>&1 && { cat "$TMP/log"; fail "paramwrap, callers only: exit 0"; }
for at in main.c:10 counter.c:9; do
	grep -q "^$at: not transformed: mutex_lock() locks its argument, and is defined in mtx.c, which is not being rewritten: name it too" "$TMP/log" ||
		{ cat "$TMP/log"; fail "paramwrap, callers only: no reason at $at"; }
done
grep -q "2 section(s) found, 0 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "paramwrap, callers only: summary"; }
for u in main.c counter.c mtx.h; do
	[ ! -f "$TMP/pwpart/$u" ] || cmp -s "$u" "$TMP/pwpart/$u" ||
		{ diff -u "$u" "$TMP/pwpart/$u"; fail "paramwrap, callers only: $u changed"; }
done
# main.c alone, without -p: mutex_lock()'s body is nowhere, calls_lock
# stays POSIX, and the prototypes keep pthread's type.
"$RCLR" --locks all -o "$TMP/pwone" main.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "paramwrap, main.c alone: rcl-refactor failed"; }
grep -q "pthread_mutex_t calls_lock" "$TMP/pwone/main.c" 2>/dev/null ||
	[ ! -f "$TMP/pwone/main.c" ] || { cat "$TMP/pwone/main.c"; fail "paramwrap, main.c alone: calls_lock converted"; }
[ ! -f "$TMP/pwone/mtx.h" ] || cmp -s mtx.h "$TMP/pwone/mtx.h" ||
	{ diff -u mtx.h "$TMP/pwone/mtx.h"; fail "paramwrap, main.c alone: mtx.h changed"; }
echo "ok paramwrap: the wrappers' unit not named, said per section; prototypes untouched"
cd "$TMP" || exit 1

# ---- anglehdr: a project header included with <...> ----
mkdir -p "$TMP/anglehdr" && cd "$TMP/anglehdr" || exit 1
cat >setup.h <<'EOC'
#ifndef SETUP_H
#define SETUP_H
#include <pthread.h>
struct CONFIG {
	int failed;
	pthread_mutex_t lock;
};
extern struct CONFIG my;
#endif
EOC
cat >crew.c <<'EOC'
#include <setup.h>
#include <stdio.h>

struct CONFIG my;
typedef struct {
	int total;
	pthread_mutex_t lock;
} CREW_T;
static CREW_T crew;

static void count_failure(void)
{
	pthread_mutex_lock(&(my.lock));
	my.failed++;
	pthread_mutex_unlock(&(my.lock));
}

static void *worker(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		pthread_mutex_lock(&(crew.lock));
		crew.total++;
		pthread_mutex_unlock(&(crew.lock));
		if (i % 10 == 0)
			count_failure();
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];

	pthread_mutex_init(&(my.lock), NULL);
	pthread_mutex_init(&(crew.lock), NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("total %d failed %d\n", crew.total, my.failed);
	return 0;
}
EOC
$CC -std=gnu11 -O2 -Wall -Werror -pthread -I. crew.c -o "$TMP/ah.orig" ||
	fail "anglehdr does not build"
timeout 60 "$TMP/ah.orig" >"$TMP/ah.want" || fail "anglehdr fails"
"$RCLR" -I . --locks all -o "$TMP/ahout" crew.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "anglehdr -I .: rcl-refactor failed"; }
grep -q "2 section(s) found, 2 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "anglehdr -I .: summary"; }
grep -q "liblock_lock_t lock;" "$TMP/ahout/setup.h" ||
	{ cat "$TMP/ahout/setup.h"; fail "anglehdr -I .: setup.h not rewritten"; }
cc_rcl "$TMP/ah.new" "$TMP/ahout/crew.c" -I "$TMP/ahout" ||
	fail "anglehdr: the result does not build with -Wall -Werror"
same_output ah "$TMP/ah.want" "$TMP/ah.new"
# No -I (the compiler finds setup.h through CPATH): struct CONFIG is in
# no file read; my.lock is refused with that reason, and crew's lock, the
# one structure read with a field 'lock', is not taken for it.
CPATH=$PWD "$RCLR" --locks all -o "$TMP/ahout2" crew.c >"$TMP/log" 2>&1 &&
	{ cat "$TMP/log"; fail "anglehdr, no -I: exit 0"; }
grep -q "^crew.c:13: not transformed: the field 'lock' at crew.c:13 is a member of struct CONFIG, whose declaration is in no file read" "$TMP/log" ||
	{ cat "$TMP/log"; fail "anglehdr, no -I: reason"; }
! grep -qs "liblock_exec(&(my.lock)\|liblock_init(&(my.lock)" "$TMP/ahout2/crew.c" ||
	{ cat "$TMP/ahout2/crew.c"; fail "anglehdr, no -I: my.lock taken for CREW_T.lock"; }
echo "ok anglehdr: <setup.h> read through -I; without it, no structure taken for another"
cd "$TMP" || exit 1

# ---- opaque: a handle field named like the library's mutex field ----
mkdir -p "$TMP/opaque" && cd "$TMP/opaque" || exit 1
cat >wget.h <<'EOC'
#include <pthread.h>

typedef struct _wget_thread_mutex_st *wget_thread_mutex_t;
int wget_thread_mutex_init(wget_thread_mutex_t *mutex);
void wget_thread_mutex_lock(wget_thread_mutex_t mutex);
void wget_thread_mutex_unlock(wget_thread_mutex_t mutex);

EOC
cat >thread.c <<'EOC'
#include <pthread.h>
#include <stdlib.h>
#include "wget.h"

struct _wget_thread_mutex_st {
	pthread_mutex_t mutex;
};

int wget_thread_mutex_init(wget_thread_mutex_t *mutex)
{
	*mutex = malloc(sizeof(struct _wget_thread_mutex_st));
	return pthread_mutex_init(&((*mutex)->mutex), NULL);
}

void wget_thread_mutex_lock(wget_thread_mutex_t mutex)
{
	pthread_mutex_lock(&mutex->mutex);
}

void wget_thread_mutex_unlock(wget_thread_mutex_t mutex)
{
	pthread_mutex_unlock(&mutex->mutex);
}
EOC
cat >bar.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "wget.h"

typedef struct _wget_bar_st wget_bar_t;
struct _wget_bar_st {
	long counter;
	wget_thread_mutex_t
		mutex;
};

static wget_bar_t *wget_bar_init(wget_bar_t *bar)
{
	if (!bar)
		bar = calloc(1, sizeof(*bar));
	wget_thread_mutex_init(&bar->mutex);
	return bar;
}

static wget_bar_t *bar;

static void *worker(void *arg)
{
	(void) arg;
	for (int i = 0; i < 100000; i++) {
		wget_thread_mutex_lock(bar->mutex);
		bar->counter++;
		wget_thread_mutex_unlock(bar->mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	bar = wget_bar_init(NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter=%ld\n", bar->counter);
	return 0;
}

EOC
$CC -std=gnu11 -O2 -Wall -Werror -pthread -I. thread.c bar.c \
	-o "$TMP/op.orig" || fail "opaque does not build"
timeout 60 "$TMP/op.orig" >"$TMP/op.want" || fail "opaque fails"
"$RCLR" --locks all -I . -o "$TMP/opout" thread.c bar.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "opaque: rcl-refactor failed"; }
grep -q "1 section(s) found, 1 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "opaque: summary"; }
cp wget.h "$TMP/opout/" && cd "$TMP/opout" || exit 1
cc_rcl "$TMP/op.new" thread.c -I. bar.c ||
	fail "opaque: the result does not build with -Wall -Werror"
same_output op "$TMP/op.want" "$TMP/op.new"
cd "$TMP" || exit 1

# ---- tiedcond: a profile's lock and another share a condition type ----
# Both structures hold a `signal_t` whose member `cond` is the condition
# they wait on (xz's mythread_cond in its coder and worker structures):
# one condition key for two mutexes.  --locks naming one of them kept
# both POSIX (the condition cannot be two types); now the other becomes a
# liblock lock on the posix algorithm, its sections held, and the one
# selected moves to RCL.
mkdir -p "$TMP/tiedcond" && cd "$TMP/tiedcond" || exit 1
cat >tc.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
typedef struct {
	pthread_cond_t cond;
} signal_t;
struct queue {
	pthread_mutex_t mutex;
	signal_t ready;
	int items;
	long sum;
};
struct stage {
	pthread_mutex_t mutex;
	signal_t done;
	int finished;
};
static struct queue q = { PTHREAD_MUTEX_INITIALIZER,
			  { PTHREAD_COND_INITIALIZER }, 0, 0 };
static struct stage st = { PTHREAD_MUTEX_INITIALIZER,
			   { PTHREAD_COND_INITIALIZER }, 0 };
static void *consumer(void *a)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&q.mutex);
		while (q.items == 0)
			pthread_cond_wait(&q.ready.cond, &q.mutex);
		q.items--;
		q.sum += i;
		pthread_mutex_unlock(&q.mutex);
	}
	pthread_mutex_lock(&st.mutex);
	st.finished++;
	pthread_cond_signal(&st.done.cond);
	pthread_mutex_unlock(&st.mutex);
	return a;
}
int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, consumer, 0);
	for (int i = 0; i < 2000; i++) {
		pthread_mutex_lock(&q.mutex);
		q.items++;
		pthread_cond_signal(&q.ready.cond);
		pthread_mutex_unlock(&q.mutex);
	}
	pthread_mutex_lock(&st.mutex);
	while (st.finished < 2)
		pthread_cond_wait(&st.done.cond, &st.mutex);
	pthread_mutex_unlock(&st.mutex);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	printf("%ld %d\n", q.sum, st.finished);
	return 0;
}
EOC
$CC -std=gnu11 -O2 -Wall -Werror -pthread tc.c -o "$TMP/tc.orig" ||
	fail "tiedcond does not build"
timeout 60 "$TMP/tc.orig" >"$TMP/tc.want" || fail "tiedcond fails"
"$RCLR" --locks queue.mutex -o "$TMP/tcout" tc.c >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "tiedcond: want exit 0"; }
grep -qx "rcl-refactor: 4 section(s) found, 2 delegated, 2 held, 0 refused" \
	"$TMP/log" && grep -q "held: not selected, converted with the posix algorithm for the condition variable signal_t.cond it shares with queue.mutex" "$TMP/log" ||
	{ cat "$TMP/log"; fail "tiedcond: stage.mutex held, queue.mutex delegated"; }
grep -A1 "^/\* queue.mutex" "$TMP/tcout/rcl-config.h" | grep -q '_ALGO "rcl"' &&
	grep -A1 "^/\* stage.mutex.*not selected: shares condition signal_t.cond with queue.mutex" \
		"$TMP/tcout/rcl-config.h" | grep -q '_ALGO "posix"' ||
	{ cat "$TMP/tcout/rcl-config.h"; fail "tiedcond: rcl-config.h algorithms"; }
cc_rcl "$TMP/tc.new" "$TMP/tcout/tc.c" -I"$TMP/tcout" ||
	fail "tiedcond: the result does not build"
same_output tc "$TMP/tc.want" "$TMP/tc.new"
timeout 60 "$TMP/tc.new" >"$TMP/tc.cfg" && cmp -s "$TMP/tc.want" "$TMP/tc.cfg" ||
	fail "tiedcond: rcl-config.h's algorithms give another output"
echo "ok tiedcond"
cd "$TMP" || exit 1

# ---- sametag: type names that units define differently ----
# dec.c's struct coder and struct worker, enc.c's typedefs coder and
# worker of struct coder_s and struct worker_s, plain.c's own anonymous
# typedef coder without a lock (xz 5.4's stream_decoder_mt.c,
# stream_encoder_mt.c, stream_decoder.c).  With -p and no file named:
#  - each lock is the structure the compiler names (the text's reading
#    of `coder *c` took plain.c's typedef, then dec.c's tag, and every
#    section was refused as a member of a structure "in no file read");
#  - plain.c is not rewritten: it only includes sync.h, whose static
#    inline lock helpers every unit that includes it defines (xz's
#    mythread.h had 88 of its 99 units rewritten);
#  - a section with an early return is delegated under the build's
#    -Wbad-function-cast (its generated `(uintptr_t)liblock_exec(...)`
#    drew the warning, and the section was held);
#  - -j 1 and -j 2 (parallel parsing) write the same files.
# Naming enc.c alone converts its own structures' locks (dec.c's fields
# of the same name are other structures') but not tally.h's tally_t.lock,
# which dec.c uses: refused, naming dec.c.
cp -R "$WP/sametag" "$TMP/st" && chmod -R u+w "$TMP/st"
cd "$TMP/st" || exit 1
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread main.c dec.c enc.c \
	plain.c -o "$TMP/st.orig" || fail "sametag does not build"
timeout 60 "$TMP/st.orig" >"$TMP/st.want" || fail "sametag fails"
{
	echo '['
	for u in main dec enc; do
		printf '{"directory": "%s", "file": "%s.c", "command": "cc -std=gnu11 -O2 -pthread -Wall -Wbad-function-cast -c %s.c"},\n' "$TMP/st" $u $u
	done
	printf '{"directory": "%s", "file": "plain.c", "command": "cc -std=gnu11 -O2 -c plain.c"}\n' "$TMP/st"
	echo ']'
} >compile_commands.json
for j in 1 2; do
	"$RCLR" -j $j -p . --locks all -o "$TMP/st.j$j" >"$TMP/log" 2>&1 ||
		{ cat "$TMP/log"; fail "sametag -j $j: rcl-refactor failed"; }
	grep -qx "rcl-refactor: 9 section(s) found, 9 delegated, 0 held, 0 refused" \
		"$TMP/log" || { cat "$TMP/log"; fail "sametag -j $j: sections"; }
done
diff -r "$TMP/st.j1" "$TMP/st.j2" || fail "sametag: -j 1 and -j 2 differ"
[ "$(cd "$TMP/st.j1" && ls | tr '\n' ' ')" = \
	"dec.c enc.c rcl-config.h sync.h tally.h " ] ||
	{ ls "$TMP/st.j1"; fail "sametag: want dec.c, enc.c and the headers"; }
grep -q "^/\* coder_s.mutex: enc.c:" "$TMP/st.j1/rcl-config.h" &&
	grep -q "^/\* coder.mutex: dec.c:" "$TMP/st.j1/rcl-config.h" ||
	{ cat "$TMP/st.j1/rcl-config.h"; fail "sametag: lock names"; }
cp "$TMP/st.j1/"* . && cc_rcl "$TMP/st.new" main.c dec.c enc.c plain.c ||
	fail "sametag: the result does not build"
same_output st "$TMP/st.want" "$TMP/st.new"
cp -R "$WP/sametag/." . && rm -f rcl-config.h
"$RCLR" -p . --locks all -o "$TMP/st.enc" enc.c >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "sametag enc.c: want exit 1 (a refusal)"; }
grep -qx "rcl-refactor: 5 section(s) found, 4 delegated, 0 held, 1 refused" \
	"$TMP/log" && grep -q "^enc.c:[0-9]*: not transformed: lock tally_t.lock stays POSIX: not static, and seen by dec.c, which is not being rewritten" "$TMP/log" ||
	{ cat "$TMP/log"; fail "sametag enc.c: only tally_t.lock refused"; }
echo "ok sametag"
cd "$TMP" || exit 1

# ---- profsites: a profile's init sites select locks used elsewhere ----
cp -R "$WP/profsites" "$TMP/ps" && chmod -R u+w "$TMP/ps"
cd "$TMP/ps" || exit 1
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -pthread main.c init.c work.c \
	-o "$TMP/ps.orig" || fail "profsites does not build"
timeout 60 "$TMP/ps.orig" >"$TMP/ps.want" || fail "profsites fails"
{
	echo '['
	for u in main init; do
		printf '{"directory": "%s", "file": "%s.c", "command": "cc -std=gnu11 -O2 -pthread -Wall -c %s.c"},\n' "$TMP/ps" $u $u
	done
	printf '{"directory": "%s", "file": "work.c", "command": "cc -std=gnu11 -O2 -pthread -Wall -c work.c"}\n' "$TMP/ps"
	echo ']'
} >compile_commands.json
site() { # LINE VERDICT: the profile entry of init.c's lock at LINE
	printf '{"name": "init.c:%d pool_init", "kind": "init", "file": "init.c", "line": %d, "verdict": "%s"}' "$1" "$1" "$2"
}
grep -n "pthread_mutex_init(&p->lock\|slots\[i\].lock\|stats_lock" init.c |
	cut -d: -f1 | tr '\n' ' ' >"$TMP/ps.lines"
read -r l_pool l_slot l_stats <"$TMP/ps.lines"
printf '{"version": 1, "locks": [%s, %s, %s]}\n' "$(site "$l_pool" \
	"RCL recommended")" "$(site "$l_slot" "RCL recommended")" \
	"$(site "$l_stats" no)" >prof.json
for how in p named; do
	if [ $how = p ]; then
		"$RCLR" -p . --locks prof.json -o "$TMP/ps.$how" >"$TMP/log" 2>&1
	else
		"$RCLR" --locks prof.json -o "$TMP/ps.$how" work.c init.c \
			>"$TMP/log" 2>&1
	fi
	[ $? -eq 0 ] || { cat "$TMP/log"; fail "profsites $how: rcl-refactor failed"; }
	grep -qx "rcl-refactor: 5 section(s) found, 4 delegated, 0 held, 0 refused, 1 of unselected locks left alone" \
		"$TMP/log" || { cat "$TMP/log"; fail "profsites $how: sections"; }
	# the slot's section runs from the pool's section function
	awk '/^static void \*rcl_cs_pool_sum_2\(/,/^}/' "$TMP/ps.$how/work.c" |
		grep -q "liblock_exec(&p->slots\[i\].lock, rcl_cs_pool_sum_1," ||
		{ cat "$TMP/ps.$how/work.c"; fail "profsites $how: nested section not called from the outer one"; }
	grep -q "pthread_mutex_lock(&p->stats_lock)" "$TMP/ps.$how/work.c" ||
		fail "profsites $how: the lock the profile says no to was converted"
	cp "$TMP/ps.$how/"* . && cc_rcl "$TMP/ps.new" main.c init.c work.c ||
		fail "profsites $how: the result does not build"
	same_output "ps$how" "$TMP/ps.want" "$TMP/ps.new"
	cp "$WP/profsites/"* . && chmod -R u+w . && rm -f rcl-config.h
done
echo "ok profsites"
cd "$TMP" || exit 1

# ---- strays: files of the tree the database does not list ----
mkdir -p "$TMP/stray/tests" "$TMP/stray/port" "$TMP/stray/extra"
cd "$TMP/stray" || exit 1
cat >cache.h <<'EOC'
#include <pthread.h>
struct cache {
	pthread_mutex_t lock;
	long hits;
};
extern struct cache the_cache;
void cache_hit(void);
long cache_hits(void);
EOC
cat >cache.c <<'EOC'
#include "cache.h"
struct cache the_cache = { PTHREAD_MUTEX_INITIALIZER, 0 };
void cache_hit(void)
{
	pthread_mutex_lock(&the_cache.lock);
	the_cache.hits++;
	pthread_mutex_unlock(&the_cache.lock);
}
long cache_hits(void)
{
	long n;

	pthread_mutex_lock(&the_cache.lock);
	n = the_cache.hits;
	pthread_mutex_unlock(&the_cache.lock);
	return n;
}
EOC
cat >main.c <<'EOC'
#include <stdio.h>
#include "cache.h"
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;
static long calls;
static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5000; i++) {
		cache_hit();
		pthread_mutex_lock(&calls_lock);
		calls++;
		pthread_mutex_unlock(&calls_lock);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld calls %ld\n", cache_hits(), calls);
	return 0;
}
EOC
# A test program `make check` would build, included as the sources are
# (-I. in the build's commands): it takes the cache's lock itself.
cat >tests/t_cache.c <<'EOC'
#include <stdio.h>
#include "cache.h"
int main(void)
{
	cache_hit();
	pthread_mutex_lock(&the_cache.lock);
	the_cache.hits = 0;
	pthread_mutex_unlock(&the_cache.lock);
	printf("%ld\n", cache_hits());
	return 0;
}
EOC
# Another platform's file: it says so, and is not part of this build.
cat >port/win32.c <<'EOC'
#ifndef _WIN32
#error "port/win32.c is for Windows builds"
#endif
#include "cache.h"
void cache_reset(void) { pthread_mutex_lock(&the_cache.lock); }
EOC
# One that does not compile with its neighbours' flags: a note.
cat >extra/broken.c <<'EOC'
#include "config-extra.h"
#include "cache.h"
void cache_clear(void) { pthread_mutex_lock(&the_cache.lock); }
EOC
# version.c comes first and has no -I.: tests/t_cache.c, in a directory
# with no unit, must be read with a command that finds its "cache.h".
echo 'const char *version(void) { return "1.0"; }' >version.c
stray_db() { # UNITS...
	printf '[{"directory": "%s", "file": "version.c", "arguments": ["cc", "-O2", "-c", "version.c"]}\n' "$TMP/stray"
	sep=','
	for u in "$@"; do
		printf '%s{"directory": "%s", "file": "%s", "arguments": ["cc", "-std=gnu11", "-I.", "-O2", "-Wall", "-c", "%s"]}\n' "$sep" "$TMP/stray" "$u" "$u"
		sep=','
	done
	echo ']'
}
stray_db main.c cache.c >compile_commands.json
$CC -std=gnu11 -O2 -Wall -Werror -pthread -I. main.c cache.c \
	-o "$TMP/sy.orig" || fail "stray does not build"
timeout 60 "$TMP/sy.orig" >"$TMP/sy.want" || fail "stray fails"
"$RCLR" -p . --locks all -o "$TMP/sy.out" >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "stray: want exit 1 (a lock refused)"; }
grep -q "cache.c:[0-9]*: not transformed: .*seen by tests/t_cache.c, which compile_commands.json does not list" \
	"$TMP/log" || { cat "$TMP/log"; fail "stray: the cache's lock not refused naming tests/t_cache.c"; }
grep -q "port/win32.c" "$TMP/log" &&
	{ cat "$TMP/log"; fail "stray: another platform's file was taken for a user"; }
# (no note for extra/broken.c: the lock it would use stays POSIX)
grep -q "note: extra/broken.c" "$TMP/log" &&
	{ cat "$TMP/log"; fail "stray: a note for a lock not converted"; }
grep -q "3 section(s) found, 1 delegated, 0 held, 2 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "stray: summary"; }
grep -q "pthread_mutex_lock(&the_cache.lock)" "$TMP/sy.out/cache.c" 2>/dev/null ||
	[ ! -e "$TMP/sy.out/cache.c" ] || fail "stray: cache.c rewritten"
cp -R "$TMP/stray" "$TMP/synew" && cp "$TMP/sy.out/"* "$TMP/synew/"
cd "$TMP/synew" || exit 1
cc_rcl "$TMP/sy.new" main.c -I. cache.c ||
	fail "stray: the result does not build"
same_output sy "$TMP/sy.want" "$TMP/sy.new"
$CC -std=gnu11 -Wall -Werror -pthread -I. tests/t_cache.c cache.c \
	-o "$TMP/sy.test" && [ "$(timeout 60 "$TMP/sy.test")" = 0 ] ||
	fail "stray: the test program no longer builds and runs"
# With build files, a file no rule builds is not part of this build (a
# plugin left off by configure: automake comments its rules out): a note.
cd "$TMP/stray" || exit 1
mkdir -p plugins
cat >plugins/off.c <<'EOC'
#include "cache.h"
void off_reset(void)
{
	pthread_mutex_lock(&the_cache.lock);
	the_cache.hits = 0;
	pthread_mutex_unlock(&the_cache.lock);
}
EOC
printf 'all: main\nmain: main.o cache.o\ncheck: tests/t_cache\ntests/t_cache: tests/t_cache.o cache.o\n#plugins: plugins/off.o\nEXTRA_DIST = plugins/off.c\n' >Makefile
"$RCLR" -p . --locks all -o "$TMP/sy.mk" >"$TMP/log" 2>&1
[ $? -eq 1 ] || { cat "$TMP/log"; fail "stray, Makefile: want exit 1"; }
grep -q "seen by tests/t_cache.c, which compile_commands.json does not list" \
	"$TMP/log" || { cat "$TMP/log"; fail "stray, Makefile: tests/t_cache.c is built by a rule"; }
grep -q "plugins/off.c, \|seen by plugins/off.c\|, plugins/off.c" "$TMP/log" &&
	{ cat "$TMP/log"; fail "stray, Makefile: a file no rule builds was taken for a user"; }
rm tests/t_cache.c
"$RCLR" -p . --locks all -o "$TMP/sy.mk2" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "stray, Makefile, no test: rcl-refactor failed"; }
grep -q "note: plugins/off.c is not in compile_commands.json and no rule of the build's Makefiles builds it: taken as not part of this build, though it uses cache.lock" \
	"$TMP/log" || { cat "$TMP/log"; fail "stray, Makefile: no note for the file no rule builds"; }
grep -q "3 section(s) found, 3 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "stray, Makefile, no test: summary"; }
rm -r Makefile plugins
cp "$TMP/synew/tests/t_cache.c" tests/
# Listed in the database, the test program is rewritten with the rest.
stray_db main.c cache.c tests/t_cache.c >compile_commands.json
"$RCLR" -p . --locks all -o "$TMP/sy.all" >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "stray, test listed: rcl-refactor failed"; }
grep -q "4 section(s) found, 4 delegated, 0 held, 0 refused" "$TMP/log" ||
	{ cat "$TMP/log"; fail "stray, test listed: summary"; }
grep -q "note: extra/broken.c is not in compile_commands.json and does not compile with its neighbours' flags (.*config-extra.h.*): taken as not part of this build, though it uses cache.lock; if the build compiles it" \
	"$TMP/log" || { cat "$TMP/log"; fail "stray, test listed: the note names no lock"; }
echo "ok stray"
cd "$TMP" || exit 1

# ---- bad -p input ----
badp() { # WANT-MESSAGE ARGS...
	want=$1
	shift
	"$RCLR" "$@" >"$TMP/log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { cat "$TMP/log"; fail "$*: exit $rc, want 2"; }
	[ "$(wc -l <"$TMP/log")" -eq 1 ] || { cat "$TMP/log"; fail "$*: not one line"; }
	grep -q "$want" "$TMP/log" || { cat "$TMP/log"; fail "$*: message"; }
	echo "ok bad: $*"
}
cd "$TMP" || exit 1
mkdir -p empty badjson
echo '{"not": "a list"' >badjson/compile_commands.json
badp "no such directory" -p "$TMP/nowhere" -o out
badp "no compile_commands.json there" -p empty -o out
badp "not valid JSON" -p badjson -o out
badp "not in jobq/compile_commands.json" -p jobq -o out hz/ops.c
# A Python without libclang's bindings: one line saying what to install.
mkdir -p noclang/clang
echo 'raise ImportError("no clang here")' >noclang/clang/__init__.py
PYTHONPATH="$TMP/noclang" badp "clang.cindex) are missing from this Python" \
	-o out hz/ops.c
"$RCLR" -o out >"$TMP/log" 2>&1
[ $? -eq 2 ] && tail -n 1 "$TMP/log" | grep -q "error: no FILE.c given" ||
	{ cat "$TMP/log"; fail "no file and no -p: want a usage error"; }
"$RCLR" -j 0 -p jobq -o out >"$TMP/log" 2>&1
[ $? -eq 2 ] && tail -n 1 "$TMP/log" |
	grep -q "error: -j 0: expected a number of jobs, 1 or more" ||
	{ cat "$TMP/log"; fail "-j 0: want a usage error"; }
echo "PASS"
