/* A fixed pool of slots handed out under a lock, reporting failure the
 * Unix way: -1 and errno.  Self-checking: prints the tallies, exits 1 on
 * a mismatch. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSLOTS 8
#define NTHREADS 4
#define ROUNDS 3000

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static int used[NSLOTS];
static long parsed_total, bad_inputs, eagain_seen;

static int slot_get(void)
{
	int i, r = -1;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < NSLOTS; i++) {
		if (!used[i]) {
			used[i] = 1;
			r = i;
			break;
		}
	}
	if (r < 0)
		errno = EAGAIN;
	pthread_mutex_unlock(&pool_lock);
	return r;
}

static void slot_put(int i)
{
	pthread_mutex_lock(&pool_lock);
	used[i] = 0;
	pthread_mutex_unlock(&pool_lock);
}

/* strtol's way of saying "too big" is errno; the section calls a helper
 * that sets it. */
static int to_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end != '\0') {
		errno = EINVAL;
		return -1;
	}
	return errno ? -1 : 0;
}

static int add_text(const char *s)
{
	long v;
	int rc;

	pthread_mutex_lock(&parse_lock);
	rc = to_long(s, &v);
	if (rc == 0)
		parsed_total += v;
	else
		bad_inputs++;
	pthread_mutex_unlock(&parse_lock);
	return rc;
}

/* The section reads the caller's errno. */
static void count_eagain(void)
{
	pthread_mutex_lock(&seen_lock);
	if (errno == EAGAIN)
		eagain_seen++;
	pthread_mutex_unlock(&seen_lock);
}

static void *worker(void *arg)
{
	static const char *inputs[] = { "12", "x7", "99999999999999999999999",
					"-4" };
	long id = (long)arg;
	int held[NSLOTS], n = 0;

	for (int r = 0; r < ROUNDS; r++) {
		int s;

		errno = 0;
		s = slot_get();
		if (s >= 0) {
			held[n++] = s;
			if (n == 3 || r % 5 == 0)
				while (n > 0)
					slot_put(held[--n]);
		} else if (errno != EAGAIN) {
			fprintf(stderr, "slot_get: errno %d, want EAGAIN\n",
				errno);
			exit(1);
		}
		const char *in = inputs[(r + id) % 4];
		errno = 0;
		if (add_text(in) < 0) {
			int want = strcmp(in, "x7") == 0 ? EINVAL : ERANGE;

			if (errno != want) {
				fprintf(stderr, "add_text(%s): errno %s\n", in,
					strerror(errno));
				exit(1);
			}
		}
		errno = (r % 3 == 0) ? EAGAIN : 0;
		count_eagain();
	}
	while (n > 0)
		slot_put(held[--n]);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long want_eagain = 0;

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) {
			fputs("pthread_create failed\n", stderr);
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int r = 0; r < ROUNDS; r++)
		want_eagain += r % 3 == 0;
	want_eagain *= NTHREADS;
	printf("parsed %ld bad %ld eagain %ld\n", parsed_total, bad_inputs,
	       eagain_seen);
	return eagain_seen == want_eagain && bad_inputs == NTHREADS * ROUNDS / 2
		       ? 0
		       : 1;
}
