/* SPDX-License-Identifier: MIT */
/* expect: held locked through parameter 'l' of reduce_add() */
/* A reduction helper given one of two locks, `reduce_add(&ex_lock, ...)`
 * and `reduce_add(&ey_lock, ...)`: its parameter carries both, which
 * kept both POSIX ("may hold the address of ex_lock or ey_lock").  They
 * are converted together and the helper's section is held on whichever
 * it is given. */
#include <pthread.h>
#include <stdio.h>

#define NPROC 3
static pthread_mutex_t ex_lock = PTHREAD_MUTEX_INITIALIZER, ey_lock = PTHREAD_MUTEX_INITIALIZER;
static double ex, ey;

static void reduce_add(pthread_mutex_t *l, double *dst, double v)
{
    pthread_mutex_lock(l);
    *dst += v;
    pthread_mutex_unlock(l);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg, i;
    for (i = 0; i < 1000; i++) {
        reduce_add(&ex_lock, &ex, 0.25 * id);
        reduce_add(&ey_lock, &ey, 1.0);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NPROC];
    long i;
    for (i = 0; i < NPROC; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (i = 0; i < NPROC; i++) pthread_join(t[i], NULL);
    printf("ex=%.2f ey=%.1f\n", ex, ey);
    return !(ex == 750.0 && ey == 3000.0);
}
