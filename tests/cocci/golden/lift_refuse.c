/* Golden: sections that end inside the block after their lock, left as
 * they are: one whose lock stays POSIX (the braces the analysis moved are
 * put back), one whose block declares a name the enclosing block also
 * declares (not lifted: held, in place). */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
static int queue[4], count;

pthread_mutex_t *expose(void)
{
	return &m;
}

int take(void)
{
	pthread_mutex_lock(&m);
	count--;
	{	int const v = queue[count];
		pthread_mutex_unlock(&m);
		return v * 2;
	}
}

int take_n(int v)
{
	pthread_mutex_lock(&n);
	count--;
	{
		int v = queue[count];
		pthread_mutex_unlock(&n);
		return v * 2;
	}
}
