/* SPDX-License-Identifier: MIT */
/*
 * The list of algorithms.  Adding one: write liblock/algorithms/NAME.c
 * exporting `const struct ll_ops ll_NAME_ops`, declare it here, add it to
 * ll_ops_all (listing order: blocking, spin, queue, combining, delegation),
 * and to liblock/Makefile.am.  The shared stress test picks it up by itself.
 */
#include "ll_int.h"

#include <string.h>

extern const struct ll_ops ll_posix_ops;
extern const struct ll_ops ll_spinlock_ops;
/* Weak: the RCL runtime (runtime/client.c) is linked into librcl only;
 * a library built from liblock alone sees NULL here, which ends the list,
 * so rcl must stay the last entry. */
extern const struct ll_ops ll_rcl_ops __attribute__((weak));
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

const struct ll_ops *const ll_ops_all[] = {
	&ll_posix_ops,
	&ll_spinlock_ops,
	&ll_ttas_ops,
	&ll_backoff_ops,
	&ll_ticket_ops,
	&ll_ticket_stp_ops,
	&ll_mcs_ops,
	&ll_mcs_stp_ops,
	&ll_clh_ops,
	&ll_clh_stp_ops,
	&ll_mcstp_ops,
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
	&ll_fc_ops,
	&ll_ccsynch_ops,
	&ll_dsmsynch_ops,
	&ll_rcl_ops, /* delegation: keep last (weak, see above) */
	NULL,
};

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

const struct ll_ops *ll_ops_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0) {
			name = aliases[i].name;
			break;
		}
	for (i = 0; ll_ops_all[i]; i++)
		if (strcmp(name, ll_ops_all[i]->name) == 0)
			return ll_ops_all[i];
	return NULL;
}
