/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A scope guard in nbdkit's style (common/utils/cleanup.h): the macro
 * declares a mutex pointer that `__attribute__ ((cleanup))` unlocks when
 * the block ends, then locks it and checks the result.  Every section of
 * a program written this way was refused ("lock macro ... is not
 * understood"), so its locks never moved.  Each use is now read as a
 * lock, with an unlock before every statement that leaves the block and
 * at its end: both sections are delegated. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void
cleanup_mutex_unlock (pthread_mutex_t **ptr)
{
  int r = pthread_mutex_unlock (*ptr);
  if (r != 0)
    abort ();
}

#define CLEANUP_MUTEX_UNLOCK __attribute__ ((cleanup (cleanup_mutex_unlock)))
#define XCONCAT(a, b) a##b
#define CONCAT(a, b) XCONCAT (a, b)
#define UNIQUE_VAR(name) CONCAT (name, __LINE__)
#define ACQUIRE_LOCK_FOR_CURRENT_SCOPE(mutex)                         \
  CLEANUP_MUTEX_UNLOCK pthread_mutex_t *UNIQUE_VAR (_lock) = mutex;   \
  do {                                                                \
    int _r = pthread_mutex_lock (UNIQUE_VAR (_lock));                 \
    if (_r != 0)                                                      \
      abort ();                                                       \
  } while (0)

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long bytes_read, reads;

static void
record_read (size_t n)
{
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&stats_lock);
  bytes_read += n;
  reads++;
}

static int
busy (unsigned long long limit)
{
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&stats_lock);
  if (reads > limit)
    return 1;
  return 0;
}

static void *
worker (void *arg)
{
  size_t n = (size_t) (long) arg;
  for (int i = 0; i < 50000; i++) {
    record_read (n + i % 3);
    (void) busy (1ULL << 62);
  }
  return NULL;
}

int
main (void)
{
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, worker, (void *) i);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  printf ("%llu reads, %llu bytes, busy %d\n", reads, bytes_read, busy (10));
  return 0;
}
