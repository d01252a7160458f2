/* Golden: the definitions pool_ok.c's build uses (--macro-file), as the
 * harness gives for zstd. */
#define Z_mutex_t pthread_mutex_t
#define Z_cond_t pthread_cond_t
