/* SPDX-License-Identifier: MIT */
/* Another unit names its own mutex type mutex_t, with a #define of its
   own (it does not include box.h). */
#include <pthread.h>
#include <stdio.h>

#define mutex_t pthread_mutex_t

static mutex_t note_mutex = PTHREAD_MUTEX_INITIALIZER;
static int notes;

void note(void)
{
	pthread_mutex_lock(&note_mutex);
	notes++;
	pthread_mutex_unlock(&note_mutex);
}

int note_count(void)
{
	int n;

	pthread_mutex_lock(&note_mutex);
	n = notes;
	pthread_mutex_unlock(&note_mutex);
	return n;
}
