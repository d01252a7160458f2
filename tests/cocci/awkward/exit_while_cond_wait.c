/* SPDX-License-Identifier: MIT */
/* pixz's queue: a consumer sleeps in queue_pop()'s pthread_cond_wait
   while the main thread hits a corrupt block and exit()s.  The child's
   exit must be as prompt and as quiet as the original's: on a server,
   the delegated section sleeping in its condition wait held the exit 2 s
   and printed a warning (the runtime waited for it at exit). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

typedef struct queue_item_t { int type; struct queue_item_t *next; } queue_item_t;
typedef struct {
    queue_item_t *first, *last;
    pthread_mutex_t mutex;
    pthread_cond_t pop_cond;
} queue_t;

static queue_t q;

static int queue_pop(queue_t *q) {
    pthread_mutex_lock(&q->mutex);
    while (!q->first)
        pthread_cond_wait(&q->pop_cond, &q->mutex);
    queue_item_t *i = q->first;
    q->first = i->next;
    if (!q->first)
        q->last = NULL;
    int type = i->type;
    free(i);
    pthread_mutex_unlock(&q->mutex);
    return type;
}

static void *worker(void *arg) {
    (void)arg;
    for (;;)
        if (queue_pop(&q) < 0)
            break;
    return NULL;
}

static void die(const char *msg) {
    fprintf(stderr, "%s\n", msg);
    exit(1);
}

/* The runtime's one notice when it cannot use SCHED_FIFO (an unprivileged
 * user, a sanitizer build) is no part of the program's stderr. */
static void drop_notice(char *buf) {
    char *n = strstr(buf, "librcl: warning: RCL runs in degraded mode");
    char *end = n ? strchr(n, '\n') : NULL;
    if (end)
        memmove(n, end + 1, strlen(end + 1) + 1);
}

int main(void) {
    int fd[2];
    if (pipe(fd) != 0)
        return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        pthread_mutex_init(&q.mutex, NULL);
        pthread_cond_init(&q.pop_cond, NULL);
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        usleep(100000);          /* worker is now waiting for a block */
        die("Error decoding block");
    }
    close(fd[1]);
    char buf[512];
    ssize_t n, len = 0;
    while ((n = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += n;
    buf[len] = 0;
    int st;
    waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 1;
    printf("child exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    drop_notice(buf);
    if (strcmp(buf, "Error decoding block\n") != 0) {
        printf("unexpected stderr: %s", buf);
        ok = 0;
    }
    if (secs > 1.9) {  /* ThreadSanitizer sleeps 1 s at exit */
        printf("exit took %.1f s\n", secs);
        ok = 0;
    }
    printf("%s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
