/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* SPLASH-2's lock vocabulary as C macros: LOCKDEC(l) and ALOCKDEC(a, n)
 * declare a structure's locks and bring their own ';', so the member
 * after an invocation follows it with none.  The array's declaration
 * (`pthread_mutex_t a[n];` in the macro's body) was not read, nor was a
 * plain member after a LOCKDEC: both locks stayed POSIX ("no declaration
 * ... was found").  Each invocation becomes liblock's declaration, with
 * its bounds; the #defines stay for their other uses. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOCKDEC(l) pthread_mutex_t l;
#define LOCKINIT(l) pthread_mutex_init(&(l), NULL);
#define LOCK(l) pthread_mutex_lock(&(l));
#define UNLOCK(l) pthread_mutex_unlock(&(l));
#define ALOCKDEC(a, n) pthread_mutex_t a[n];
#define ALOCKINIT(a, n) { int _i; for (_i = 0; _i < (n); _i++) pthread_mutex_init(&(a)[_i], NULL); }
#define ALOCK(a, i) pthread_mutex_lock(&(a)[i]);
#define AULOCK(a, i) pthread_mutex_unlock(&(a)[i]);

#define NPROC 4
#define NCELL 16

struct GlobalMemory {
    LOCKDEC(idlock)
    ALOCKDEC(celllock, NCELL)
    LOCKDEC(totlock)
    pthread_mutex_t outlock;
    int pid;
    long cells[NCELL];
    double total;
    int outs;
};
struct GlobalMemory *Global;

static void *slave(void *arg)
{
    int procid, i;
    (void)arg;
    LOCK(Global->idlock)
    procid = Global->pid;
    Global->pid = procid + 1;
    UNLOCK(Global->idlock)
    for (i = 0; i < 1000; i++) {
        int c = (i * 7 + procid) % NCELL;
        ALOCK(Global->celllock, c)
        Global->cells[c] += i;
        AULOCK(Global->celllock, c)
    }
    LOCK(Global->totlock)
    Global->total += procid * 0.5;
    UNLOCK(Global->totlock)
    pthread_mutex_lock(&Global->outlock);
    Global->outs++;
    pthread_mutex_unlock(&Global->outlock);
    return NULL;
}

int main(void)
{
    pthread_t t[NPROC];
    int i;
    long sum = 0;
    Global = malloc(sizeof(*Global));
    Global->pid = 0; Global->total = 0;
    for (i = 0; i < NCELL; i++) Global->cells[i] = 0;
    Global->outs = 0;
    LOCKINIT(Global->idlock)
    LOCKINIT(Global->totlock)
    pthread_mutex_init(&Global->outlock, NULL);
    for (i = 0; i < NCELL; i++) pthread_mutex_init(&(Global->celllock)[i], NULL);
    for (i = 0; i < NPROC; i++) pthread_create(&t[i], NULL, slave, NULL);
    for (i = 0; i < NPROC; i++) pthread_join(t[i], NULL);
    for (i = 0; i < NCELL; i++) sum += Global->cells[i];
    printf("pid=%d sum=%ld total=%.1f\n", Global->pid, sum, Global->total);
    return !(Global->pid == NPROC && sum == NPROC * 499500L && Global->total == 3.0 && Global->outs == NPROC);
}
