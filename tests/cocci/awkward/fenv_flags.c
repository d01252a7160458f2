/* SPDX-License-Identifier: MIT */
/* expect: held sets or reads the floating-point environment with feclearexcept() */
/* Numeric code that clears the floating-point exception flags,
 * computes under a lock, and tests the flags after the unlock.
 * The defect it guards against: the FP exception flags belong to the thread; the tool
 * treated the floating-point environment as thread state only when the
 * program *changes* it (fesetround, fesetenv, feholdexcept, ...), not for
 * feclearexcept()/fetestexcept().  The section is delegated and under
 * LIBLOCK_LOCK=rcl the division by zero raises FE_DIVBYZERO on the server
 * thread: expected "divbyzero 1", the rewritten program printed "divbyzero 0". */
/* libs: -lm */
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static double num = 1.0, den = 0.0, res;

int main(void)
{
	int flagged;
	feclearexcept(FE_ALL_EXCEPT);
	pthread_mutex_lock(&m);
	res = num / den;
	pthread_mutex_unlock(&m);
	flagged = fetestexcept(FE_DIVBYZERO) != 0;
	printf("res %g divbyzero %d\n", res, flagged);
	return flagged ? 0 : 1;
}
