/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A pointer local that only hands the mutex to pthread_create(): its
 * value was taken as followed into the start routine, but the local
 * kept its pthread_mutex_t * type (nothing was written: the compile check
 * saw the liblock_lock_t * it was given). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define ITERS 30000

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
    pthread_mutex_t *m = arg;
    for (int i = 0; i < ITERS; i++) {
        pthread_mutex_lock(m);
        counter++;
        pthread_mutex_unlock(m);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    pthread_mutex_t *pm = &mtx;
    for (int i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, pm);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
    printf("counter=%ld\n", counter);
    return counter == (long)NT * ITERS ? 0 : 1;
}
