// SPDX-License-Identifier: MIT
/// Finds: every occurrence of a local variable or parameter, with its
///   position, in every function.  The driver keeps the ones between a
///   section's lock and unlock (inputs, outputs, by-pointer locals) and the
///   ones after it (what must be copied out).
/// Rewrites: nothing.  Refuses: nothing (collects only).
/// Example: int f(int a) { int r; lock(&m); r = a + g; unlock(&m); ... }
///   prints  LOC f a 1 23 24  and  LOC f r 1 18 19  (g is global: absent)
// Confidence: High (scoping is Coccinelle's, shadowing included)
// Options: none
// Test: tests/cocci/golden/*.c through rcl-refactor

virtual report

@loc@
local idexpression x;
position p;
@@
x@p

@script:python@
x << loc.x;
p << loc.p;
@@
print("LOC\t%s\t%s\t%s\t%s\t%s" % (p[0].current_element, x, p[0].line,
      p[0].column, p[0].column_end))
