/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A static mutex called `lock`, and functions whose own local or
 * parameter of another type has that name (nbdkit's ondemand.c: `struct
 * flock lock;` for fcntl(), beside plugins whose static mutex is `lock`).
 * Each use of the local was read as a use of the mutex outside lock
 * calls, and the mutex stayed POSIX. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long opened, bytes;

static int
describe (int fd, char *out, size_t n)
{
  struct flock lock;

  memset (&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  return snprintf (out, n, "fd %d write %d", fd, lock.l_type == F_WRLCK);
}

static size_t
label_len (const char *lock)
{
  return strlen (lock);
}

static void *
worker (void *arg)
{
  char buf[64];
  long id = (long) arg;

  for (int i = 0; i < 10000; i++) {
    size_t n = (size_t) describe ((int) id, buf, sizeof buf);
    pthread_mutex_lock (&lock);
    opened++;
    bytes += (long) n + (long) label_len ("x");
    pthread_mutex_unlock (&lock);
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
  printf ("opened %ld bytes %ld\n", opened, bytes);
  return 0;
}
