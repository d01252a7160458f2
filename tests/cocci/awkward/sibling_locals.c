/* SPDX-License-Identifier: MIT */
/* Two sibling blocks each declare their own `int c` (opendkim's
   dkimf_checkfsnode(): one loop counter per branch).  The section uses
   the first one only; the other block's uses are another variable's,
   so nothing comes back to the caller for it (once, the copy-back made
   gcc warn "set but not used" and the section was held).  A local of
   the enclosing block that the section writes still comes back. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define WORKERS 3
#define ROUNDS 400

static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *members[8] = { "root", "me", "admin", NULL };
static long checks;

static int only_known(int check, const char *who)
{
	int seen = 0;

	if (check) {
		int c;

		pthread_mutex_lock(&group_lock);
		checks++;
		for (c = 0; members[c] != NULL; c++) {
			seen++;
			if (strcmp(members[c], who) == 0) {
				pthread_mutex_unlock(&group_lock);
				return seen;
			}
		}
		pthread_mutex_unlock(&group_lock);
	} else {
		int c;

		for (c = 0; who[c] != '\0'; c++)
			seen += 10;
	}
	return -seen;
}

static void *worker(void *arg)
{
	const char *who = arg;
	long sum = 0;
	int r;

	for (r = 0; r < ROUNDS; r++)
		sum += only_known(r & 1, who);
	return (void *)sum;
}

int main(void)
{
	static const char *names[WORKERS] = { "me", "you", "admin" };
	pthread_t th[WORKERS];
	void *ret;
	int k;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)names[k]);
	for (k = 0; k < WORKERS; k++) {
		pthread_join(th[k], &ret);
		printf("%s %ld\n", names[k], (long)ret);
	}
	printf("checks %ld\n", checks);
	return 0;
}
