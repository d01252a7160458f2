/* Golden: trylock sections run by rcl_tryexec().  The context is filled
 * before the call; what the section writes comes back, and the code
 * after its early unlock runs, only when it ran (0); on EBUSY the
 * trylock's failure code runs; a result tested against EBUSY is tested
 * against 0.  Held: an unlock in a branch, a section that reads the
 * trylock's result. */
#include <errno.h>
#include <pthread.h>

#define TRY_Q() pthread_mutex_trylock(&q)
#define DONE_Q() pthread_mutex_unlock(&q)

static pthread_mutex_t q = PTHREAD_MUTEX_INITIALIZER;
static int depth, drops;

int push_or_drop(int v)
{
	int was;

	if (pthread_mutex_trylock(&q) == 0) {
		if (depth == 64) {
			pthread_mutex_unlock(&q);
			return -1;
		}
		was = depth;
		int now = depth += v;
		pthread_mutex_unlock(&q);
		return now - was;
	} else {
		drops++;
	}
	return 0;
}

int peek(int *out)
{
	if (TRY_Q())
		return -1;
	*out = depth;
	DONE_Q();
	return 0;
}

int poll_n(int n)
{
	int i, seen = 0;

	for (i = 0; i < n; i++) {
		if (TRY_Q() != 0) {
			drops++;
			continue;
		}
		seen += depth;
		DONE_Q();
	}
	return seen;
}

int busy_only(void)
{
	if (pthread_mutex_trylock(&q) == EBUSY)
		return -1;
	depth--;
	pthread_mutex_unlock(&q);
	return 0;
}

void branchy(int c)
{
	if (!pthread_mutex_trylock(&q)) {
		if (c) {
			depth = 0;
			pthread_mutex_unlock(&q);
		} else {
			pthread_mutex_unlock(&q);
		}
	}
}

int try_rc(int v)
{
	int rc = pthread_mutex_trylock(&q);
	if (rc == 0) {
		depth += v;
		pthread_mutex_unlock(&q);
	}
	return rc;
}

int try_rc_bail(void)
{
	int rc;

	rc = pthread_mutex_trylock(&q);
	if (rc)
		return rc;
	drops = 0;
	pthread_mutex_unlock(&q);
	return 0;
}

int try_rc_read(void)
{
	int rc = pthread_mutex_trylock(&q);
	if (rc == 0) {
		depth += rc;
		pthread_mutex_unlock(&q);
	}
	return rc;
}
