/* Golden: variables declared inside a section and used after it are
 * hoisted; the file's 4-space indentation is followed. */
#include <pthread.h>
#include <stdint.h>
static pthread_mutex_t cas_id_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cas_id;
struct pt { int x, y; };
static struct pt origin;
uint64_t get_cas_id(void) {
    pthread_mutex_lock(&cas_id_lock);
    uint64_t next_id = ++cas_id;
    pthread_mutex_unlock(&cas_id_lock);
    return next_id;
}
int get_pt(void) {
    pthread_mutex_lock(&cas_id_lock);
    struct pt p = { origin.x, 2 };
    if (p.x < 0) {
        pthread_mutex_unlock(&cas_id_lock);
        return p.y;
    }
    origin.y++;
    pthread_mutex_unlock(&cas_id_lock);
    return p.x + p.y;
}
