/*
 * codec.h
 *	  The pod's shape, once: the SELECT list that reads it, the decoder of
 *	  its rows, and its signature for equivalence classes (kube-scheduler's
 *	  SignPod); and the decoders of the pieces of stored rows.
 *
 * IDENTIFICATION
 *	  src/codec.h
 */
#ifndef SCHEDULER_CODEC_H
#define SCHEDULER_CODEC_H

#include "postgres.h"
#include "access/htup.h"
#include "access/tupdesc.h"
#include "lib/stringinfo.h"
#include "cluster.h"

/* The columns of pod_columns.def, numbered */
typedef enum PodColumn
{
#define POD_COLUMN(id, sql, declaration) POD_COL_##id,
#include "pod_columns.def"
#undef POD_COLUMN
	POD_NCOLUMNS
} PodColumn;

#define POD_FIELD(id)	(UINT64CONST(1) << POD_COL_##id)

/*
 * The SELECT list of a PodInfo, over scheduler.pods p and scheduler.queue q
 * (joined, or LEFT JOINed: q.pod_uid = p.uid), for PodInfoFromTuple.
 */
extern const char *const PodInfoColumns;
#define PodInfoColumnsQualified PodInfoColumns
extern void PodInfoFromTuple(PodInfo *pod, HeapTuple tup, TupleDesc desc);

/*
 * A pod's signature: the fields (POD_FIELD) and any other text a verdict
 * depends on.  Two pods with equal signatures get equal verdicts.
 */
typedef struct PodKey
{
	uint64		fields;
	StringInfoData extra;		/* initialized: appended to by signers */
} PodKey;
extern void PodKeyInit(PodKey *key);
extern void PodKeyAdd(PodKey *key, uint64 fields);
extern char *PodKeyText(PodKey *key, const PodInfo *pod);

/* pieces of stored rows */
extern Jsonb *TupleJsonb(HeapTuple tup, TupleDesc desc, int col);
extern int64 TupleInt64(HeapTuple tup, TupleDesc desc, int col);
extern char *JStr(JsonbContainer *c, const char *key);
extern int	JArrayLen(Jsonb *jb);
extern JsonbContainer *JArrayElem(Jsonb *jb, int i);
extern Taint *TaintsFromJsonb(Jsonb *jb, int *n);
extern Toleration *TolerationsFromJsonb(Jsonb *jb, int *n);
extern HostPort *HostPortsFromJsonb(Jsonb *jb, int *n, char **err);

#endif							/* SCHEDULER_CODEC_H */
