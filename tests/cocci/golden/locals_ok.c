/* Golden: how locals travel -- a single word, by value in a union,
 * by pointer when their address is taken, arrays and static locals. */
#include <pthread.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char shared_name[32];
static int *registry[4];

void set_name(const char *name)
{
	pthread_mutex_lock(&m);
	strncpy(shared_name, name, sizeof(shared_name) - 1);
	pthread_mutex_unlock(&m);
}

int get_name(char *out, int len)
{
	char buf[32];
	int n;

	pthread_mutex_lock(&m);
	memcpy(buf, shared_name, sizeof(buf));
	n = (int)strlen(buf);
	pthread_mutex_unlock(&m);
	if (n >= len)
		return -1;
	memcpy(out, buf, n + 1);
	return n;
}

int publish(int slot)
{
	static int generation;
	int value = slot * 2;

	pthread_mutex_lock(&m);
	generation++;
	registry[slot & 3] = &value;
	registry[slot & 3] = NULL;
	pthread_mutex_unlock(&m);
	return value + generation;
}
