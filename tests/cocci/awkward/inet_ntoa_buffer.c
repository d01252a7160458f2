/* SPDX-License-Identifier: MIT */
/* expect: held inet_ntoa() */
/* peer table of a small TCP daemon: per-address counters, peer names for the log */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 1500
#define NPEER 16

struct peer {
	struct in_addr addr;
	unsigned long conns;
	unsigned banned : 1;
};

static pthread_mutex_t peers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct peer peers[NPEER];
static unsigned long total_conns;

/* account a connection; returns the peer's printable address for the log */
static const char *peer_accept(in_addr_t a, unsigned long *count)
{
	struct in_addr in = { .s_addr = a };
	struct peer *p = &peers[ntohl(a) % NPEER];
	const char *name;

	pthread_mutex_lock(&peers_lock);
	if (p->addr.s_addr != a) {
		p->addr = in;
		p->conns = 0;
	}
	*count = ++p->conns;
	total_conns++;
	name = inet_ntoa(p->addr);
	pthread_mutex_unlock(&peers_lock);
	return name;
}

static void *worker(void *arg)
{
	long id = (long)arg, bad = 0;
	char logline[64], want[64];
	unsigned long n;
	int i;

	for (i = 0; i < IT; i++) {
		unsigned host = (unsigned)(id * NPEER / NT + i % (NPEER / NT));
		const char *name = peer_accept(htonl(0xc0a80000u | host), &n);
		snprintf(logline, sizeof(logline), "accept from %s (#%lu)", name, n > 0 ? 1ul : 0ul);
		snprintf(want, sizeof(want), "accept from 192.168.0.%u (#1)", host);
		if (strcmp(logline, want) != 0)
			bad++;
	}
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("conns %lu log lines wrong: %s\n", total_conns, bad ? "some" : "none");
	return bad == 0 ? 0 : 1;
}
