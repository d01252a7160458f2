/* SPDX-License-Identifier: MIT */
/* expect: held starts after the early unlock of cl's section */
/* A cell's section that leaves early, and in that branch, after the
 * cell's unlock, a section of another lock:
 *     if (...) { unlock(&cl[c]); lock(&glock); gcount++; unlock(&glock);
 *                continue; }
 * The branch's code moves after the cell's liblock_exec() as written, so
 * the glock section's own rewrite was lost: the compile check held both
 * sections with compiler warnings for reasons.  The inner one is held
 * (renamed in place), and the cell's section is delegated. */
#include <pthread.h>
#include <stdio.h>

#define NPROC 3
#define NC 6
static pthread_mutex_t cl[NC];
static long cellv[NC];
static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;
static long gcount;


static void *worker(void *arg)
{
    int id = (int)(long)arg, i;
    for (i = 0; i < 600; i++) {
        int c = (i + id) % NC;
        pthread_mutex_lock(&cl[c]);
        cellv[c] += 2;
        if (cellv[c] % 7 == 0) {
            pthread_mutex_unlock(&cl[c]);
            pthread_mutex_lock(&glock);
            gcount++;
            pthread_mutex_unlock(&glock);
            continue;
        }
        pthread_mutex_unlock(&cl[c]);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NPROC];
    long i, s = 0;
    for (i = 0; i < NC; i++) pthread_mutex_init(&cl[i], NULL);
    for (i = 0; i < NPROC; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (i = 0; i < NPROC; i++) pthread_join(t[i], NULL);
    for (i = 0; i < NC; i++) s += cellv[i];
    printf("s=%ld g=%ld\n", s, gcount);
    return !(s == 3600 && gcount == 6 * 42);
}
