# SPDX-License-Identifier: MIT
"""Stage 5, report: one line per refused section, then a summary."""
import collections
import sys


class Report:
    def __init__(self, quiet=False):
        self.found = 0
        self.transformed = 0
        self.skipped = 0   # sections of locks --locks did not select
        self.refused = []  # (file, line, reason)
        self.errors = []   # file-level errors (not a section)
        self.quiet = quiet

    def refuse(self, file, line, reason):
        self.refused.append((file, line, reason))

    def error(self, msg):
        self.errors.append(msg)
        print("rcl-refactor: %s" % msg, file=sys.stderr)

    def print(self, out=sys.stdout):
        for f, line, why in sorted(set(self.refused)):
            print("%s:%d: not transformed: %s" % (f, line, why), file=out)
        if self.quiet:
            return
        by = collections.Counter(_reason_class(r) for _, _, r in
                                 set(self.refused))
        print("rcl-refactor: %d section(s) found, %d transformed, %d "
              "refused%s" % (self.found, self.transformed,
                             len(set(self.refused)),
                             ", %d of unselected locks left alone" %
                             self.skipped if self.skipped else ""), file=out)
        for why, n in sorted(by.items(), key=lambda x: (-x[1], x[0])):
            print("  %4d  %s" % (n, why), file=out)


def _reason_class(reason):
    """Group reasons that differ only in a name or a line."""
    for cut in (" (", ": ", " at "):
        i = reason.find(cut)
        if i > 0:
            reason = reason[:i]
    return reason
