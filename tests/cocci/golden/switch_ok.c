/* Golden: sections in switch cases and loops, a function pointer and a
 * structure by value, a const array by pointer. */
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int g, tab[4];
struct pt { int x, y; };
static int twice(int v) { return 2 * v; }
int f(int op, int (*cb)(int))
{
	int (*fp)(int) = cb ? cb : twice;
	struct pt s = { 1, 2 };
	const char *const names[2] = { "a", "b" };
	int r = 0, i;

	switch (op) {
	case 1:
		pthread_mutex_lock(&m);
		g++;
		pthread_mutex_unlock(&m);
		break;
	case 2:
		pthread_mutex_lock(&m);
		r = fp(g);
		s.x = r;
		pthread_mutex_unlock(&m);
		break;
	default:
		for (i = 0; i < 4; i++) {
			pthread_mutex_lock(&m);
			if (tab[i] < 0) {
				pthread_mutex_unlock(&m);
				return -1;
			} else if (tab[i] == 0) {
				pthread_mutex_unlock(&m);
				continue;
			}
			tab[i] += (int)names[i & 1][0];
			pthread_mutex_unlock(&m);
		}
	}
	if (op == 3) {
		pthread_mutex_lock(&m);
		printf("%d %s\n", g, names[0]);
		pthread_mutex_unlock(&m);
	}
	return r + s.x;
}
