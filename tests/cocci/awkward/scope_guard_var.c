/* SPDX-License-Identifier: MIT */
/* expect: refused names the guard's variable */
/* A scope guard whose block names the pointer the macro declares
 * (`pthread_cond_wait (&cv, scope_lock)`): rewriting the use would
 * rename it.  That use stays as written, and the mutex stays POSIX with
 * its other uses (which are rewritten only when the lock moves). */
#include <pthread.h>
#include <stdio.h>
static void unlock_cb (pthread_mutex_t **m) { pthread_mutex_unlock (*m); }
#define SCOPED_LOCK(m) \
  __attribute__ ((cleanup (unlock_cb))) pthread_mutex_t *scope_lock = (m); \
  pthread_mutex_lock (scope_lock)
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, total;
static void *producer (void *a)
{
  (void) a;
  for (int i = 0; i < 1000; i++) {
    SCOPED_LOCK (&mu);
    total += i;
  }
  {
    SCOPED_LOCK (&mu);
    ready = 1;
    pthread_cond_signal (&cv);
  }
  return NULL;
}
int main (void)
{
  pthread_t t;
  pthread_create (&t, NULL, producer, NULL);
  {
    SCOPED_LOCK (&mu);
    while (!ready)
      pthread_cond_wait (&cv, scope_lock);
    printf ("total %d\n", total);
  }
  pthread_join (t, NULL);
  return 0;
}
