#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end: the whole pipeline on the sample app (see pipeline_e2e.py).
here=$(dirname "$0")
exec "${PYTHON3:-python3}" "$here/pipeline_e2e.py"
