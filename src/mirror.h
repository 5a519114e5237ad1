/*
 * mirror.h
 *	  The mirror tables: Kubernetes objects and watch events applied
 *	  (mirror.c), kind by kind as kinds.c says.
 *
 * IDENTIFICATION
 *	  src/mirror.h
 */
#ifndef SCHEDULER_MIRROR_H
#define SCHEDULER_MIRROR_H

#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "kinds.h"

/* Apply a document (an object, a List, a watch event); batch may be NULL */
extern int	MirrorApply(Jsonb *doc, MirrorBatch *batch);

/* Apply item i of a List alone, as apply() would apply that item */
extern int	MirrorApplyListItem(Jsonb *list, int i);

/* A List as the whole truth, but the items in left_out and the uids in keep (text[]) */
extern int	MirrorRelist(Jsonb *doc, Datum keep, Bitmapset *left_out);

extern void MirrorStoreResourceVersion(const char *resource, const char *rv);

/* Pods gathered and written in one statement (the watch worker's batches) */
extern MirrorBatch *MirrorBatchBegin(void);
extern int	MirrorBatchEnd(MirrorBatch *batch);

/* A what-if: nodes and pods gathered, validated, then read back, never written */
typedef enum MirrorBatchKind
{
	MIRROR_NODES,
	MIRROR_PODS
} MirrorBatchKind;
typedef struct MirrorDeletion
{
	char	   *uid;
	char	   *ns;				/* NULL: cluster-scoped, or no name known */
	char	   *name;
} MirrorDeletion;
extern int	MirrorApplyWhatIf(Jsonb *doc, MirrorBatch *batch);
extern void MirrorBatchRead(MirrorBatch *batch, MirrorBatchKind kind, const char *select_list,
							const char *from_rest, List **deleted);

/* The row of an object's uid deleted from its kind's table */
extern int	MirrorDeleteRow(const MirrorObject *o);


#endif							/* SCHEDULER_MIRROR_H */
