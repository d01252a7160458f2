/*
 * A sort helper that carries the caller's comparator in a `void *`
 * payload and calls it through a cast, as libgit2's tsort_r_cmp() does
 * (`((git__tsort_cmp)payload)(a, b)`), used inside a section.  A call
 * through a cast can reach a function whose address the program stores,
 * but not a thread's start routine whose address only goes to
 * pthread_create() (quitter()), nor one stored in a pointer first that
 * cannot be called as the cast says (leaver(): one parameter, a pointer
 * back, where the comparison passes two and wants an int).  Both end
 * their thread with pthread_exit(), which a section must never reach.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef int (*cmp_fn)(const void *, const void *);

static int by_payload(const void *a, const void *b, void *payload)
{
	return ((cmp_fn)payload)(a, b);
}

static void insertion_sort(const void **v, int n,
			   int (*cmp)(const void *, const void *, void *),
			   void *payload)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cmp(v[j - 1], v[j], payload) > 0; j--) {
			const void *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *entries[64];
static int nentries;
static int values[64];

static void add_entry(int slot, int value)
{
	values[slot] = value;
	pthread_mutex_lock(&index_lock);
	entries[nentries++] = &values[slot];
	insertion_sort(entries, nentries, by_payload, (void *)by_value);
	pthread_mutex_unlock(&index_lock);
}

static void *adder(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 16; i++)
		add_entry((int)id * 16 + i, (int)((i * 37 + id * 11) % 101));
	return NULL;
}

static void *quitter(void *arg)
{
	pthread_exit(arg);
}

static void *leaver(void *arg)
{
	pthread_exit((void *)((long)arg + 1));
}

int main(void)
{
	pthread_t t[4], q, l;
	void *(*start)(void *) = leaver;
	void *res, *res2;
	int sorted = 1;

	pthread_create(&q, NULL, quitter, (void *)7);
	pthread_create(&l, NULL, start, (void *)7);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, adder, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_join(q, &res);
	pthread_join(l, &res2);
	for (int i = 1; i < nentries; i++)
		if (*(const int *)entries[i - 1] > *(const int *)entries[i])
			sorted = 0;
	printf("%d entries, sorted %d, quitter gave %ld, leaver %ld\n",
	       nentries, sorted, (long)res, (long)res2);
	return nentries == 64 && sorted ? 0 : 1;
}
