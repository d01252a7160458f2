/* Peers of a virtual host: read by lib/core's private header, which
 * finds it through -I lib/peers. */
#ifndef PRIVATE_PEERS_H
#define PRIVATE_PEERS_H

#include <pthread.h>

struct peers {
	pthread_mutex_t lock_peers;
	int count;
	int generation;
};

#endif
