#ifndef UTIL_H
#define UTIL_H
unsigned long mix(unsigned long x);
#endif
