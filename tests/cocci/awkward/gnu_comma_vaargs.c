/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* squeezelite's LOG_WARN(fmt, ...): the variable arguments follow GNU's
   `, ##__VA_ARGS__`, which only drops the comma when none are given.
   It was read as pasting them, so a local reached by pointer (written
   `(*info)` in the extracted function) kept its section held.  Given,
   they follow the comma unpasted: `(*info).error` is fine there.
   (Found by probing with squeezelite's shapes.) */
#include <pthread.h>
#include <stdio.h>

#define LOG_WARN(fmt, ...) \
	if (loglevel >= 1) \
		printf("%s: " fmt "\n", "warn", ##__VA_ARGS__)

static int loglevel = 1;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared_err = 3;

struct info {
	int error;
};

static void fill(struct info *i)
{
	i->error = 0;
}

static int decode_frame(void)
{
	struct info info;

	fill(&info); /* its address taken: it travels by pointer */
	pthread_mutex_lock(&m);
	info.error += shared_err++;
	if (info.error)
		LOG_WARN("error: %d", info.error);
	LOG_WARN("done");
	pthread_mutex_unlock(&m);
	return info.error;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		printf("%d\n", decode_frame());
	return 0;
}
