#!/bin/sh
# SPDX-License-Identifier: MIT
# Files: --in-place writes through symbolic links into the same inode (hard
# links see the change; ls -i and the mode stay), a CRLF file stays CRLF,
# --diff prints a patch that gives what -o writes and writes nothing, bad
# paths get one-line errors, and a failure while writing (the second file
# cannot be replaced) leaves every file as it was.
. "$(dirname "$0")/common.sh"
cd "$TMP" || exit 1
CR=$(printf '\r')

# expect CODE PATTERN CMD...: CMD exits CODE and prints one line (stdout
# and stderr) matching PATTERN, never a traceback.
expect() {
	code=$1 pat=$2
	shift 2
	"$@" >out.txt 2>&1
	rc=$?
	[ "$rc" -eq "$code" ] || { cat out.txt; fail "$*: exit $rc, want $code"; }
	grep -q -- "$pat" out.txt || { cat out.txt; fail "$*: no '$pat'"; }
	[ "$(wc -l <out.txt)" -eq 1 ] || { cat out.txt; fail "$*: not one line"; }
	grep -q "internal error\|Traceback" out.txt && fail "$*: internal error"
	echo "ok: $* -> $rc"
}

# tree DIR: every name under DIR with its type, link target, inode, mode
# and size, every file's modification time and checksum.  (Not the
# directories' times: temporaries come and go in them; not ctime: a
# rollback changes it; not atime: reading changes it.)
tree() {
	(cd "$1" && find . -exec stat -c '%N %F %i %a %s' {} + | sort &&
		find . -type f -exec stat -c '%n %y' {} + | sort &&
		find . -type f -exec sha256sum {} + | sort)
}

# cc_c FILE: the transformed FILE compiles warning-free.
cc_c() {
	$CC -std=gnu11 -O2 -Wall -Werror -pthread -I"$top_srcdir/liblock" \
		-I"$top_srcdir/runtime" \
		-c "$1" -o "$TMP/x.o" || fail "$1 does not compile"
}

no_temporaries() {
	left=$(find "$@" -name '.rcl-*')
	[ -z "$left" ] || fail "temporaries left behind: $left"
}

# limited CMD...: run CMD without the privileges that let root write a
# file or directory it has no permission for (CAP_DAC_OVERRIDE,
# CAP_DAC_READ_SEARCH, CAP_FOWNER); as another user, just run it.
limited() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	else
		setpriv --bounding-set \
			-dac_override,-dac_read_search,-fowner "$@"
	fi
}
can_limit=
limited true 2>/dev/null && can_limit=1

# 1. --in-place: a symbolic link stays a link and its target changes;
# a hard link's other name sees the change, the inode and mode stay.
mkdir -p ip/real ip/src
cp "$CORPUS/counter.c" ip/real/a.c
chmod 0751 ip/real/a.c
ln -s ../real/a.c ip/src/a.c
cp "$CORPUS/counter.c" ip/real/b.c
chmod 0640 ip/real/b.c
ln ip/real/b.c ip/b-link.c
ino_a=$(stat -c %i ip/real/a.c)
ino_b=$(stat -c %i ip/real/b.c)
(cd ip/src && "$RCLR" -q --in-place a.c ../real/b.c) >log 2>&1 ||
	{ cat log; fail "--in-place through links"; }
[ -L ip/src/a.c ] || fail "the symbolic link was replaced by a file"
[ "$(readlink ip/src/a.c)" = ../real/a.c ] || fail "the link changed"
grep -q "liblock_exec(&m" ip/real/a.c || fail "the link's target not rewritten"
[ "$(stat -c %i ip/real/a.c)" = "$ino_a" ] || fail "a.c: new inode"
[ "$(stat -c %a ip/real/a.c)" = 751 ] || fail "a.c: mode not kept"
[ "$(stat -c %i ip/real/b.c)" = "$ino_b" ] || fail "b.c: new inode"
[ "$(stat -c %h ip/real/b.c)" = 2 ] || fail "b.c: the hard link was broken"
grep -q "liblock_exec(&m" ip/b-link.c || fail "the hard link sees the old text"
cmp -s ip/b-link.c ip/real/b.c || fail "the hard links differ"
[ "$(stat -c %a ip/real/b.c)" = 640 ] || fail "b.c: mode not kept"
[ -f ip/rcl-config.h ] || fail "no rcl-config.h in the common directory"
cc_c ip/src/a.c
cc_c ip/real/b.c
no_temporaries ip
echo "ok: --in-place through a symbolic link and a hard link, modes kept"

