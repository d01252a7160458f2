/* Golden: preprocessor conditionals between the statements of a section
 * (memcached's get_stats()).  The directives stay; the analysis reads the
 * branches compiled with -D T_RUSAGE (ppsec_ok.args) and with T_PROXY
 * left undefined the way autoconf's config.h says it: */
/* #undef T_PROXY */
#include <pthread.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long gets, sets, proxied;

long report(long *out, long extra)
{
	long n = 0;
#ifdef T_PROXY
	long px = proxied;
#endif

	pthread_mutex_lock(&stats_lock);
	out[n++] = gets;
	out[n++] = sets;
#ifdef T_RUSAGE
	out[n++] = extra;
#else
	out[n++] = 0;
#endif
#ifdef T_PROXY
	out[n++] = px;
#endif
	pthread_mutex_unlock(&stats_lock);
	return n;
}

void count_get(void)
{
	pthread_mutex_lock(&stats_lock);
	gets++;
	pthread_mutex_unlock(&stats_lock);
}
