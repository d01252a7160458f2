/* SPDX-License-Identifier: MIT */
/*
 * kvcache: the sample "legacy" server of the librcl demo.
 *
 * Written the way old multithreaded servers are: a hash-table cache with an
 * LRU list behind ONE global pthread mutex, a fixed pool of worker threads
 * fed through a bounded work queue (a second mutex and two condition
 * variables), and a load driver in main() that splits the requested
 * operations into jobs.  Every get moves its entry to the head of the LRU
 * list, so every operation writes shared cache lines under the cache lock:
 * that lock is the bottleneck rcl-prof should find and rcl-refactor should
 * move to an RCL server.
 *
 * The program is the *input* of the pipeline: plain pthreads, no liblock.
 *
 * --check replays every job single-threaded after the run and compares the
 * cache with the expected per-key sums (increments commute, so the result
 * does not depend on the interleaving), then prints a digest that is the
 * same for every correct run with the same options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBUCKETS 8 /* sized long ago, never grown: chains are long */
#define KEYLEN 24
#define VALLEN 256    /* a record: the counter as text, then filler */
#define NUMLEN 21     /* "%20ld|" */
#define JOB_OPS 20000 /* operations per job */
#define QUEUE_CAP 16  /* jobs in flight */
#define MAX_THREADS 256

struct entry {
	char key[KEYLEN];
	char data[VALLEN]; /* what a get returns, copied whole */
	unsigned long uses;
	struct entry *hnext;	     /* hash chain */
	struct entry *lprev, *lnext; /* LRU list, most recent first */
};

struct stats {
	unsigned long gets, hits, misses, incrs, inserts;
};

/* The cache: table, LRU list and statistics, all under cache_lock. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table[NBUCKETS];
static struct entry *lru_head, *lru_tail;
static struct stats stats;
static unsigned long nentries;

/* The work queue: a ring of jobs under queue_lock. */
struct job {
	unsigned long seed;
	int nops;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t queue_nonfull = PTHREAD_COND_INITIALIZER;
static struct job queue[QUEUE_CAP];
static int q_head, q_len, q_closed;

/* Options. */
static int opt_threads = 8;
static long opt_ops = 1000000;
static int opt_keys = 512;
static int opt_getpct = 80;
static double opt_seconds;
static unsigned long opt_seed = 1;
static int opt_check;

static unsigned long rnd(unsigned long *s)
{
	/* xorshift64*: deterministic per job, cheap */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717UL;
}

static unsigned int hash(const char *key)
{
	unsigned int h = 2166136261u;

	while (*key)
		h = (h ^ (unsigned char)*key++) * 16777619u;
	return h;
}

/* The key strings, made once: key_names[k] is "key:%08d". */
static char (*key_names)[KEYLEN];

static int make_keys(void)
{
	int k;

	key_names = calloc((size_t)opt_keys, KEYLEN);
	if (key_names == NULL)
		return -1;
	for (k = 0; k < opt_keys; k++)
		snprintf(key_names[k], KEYLEN, "key:%08d", k);
	return 0;
}

/* Caller holds cache_lock. */
static struct entry *lookup(const char *key, unsigned int h)
{
	struct entry *e;

