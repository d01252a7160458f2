/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* An unlock wrapper on its parameter, `static void unlock_it(
 * pthread_mutex_t *p)`, ends sections that pthread_mutex_lock() starts.
 * Every call of it became part of a liblock_exec(), the static function
 * was left unused, and the compile check's -Wunused-function had the
 * whole file written as nothing.  It is marked unused, as a lock
 * wrapper's is. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 3
#define ITERS 30000

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void unlock_it(pthread_mutex_t *p)
{
    pthread_mutex_unlock(p);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        pthread_mutex_lock(&mtx);
        n++;
        unlock_it(&mtx);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&mtx);
    n += 100;
    unlock_it(&mtx);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
    printf("n=%ld\n", n);
    return n == (long)NT * ITERS + 100 ? 0 : 1;
}
