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
extern void PodInfoFromTupleAt(PodInfo *pod, HeapTuple tup, TupleDesc desc, int first);

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

/*
 * A pod on a node (PodRef) and a node (NodeInfo): the SELECT lists of
 * pod_ref_columns.def and node_columns.def (over scheduler.pods or
 * scheduler.nodes, or a statement's rows of them), each column's attribute
 * number, and their decoders.  What the snapshot loads and what the
 * QueueingHints see of a changed row are read by the same code.
 */
typedef enum PodRefColumn
{
#define POD_REF_COLUMN(id, sql) POD_REF_COL_##id,
#include "pod_ref_columns.def"
#undef POD_REF_COLUMN
	POD_REF_NCOLUMNS
} PodRefColumn;
#define POD_REF_ATT(id) (POD_REF_COL_##id + 1)

typedef enum NodeColumn
{
#define NODE_COLUMN(id, sql) NODE_COL_##id,
#include "node_columns.def"
#undef NODE_COLUMN
	NODE_NCOLUMNS
} NodeColumn;
#define NODE_ATT(id) (NODE_COL_##id + 1)

extern const char *const PodRefColumns;
extern const char *const NodeColumns;

/*
 * A row of PodRefColumns: false when it is no pod on a node (no node, a
 * node name no node can have, or terminal); then only p->uid and p->node
 * are read.  Otherwise every field, in keep but p->uid (the caller's to
 * key: it is in the current context).  Never throws on what the row holds:
 * what cannot be read is left out, and a line per problem is appended to
 * *problems.
 */
extern bool PodRefFromTuple(PodRef *p, HeapTuple tup, TupleDesc desc, MemoryContext keep, List **problems);

/*
 * A row of NodeColumns into n: the fields of its columns, in keep, and
 * n->exists; n's other fields are left as they are, and a node that has a
 * name keeps it (the snapshot's slot holds it).  As PodRefFromTuple, it
 * never throws on what the row holds.
 */
extern void NodeInfoFromTuple(NodeInfo *n, HeapTuple tup, TupleDesc desc, MemoryContext keep, List **problems);

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
