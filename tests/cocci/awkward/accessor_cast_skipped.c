/* SPDX-License-Identifier: MIT */
/* A portable runtime keeps an interprocess box behind a pointer and
   reaches its fields through cast accessor macros, used only in a branch
   this build skips.  The box's condition field has the same name as the
   condition of the thread condition object, which is converted: the
   accessor's cast says its member belongs to the box, not to the
   converted structure. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef struct {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int cond_locked;
} box_t;

struct pmutex { void *shared; };
#define box_cast(m) ((box_t *)(m)->shared)
#define box_cond(m) (box_cast(m)->cond)

typedef struct { pthread_mutex_t mutex; } tmutex_t;
typedef struct { pthread_cond_t cond; } tcond_t;

static tmutex_t tm = { PTHREAD_MUTEX_INITIALIZER };
static tcond_t tc = { PTHREAD_COND_INITIALIZER };
static int ready;

#ifdef USE_BOX_COND
int box_wait(struct pmutex *m)
{
	return pthread_cond_wait(&box_cond(m), &box_cast(m)->mutex);
}
#endif

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&tm.mutex);
	while (!ready)
		pthread_cond_wait(&tc.cond, &tm.mutex);
	pthread_mutex_unlock(&tm.mutex);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, waiter, NULL);
	pthread_mutex_lock(&tm.mutex);
	ready = 1;
	pthread_cond_signal(&tc.cond);
	pthread_mutex_unlock(&tm.mutex);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
