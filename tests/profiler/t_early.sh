#!/bin/sh
# SPDX-License-Identifier: MIT
# Early start-up: mutexes used before the profiler is initialised — by a
# library constructor, and by a program that replaces malloc/calloc with
# an allocator guarded by a pthread mutex (dlsym itself allocates while
# the profiler resolves the real functions).  The program must run
# unchanged and its allocator lock must be profiled once we are up.
. "${srcdir:-.}/profiler/lib.sh"
CC=${PROF_CC:-cc}

# In an ASan build the profiler library is ASan-instrumented, and
# instrumented code cannot run before the ASan runtime has initialised:
# here libstdc++'s constructor calls the program's malloc, hence
# pthread_mutex_lock, before libasan's constructor.  Plain and TSan builds
# (uninstrumented library) run this test.
if [ "$("$B/prof_robust" sanitizer)" = asan ]; then
	echo "SKIP: an ASan-instrumented preload library cannot run before the ASan runtime starts"
	exit 77
fi

cat >"$T/early.c" <<'CEOF'
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
int early_count;
__attribute__((constructor)) static void early(void)
{
	pthread_mutex_lock(&early_lock);
	early_count++;
	pthread_mutex_unlock(&early_lock);
}
CEOF
cat >"$T/app.c" <<'CEOF'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern int early_count;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(16) char arena[64 << 20];
static size_t used;

void *malloc(size_t n)
{
	void *p = NULL;

	pthread_mutex_lock(&alloc_lock);
	n = (n + 15) & ~(size_t)15;
	if (used + n + 16 <= sizeof(arena)) {
		*(size_t *)(arena + used) = n;
		p = arena + used + 16;
		used += n + 16;
	}
	pthread_mutex_unlock(&alloc_lock);
	return p;
}
void free(void *p)
{
	(void)p;
}
void *calloc(size_t a, size_t b)
{
	void *p = malloc(a * b);

	return p ? memset(p, 0, a * b) : NULL;
}
void *realloc(void *old, size_t n)
{
	void *p = malloc(n);

	if (p && old) {
		size_t o = *(size_t *)((char *)old - 16);
		memcpy(p, old, o < n ? o : n);
	}
	return p;
}

static void *volatile sink;

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++)
		sink = malloc(32); /* a volatile store: not elided */
	return arg;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("early %d\n", early_count);
	return 9;
}
CEOF
$CC -O2 -g -fPIC -shared -pthread "$T/early.c" -o "$T/libearly.so" &&
	$CC -O2 -g -pthread "$T/app.c" -L"$T" -learly -Wl,-rpath,"$T" -o "$T/app" ||
	fail "cannot compile with $CC"
"$T/app" >"$T/plain"
rc1=$?
timeout -k 5 60 "$RCLPROF" --table none -o "$T/p.json" -- "$T/app" >"$T/prof"
rc2=$?
[ "$rc1" = 9 ] && [ "$rc2" = 9 ] || fail "exit $rc1 plain, $rc2 profiled"
cmp -s "$T/plain" "$T/prof" || fail "output differs: $(cat "$T/prof")"
check "$T/p.json" 'lock("alloc_lock")["acquisitions"] >= 4000'
echo "ok: early start-up ($(cat "$T/prof"))"
