/* SPDX-License-Identifier: MIT */
/* Status codes through macros of a header, as a daemon's common header
   keeps them: DEFRC declares the function's status local, FAIL() and CHK()
   set it and jump to the function's `out:` label, RETRC returns it.
   TOO_BIG() compares with LIMIT, which each user defines itself. */
#ifndef STATUS_H
#define STATUS_H

typedef int rc_t;
#define RC_OK 0
#define RC_FULL 1
#define RC_EMPTY 2
#define RC_BIG 3

#define DEFRC rc_t rc = RC_OK
#define RETRC return rc
#define CHK(x)                                                                 \
	if ((rc = (x)) != RC_OK)                                               \
		goto out
#define FAIL(code)                                                             \
	do {                                                                   \
		rc = (code);                                                   \
		goto out;                                                      \
	} while (0)
#define TOO_BIG(v) ((v) > LIMIT)

#endif
