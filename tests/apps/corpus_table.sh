#!/bin/sh
# SPDX-License-Identifier: MIT
# The corpus table writer on a small recorded result (corpus_table_test.py).
here=$(dirname "$0")
exec "${PYTHON3:-python3}" "$here/corpus_table_test.py"
