/* Golden: an early exit returns a value declared inside the section (zstd's
 * ZSTDMT_getBuffer()), in a 4-space file; the pointer the section
 * decrements through is not copied back. */
#include <pthread.h>
typedef struct { void *start; unsigned long capacity; } buffer_t;
typedef struct { pthread_mutex_t mutex; unsigned n; buffer_t tab[8]; } pool_t;
static buffer_t null_buffer;

buffer_t get_buffer(pool_t *p, unsigned long size)
{
    buffer_t b = { 0, 0 };
    pthread_mutex_lock(&p->mutex);
    if (p->n) {   /* reuse */
        buffer_t const buf = p->tab[--p->n];
        p->tab[p->n] = null_buffer;
        if (buf.capacity >= size) {
            pthread_mutex_unlock(&p->mutex);
            return buf;
        }
    }
    pthread_mutex_unlock(&p->mutex);
    b.capacity = size;
    return b;
}

void pool_init(pool_t *p)
{
    pthread_mutex_init(&p->mutex, NULL);
}
