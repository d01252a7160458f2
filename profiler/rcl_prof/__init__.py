# SPDX-License-Identifier: MIT
"""rcl-prof: run a program under the librcl lock profiler.

Runs CMD with librclprof.so preloaded, collects the raw dump of every
process it starts (the library writes one per process at exit), symbolises
the lock sites with addr2line/nm, prints the ranked lock table and writes
the JSON profile that `rcl-refactor --locks` reads.  Exit status is CMD's.
Columns and the JSON schema: docs/PROFILER.md and rcl-prof(1).

Modules, in the order main() uses them: cli (options, main), launch (run
CMD under the library), dumps (read the per-process dumps), symbols
(addr2line, nm), model (the report, a librcl_profile.Profile), colocation,
table, folded (--folded), plot (--plot).  The profile's records, reader
and writer are librcl_profile's, shared with rcl-refactor.
"""
