/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* mail spool: parse queue ids under the lock, report errno-based failures */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 300

struct spool {
	pthread_mutex_t lock;
	char last_id[32];
	unsigned long parsed, rejected;
};

static struct spool spool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *const ids[] = {
	"1234", "99999999999999999999999", "77", "-42", "18446744073709551616", "5",
};

static long spool_parse_id(const char *text, char *errbuf, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	pthread_mutex_lock(&spool.lock);
	v = strtol(text, &end, 10);
	snprintf(spool.last_id, sizeof(spool.last_id), "%.31s", text);
	spool.parsed++;
	pthread_mutex_unlock(&spool.lock);
	if (errno == ERANGE) {
		snprintf(errbuf, errlen, "%s: %s", text, strerror(ERANGE));
		pthread_mutex_lock(&spool.lock);
		spool.rejected++;
		pthread_mutex_unlock(&spool.lock);
		return -1;
	}
	if (*end != '\0')
		return -2;
	return v;
}

static void *worker(void *arg)
{
	long id = (long)arg, score = 0;
	char err[80];
	int i;

	for (i = 0; i < IT; i++) {
		const char *text = ids[(i + id) % (long)(sizeof(ids) / sizeof(ids[0]))];
		long v = spool_parse_id(text, err, sizeof(err));
		if (v == -1 && strstr(err, "range") == NULL)
			score += 1000;
		score += v == -1 ? 1 : 0;
	}
	return (void *)score;
}

int main(void)
{
	pthread_t t[NT];
	long i, score = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		score += (long)r;
	}
	printf("parsed %lu rejected %lu score %ld\n", spool.parsed, spool.rejected, score);
	return spool.rejected == NT * IT / 3 && score == NT * IT / 3 ? 0 : 1;
}
