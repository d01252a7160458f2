#include "counter.h"

int idle_ticks(void)
{
	return 7;
}
