# SPDX-License-Identifier: MIT
import os
import sys
import traceback

from .cli import main

try:
    sys.exit(main())
except KeyboardInterrupt:
    sys.exit(130)
except Exception as e:  # every file is written only at the very end
    if os.environ.get("RCL_REFACTOR_DEBUG"):
        traceback.print_exc()
    print("rcl-refactor: internal error (%s: %s); no file was written. "
          "Set RCL_REFACTOR_DEBUG=1 for a traceback, and please report it "
          "with the input." % (type(e).__name__, e), file=sys.stderr)
    sys.exit(1)
