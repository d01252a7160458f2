/* SPDX-License-Identifier: MIT */
/*
 * The list of algorithms.  Adding one: write liblock/algorithms/NAME.c
 * exporting `const struct ll_ops ll_NAME_ops`, declare it here, add it to
 * builtin[] (listing order: blocking, spin, queue, combining), and to
 * liblock/Makefile.am.  The shared stress test picks it up by itself.
 * The RCL runtime's "rcl", built outside liblock, comes last when it is
 * linked in (ll_rcl_ops, see ll_int.h).
 */
#include "ll_int.h"

#include <string.h>

extern const struct ll_ops ll_posix_ops;
extern const struct ll_ops ll_spinlock_ops;
/* spin and queue locks */
extern const struct ll_ops ll_ttas_ops;
extern const struct ll_ops ll_backoff_ops;
extern const struct ll_ops ll_ticket_ops;
extern const struct ll_ops ll_ticket_stp_ops;
extern const struct ll_ops ll_mcs_ops;
extern const struct ll_ops ll_mcs_stp_ops;
extern const struct ll_ops ll_clh_ops;
extern const struct ll_ops ll_clh_stp_ops;
extern const struct ll_ops ll_mcstp_ops;
/* the rest of LiTL's zoo */
extern const struct ll_ops ll_posix_adaptive_ops;
extern const struct ll_ops ll_mutexee_ops;
extern const struct ll_ops ll_partitioned_ops;
extern const struct ll_ops ll_anderson_ops;
extern const struct ll_ops ll_cbomcs_ops;
extern const struct ll_ops ll_cbomcs_stp_ops;
extern const struct ll_ops ll_ctkttkt_ops;
extern const struct ll_ops ll_cptltkt_ops;
extern const struct ll_ops ll_hticket_ops;
extern const struct ll_ops ll_hmcs_ops;
extern const struct ll_ops ll_ahmcs_ops;
extern const struct ll_ops ll_malthusian_ops;
extern const struct ll_ops ll_malthusian_stp_ops;
/* combining locks */
extern const struct ll_ops ll_fc_ops;
extern const struct ll_ops ll_ccsynch_ops;
extern const struct ll_ops ll_dsmsynch_ops;

static const struct ll_ops *const builtin[] = {
	/* blocking and spin locks */
	&ll_posix_ops,
	&ll_spinlock_ops,
	&ll_ttas_ops,
	&ll_backoff_ops,
	/* FIFO and queue locks */
	&ll_ticket_ops,
	&ll_ticket_stp_ops,
	&ll_mcs_ops,
	&ll_mcs_stp_ops,
	&ll_clh_ops,
	&ll_clh_stp_ops,
	&ll_mcstp_ops,
	/* the rest of LiTL's zoo */
	&ll_posix_adaptive_ops,
	&ll_mutexee_ops,
	&ll_partitioned_ops,
	&ll_anderson_ops,
	&ll_cbomcs_ops,
	&ll_cbomcs_stp_ops,
	&ll_ctkttkt_ops,
	&ll_cptltkt_ops,
	&ll_hticket_ops,
	&ll_hmcs_ops,
	&ll_ahmcs_ops,
	&ll_malthusian_ops,
	&ll_malthusian_stp_ops,
	/* combining locks */
	&ll_fc_ops,
	&ll_ccsynch_ops,
	&ll_dsmsynch_ops,
};

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

const struct ll_ops *ll_ops_at(size_t i)
{
	if (i < NBUILTIN)
		return builtin[i];
	if (i == NBUILTIN)
		return &ll_rcl_ops; /* NULL without the runtime */
	return NULL;
}

/* Other names users type for the same algorithm. */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{"pthread", "posix"},
	{"mutex", "posix"},
	{"tas", "spinlock"},
	{"spin", "spinlock"},
	{"flat", "fc"},
	{"flatcombining", "fc"},
	{"cc-synch", "ccsynch"},
	{"dsm-synch", "dsmsynch"},
	{"mcs-tp", "mcstp"},
	{"pthreadadapt", "posix_adaptive"},
	{"alock", "anderson"},
	{"c-bo-mcs", "cbomcs"},
	{"c-bo-mcs_spin", "cbomcs"},
	{"c-bo-mcs_stp", "cbomcs_stp"},
	{"c-tkt-tkt", "ctkttkt"},
	{"c-ptl-tkt", "cptltkt"},
	{"malth_spin", "malthusian"},
	{"malth_stp", "malthusian_stp"},
	{"mcscr", "malthusian"},
};

static const struct ll_ops *find_name(const char *name)
{
	const struct ll_ops *ops;

	for (size_t i = 0; (ops = ll_ops_at(i)) != NULL; i++)
		if (strcmp(name, ops->name) == 0)
			return ops;
	return NULL;
}

const struct ll_ops *ll_ops_find(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0) {
			name = aliases[i].name;
			break;
		}
	return find_name(name);
}
