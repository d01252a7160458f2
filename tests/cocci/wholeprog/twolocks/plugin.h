/* SPDX-License-Identifier: MIT */
int plugin_run(void);
