/* config.h -- what ./configure would have written; the build passes it
 * with -include, the sources never include it. */
#define QUEUE_CAP 16
#define NWORKERS 3
#define JOBS_PER_WORKER 2000
#define HAVE_STATS 1
