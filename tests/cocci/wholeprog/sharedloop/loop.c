/* SPDX-License-Identifier: MIT */
/* An event loop both programs of the tree link (redis' ae.c beside
   redis-server and redis-benchmark): it runs each program's handlers
   through a pointer. */
#include "loop.h"

void loop_run(struct ev *evs, int n, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			evs[i].fn(evs[i].arg);
}
