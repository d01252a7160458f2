/* SPDX-License-Identifier: MIT */
/* SPLASH-2 style lock macros (LOCKDEC, LOCKINIT, LOCK, UNLOCK) that
   supply their own semicolons.  The lock is declared by LOCKDEC(), whose
   body is the whole declaration: the invocation becomes a liblock_lock_t
   declaration where it stands, and the #define stays (it once kept the
   lock POSIX: "no declaration of a pthread_mutex_t named 'idlock'"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define LOCKDEC(l) pthread_mutex_t l;
#define LOCKINIT(l) pthread_mutex_init(&(l), NULL);
#define LOCK(l) pthread_mutex_lock(&(l));
#define UNLOCK(l) pthread_mutex_unlock(&(l));

#define NT 4
#define IT 500

struct GlobalMemory {
	LOCKDEC(idlock)
	long id;
	long work;
};

static struct GlobalMemory gm;

static void *slave(void *arg)
{
	long my_id;
	int i;

	(void)arg;
	LOCK(gm.idlock)
	my_id = gm.id;
	gm.id++;
	UNLOCK(gm.idlock)
	for (i = 0; i < IT; i++) {
		LOCK(gm.idlock)
		gm.work += my_id + 1;
		UNLOCK(gm.idlock)
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	LOCKINIT(gm.idlock)
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, slave, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("id %ld work %ld\n", gm.id, gm.work);
	return gm.id == NT && gm.work == 10 * IT ? 0 : 1;
}
