/* The library's public header. */
#ifndef VH_H
#define VH_H

#ifdef __cplusplus
extern "C" {
#endif

struct vhost;

struct vhost *vh_create(const char *name);
void vh_request(struct vhost *vh, long bytes);
void vh_join(struct vhost *vh);
void vh_report(struct vhost *vh);

#ifdef __cplusplus
}
#endif

#endif