# 2. A CRLF file stays CRLF, generated lines included: the output is the
# LF file's output with a CR before every LF.  (m.c's lock macros have
# continuation lines: backslash, CR, LF.)
mkdir lf crlf
cp "$CORPUS/counter.c" lf/c.c
cat >lf/m.c <<'EOC'
#include <pthread.h>
#define GRAB(m) \
	pthread_mutex_lock(&(m))
#define DROP(m) \
	pthread_mutex_unlock(&(m))
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static int n;
int bump(int k)
{
	int r;

	GRAB(lk);
	n += k;
	r = n;
	DROP(lk);
	return r;
}
EOC
for f in c.c m.c; do
	sed "s/\$/$CR/" "lf/$f" >"crlf/$f"
done
"$RCLR" --in-place lf/c.c lf/m.c >log 2>&1 || { cat log; fail "LF run"; }
grep -q "4 section(s) found, 4 delegated" log || { cat log; fail "LF run"; }
"$RCLR" --in-place crlf/c.c crlf/m.c >log 2>&1 || { cat log; fail "CRLF run"; }
grep -q "4 section(s) found, 4 delegated" log || { cat log; fail "CRLF run"; }
for f in c.c m.c rcl-config.h; do
	n=$(grep -c -v "$CR\$" "crlf/$f")
	[ "$n" -eq 0 ] || fail "crlf/$f: $n line(s) without CRLF"
	tr -d '\r' <"crlf/$f" | cmp -s - "lf/$f" ||
		fail "crlf/$f is not lf/$f with CRLF line endings"
done
cc_c crlf/c.c
cc_c crlf/m.c
echo "ok: CRLF kept, generated lines in CRLF, compiles"

# 3. --diff: a patch (a/ b/ paths from the common directory, a new
# rcl-config.h, a header, a CRLF file) that patch -p1 applies to a copy
# to give what -o writes; the summary on stderr; nothing written.
mkdir -p d/src d/inc
cat >d/inc/guard.h <<'EOC'
#ifndef GUARD_H
#define GUARD_H
#include <pthread.h>
struct guard {
	pthread_mutex_t mu;
	int n;
};
#endif
EOC
cat >d/src/app.c <<'EOC'
#include "guard.h"

void bump(struct guard *g)
{
	pthread_mutex_lock(&g->mu);
	g->n++;
	pthread_mutex_unlock(&g->mu);
}
EOC
sed "s/\$/$CR/" "$CORPUS/counter.c" >d/src/dos.c
before=$(tree d)
(cd d && "$RCLR" --diff -I inc src/app.c src/dos.c) >d.patch 2>d.err ||
	{ cat d.err; fail "--diff"; }
[ "$(tree d)" = "$before" ] || fail "--diff wrote something"
grep -q "section(s) found" d.err || fail "--diff: no summary on stderr"
grep -q "section(s) found" d.patch && fail "--diff: summary in the patch"
for f in src/app.c inc/guard.h src/dos.c; do
	grep -q "^--- a/$f\$" d.patch && grep -q "^+++ b/$f\$" d.patch ||
		fail "--diff: no a/$f b/$f"
done
grep -A1 "^--- /dev/null" d.patch | grep -q "^+++ b/rcl-config.h" ||
	fail "--diff: rcl-config.h not shown as a new file"
cp -R d dp
(cd dp && patch -s -p1 <../d.patch) || fail "the --diff output does not apply"
(cd d && "$RCLR" -q -I inc -o ../do src/app.c src/dos.c) >log 2>&1 ||
	{ cat log; fail "-o run"; }
for f in src/app.c inc/guard.h src/dos.c rcl-config.h; do
	cmp -s "dp/$f" "do/$f" || fail "patched $f differs from -o's"
done
grep -c -v "$CR\$" dp/src/dos.c | grep -qx 0 || fail "patched dos.c not CRLF"
# Exit status as for a normal run: 1 with refused sections.
cp "$GOLDEN/shapes_refuse.c" refuse.c
"$RCLR" --diff refuse.c >r.patch 2>&1
[ $? -eq 1 ] || fail "--diff with refusals: exit status not 1"
[ -e rcl-config.h ] && fail "--diff wrote rcl-config.h"
cmp -s refuse.c "$GOLDEN/shapes_refuse.c" || fail "--diff wrote refuse.c"
echo "ok: --diff applies with patch -p1, same as -o, writes nothing"

# 4. One-line errors, exit 2, nothing written.
cp "$CORPUS/counter.c" good.c
mkdir adir
expect 2 "adir: is a directory" "$RCLR" -o o1 adir
printf 'extern int x;\n' >good.h
expect 2 "good.h: a header cannot be rewritten alone: name the .c files" \
	"$RCLR" -o o1 good.h
echo x >afile
expect 2 "^rcl-refactor: -o afile: not a directory" "$RCLR" -o afile good.c
expect 2 "^rcl-refactor: -o afile/sub: .*afile is not a directory" \
	"$RCLR" -o afile/sub good.c
