/* SPDX-License-Identifier: MIT */
/* A mutex in shared memory that a forked child takes too, as fio's
 * fio_sem and fio_mutex are: mmap(MAP_SHARED | MAP_ANONYMOUS), then
 * pthread_mutex_init with a process-shared attribute made in a helper.
 * liblock's locks are per process (an RCL server is a thread of one
 * process), so the lock stays POSIX and the reason names the
 * PTHREAD_PROCESS_SHARED that made it so. */
/* expect: refused PTHREAD_PROCESS_SHARED set at */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared_counter {
	pthread_mutex_t lock;
	long value;
};

static struct shared_counter *sc;

static int counter_init(struct shared_counter *c)
{
	pthread_mutexattr_t attr;
	int ret;

	ret = pthread_mutexattr_init(&attr);
	if (ret)
		return ret;
	ret = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	if (!ret)
		ret = pthread_mutex_init(&c->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	c->value = 0;
	return ret;
}

static void add(long n)
{
	pthread_mutex_lock(&sc->lock);
	sc->value += n;
	pthread_mutex_unlock(&sc->lock);
}

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++)
		add((long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pid_t pid;
	int status;

	sc = mmap(NULL, sizeof(*sc), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sc == MAP_FAILED || counter_init(sc))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		for (int i = 0; i < 1000; i++)
			add(3);
		_exit(0);
	}
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2;
	printf("value %ld\n", sc->value);
	return sc->value == 6000 ? 0 : 1;
}
