/*
 * mirror.h
 *	  scheduler.apply(): Kubernetes objects and watch events into the
 *	  tables.
 *
 * IDENTIFICATION
 *	  src/mirror.h
 */
#ifndef SCHEDULER_MIRROR_H
#define SCHEDULER_MIRROR_H

#include "postgres.h"
#include "utils/jsonb.h"

extern int	MirrorApply(Jsonb *doc);
extern void MirrorStoreResourceVersion(const char *resource, const char *rv);
extern void MirrorBatchBegin(void);
extern int	MirrorBatchEnd(void);
extern void MirrorBatchAbandon(void);

#endif							/* SCHEDULER_MIRROR_H */
