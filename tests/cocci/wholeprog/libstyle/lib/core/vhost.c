#include <stdio.h>
#include <stdlib.h>
#include "private-core.h"

VH_VISIBLE struct vhost *vh_create(const char *name)
{
	struct vhost *vh = calloc(1, sizeof(*vh));

	if (!vh)
		abort();
	pthread_mutex_init(&vh->lock, NULL);
	vh->name = name;
	peers_init(&vh->peers);
	return vh;
}

VH_VISIBLE void vh_request(struct vhost *vh, long bytes)
{
	vhost_lock(vh);
	vh->requests++;
	vh->bytes += bytes;
	vhost_unlock(vh);
}

VH_VISIBLE void vh_report(struct vhost *vh)
{
	long r, b;
	int n, g;

	vhost_lock(vh);
	r = vh->requests;
	b = vh->bytes;
	vhost_unlock(vh);
	pthread_mutex_lock(&vh->peers.lock_peers);
	n = vh->peers.count;
	g = vh->peers.generation;
	pthread_mutex_unlock(&vh->peers.lock_peers);
	printf("%s: %ld requests, %ld bytes, %d peers (generation %d)\n",
	       vh->name, r, b, n, g);
}
