/* SPDX-License-Identifier: MIT */
/* expect: held which gives the signals pending for the thread that reads it */
/* tgt's completion path, the signalfd read moved under the lock: a
   worker counts its request done and wakes the main thread with
   pthread_kill(); the main thread reads the signal from its signalfd
   inside the section.  A signalfd gives the reading thread's pending
   signals: on a server thread the read would find nothing and the
   request would never be acknowledged.  (Found by probing with tgt's
   shapes.) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>

static pthread_mutex_t finished_lock = PTHREAD_MUTEX_INITIALIZER;
static int nr_finished, nr_acked;
static pthread_t main_thread;

static void *bs_thread_worker_fn(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&finished_lock);
	nr_finished++;
	pthread_mutex_unlock(&finished_lock);
	pthread_kill(main_thread, SIGUSR2);
	return NULL;
}

static void bs_sig_request_done(int fd)
{
	struct signalfd_siginfo siginfo[16];
	ssize_t ret;

	pthread_mutex_lock(&finished_lock);
	ret = read(fd, (char *)siginfo, sizeof(siginfo));
	if (ret > 0)
		nr_acked = nr_finished;
	pthread_mutex_unlock(&finished_lock);
}

int main(void)
{
	sigset_t mask;
	pthread_t t;
	int sig_fd;

	main_thread = pthread_self();
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sig_fd = signalfd(-1, &mask, SFD_NONBLOCK);
	if (sig_fd < 0 || pthread_create(&t, NULL, bs_thread_worker_fn, NULL))
		return 1;
	pthread_join(t, NULL);
	bs_sig_request_done(sig_fd);
	printf("acked %d\n", nr_acked);
	return 0;
}
