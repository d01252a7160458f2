# SPDX-License-Identifier: MIT
"""One-line user errors."""
import sys


class Error(Exception):
    """A one-line user error, reported after the command ran."""


def die(msg, status=2):
    """Report a usage error (before the command runs) and exit."""
    sys.stderr.write("rcl-prof: %s\n" % msg)
    sys.exit(status)
