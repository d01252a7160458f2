/* SPDX-License-Identifier: MIT */
/* Parameters whose type is a typedef of an array (a 3-vector, a 16-byte
 * id like libuuid's uuid_t, a 2x2 matrix): they are pointers, and the
 * sections read through them, step one, and take its address. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef long vec3[3];
typedef unsigned char ident_t[16];
typedef int mat2[2][2];

#define NT 4
#define IT 200

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static vec3 total;
static ident_t seen[NT * IT];
static int nseen;
static long trace;
static mat2 prod = { { 1, 0 }, { 0, 1 } };

static void add_vec(const vec3 v)
{
	pthread_mutex_lock(&stats_lock);
	for (int i = 0; i < 3; i++)
		total[i] += v[i];
	pthread_mutex_unlock(&stats_lock);
}

static int remember(ident_t id)
{
	int dup = 0;

	pthread_mutex_lock(&stats_lock);
	for (int i = 0; i < nseen; i++)
		if (memcmp(seen[i], id, sizeof(ident_t)) == 0)
			dup = 1;
	if (!dup)
		memcpy(seen[nseen++], id, sizeof(ident_t));
	pthread_mutex_unlock(&stats_lock);
	return dup;
}

static long weigh(long *p)
{
	return p[0] * 3 + 1;
}

/* walks the pointer and hands its address to a helper */
static void sum_tail(vec3 v)
{
	long **pp;

	pthread_mutex_lock(&stats_lock);
	v++;
	pp = &v;
	trace += weigh(*pp) + v[1];
	pthread_mutex_unlock(&stats_lock);
}

static void mul(mat2 m)
{
	pthread_mutex_lock(&stats_lock);
	int a = prod[0][0] * m[0][0] + prod[0][1] * m[1][0];
	int b = prod[0][0] * m[0][1] + prod[0][1] * m[1][1];
	int c = prod[1][0] * m[0][0] + prod[1][1] * m[1][0];
	int d = prod[1][0] * m[0][1] + prod[1][1] * m[1][1];
	prod[0][0] = a % 1000;
	prod[0][1] = b % 1000;
	prod[1][0] = c % 1000;
	prod[1][1] = d % 1000;
	pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg)
{
	long w = (long)arg;
	long dups = 0;

	for (int i = 0; i < IT; i++) {
		vec3 v = { w, i, 1 };
		vec3 pair[2] = { { 1, 2, 3 }, { w + i, 5, 6 } };
		ident_t id;
		mat2 m = { { 1, 1 }, { 0, 1 } };

		add_vec(v);
		for (int k = 0; k < 16; k++)
			id[k] = (unsigned char)(k == 0 ? w : k == 1 ? i : k);
		dups += remember(id);
		dups += remember(id);
		sum_tail(pair[0]);
		mul(m);
	}
	return (void *)dups;
}

int main(void)
{
	pthread_t t[NT];
	long dups = 0;
	void *r;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		dups += (long)r;
	}
	printf("total %ld %ld %ld\n", total[0], total[1], total[2]);
	printf("ids %d dups %ld trace %ld\n", nseen, dups, trace);
	printf("prod %d %d %d %d\n", prod[0][0], prod[0][1], prod[1][0],
	       prod[1][1]);
	if (total[0] != IT * (0 + 1 + 2 + 3) || total[2] != NT * IT ||
	    nseen != NT * IT || dups != NT * IT)
		return 1;
	return 0;
}
