/* SPDX-License-Identifier: MIT */
/* axel 2.17.11's axel_do(): trylock sections in loops; the second
   writes the outer locals size and remaining before reading them, but a
   goto skips the writes, so they are copied in -- uninitialised on the
   first pass, which GCC reports at their declaration.  They are reached
   by pointer instead, and both sections are delegated (both were held:
   the warning named no copy-in line, and blamed the first section). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#define NCONN 4
typedef struct {
	pthread_mutex_t lock;
	int enabled;
	off_t currentbyte, lastbyte;
} conn_t;

static conn_t conn[NCONN];
static off_t bytes_done;

static off_t fake_read(int i)
{
	return i == 2 ? 0 : 100 + i;
}

static int axel_do(void)
{
	int i;
	off_t remaining, size;
	int nen = 0;

	for (i = 0; i < NCONN; i++) {
		if (!pthread_mutex_trylock(&conn[i].lock)) {
			if (conn[i].enabled)
				nen++;
			pthread_mutex_unlock(&conn[i].lock);
		}
	}
	if (nen == 0)
		return 0;
	for (i = 0; i < NCONN; i++) {
		if (pthread_mutex_trylock(&conn[i].lock))
			continue;

		if (!conn[i].enabled)
			goto next_conn;

		size = fake_read(i);
		if (size == 0) {
			conn[i].enabled = 0;
			goto next_conn;
		}
		remaining = conn[i].lastbyte - conn[i].currentbyte;
		if (remaining < size)
			size = remaining;
		conn[i].currentbyte += size;
		bytes_done += size;
 next_conn:
		pthread_mutex_unlock(&conn[i].lock);
	}
	return nen;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int k = 0; k < 50; k++)
		axel_do();
	return NULL;
}

int main(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < NCONN; i++) {
		pthread_mutex_init(&conn[i].lock, NULL);
		conn[i].enabled = 1;
		conn[i].lastbyte = 1000 * (i + 1);
	}
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	for (i = 0; i < NCONN; i++)
		printf("conn %d: %lld/%lld enabled %d\n", i,
		       (long long)conn[i].currentbyte,
		       (long long)conn[i].lastbyte, conn[i].enabled);
	printf("bytes_done %lld\n", (long long)bytes_done);
	return 0;
}
