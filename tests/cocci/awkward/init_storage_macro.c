/* SPDX-License-Identifier: MIT */
/* pigz's yarn.c: `#define local static`, and a structure of a mutex, a
   condition variable and a value initialised in braces after that macro
   and a typedef name, `local lock threads_lock = { ... };`.  The
   initialiser's fields are the structure's: they are converted with the
   field (the macro before the type hid the type, the field became
   liblock_lock_t and its initialiser did not: nothing was written). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define local static

typedef struct lock_s lock;
struct lock_s {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    long value;
};

local lock threads_lock = {
    PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_COND_INITIALIZER,
    0
};

local void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&(threads_lock.mutex));
        threads_lock.value++;
        pthread_mutex_unlock(&(threads_lock.mutex));
    }
    return NULL;
}

int main(void) {
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    printf("value %ld\n", threads_lock.value);
    return 0;
}
