/* SPDX-License-Identifier: MIT */
/* Status codes kept the way rsyslog keeps its iRet: a macro at the top of
   each function declares the status local, FAIL_WITH() and TRY() assign it
   and jump to the function's `done:` label inside their bodies, and
   RETURN_STATUS returns it.  The sections name the status only through
   these macros: the extracted code must carry the caller's local (set in
   the section, read after it), never find it undeclared. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef int status_t;
#define S_OK 0
#define S_EMPTY 1
#define S_FULL 2
#define S_ODD 3

#define DECL_STATUS status_t status = S_OK
#define RETURN_STATUS return status
#define FAIL_WITH(code)                                                        \
	do {                                                                   \
		status = (code);                                               \
		goto done;                                                     \
	} while (0)
#define TRY(call)                                                              \
	if ((status = (call)) != S_OK)                                         \
		goto done

#define CAP 8
#define NT 4
#define IT 2000

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static int ring[CAP];
static int used;

static status_t has_room(void)
{
	return used < CAP ? S_OK : S_FULL;
}

static status_t even(int v)
{
	return v % 2 ? S_ODD : S_OK;
}

static status_t put(int v)
{
	DECL_STATUS;

	pthread_mutex_lock(&ring_lock);
	TRY(even(v));
	TRY(has_room());
	ring[used++] = v;
done:
	pthread_mutex_unlock(&ring_lock);
	RETURN_STATUS;
}

static status_t get(int *v)
{
	DECL_STATUS;

	pthread_mutex_lock(&ring_lock);
	if (used == 0)
		FAIL_WITH(S_EMPTY);
	*v = ring[--used];
done:
	pthread_mutex_unlock(&ring_lock);
	RETURN_STATUS;
}

static long counts[NT][2][4]; /* [thread][put, get][status] */

static void *worker(void *arg)
{
	long id = (long)arg;
	int i, v;

	for (i = 0; i < IT; i++) {
		counts[id][0][put(i % 3 == 0 ? i + 1 : i * 2)]++;
		if (i % 3 == 1)
			counts[id][1][get(&v)]++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, op, k, tot[2][4] = { { 0 } };

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NT; i++)
		for (op = 0; op < 2; op++)
			for (k = 0; k < 4; k++)
				tot[op][k] += counts[i][op][k];
	/* Every odd value is refused as such, whatever the interleaving;
	   the ring holds what the successful puts and gets leave. */
	printf("puts %ld odd %ld gets %ld\n",
	       tot[0][S_OK] + tot[0][S_FULL] + tot[0][S_ODD], tot[0][S_ODD],
	       tot[1][S_OK] + tot[1][S_EMPTY]);
	printf("balance %s\n",
	       used == tot[0][S_OK] - tot[1][S_OK] ? "kept" : "lost");
	if (used != tot[0][S_OK] - tot[1][S_OK])
		return 1;
	return tot[0][S_ODD] == NT * (IT / 6 + 1) ? 0 : 1;
}
