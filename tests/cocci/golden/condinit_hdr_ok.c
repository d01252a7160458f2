/* Golden: a structure initialised with PTHREAD_COND_INITIALIZER far into
   the file, which includes a header of fewer tokens (the rewrite of the
   header read the other file's token position: internal error). */
#include <pthread.h>
#include <stdio.h>
#include "tiny.h"

struct lock_s {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    long value;
};

static struct lock_s threads_lock = {
    PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_COND_INITIALIZER,
    0
};

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&threads_lock.mutex);
        threads_lock.value++;
        pthread_cond_broadcast(&threads_lock.cond);
        pthread_mutex_unlock(&threads_lock.mutex);
    }
    return NULL;
}

int main(void) {
    pthread_t th[NWORKERS];
    for (int i = 0; i < NWORKERS; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(th[i], NULL);
    printf("value %ld\n", threads_lock.value);
    return threads_lock.value == 40000 ? 0 : 1;
}
