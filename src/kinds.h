/*
 * kinds.h
 *	  The Kubernetes kinds the scheduler mirrors: one entry per kind, read by
 *	  the mirror (apply, relist), the watch worker and the QueueingHints.
 *
 * Adding a kind is one entry in kinds.c, its apply function (mirror.c), its
 * validation (validation.c) and its table (sql/install/01_mirror.sql).
 */
#ifndef SCHEDULER_KINDS_H
#define SCHEDULER_KINDS_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

typedef struct MirrorKind MirrorKind;
typedef struct MirrorBatch MirrorBatch; /* pods and nodes gathered for one write (mirror.c) */

/* Who an object being applied is, read by object_id() (mirror.c) */
typedef struct MirrorObject
{
	const MirrorKind *kind;
	JsonbValue *objv;			/* the object */
	JsonbContainer *obj;
	JsonbContainer *meta;		/* its metadata */
	char	   *name;
	char	   *ns;				/* NULL for cluster-scoped kinds */
	char	   *uid;			/* metadata.uid, or the uid rule's (KindUid) */
	char	   *what;			/* "pod default/web-1", for messages (cut short) */
} MirrorObject;

struct MirrorKind
{
	const char *kind;			/* "PodDisruptionBudget" */
	const char *list_kind;		/* "PodDisruptionBudgetList" */
	const char *api_version;	/* "policy/v1": group/version ("v1": the core group) */
	const char *old_api_version;	/* an older version read the same, or NULL */
	const char *resource;		/* "poddisruptionbudgets": the path's last segment, and
								 * the watch's key in scheduler.watch_state */
	const char *query;			/* the list's and watch's query (a field selector), or NULL */
	const char *table;			/* "scheduler.pdbs": where its objects are mirrored */
	bool		by_kind;		/* the table holds several kinds: its column kind says which */
	bool		namespaced;

	/* why metadata.name is refused (NULL when it is fine), as the API server says */
	const char *(*name_rule) (const char *name);
	/* the object past its metadata, as the API server validates it; NULL: nothing */
	void		(*validate) (JsonbContainer *obj, const char *what);
	/* write one (validated) object; returns 1 when its row changed (0 in a batch) */
	int			(*apply) (const MirrorObject *o, MirrorBatch *batch);
	/* remove one; NULL: MirrorDeleteRow, the row of its uid in table goes */
	int			(*remove) (const MirrorObject *o, MirrorBatch *batch);

	/*
	 * The cluster events its rows raise (RES_*, events.h; 0: none), and how
	 * the rows a statement changed become them (queue.c): olds and news are
	 * FROM items over rows of its table (NULL: none), which may read args
	 * ($1, $2)
	 */
	int			events;
	List	   *(*row_events) (const MirrorKind *k, const char *olds, const char *news, Datum *args);
};

extern const MirrorKind MirrorKinds[];
extern const int NumMirrorKinds;

extern const MirrorKind *KindByName(const char *kind);
extern const MirrorKind *KindByListKind(const char *list_kind);
extern const MirrorKind *KindByEvents(const char *name);
extern const MirrorKind *KindByTable(const char *table);
extern char *KindPath(const MirrorKind *k);
extern char *KindUid(const MirrorKind *k, const char *ns, const char *name);
extern char *KindLabel(const MirrorKind *k);
extern char *KindsText(bool lists);
extern const char *EventResourceName(int resource);


/*
 * What the entries name, each defined where its stage does the work: the
 * name rules and validators (validation.c), the apply functions (mirror.c)
 * and the rows-to-events functions (queue.c).  Declared here, with the
 * table, so that kinds.c needs no stage's header: the stages read the table,
 * the table calls into them, and no file includes one that includes it back.
 */
extern const char *NameRuleDns1123Label(const char *name);
extern const char *NameRuleDns1035Label(const char *name);
extern const char *NameRuleDns1123Subdomain(const char *name);
extern const char *NameRuleDns1123SubdomainBytes(const char *name);
extern const char *NameRulePathSegment(const char *name);
extern void ValidateNode(JsonbContainer *obj, const char *what);
extern void ValidatePod(JsonbContainer *obj, const char *what);
extern void ValidatePdb(JsonbContainer *obj, const char *what);
extern void ValidateService(JsonbContainer *obj, const char *what);
extern void ValidateReplicationController(JsonbContainer *obj, const char *what);
extern void ValidateSelectorOwner(JsonbContainer *obj, const char *what);
extern void ValidatePersistentVolumeClaim(JsonbContainer *obj, const char *what);
extern void ValidatePersistentVolume(JsonbContainer *obj, const char *what);
extern void ValidateStorageClass(JsonbContainer *obj, const char *what);
extern void ValidateCSINode(JsonbContainer *obj, const char *what);
extern void ValidateCSIDriver(JsonbContainer *obj, const char *what);
extern void ValidateCSIStorageCapacity(JsonbContainer *obj, const char *what);
extern void ValidateVolumeAttachment(JsonbContainer *obj, const char *what);
extern int	MirrorApplyNode(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorRemoveNode(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorApplyPod(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorRemovePod(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorApplyNamespace(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorApplyPdb(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorApplyWorkload(const MirrorObject *o, MirrorBatch *batch);
extern int	MirrorApplyObject(const MirrorObject *o, MirrorBatch *batch);
extern List *NodeRowEvents(const MirrorKind *k, const char *olds, const char *news, Datum *args);
extern List *PodRowEvents(const MirrorKind *k, const char *olds, const char *news, Datum *args);
extern List *ObjectRowEvents(const MirrorKind *k, const char *olds, const char *news, Datum *args);

#endif							/* SCHEDULER_KINDS_H */