ln -s nowhere.c dangling.c
expect 2 "dangling.c: a symbolic link to nothing" "$RCLR" -o o1 dangling.c
ln good.c twin.c
expect 2 "good.c and twin.c are the same file" "$RCLR" --in-place good.c twin.c
[ -e o1 ] && fail "output written on an error"
cmp -s good.c "$CORPUS/counter.c" || fail "good.c was modified"
if [ -n "$can_limit" ]; then
	cp good.c secret.c
	chmod 000 secret.c
	expect 2 "secret.c: not readable" limited "$RCLR" -o o1 secret.c
	mkdir ro
	chmod 0555 ro
	expect 2 "^rcl-refactor: -o ro: not writable" \
		limited "$RCLR" -o ro good.c
	expect 2 "^rcl-refactor: -o ro/sub: .*ro is not writable" \
		limited "$RCLR" -o ro/sub good.c
	[ -z "$(ls -A ro)" ] || fail "written in a read-only directory"
else
	echo "skip: cannot run without root's file privileges (setpriv)"
fi
echo "ok: one-line errors"

# 5. A failure while writing leaves every file as it was.
# 5a. Found before any file changes: an output that is a directory.
mkdir -p w1/o/rcl-config.h
cp good.c w1/a.c
cp good.c w1/b.c
before=$(tree w1)
expect 1 "rcl-config.h: is a directory; nothing written" \
	"$RCLR" -q -o w1/o w1/a.c w1/b.c
[ "$(tree w1)" = "$before" ] || fail "w1 changed"
no_temporaries w1
# 5b. --in-place, the second file cannot be opened for writing (read-only,
# and we lack the privilege to override that): the first, already
# rewritten, is put back (text, times, inode).
if [ -n "$can_limit" ]; then
	mkdir w2
	cp good.c w2/a.c
	cp good.c w2/b.c
	chmod 0444 w2/b.c
	touch -d '2020-01-02 03:04:05' w2/a.c w2/b.c
	before=$(tree w2)
	ctime=$(stat -c %z w2/a.c)
	sleep 0.1
	expect 1 "w2/b.c: cannot write it (Permission denied); nothing" \
		limited "$RCLR" -q --in-place w2/a.c w2/b.c
	[ "$(tree w2)" = "$before" ] || {
		tree w2
		fail "--in-place: a file changed after a failed write"
	}
	[ "$(stat -c %z w2/a.c)" != "$ctime" ] ||
		fail "a.c was never written: the rollback was not exercised"
	no_temporaries w2
	echo "ok: --in-place rolled back"
fi
# 5c. -o over an earlier run's output: the second file is in a sticky
# directory and owned by someone else, so it cannot be replaced; the
# first, already replaced, is restored (same inode), nothing is left.
if [ -n "$can_limit" ] && [ "$(id -u)" -eq 0 ]; then
	mkdir -p w3/o
	cp good.c w3/a.c
	cp good.c w3/b.c
	echo old-a >w3/o/a.c
	echo old-b >w3/o/b.c
	chown 65534 w3/o w3/o/b.c
	chmod 1777 w3/o
	before=$(tree w3)
	ctime=$(stat -c %z w3/o/a.c)
	sleep 0.1
	expect 1 "w3/o/b.c: cannot replace it (Operation not permitted)" \
		limited "$RCLR" -q -o w3/o w3/a.c w3/b.c
	[ "$(tree w3)" = "$before" ] || {
		tree w3
		fail "-o: a file changed after a failed write"
	}
	[ "$(stat -c %z w3/o/a.c)" != "$ctime" ] ||
		fail "o/a.c was never replaced: the rollback was not exercised"
	no_temporaries w3
	echo "ok: -o rolled back"
fi
# 6. Without -p, a lock declared in a header is kept POSIX when a file of
# the project that is not named includes the header and names the lock
# (it would still hand pthreads the converted field); named too, it
# converts.
mkdir -p users/src
cat >users/src/obj.h <<'EOF2'
#include <pthread.h>
struct obj { pthread_mutex_t mutex; pthread_cond_t cv; int ready; long n; };
void obj_bump(struct obj *o);
void obj_wait(struct obj *o);
EOF2
cat >users/src/bump.c <<'EOF2'
#include "obj.h"
void obj_bump(struct obj *o)
{
	pthread_mutex_lock(&o->mutex);
	o->n++;
	o->ready = 1;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mutex);
}
EOF2
cat >users/src/wait.c <<'EOF2'
#include "obj.h"
void obj_wait(struct obj *o)
{
	while (!o->ready)
		pthread_cond_wait(&o->cv, &o->mutex);
}
EOF2
(cd users/src && "$RCLR" --locks all -o ../o1 bump.c) >users/log1 2>&1
[ $? -eq 1 ] || { cat users/log1; fail "unnamed user: exit status not 1"; }
grep -q "bump.c:4: not transformed: lock obj.mutex stays POSIX: declared in obj.h, and wait.c, which includes it and names the lock, is not being rewritten" users/log1 ||
	{ cat users/log1; fail "unnamed user: no reason naming wait.c"; }
