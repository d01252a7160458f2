/* SPDX-License-Identifier: MIT */
/*
 * The shared lines of the `rcl-bench cs` workload, for the peer drivers
 * (ffwd_rcl.c, pthread_cs.c), which are built outside librcl against the
 * peers' own libraries: N lines, each on its own page and 4160 bytes from
 * the previous one (not adjacent, so the prefetchers cannot help), linked
 * in a shuffled order, each holding the address of the next.
 */
#ifndef PEER_LINES_H
#define PEER_LINES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LINE_STRIDE 4160 /* as rcl-bench: not adjacent, own page */

struct line {
	struct line *next;
	uint64_t count;
};

/* The first of @n zeroed, shuffled lines, or NULL if out of memory. */
static inline struct line *peer_lines_new(int n)
{
	char *block = aligned_alloc(4096, (size_t)LINE_STRIDE * n + 4096);
	int *order = malloc(sizeof(*order) * n);
	struct line *head;

	if (!block || !order) {
		free(block);
		free(order);
		return NULL;
	}
	memset(block, 0, (size_t)LINE_STRIDE * n + 4096);
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = rand() % (i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (int i = 0; i < n; i++)
		((struct line *)(block + (size_t)order[i] * LINE_STRIDE))
			->next =
			i + 1 < n
				? (struct line *)(block + (size_t)order[i + 1] *
								  LINE_STRIDE)
				: NULL;
	head = (struct line *)(block + (size_t)order[0] * LINE_STRIDE);
	free(order);
	return head;
}

/* Does every line count @sections? */
static inline int peer_lines_ok(const struct line *head, long sections)
{
	int ok = 1;

	for (const struct line *l = head; l; l = l->next)
		ok &= l->count == (uint64_t)sections;
	return ok;
}

#endif /* PEER_LINES_H */
