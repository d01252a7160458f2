/* SPDX-License-Identifier: MIT */
/* The callers of extwrap.c's wrappers. */
#include <stdio.h>

void slabs_mlock(void);
void slabs_munlock(void);

static long grabbed;

int main(void)
{
	slabs_mlock();
	grabbed++;
	slabs_munlock();
	printf("%ld\n", grabbed);
	return 0;
}
