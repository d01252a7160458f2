/* SPDX-License-Identifier: MIT */
/* A library's error number in the style of an LDAP library's: `lb_errno`
   is a macro that calls the function of the same name in parentheses,
   (lb_errno_addr)(), so that a function-like macro of that name would not
   expand, and the function hands out the calling thread's own error
   variable.  A section that sets it on the server thread would set the
   server's copy, and the caller would read its own, unchanged: the call
   through the parenthesised name is a call of that function, followed
   like any other, and the section stays with its caller. */
/* expect: held thread-local variable 'lb_errno_value' in lb_errno_addr() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 300

int *lb_errno_addr(void);
#define lb_errno (*(lb_errno_addr)())

static __thread int lb_errno_value;

int *lb_errno_addr(void)
{
	return &lb_errno_value;
}

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static long pool_left = NT * IT / 2;

static int take_one(void)
{
	int ok;

	pthread_mutex_lock(&pool_lock);
	ok = pool_left > 0;
	if (ok)
		pool_left--;
	else
		lb_errno = 12;
	pthread_mutex_unlock(&pool_lock);
	return ok;
}

static void *worker(void *arg)
{
	long got = 0, refused = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		lb_errno = 0;
		if (take_one())
			got++;
		else if (lb_errno == 12)
			refused++;
	}
	return (void *)(got * 1000 + refused);
}

int main(void)
{
	pthread_t t[NT];
	long got = 0, refused = 0, i;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		got += (long)r / 1000;
		refused += (long)r % 1000;
	}
	printf("taken %ld refused %ld\n", got, refused);
	return got + refused == NT * IT ? 0 : 1;
}
