/* SPDX-License-Identifier: MIT */
/* The library's version string, for `strings librcl.so` and bug reports. */
#include "config.h"

__attribute__((visibility("default"), used)) const char librcl_version[] =
	PACKAGE_STRING;
