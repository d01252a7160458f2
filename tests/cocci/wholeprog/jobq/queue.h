#ifndef QUEUE_H
#define QUEUE_H
int q_push(long v);
int q_pop(long *out);
unsigned long q_digest(void);
#endif
