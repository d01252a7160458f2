/* SPDX-License-Identifier: MIT */
/* A section ending in an if/else-if/else that releases the lock in each
   branch, with locals declared at its top (a value and a buffer) that
   the code after the unlocks and after the if reads: they are declared
   by the caller, the buffer reached by pointer; one branch breaks out of
   the loop after its unlock. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count, flushed;
static char last[32];

static void flush(int n, char *buf) { __atomic_fetch_add(&flushed, n, __ATOMIC_RELAXED); snprintf(buf, 32, "f%d", n); }

static void *work(void *arg)
{
	long id = (long)arg, seen = 0;
	char note[32] = "";
	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(&m);
		int n = count;
		char tmp[32];
		if (n > 3) {
			count = 0;
			strcpy(tmp, "big");
			pthread_mutex_unlock(&m);
			flush(n, note);
			seen += strlen(tmp);
		} else if (id == 99) {
			pthread_mutex_unlock(&m);
			break;
		} else {
			count++;
			memcpy(last, "small", 6);
			pthread_mutex_unlock(&m);
		}
		seen += n >= 0;
	}
	return (void *)(seen > 0 ? 1L : 0L);
}

int main(void)
{
	pthread_t t[3];
	void *r;
	long ok = 0;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("ok %ld total %d last %s\n", ok, flushed + count, last);
	return 0;
}
