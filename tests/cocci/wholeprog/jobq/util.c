#include "util.h"

/* a cheap integer hash (splitmix64's finaliser) */
unsigned long mix(unsigned long x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9UL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebUL;
	x ^= x >> 31;
	return x;
}
