/* SPDX-License-Identifier: MIT */
/* expect: refused pthread_mutex_lock() is taken as a function pointer */
/* expect: refused lock aux_lock stays POSIX */
/* pthread's lock functions kept in pointers (`static lockop_t acquire =
 * pthread_mutex_lock;`): the sections taken through them are not seen.
 * The run said nothing of them (the other lock's sections delegated,
 * exit 0).  The place is now a refused section, and aux_lock, also
 * locked directly in main(), stays POSIX, as the pointer is given it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOCK(l) { if (pthread_mutex_lock(&(l)) != 0) abort(); }
#define UNLOCK(l) { if (pthread_mutex_unlock(&(l)) != 0) abort(); }
#define NPROC 3
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t aux_lock = PTHREAD_MUTEX_INITIALIZER;
static double total;
static long aux;

typedef int (*lockop_t)(pthread_mutex_t *);
static lockop_t acquire = pthread_mutex_lock;
static lockop_t release = pthread_mutex_unlock;

static void *worker(void *arg)
{
    int id = (int)(long)arg, i;
    for (i = 0; i < 1000; i++) {
        LOCK(sum_lock)
        total += 0.5 * (id + 1);
        UNLOCK(sum_lock)
        acquire(&aux_lock);
        aux += id;
        release(&aux_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NPROC];
    long i;
    for (i = 0; i < NPROC; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (i = 0; i < NPROC; i++) pthread_join(t[i], NULL);
    pthread_mutex_lock(&aux_lock);
    aux += 1;
    pthread_mutex_unlock(&aux_lock);
    printf("total=%.1f aux=%ld\n", total, aux);
    return !(total == 3000.0 && aux == 3001);
}
