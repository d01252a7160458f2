#ifndef HZ_H
#define HZ_H
#include <setjmp.h>

extern _Thread_local int req_id;
extern jmp_buf retry_point;

long scale(long v);
void note(const char *what);
unsigned notes_seen(void);
void bail(const char *msg);
__attribute__((noreturn)) void fatal(const char *msg);
int parse_num(const char *s, long *out);
void step(int depth);

long add_ok(long v);
long add_logged(long v);
long take(long n);
long check(long v);
long quit_worker(long v);
long tag(long v);
long parse_into(const char *s);
long retry(long v);
#endif
