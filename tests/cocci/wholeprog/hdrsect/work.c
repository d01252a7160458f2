#include "counter.h"

void work(void)
{
	for (int i = 0; i < 10000; i++)
		counter_add(&hits, 1 + i % 3);
}
