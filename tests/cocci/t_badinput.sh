#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: clear one-line messages, the documented exit codes, and no
# file written or touched.
. "$(dirname "$0")/common.sh"
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
cp "$GOLDEN/shapes_refuse.c" refuse.c
cp refuse.c refuse.orig
expect 1 "refuse.c:47: not transformed: trylock section" \
	"$RCLR" --in-place refuse.c
cmp -s refuse.c refuse.orig || fail "refuse.c was modified"
[ -e rcl-config.h ] && fail "rcl-config.h written with nothing converted"

# Output that would not compile (a variable-length array cannot travel:
# its bound is not in scope in the extracted function): the section is
# refused with the compiler's error, nothing is written.
cat >local_type.c <<'EOC'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;
int f(int n)
{
	int a[n];
	int i;

	for (i = 0; i < n; i++)
		a[i] = i;
	pthread_mutex_lock(&m);
	shared += a[0];
	pthread_mutex_unlock(&m);
	return a[n - 1];
}
EOC
cp local_type.c local_type.orig
expect 1 "local_type.c:11: not transformed: its extracted code gets a new compiler diagnostic (.*error: .n. undeclared" \
	"$RCLR" --in-place local_type.c
cmp -s local_type.c local_type.orig || fail "local_type.c was modified"
[ -e rcl-config.h ] && fail "rcl-config.h written although nothing compiled"
ls -a | grep -q '^\.rcl-' && fail "temporary file left behind"
exit 0
