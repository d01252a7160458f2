/* SPDX-License-Identifier: MIT */
/* expect: refused may hold the address of ey_lock too, which stays POSIX */
/* handle_helper_two_locks.c with ey_lock's address also compared: ey_lock
 * stays POSIX (used outside lock calls), and ex_lock, which the helper's
 * parameter carries with it, stays POSIX too. */
#include <pthread.h>
#include <stdio.h>

#define NPROC 3
static pthread_mutex_t ex_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ey_lock = PTHREAD_MUTEX_INITIALIZER;
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
    if ((void *)&ey_lock == (void *)&ey)
        return 2;
    return !(ex == 750.0 && ey == 3000.0);
}
