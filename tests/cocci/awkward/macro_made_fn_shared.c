/* SPDX-License-Identifier: MIT */
/* expect: held its lock and unlock calls stay in place */
/* rsyslog's output modules define their entry points between macros that
   bring the braces (BEGINdoAction ... CODESTARTdoAction ... ENDdoAction,
   module-template.h): neither Coccinelle nor the tool's parser sees the
   function.  Its lock calls used to keep the lock POSIX, with every other
   section of it; they now stay in place on the lock word (renamed to
   liblock's), and the lock's other section, flush(), right after
   ENDdoAction, is delegated. */
#include <pthread.h>
#include <stdio.h>

typedef int rsRetVal;
#define RS_RET_OK 0
#define DEFiRet rsRetVal iRet = RS_RET_OK
#define RETiRet return iRet

struct instance {
	pthread_mutex_t mut;
	long written, flushed;
};

#define BEGINdoAction \
static rsRetVal doAction(struct instance *pData, long n) \
{ \
	DEFiRet;
#define CODESTARTdoAction
#define ENDdoAction \
	RETiRet; \
}

static struct instance inst = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

BEGINdoAction
	long before;
CODESTARTdoAction
	pthread_mutex_lock(&pData->mut);
	before = pData->written;
	pData->written = before + n;
	pthread_mutex_unlock(&pData->mut);
ENDdoAction

static void flush(struct instance *pData)
{
	pthread_mutex_lock(&pData->mut);
	pData->flushed = pData->written;
	pthread_mutex_unlock(&pData->mut);
}

static void *worker(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		if (doAction(&inst, (long)arg + 1) != RS_RET_OK)
			return arg;
		if (i % 100 == 0)
			flush(&inst);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	flush(&inst);
	printf("written %ld flushed %ld\n", inst.written, inst.flushed);
	return 0;
}
