/* SPDX-License-Identifier: MIT */
/* iftop's shape: main cancels its packet thread at the end, and that
   thread may be blocked in a read() inside a critical section (a
   cancellation point).  On a server thread the read would not be
   cancelled: pthread_join() waited for ever.  The section is held: it
   runs on its own thread, where the cancel ends the read. */
/* expect: held may be a cancellation point, and the program cancels threads */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

pthread_mutex_t tick_mutex;
int fds[2];
int ticks = 0;

void tick(void) {
    char c;
    pthread_mutex_lock(&tick_mutex);
    ticks++;
    if (read(fds[0], &c, 1) == 1)   /* blocks: nothing is ever written */
        ticks++;
    pthread_mutex_unlock(&tick_mutex);
}

void packet_loop(void *ptr) {
    (void)ptr;
    for (;;)
        tick();
}

int main(void) {
    pthread_t thread;
    void *res;
    if (pipe(fds) != 0)
        return 2;
    pthread_mutex_init(&tick_mutex, NULL);
    pthread_create(&thread, NULL, (void *)&packet_loop, NULL);
    usleep(200000);
    pthread_cancel(thread);
    pthread_join(thread, &res);
    printf("ticks %d cancelled %d\n", ticks, res == PTHREAD_CANCELED);
    return 0;
}
