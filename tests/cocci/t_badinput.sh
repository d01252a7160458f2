#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: clear one-line messages, the documented exit codes, and no
# file written or touched.
. "$(dirname "$0")/common.sh"
tool_only
cd "$TMP" || exit 1

# expect CODE PATTERN CMD...: run CMD, check its exit code and that its
# stderr+stdout matches PATTERN.
expect() {
	code=$1 pat=$2
	shift 2
	"$@" >out.txt 2>&1
	rc=$?
	[ "$rc" -eq "$code" ] || { cat out.txt; fail "$*: exit $rc, want $code"; }
	grep -q -- "$pat" out.txt || { cat out.txt; fail "$*: no '$pat'"; }
	echo "ok: $* -> $rc"
}

cp "$CORPUS/counter.c" good.c
expect 2 "missing.c: no such file" "$RCLR" -o o1 missing.c
[ -e o1 ] && fail "output written for a missing file"
expect 2 "required" "$RCLR" good.c
expect 2 "expected LOCK=UNLOCK" "$RCLR" --lock-fn foo -o o1 good.c
expect 2 "cannot find a definition of nolock" \
	"$RCLR" --lock-fn nolock=nounlock -o o1 good.c
echo '{"version": 1, "locks": 3}' >bad.json
expect 2 "bad.json: expected a list" "$RCLR" --locks bad.json -o o1 good.c
echo '{' >broken.json
expect 2 "broken.json: not valid JSON" "$RCLR" --locks broken.json -o o1 good.c
expect 2 "nodir: no such directory" "$RCLR" -I nodir -o o1 good.c
[ -e o1 ] && fail "output written on a usage error"

# A syntax error: refused before anything is written, file untouched.
printf '#include <pthread.h>\nstatic pthread_mutex_t m;\nint f(void) {\n\tpthread_mutex_lock(&m);\n\treturn 1;\n' >syntax.c
cp syntax.c syntax.orig
expect 1 "syntax.c" "$RCLR" --in-place syntax.c
cmp -s syntax.c syntax.orig || fail "syntax.c was modified"
expect 1 "syntax.c" "$RCLR" --no-compile-check --in-place syntax.c
cmp -s syntax.c syntax.orig || fail "syntax.c was modified"

# Only refused sections: exit 1, one line per section, file untouched.
# (A process-shared mutex: its sections are refused, neither delegated
# nor held.)
cat >refuse.c <<'EOC'
#include <pthread.h>
static pthread_mutex_t m_rec;
static int shared;
void recursive_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&m_rec, &a);
	pthread_mutex_lock(&m_rec);
	shared++;
	pthread_mutex_unlock(&m_rec);
}
int peek(void)
{
	int v;

	if (pthread_mutex_trylock(&m_rec) != 0)
		return -1;
	v = shared;
	pthread_mutex_unlock(&m_rec);
	return v;
}
EOC
cp refuse.c refuse.orig
expect 1 "refuse.c:19: not transformed: lock m_rec stays POSIX: initialised with attributes" \
	"$RCLR" --in-place refuse.c
grep -q ": held: " out.txt && { cat out.txt; fail "refuse.c: a section of a refused lock is held"; }
grep -q "2 section(s) found, 0 delegated, 0 held, 2 refused" out.txt ||
	{ cat out.txt; fail "refuse.c: summary"; }
cmp -s refuse.c refuse.orig || fail "refuse.c was modified"
[ -e rcl-config.h ] && fail "rcl-config.h written with nothing converted"

# Held sections are not refusals: exit 0, one "held:" line each.
cp "$GOLDEN/held_ok.c" held.c
expect 0 "held.c:50: held: returns with the lock held (runs in place on the lock word)" \
	"$RCLR" -o oh held.c
grep -q "not transformed" out.txt && { cat out.txt; fail "held.c: refused"; }
# -q: refusals only (held sections need nothing from the user)
"$RCLR" -q -o oh2 held.c >out.txt 2>&1 || { cat out.txt; fail "held.c -q: exit"; }
[ -s out.txt ] && { cat out.txt; fail "held.c -q: printed something"; }
cmp -s oh/held.c oh2/held.c || fail "held.c -q: another output"

# Output that would not compile (a type declared inside the function
# is not in scope in the extracted function): the section is held
# instead, with the compiler's error as its reason; what is written
# compiles.
cat >local_type.c <<'EOC'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;
int f(int n)
{
	typedef struct { int lo, hi; } range_t;
	range_t r = { n, n + 1 };

	pthread_mutex_lock(&m);
	shared += r.lo;
	pthread_mutex_unlock(&m);
	return r.hi;
}
EOC
cp local_type.c local_type.orig
expect 0 "local_type.c:9: held: its extracted code gets a new compiler diagnostic (.*error: unknown type name .range_t." \
	"$RCLR" --in-place local_type.c
grep -q "^	liblock_lock(&m);$" local_type.c &&
	grep -q "^	liblock_unlock(&m);$" local_type.c &&
	! grep -q "rcl_cs_\|pthread_mutex_" local_type.c ||
	{ cat local_type.c; fail "local_type.c: not held in place"; }
ls -a | grep -q '^\.rcl-' && fail "temporary file left behind"
exit 0
