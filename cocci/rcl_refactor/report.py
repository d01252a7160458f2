# SPDX-License-Identifier: MIT
"""Stage 5, report: one line per held and per refused section, then a
summary."""
import collections
import sys


class Report:
    def __init__(self, quiet=False):
        self.found = 0
        self.transformed = 0  # delegated: extracted, run by liblock_exec
        self.held = []     # (file, line, reason): run in place on the word
        self.skipped = 0   # sections of locks --locks did not select
        self.refused = []  # (file, line, reason)
        self.errors = []   # file-level errors (not a section)
        self.quiet = quiet

    def refuse(self, file, line, reason):
        self.refused.append((file, line, reason))

    def hold(self, file, line, reason):
        self.held.append((file, line, reason))

    def error(self, msg):
        self.errors.append(msg)
        print("rcl-refactor: %s" % msg, file=sys.stderr)

    def print(self, out=sys.stdout, written=True):
        """The report; @written is False when the run stopped before
        writing anything: no section was then delegated or held, and the
        summary says what the run was about to do instead."""
        # -q: what needs the user's action only (held sections work).
        lines = [] if self.quiet else [
            (f, line, "held: %s (runs in place on the lock word)" % why)
            for f, line, why in set(self.held)]
        lines += [(f, line, "not transformed: " + why)
                  for f, line, why in set(self.refused)]
        for f, line, what in sorted(lines):
            print("%s:%d: %s" % (f, line, what), file=out)
        if self.quiet:
            return
        by = collections.Counter(_reason_class(r) for _, _, r in
                                 set(self.refused))
        held = len(set(self.held))
        print("rcl-refactor: %d section(s) found, %d delegated, %d held, %d "
              "refused%s%s" % (
                  self.found, self.transformed if written else 0,
                  held if written else 0, len(set(self.refused)),
                  ", %d of unselected locks left alone" % self.skipped
                  if self.skipped else "",
                  "" if written else "; nothing written (%d to be "
                  "delegated and %d held when it stopped)" % (
                      self.transformed, held)), file=out)
        for why, n in sorted(by.items(), key=lambda x: (-x[1], x[0])):
            print("  %4d  %s" % (n, why), file=out)


def _reason_class(reason):
    """Group reasons that differ only in a name or a line."""
    for cut in (" (", ": ", " at "):
        i = reason.find(cut)
        if i > 0:
            reason = reason[:i]
    return reason
