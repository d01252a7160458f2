/* Golden: shapes rcl-refactor cannot delegate.  Each uses its own mutex:
 * most sections are held (they run in place on the converted lock; a
 * recursive mutex keeps its type), and the one refusal, a mutex other
 * processes may take, keeps only that lock POSIX (try_it() runs by
 * rcl_tryexec()). */
#include <alloca.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <string.h>

static pthread_mutex_t m_other = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_cond = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_try = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_jmp = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_self = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_tls = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_alloca = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_into = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_goto = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_rec;
static pthread_mutex_t m_pshared;
static __thread int tls_counter;
static jmp_buf env;
static int shared;
static pthread_t owner;

void take_other(void)
{
	pthread_mutex_lock(&m_other);
	shared++;
}

void release_other(void)
{
	pthread_mutex_unlock(&m_other);
}

void cond_lock(int c)
{
	if (c)
		pthread_mutex_lock(&m_cond);
	shared++;
	if (c)
		pthread_mutex_unlock(&m_cond);
}

int try_it(void)
{
	if (pthread_mutex_trylock(&m_try) != 0)
		return -1;
	shared++;
	pthread_mutex_unlock(&m_try);
	return 0;
}

void jumpy(void)
{
	pthread_mutex_lock(&m_jmp);
	if (setjmp(env) == 0)
		shared++;
	pthread_mutex_unlock(&m_jmp);
}

void who(void)
{
	pthread_mutex_lock(&m_self);
	owner = pthread_self();
	pthread_mutex_unlock(&m_self);
}

void tls(void)
{
	pthread_mutex_lock(&m_tls);
	shared += tls_counter;
	pthread_mutex_unlock(&m_tls);
}

void stacky(int n)
{
	char *p;

	pthread_mutex_lock(&m_alloca);
	p = alloca(n + 1);
	memset(p, 0, n + 1);
	shared += p[0];
	pthread_mutex_unlock(&m_alloca);
}

void jump_in(int skip)
{
	if (skip)
		goto inside;
	pthread_mutex_lock(&m_into);
inside:
	shared++;
	pthread_mutex_unlock(&m_into);
}

int held(int x)
{
	pthread_mutex_lock(&m_held);
	if (x)
		return shared;
	pthread_mutex_unlock(&m_held);
	return 0;
}

void computed(void *where)
{
	pthread_mutex_lock(&m_goto);
	shared++;
	goto *where;
	pthread_mutex_unlock(&m_goto);
}

void recursive_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m_rec, &a);
	pthread_mutex_lock(&m_rec);
	pthread_mutex_lock(&m_rec);
	shared++;
	pthread_mutex_unlock(&m_rec);
	pthread_mutex_unlock(&m_rec);
}

void shared_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&m_pshared, &a);
	pthread_mutexattr_destroy(&a);
	pthread_mutex_lock(&m_pshared);
	shared++;
	pthread_mutex_unlock(&m_pshared);
}
