/* SPDX-License-Identifier: MIT */
/* The program's umbrella header: nothing in it changes, but it pulls in
 * shards.h, whose rewritten copy the other units must see. */
#ifndef APP_H
#define APP_H
#include "shards.h"

#define WORKERS 3
#define ROUNDS 20000
#endif
