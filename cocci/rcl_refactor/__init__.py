# SPDX-License-Identifier: MIT
"""rcl-refactor: extract pthread critical sections for liblock_exec().

Stages, one module each: find (Coccinelle facts, lock functions), analyse
(section shape, refusals, locals), extract (context union and function),
rewrite (decisions and file edits), report (refusals and summary); config
writes rcl-config.h and reads --locks; cli runs them in order.
"""
