/* SPDX-License-Identifier: MIT */
/* expect: held unlocked inside a statement nested below the level of the lock */
/* Returns under a scope guard whose value reads what the lock guards:
 * the compiler computes it before the cleanup unlocks, and an unlock
 * before the return would read it unlocked.  The value goes to a
 * temporary first (`__typeof__`, so an array decays as the return makes
 * it), then the unlock, then the return; in a function that returns void
 * the call is made, then the unlock.  Such a use kept every section of
 * its lock POSIX before; it is held now, the others delegated. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void cleanup_mutex_unlock (pthread_mutex_t **ptr);
#define CLEANUP_MUTEX_UNLOCK __attribute__ ((cleanup (cleanup_mutex_unlock)))
#define UNIQUE_NAME(n) UNIQUE_NAME_1 (n, __LINE__)
#define UNIQUE_NAME_1(n, l) UNIQUE_NAME_2 (n, l)
#define UNIQUE_NAME_2(n, l) n##l
#define ACQUIRE_LOCK_FOR_CURRENT_SCOPE(mutex) \
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE_1 ((mutex), UNIQUE_NAME (_lock))
#define ACQUIRE_LOCK_FOR_CURRENT_SCOPE_1(mutex, lock)                 \
  CLEANUP_MUTEX_UNLOCK pthread_mutex_t *lock = mutex;                 \
  do {                                                                \
    int _r = pthread_mutex_lock (lock);                               \
    assert (!_r);                                                     \
  } while (0)

static void
cleanup_mutex_unlock (pthread_mutex_t **ptr)
{
  int r = pthread_mutex_unlock (*ptr);
  assert (!r);
}

struct bucket {
  pthread_mutex_t lock;
  int nitems;
  int items[64];
  long added, drained;
};

static struct bucket buckets[4];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static long logged, dropped;

static void
note (struct bucket *b)
{
  b->added += 0;
}

static void
touch (struct bucket *b)
{
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock);
  return note (b);
}

/* return of a constant or a local, from inside an if */
static int
bucket_add (struct bucket *b, int v)
{
  int full = -1;
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock);
  if (b->nitems == 64)
    return full;
  b->items[b->nitems++] = v;
  b->added++;
  if (v < 0)
    return -2;
  return 0;
}

/* break and continue leaving the loop around the guarded block */
static int
drain (struct bucket *b, int limit)
{
  int taken = 0;
  for (;;) {
    ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock);
    if (b->nitems == 0)
      break;
    if (b->items[b->nitems - 1] % 2 && taken < limit) {
      b->nitems--;
      b->drained++;
      taken++;
      continue;
    }
    b->nitems--;
    b->drained++;
    if (++taken >= limit)
      break;
  }
  { ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock); return b->nitems + taken - b->nitems; }
}

/* two guards in one block: the inner one is released first */
static void
log_move (struct bucket *b)
{
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock);
  ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&log_lock);
  logged += b->nitems;
}

/* a goto out of the block */
static int
count_or_drop (struct bucket *b)
{
  int n;
  {
    ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&b->lock);
    n = b->nitems;
    if (n > 60)
      goto drop;
    for (int i = 0; i < n; i++)
      if (b->items[i] == -7)
        goto out;
  }
  return n;
drop:
  {
    ACQUIRE_LOCK_FOR_CURRENT_SCOPE (&log_lock);
    dropped++;
  }
out:
  return -1;
}

static void *
worker (void *arg)
{
  long id = (long) arg;
  for (int i = 0; i < 20000; i++) {
    struct bucket *b = &buckets[(i + id) % 4];
    if (bucket_add (b, i % 9) < 0)
      drain (b, 10);
    if (i % 100 == 0) {
      touch (b);
      log_move (b);
      (void) count_or_drop (b);
    }
  }
  return NULL;
}

int
main (void)
{
  pthread_t t[4];
  long left = 0, added = 0, drained = 0;

  for (int i = 0; i < 4; i++)
    pthread_mutex_init (&buckets[i].lock, NULL);
  for (long i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, worker, (void *) i);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  for (int i = 0; i < 4; i++) {
    left += drain (&buckets[i], 1000);
    added += buckets[i].added;
    drained += buckets[i].drained;
    pthread_mutex_destroy (&buckets[i].lock);
  }
  printf ("consistent %d, empty %d, logged %d, dropped %d\n",
          drained == added, buckets[0].nitems + buckets[3].nitems,
          logged > 0, dropped >= 0);
  return 0;
}
