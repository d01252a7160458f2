/* SPDX-License-Identifier: MIT */
void STATS_LOCK(void);
void STATS_UNLOCK(void);
void count_get(int hit);
long gets_total(void);
