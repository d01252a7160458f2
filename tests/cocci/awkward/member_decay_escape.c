/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Inside the section, a local struct's array member is handed (by
 * array decay, no '&') to a function that keeps the pointer; after the
 * unlock the caller fills the buffer through the kept pointer and reads
 * the struct.
 * The defect it guards against: 'mm' travels by value (decay of mm.text is not seen
 * as its address escaping): post() keeps a pointer into the extracted
 * function's copy (dead after the section), the caller's writes go to
 * that dead copy and mm.text stays empty.  Expected "text A seq 1",
 * rewritten prints "text  seq 1" (every algorithm).  gcc does not warn
 * since the store happens in another function.  (With 'mm' the only
 * local of the section it travels by address and all is well.) */
#include <pthread.h>
#include <stdio.h>

struct msg { char text[16]; int seq; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char *outbox;
static int seqno;

__attribute__((noinline)) static void post(char *buf)
{
	outbox = buf;
}

int main(void)
{
	struct msg mm = { "", 0 };
	int step = 1;

	pthread_mutex_lock(&m);
	seqno += step;
	mm.seq = seqno;
	post(mm.text);
	pthread_mutex_unlock(&m);
	outbox[0] = 'A';
	outbox[1] = 0;
	printf("text %s seq %d\n", mm.text, mm.seq);
	return mm.text[0] == 'A' ? 0 : 1;
}
