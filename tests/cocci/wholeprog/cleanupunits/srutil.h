/* SPDX-License-Identifier: MIT */
#ifndef SRUTIL_H
#define SRUTIL_H
/* Unlock the mutex even if the thread is cancelled. */
void mutex_cleanup(void *mutex);
#endif
