/*
 * tolerations.h
 *	  Whether a toleration tolerates a taint (v1helper), for TaintToleration
 *	  and NodeUnschedulable.
 *
 * IDENTIFICATION
 *	  src/tolerations.h
 */
#ifndef SCHEDULER_TOLERATIONS_H
#define SCHEDULER_TOLERATIONS_H

#include "cluster.h"

extern bool ToleratesTaint(const Toleration *tol, const Taint *taint, char **err);
extern bool TolerationsTolerateTaint(const Toleration *tols, int ntols, const Taint *taint, char **err);

#endif							/* SCHEDULER_TOLERATIONS_H */
