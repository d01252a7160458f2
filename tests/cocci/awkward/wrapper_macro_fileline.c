/* SPDX-License-Identifier: MIT */
/* pigz's yarn: lock wrappers on a field of their parameter that check
   the call and fail() -- which reports and exit()s, without saying it
   does not return -- called through macros that add the caller's file
   and line.  fail() never returns (its last statement is exit(), it has
   no return): possess_() is a checked lock wrapper, and possess(a), a
   macro of it, locks what possess_() locks.  The section is delegated
   through possess_rcl_exec() (it was held: "not released at the level
   where it is taken"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct lock_s lock;
struct lock_s {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    long value;
};

static void fail(int err, char const *file, long line, char const *func) {
    fprintf(stderr, "yarn: error %d (%s:%ld:%s)\n", err, file, line, func);
    exit(err);
}

static lock *new_lock_(long initial, char const *file, long line) {
    lock *bolt = malloc(sizeof(struct lock_s));
    int ret = pthread_mutex_init(&(bolt->mutex), NULL);
    if (ret)
        fail(ret, file, line, "mutex_init");
    ret = pthread_cond_init(&(bolt->cond), NULL);
    if (ret)
        fail(ret, file, line, "cond_init");
    bolt->value = initial;
    return bolt;
}

static void possess_(lock *bolt, char const *file, long line) {
    int ret = pthread_mutex_lock(&(bolt->mutex));
    if (ret)
        fail(ret, file, line, "mutex_lock");
}

static void release_(lock *bolt, char const *file, long line) {
    int ret = pthread_mutex_unlock(&(bolt->mutex));
    if (ret)
        fail(ret, file, line, "mutex_unlock");
}

#define new_lock(a) new_lock_(a, __FILE__, __LINE__)
#define possess(a) possess_(a, __FILE__, __LINE__)
#define release(a) release_(a, __FILE__, __LINE__)

static lock *counter;
static long total;

static void *worker(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < 10000; i++) {
        possess(counter);
        counter->value++;
        total += id;
        release(counter);
    }
    return NULL;
}

int main(void) {
    pthread_t th[4];
    counter = new_lock(0);
    for (long i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    printf("value %ld total %ld\n", counter->value, total);
    return 0;
}
