/* SPDX-License-Identifier: MIT */
/* lbzip2's shape: a worker that finds bad data inside its section leaves
   through bailout(), which _exit()s on the main thread and otherwise
   pthread_exit()s, with the scheduler's lock held; the main thread then
   reports the failure.  The thread exit comes after the _exit() in
   bailout(): both are seen, and the section is held; the second worker
   waits on the lock word for ever, as it waits on the POSIX mutex, until
   the main thread ends the process. */
/* expect: held pthread_exit() in bailout() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define xlock(m)      ((void)(pthread_mutex_lock(m)      && (abort(), 0)))
#define xunlock(m)    ((void)(pthread_mutex_unlock(m)    && (abort(), 0)))

static pthread_mutex_t sched_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_t main_thread;
static unsigned work_units;
static int bad_block = 3;

static void _Noreturn
bailout(void)
{
  if (pthread_equal(pthread_self(), main_thread))
    _exit(2);
  pthread_exit(NULL);
}

static void
do_parse(int block)
{
  if (block == bad_block) {
    fprintf(stderr, "worker: compressed data error\n");
    bailout();
  }
  work_units++;
}

static void *
worker_thread_proc(void *arg)
{
  int first = *(int *)arg;

  for (int block = first; block < first + 5; block++) {
    xlock(&sched_mutex);
    do_parse(block);
    xunlock(&sched_mutex);
  }
  return NULL;
}

int
main(void)
{
  pthread_t a, b;
  int fa = 0, fb = 10;

  main_thread = pthread_self();
  pthread_create(&a, NULL, worker_thread_proc, &fa);
  pthread_join(a, NULL);
  pthread_create(&b, NULL, worker_thread_proc, &fb);
  usleep(200000);
  printf("lbzip2: failed after %u units\n", work_units);
  fflush(stdout);
  _exit(0);
}
