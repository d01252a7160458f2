/* SPDX-License-Identifier: MIT */
struct ev {
	void (*fn)(void *);
	void *arg;
};
void loop_run(struct ev *evs, int n, int rounds);
