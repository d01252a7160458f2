/* Peers: a unit that includes the private header and never calls its
 * lock helpers. */
#include <stdio.h>
#include "private-core.h"

void peers_init(struct peers *p)
{
	pthread_mutex_init(&p->lock_peers, NULL);
	p->count = 0;
	p->generation = 0;
}

VH_VISIBLE void vh_join(struct vhost *vh)
{
	pthread_mutex_lock(&vh->peers.lock_peers); /* +++ peers */
	vh->peers.count++;
	if (vh->peers.count % 100 == 0)
		vh->peers.generation++;
	pthread_mutex_unlock(&vh->peers.lock_peers); /* --- peers */
}