	for (e = table[h % NBUCKETS]; e; e = e->hnext)
		if (strcmp(e->key, key) == 0)
			return e;
	return NULL;
}

/* Caller holds cache_lock. */
static void lru_unlink(struct entry *e)
{
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		lru_head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		lru_tail = e->lprev;
}

/* Caller holds cache_lock. */
static void lru_push(struct entry *e)
{
	e->lprev = NULL;
	e->lnext = lru_head;
	if (lru_head)
		lru_head->lprev = e;
	lru_head = e;
	if (!lru_tail)
		lru_tail = e;
}

/* The record's counter (text at its start). */
static long record_value(const char *data)
{
	return strtol(data, NULL, 10);
}

/* Caller holds cache_lock. */
static void record_set(char *data, long v)
{
	char num[NUMLEN + 1];

	snprintf(num, sizeof(num), "%20ld|", v);
	memcpy(data, num, NUMLEN);
}

/* Look @key up; 0 and its record in @val on a hit, -1 on a miss. */
static int cache_get(const char *key, char *val)
{
	struct entry *e;

	pthread_mutex_lock(&cache_lock);
	stats.gets++;
	e = lookup(key, hash(key));
	if (e == NULL) {
		stats.misses++;
		pthread_mutex_unlock(&cache_lock);
		return -1;
	}
	e->uses++;
	lru_unlink(e);
	lru_push(e);
	memcpy(val, e->data, VALLEN);
	stats.hits++;
	pthread_mutex_unlock(&cache_lock);
	return 0;
}

/* Add @delta to @key, creating it at 0.  0, or -1 when out of memory. */
static int cache_incr(const char *key, long delta)
{
	unsigned int h;
	struct entry *e;

	pthread_mutex_lock(&cache_lock);
	h = hash(key);
	e = lookup(key, h);
	if (e == NULL) {
		e = calloc(1, sizeof(*e));
		if (e == NULL) {
			pthread_mutex_unlock(&cache_lock);
			goto oom;
		}
		snprintf(e->key, KEYLEN, "%s", key);
		memset(e->data, '.', VALLEN - 1);
		record_set(e->data, 0);
		e->hnext = table[h % NBUCKETS];
		table[h % NBUCKETS] = e;
		nentries++;
		stats.inserts++;
	} else {
		lru_unlink(e);
	}
	lru_push(e);
	record_set(e->data, record_value(e->data) + delta);
	e->uses++;
	stats.incrs++;
	pthread_mutex_unlock(&cache_lock);
	return 0;
oom:
	fprintf(stderr, "kvcache: out of memory inserting %s\n", key);
	return -1;
}

/* A helper that locks: copy the statistics out. */
static void stats_snapshot(struct stats *out, unsigned long *n)
{
	pthread_mutex_lock(&cache_lock);
	*out = stats;
	*n = nentries;
	pthread_mutex_unlock(&cache_lock);
}

static void cache_free(void)
{
	struct entry *e, *next;

	for (e = lru_head; e; e = next) {
		next = e->lnext;
		free(e);
	}
	lru_head = lru_tail = NULL;
	memset(table, 0, sizeof(table));
}

/* Blocks while the queue is full.  0, or -1 when the queue was closed. */
static int queue_push(const struct job *j)
{
	pthread_mutex_lock(&queue_lock);
	while (q_len == QUEUE_CAP && !q_closed)
		pthread_cond_wait(&queue_nonfull, &queue_lock);
	if (q_closed) {
		pthread_mutex_unlock(&queue_lock);
		return -1;
	}
	queue[(q_head + q_len) % QUEUE_CAP] = *j;
	q_len++;
	pthread_cond_signal(&queue_nonempty);
	pthread_mutex_unlock(&queue_lock);
	return 0;
}

/* Blocks while the queue is empty.  1 with a job, 0 once closed and empty. */
static int queue_pop(struct job *j)
{
	pthread_mutex_lock(&queue_lock);
	while (q_len == 0 && !q_closed)
		pthread_cond_wait(&queue_nonempty, &queue_lock);
	if (q_len == 0) {
		pthread_mutex_unlock(&queue_lock);
		return 0;
	}
	*j = queue[q_head];
	q_head = (q_head + 1) % QUEUE_CAP;
	q_len--;
	pthread_cond_signal(&queue_nonfull);
	pthread_mutex_unlock(&queue_lock);
	return 1;
}

static void queue_close(void)
{
	pthread_mutex_lock(&queue_lock);
	q_closed = 1;
	pthread_cond_broadcast(&queue_nonempty);
	pthread_cond_broadcast(&queue_nonfull);
	pthread_mutex_unlock(&queue_lock);
}

/* One operation of a job: the same sequence whoever runs it. */
static void job_op(unsigned long *s, int *k, int *is_get, long *delta)
{
	unsigned long r = rnd(s);

	*k = (int)(r % (unsigned long)opt_keys);
	*is_get = (int)((r >> 32) % 100) < opt_getpct;
	*delta = (long)((r >> 40) % 7) + 1;
}

static void *worker(void *arg)
{
	long *failed = arg;
	struct job j;

	while (queue_pop(&j)) {
		unsigned long s = j.seed;
		int i, k, is_get;
		long delta;
		char v[VALLEN];

		for (i = 0; i < j.nops; i++) {
			job_op(&s, &k, &is_get, &delta);
			if (is_get)
				(void)cache_get(key_names[k], v);
			else if (cache_incr(key_names[k], delta) != 0)
				(*failed)++;
		}
	}
	return NULL;
}

static unsigned long job_seed(long n)
{
	unsigned long s = opt_seed * 0x9E3779B97F4A7C15UL + (unsigned long)n;

	return s ? s : 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The load driver: push jobs until opt_ops (or opt_seconds) is reached. */
static long drive(double t0)
{
	long n = 0, done = 0;

	while (opt_seconds > 0 ? now() - t0 < opt_seconds : done < opt_ops) {
		struct job j;
		long left = opt_ops - done;

		j.seed = job_seed(n);
		j.nops =
			opt_seconds > 0 || left > JOB_OPS ? JOB_OPS : (int)left;
		if (queue_push(&j) != 0)
			break;
		done += j.nops;
		n++;
	}
	return done;
}

/*
 * --check: replay every job single-threaded into expected per-key sums,
 * compare with the cache, then print a digest of the final state.
 */
static int check(long njobs_ops, long failed)
{
	long *want = calloc((size_t)opt_keys, sizeof(*want));
	unsigned long gets = 0, incrs = 0, dig = 1469598103934665603UL;
	struct stats st;
	unsigned long n;
	long done = 0, seq = 0;
	int k, bad = 0;

	if (want == NULL) {
		fprintf(stderr, "kvcache: out of memory in --check\n");
		return 1;
	}
	while (done < njobs_ops) {
		unsigned long s = job_seed(seq++);
		int i, m = njobs_ops - done > JOB_OPS ? JOB_OPS
						      : (int)(njobs_ops - done);
		for (i = 0; i < m; i++) {
			int key, is_get;
			long delta;

			job_op(&s, &key, &is_get, &delta);
			if (is_get) {
				gets++;
			} else {
				want[key] += delta;
				incrs++;
			}
		}
		done += m;
	}
	stats_snapshot(&st, &n);
	if (failed || st.gets != gets || st.incrs != incrs ||
	    st.hits + st.misses != gets) {
		fprintf(stderr,
			"kvcache: check FAILED: gets %lu/%lu incrs %lu/%lu "
			"hits+misses %lu, %ld failed inserts\n",
			st.gets, gets, st.incrs, incrs, st.hits + st.misses,
			failed);
		bad = 1;
	}
	for (k = 0; k < opt_keys; k++) {
		long v = 0;
		struct entry *e;

		e = lookup(key_names[k], hash(key_names[k])); /* joined */
		if (e)
			v = record_value(e->data);
		if (v != want[k] && bad++ < 10)
			fprintf(stderr,
				"kvcache: check FAILED: %s = %ld, expected "
				"%ld\n",
				key_names[k], v, want[k]);
		dig = (dig ^ (unsigned long)v) * 1099511628211UL;
	}
	free(want);
	printf("check: %s keys=%d ops=%ld gets=%lu incrs=%lu digest=%016lx\n",
	       bad ? "FAILED" : "ok", opt_keys, njobs_ops, gets, incrs, dig);
	return bad != 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kvcache [-t THREADS] [-n OPS | -d SECONDS] [-k KEYS] "
		"[-g GET%%] [-s SEED] [--check]\n"
		"A legacy-style cache server with a built-in load driver.\n"
		"  -t, --threads N   worker threads (default 8, at most %d)\n"
		"  -n, --ops N       total operations (default 1000000)\n"
		"  -d, --duration S  run for S seconds instead of -n\n"
		"  -k, --keys N      distinct keys (default 512)\n"
		"  -g, --gets PCT    percentage of gets, the rest are "
		"increments (default 80)\n"
		"  -s, --seed N      seed of the operation streams "
		"(default 1)\n"
		"      --check       verify the final cache against a "
		"single-threaded replay\n"
		"Prints 'throughput: N ops/s'; with --check also "
		"'check: ok ... digest=X' (exit 1 if not ok).\n",
		MAX_THREADS);
}

/* Parse @s as an integer in [lo, hi] for option @name, or exit. */
static long num_arg(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
			"kvcache: %s: '%s' is not a number in [%ld, %ld]\n",
			name, s, lo, hi);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"threads", 1, NULL, 't'},  {"ops", 1, NULL, 'n'},
		{"duration", 1, NULL, 'd'}, {"keys", 1, NULL, 'k'},
		{"gets", 1, NULL, 'g'},	    {"seed", 1, NULL, 's'},
		{"check", 0, NULL, 'c'},    {"help", 0, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:n:d:k:g:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			opt_threads =
				(int)num_arg("-t", optarg, 1, MAX_THREADS);
			break;
		case 'n':
			opt_ops = num_arg("-n", optarg, 1, 1L << 40);
			break;
		case 'd':
			opt_seconds = (double)num_arg("-d", optarg, 1, 3600);
			break;
		case 'k':
			opt_keys = (int)num_arg("-k", optarg, 1, 1 << 20);
			break;
		case 'g':
			opt_getpct = (int)num_arg("-g", optarg, 0, 100);
			break;
		case 's':
			opt_seed = (unsigned long)num_arg("-s", optarg, 0,
							  1L << 40);
			break;
		case 'c':
			opt_check = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kvcache: unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}
	if (opt_check && opt_seconds > 0) {
		fprintf(stderr, "kvcache: --check needs a fixed -n, not -d\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	long failed[MAX_THREADS] = {0}, done, nfailed = 0;
	double t0, t1;
	int i, rc, status = 0;

	parse_args(argc, argv);
	if (make_keys() != 0) {
		fprintf(stderr, "kvcache: out of memory for %d keys\n",
			opt_keys);
		return 1;
	}
	t0 = now();
	for (i = 0; i < opt_threads; i++) {
		rc = pthread_create(&tid[i], NULL, worker, &failed[i]);
		if (rc != 0) {
			fprintf(stderr, "kvcache: pthread_create: %s\n",
				strerror(rc));
			return 1;
		}
	}
	done = drive(t0);
	queue_close();
	for (i = 0; i < opt_threads; i++) {
		pthread_join(tid[i], NULL);
		nfailed += failed[i];
	}
	t1 = now();
	printf("kvcache: %d threads, %ld ops, %.3f s\n", opt_threads, done,
	       t1 - t0);
	printf("throughput: %.0f ops/s\n", (double)done / (t1 - t0));
	if (opt_check)
		status = check(done, nfailed);
	cache_free();
	free(key_names);
	return status;
}
