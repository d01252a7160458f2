#include <pthread.h>
#include <stdio.h>
#include "log.h"
#include "tally.h"
int main(void)
{
	long n = tally_run(4);

	printf("%ld %ld\n", n, log_count());
	if (log_get_lock())
		pthread_mutex_destroy((pthread_mutex_t *)log_get_lock());
	return 0;
}
