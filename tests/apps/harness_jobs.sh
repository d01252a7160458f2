#!/bin/sh
# SPDX-License-Identifier: MIT
# The corpus harness's concurrent applications (harness_jobs_test.py).
here=$(dirname "$0")
exec "${PYTHON3:-python3}" "$here/harness_jobs_test.py"