(cd users/src && "$RCLR" --locks all -o ../o2 bump.c wait.c) >users/log2 2>&1 ||
	{ cat users/log2; fail "both files named: not converted"; }
grep -q "liblock_cond_wait(&o->cv, &o->mutex)" users/o2/wait.c ||
	fail "both files named: wait.c's wait not converted"
echo "ok: a file that is not named and uses the header's lock keeps it POSIX"
# 7. ... unless this build does not compile that file: one that stops at
# an #error with the flags given (another platform's, as Tor's
# compat_mutex_winthreads.c), or whose uses are all in a branch the
# preprocessor skips (all of it under #ifdef _WIN32).
cat >users/src/wait_win.c <<'EOF2'
#include "obj.h"
#ifndef WINVER
#error "this file is built on Windows only"
#endif
void obj_wait_win(struct obj *o)
{
	SleepConditionVariableCS(&o->cv, &o->mutex, INFINITE);
}
EOF2
cat >users/src/wait_skipped.c <<'EOF2'
#include "obj.h"
#ifdef _WIN32
void obj_wait_win32(struct obj *o)
{
	SleepConditionVariableCS(&o->cv, &o->mutex, INFINITE);
}
#endif
EOF2
(cd users/src && "$RCLR" --locks all -o ../o3 bump.c wait.c) >users/log3 2>&1 ||
	{ cat users/log3; fail "other platforms' files: not converted"; }
grep -q "liblock_lock_t mutex" users/o3/obj.h ||
	{ cat users/log3; fail "other platforms' files: obj.mutex not converted"; }
# Its uses in compiled code still count.
cat >>users/src/wait_skipped.c <<'EOF2'
int obj_try(struct obj *o) { return pthread_mutex_trylock(&o->mutex); }
EOF2
(cd users/src && "$RCLR" --locks all -o ../o4 bump.c wait.c) >users/log4 2>&1
[ $? -eq 1 ] || { cat users/log4; fail "compiled use: exit status not 1"; }
grep -q "and wait_skipped.c, which includes it and names the lock" \
	users/log4 || { cat users/log4; fail "compiled use: not named"; }
echo "ok: files this build does not compile are not users of a lock"
# 8. The compile check reads a rewritten header where the compiler finds
# it: through an -I above the files (Tor's "lib/lock/compat_mutex.h"
# through -I src, the files under src/lib/).
mkdir -p inc/src/lib/lock inc/src/lib/log
cat >inc/src/lib/lock/mtx.h <<'EOF2'
#include <pthread.h>
typedef struct my_mtx { pthread_mutex_t mutex; } my_mtx;
void my_mtx_init(my_mtx *m);
void my_mtx_lock(my_mtx *m);
void my_mtx_unlock(my_mtx *m);
EOF2
cat >inc/src/lib/lock/mtx.c <<'EOF2'
#include <stdlib.h>
#include "lib/lock/mtx.h"
void my_mtx_init(my_mtx *m) { if (pthread_mutex_init(&m->mutex, NULL)) abort(); }
void my_mtx_lock(my_mtx *m) { if (pthread_mutex_lock(&m->mutex)) abort(); }
void my_mtx_unlock(my_mtx *m) { if (pthread_mutex_unlock(&m->mutex)) abort(); }
EOF2
cat >inc/src/lib/log/log.c <<'EOF2'
#include "lib/lock/mtx.h"
static my_mtx log_mtx;
static long lines;
void log_init(void) { my_mtx_init(&log_mtx); }
void log_line(void)
{
	my_mtx_lock(&log_mtx);
	lines++;
	my_mtx_unlock(&log_mtx);
}
EOF2
(cd inc && "$RCLR" --locks all -I src -o ../o5 src/lib/lock/mtx.c \
	src/lib/log/log.c) >inc/log 2>&1 ||
	{ cat inc/log; fail "-I above the files: not converted"; }
grep -q "liblock_lock_t mutex" o5/lock/mtx.h ||
	{ cat inc/log; ls -R o5; fail "-I above the files: header not rewritten"; }
grep -q "new compiler diagnostic" inc/log &&
	{ cat inc/log; fail "-I above the files: the check read the old header"; }
echo "ok: the compile check reads a rewritten header found through -I"
exit 0
