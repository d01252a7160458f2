/* SPDX-License-Identifier: MIT */
/* siege 4.0.7's timer: a mutex and a condition variable that are locals
   of the function, with static initialisers, used for one timed wait.
   Automatic storage, one per call: the mutex stays POSIX, and the reason
   says it is a local mutex (it said "pointer local ... a declarator the
   tool does not follow"). */
/* expect: refused a mutex local to its function */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <errno.h>

static int fired;

static void
siege_timer(int secs)
{
  int err;
  time_t now;
  struct timespec timeout;
  pthread_mutex_t timer_mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t  timer_cond  = PTHREAD_COND_INITIALIZER;

  time(&now);
  timeout.tv_sec = now + secs;
  timeout.tv_nsec = 0;

  pthread_mutex_lock(&timer_mutex);
  for (;;) {
    err = pthread_cond_timedwait(&timer_cond, &timer_mutex, &timeout);
    if (err == ETIMEDOUT) {
      fired++;
      break;
    } else {
      continue;
    }
  }
  pthread_mutex_unlock(&timer_mutex);
  return;
}

static void *
timer_thread(void *arg)
{
  (void)arg;
  siege_timer(0);
  return NULL;
}

int
main(void)
{
  pthread_t t;
  pthread_create(&t, NULL, timer_thread, NULL);
  pthread_join(t, NULL);
  printf("fired %d\n", fired);
  return 0;
}
