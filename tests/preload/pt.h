/* SPDX-License-Identifier: MIT */
/* Shared by the preload test programs: fail with a one-line reason. */
#ifndef PT_H
#define PT_H

#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "pt: " __VA_ARGS__);                           \
		fputc('\n', stderr);                                           \
		exit(1);                                                       \
	} while (0)
#define CHECK(expr)                                                            \
	do {                                                                   \
		int rc_ = (expr);                                              \
		if (rc_ != 0)                                                  \
			FAIL("%s:%d: %s = %d", __FILE__, __LINE__, #expr,      \
			     rc_);                                             \
	} while (0)
#define EXPECT(expr, want)                                                     \
	do {                                                                   \
		int rc_ = (expr);                                              \
		if (rc_ != (want))                                             \
			FAIL("%s:%d: %s = %d, want %d", __FILE__, __LINE__,    \
			     #expr, rc_, (want));                              \
	} while (0)

/* $PT_SCALE: iteration multiplier (pt_work.c). */
extern int scale;

void types(void);
void threads(void);
void wrappers(void);

#endif /* PT_H */
