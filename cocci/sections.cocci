// SPDX-License-Identifier: MIT
/// Finds: every critical section lock(E); ... unlock(E); of one function,
///   one line per (lock, unlock) pair on some control-flow path, and every
///   lock(E) from which no path reaches an unlock of E in the same function.
/// Rewrites: nothing (the driver cuts and rewrites; see extract.py).
/// Refuses (reported by the driver from this rule's output): a lock whose
///   unlock is in another function (rule "lonely"), a trylock section.
/// Example: pthread_mutex_lock(&m);  n++;  pthread_mutex_unlock(&m);
///   prints  CS f 14 1 16 1 &m  (tab-separated: function, lock line and
///   column, unlock line and column, the lock expression)
// Confidence: High
// Options: lock and unlock names come from $RCL_LOCK_FNS and $RCL_UNLOCK_FNS
//   (comma-separated; default pthread_mutex_lock / pthread_mutex_unlock).
// Test: tests/cocci/golden/*.c through rcl-refactor

virtual report

@initialize:python@
@@
import os
LOCKS = set(os.environ.get("RCL_LOCK_FNS", "pthread_mutex_lock").split(","))
UNLOCKS = set(os.environ.get("RCL_UNLOCK_FNS",
                             "pthread_mutex_unlock").split(","))
TRYLOCKS = set(os.environ.get("RCL_TRYLOCK_FNS",
                              "pthread_mutex_trylock").split(","))
CHECKS = set(os.environ.get("RCL_CHECK_MACROS", "").split(",")) - {""}
HINTS = set(os.environ.get("RCL_HINT_MACROS", "").split(",")) - {""}

@cs exists@
identifier lk : script:python() { lk in LOCKS };
identifier ul : script:python() { ul in UNLOCKS };
expression list E;
identifier V, W;
identifier ck : script:python() { ck in CHECKS };
identifier cu : script:python() { cu in CHECKS };
identifier hu : script:python() { hu in HINTS };
type T;
statement S;
position p1, p2;
@@
(
lk@p1(E);
|
 (void)lk@p1(E);
|
 V = lk@p1(E);
|
 T V = lk@p1(E);
|
 ck(..., lk@p1(E), ...);
)
... when != ul(E)
(
ul@p2(E);
|
 (void)ul@p2(E);
|
 W = ul@p2(E);
|
 cu(..., ul@p2(E), ...);
|
 if (ul@p2(E)) S
|
 if (ul@p2(E) != 0) S
|
 if (hu(ul@p2(E))) S
|
 if (hu(ul@p2(E) != 0)) S
|
 if (0 != ul@p2(E)) S
|
 if (__builtin_expect(ul@p2(E), 0)) S
|
 if (__builtin_expect(ul@p2(E) != 0, 0)) S
|
return ul@p2(E);
|
return (ul@p2(E));
)

@script:python@
p1 << cs.p1;
p2 << cs.p2;
E << cs.E;
@@
print("CS\t%s\t%s\t%s\t%s\t%s\t%s" % (p1[0].current_element, p1[0].line,
      p1[0].column, p2[0].line, p2[0].column, E))

@lonely@
identifier lk : script:python() { lk in LOCKS };
expression list E;
position p1 != cs.p1;
@@
lk@p1(E)

@script:python@
p1 << lonely.p1;
E << lonely.E;
@@
print("LONELY\t%s\t%s\t%s\t%s" % (p1[0].current_element, p1[0].line,
      p1[0].column, E))

@try@
identifier tl : script:python() { tl in TRYLOCKS };
expression list E;
position p;
@@
tl@p(E)

@script:python@
p << try.p;
E << try.E;
@@
print("TRY\t%s\t%s\t%s\t%s" % (p[0].current_element, p[0].line,
      p[0].column, E))
