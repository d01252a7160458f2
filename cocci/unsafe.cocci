// SPDX-License-Identifier: MIT
/// Finds: calls and names that change meaning when a section runs on
///   another thread or leaves its function in ways an extracted function
///   cannot: the setjmp/longjmp family, alloca, pthread_self,
///   pthread_getspecific/setspecific, gettid (rule @call@), and errno
///   (rule @err@).  Computed gotos (goto *p) and label addresses (&&l)
///   are not matched here: the driver finds them in the tokens
///   (rcl_refactor/analyse.py).
/// Rewrites: nothing.
/// Refuses: the driver (rcl_refactor/rewrite.py) refuses every section that
///   contains one of these positions ("not transformed: alloca in the
///   section", ...), but errno: with the libclang front end the section's
///   errno is carried to the server and back (rcl_refactor/extract.py);
///   without it, errno is refused too.
/// Example: pthread_mutex_lock(&m); p = alloca(n); pthread_mutex_unlock(&m);
///   prints  UNSAFE f 12 5 alloca
// Confidence: High
// Options: none
// Test: tests/cocci/golden/shapes_refuse.{c,out} (setjmp, pthread_self and
//   alloca sections), tests/cocci/golden/errno_ok.{c,out} (errno carried)

virtual report

@call@
identifier fn = {setjmp, _setjmp, sigsetjmp, __sigsetjmp, longjmp, _longjmp,
                 siglongjmp, alloca, __builtin_alloca, pthread_self,
                 pthread_getspecific, pthread_setspecific, gettid};
position p;
@@
fn@p(...)

@script:python@
fn << call.fn;
p << call.p;
@@
print("UNSAFE\t%s\t%s\t%s\t%s" % (p[0].current_element, p[0].line, p[0].column,
      fn))

@err@
identifier e = errno;
position p;
@@
e@p

@script:python@
p << err.p;
@@
print("UNSAFE\t%s\t%s\t%s\terrno" % (p[0].current_element, p[0].line,
      p[0].column))
