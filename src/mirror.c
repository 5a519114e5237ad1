/*
 * mirror.c
 *	  scheduler.apply(jsonb): Kubernetes objects and watch events into the
 *	  mirror tables, kind by kind as the table of kinds (kinds.c) says.
 *
 * It accepts what `kubectl get -o json` prints (an object of a kind in the
 * table, or a List of them; a NodeList or PodList from the API server, whose
 * items carry no kind, as well) and watch events {"type": ..., "object": ...}.
 * Each object becomes one row of its kind's table keyed by metadata.uid, with
 * typed columns for what scheduling reads and the object itself as jsonb,
 * written by its kind's apply function (below).  Applying an object
 * identical to the stored one changes nothing; apply returns how many
 * objects changed.  relist() applies a List as the whole truth.
 *
 * What the API server would default is defaulted here too, so hand-written
 * JSON behaves like objects read from a cluster: node allocatable defaults to
 * capacity, a container's requests default to its limits, a pod's namespace
 * to "default", schedulerName to "default-scheduler", priority to 0.  An
 * object without metadata.uid (hand-written) gets its kind's uid rule's
 * "<Kind>:<namespace>/<name>" (KindUid).
 *
 * The watch worker (watch.c) calls MirrorApply, MirrorRelist and a
 * MirrorBatch directly; the SQL entry points check the caller's role first.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "access.h"
#include "jsonutil.h"
#include "kinds.h"
#include "pod_volumes.h"
#include "mirror.h"
#include "plans.h"
#include "resources.h"
#include "mirror.h"
#include "snapshot.h"
#include "validation.h"

/* How one call applies what it is given */
typedef struct ApplyCtx
{
	MirrorBatch *batch;			/* pods and nodes gathered for one write, or NULL */
	const MirrorKind *only;		/* relist(): the one kind its list holds, or NULL */
	List	   *uids;			/* relist(): the uids of the items applied */
	bool		what_if;		/* MirrorApplyWhatIf: nodes and pods only, gathered, never written */
} ApplyCtx;

/* apply() and relist() of a List write its pods and nodes this many at a time (MirrorBatch) */
#define LIST_BATCH 1000

static int	apply_document(JsonbValue *docv, ApplyCtx *ctx);
static int	apply_object(JsonbValue *obj, const char *kind, bool deleted, const char *where, ApplyCtx *ctx);

/* ------------------------------------------------------------------------
 * Error context: every error raised while applying an object says which.
 * ------------------------------------------------------------------------
 */
static void
apply_error_callback(void *arg)
{
	errcontext("applying %s", (const char *) arg);
}

/* An RFC 3339 time (validated already), as timestamptz */
static Datum
parse_time(const char *s, const char *what, const char *path)
{
	return TimestampTzGetDatum(ParseRFC3339(s, what, path));
}

/* ------------------------------------------------------------------------
 * Running statements (kept prepared by plans.c)
 * ------------------------------------------------------------------------
 */
static int
exec(SPIPlanPtr plan, Datum *values, const char *nulls)
{
	int			rc = SPI_execute_plan(plan, values, nulls, false, 0);

	if (rc < 0)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	return (int) SPI_processed;
}

static Datum
text_or_null(const char *s, char *null)
{
	*null = s ? ' ' : 'n';
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/* a jsonb value, or SQL NULL when v is NULL */
static Datum
jsonb_or_null(JsonbValue *v, char *null)
{
	*null = v ? ' ' : 'n';
	return v ? JsonbPGetDatum(JToJsonb(v)) : (Datum) 0;
}

/* a jsonb value, or when v is NULL, dflt: "{}" or "[]" (made once) */
static Datum
jsonb_or(JsonbValue *v, const char *dflt)
{
	static Jsonb *empty[2];
	bool		object = strcmp(dflt, "{}") == 0;

	Assert(object || strcmp(dflt, "[]") == 0);
	if (v != NULL)
		return JsonbPGetDatum(JToJsonb(v));
	if (empty[object] == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		empty[object] = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(dflt)));
		MemoryContextSwitchTo(old);
	}
	return JsonbPGetDatum(empty[object]);
}

/* ------------------------------------------------------------------------
 * What the plugins read of a pod's containers: host ports (NodePorts: of
 * containers and restartable init containers, hostPort > 0, hostIP default
 * "0.0.0.0", protocol default "TCP"), images (ImageLocality: init containers
 * then containers), and whether it has a sidecar (restartPolicy Always).
 * ------------------------------------------------------------------------
 */
static void
container_facts(JsonbContainer *spec, const char *what, Jsonb **ports_out, Jsonb **images_out,
				bool *has_sidecar)
{
	static const char *const lists[] = {"initContainers", "containers"};
	JsonbParseState *ps = NULL;
	JsonbParseState *is = NULL;
	JsonbValue	v;

	*has_sidecar = false;
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(&is, WJB_BEGIN_ARRAY, NULL);
	for (int l = 0; l < 2; l++)
	{
		JsonbContainer *arr = JGetArray(spec, lists[l], what, "spec");

		for (int i = 0; arr && i < (int) JsonContainerSize(arr); i++)
		{
			char	   *path = psprintf("spec.%s[%d]", lists[l], i);
			JsonbContainer *c = JObject(getIthJsonbValueFromContainer(arr, i), what, path);
			char	   *image = JGetString(c, "image", what, path);
			char	   *policy = JGetString(c, "restartPolicy", what, path);
			bool		sidecar = (l == 0 && policy && strcmp(policy, "Always") == 0);
			JsonbContainer *ports = JGetArray(c, "ports", what, path);

			if (image)
				JPushString(&is, WJB_ELEM, image);
			*has_sidecar |= sidecar;
			if (l == 0 && !sidecar)
				continue;		/* ports of plain init containers are not held */
			for (int k = 0; ports && k < (int) JsonContainerSize(ports); k++)
			{
				char	   *ppath = psprintf("%s.ports[%d]", path, k);
				JsonbContainer *p = JObject(getIthJsonbValueFromContainer(ports, k), what, ppath);
				int32		host_port = JInt32(JGet(p, "hostPort"), what, psprintf("%s.hostPort", ppath));
				char	   *ip = JGetString(p, "hostIP", what, ppath);
				char	   *proto = JGetString(p, "protocol", what, ppath);

				(void) JInt32(JGet(p, "containerPort"), what, psprintf("%s.containerPort", ppath));
				if (host_port <= 0)
					continue;
				pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
				JPushString(&ps, WJB_KEY, "hostIP");
				JPushString(&ps, WJB_VALUE, (ip && ip[0]) ? ip : "0.0.0.0");
				JPushString(&ps, WJB_KEY, "protocol");
				JPushString(&ps, WJB_VALUE, (proto && proto[0]) ? proto : "TCP");
				JPushString(&ps, WJB_KEY, "hostPort");
				v.type = jbvNumeric;
				v.val.numeric = int64_to_numeric(host_port);
				pushJsonbValue(&ps, WJB_VALUE, &v);
				pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
			}
		}
	}
	*ports_out = JsonbValueToJsonb(pushJsonbValue(&ps, WJB_END_ARRAY, NULL));
	*images_out = JsonbValueToJsonb(pushJsonbValue(&is, WJB_END_ARRAY, NULL));
}

/* spec.schedulingGates [{"name": ...}] as a text[] of names */
static Datum
scheduling_gates(JsonbContainer *spec, const char *what)
{
	JsonbContainer *arr = JGetArray(spec, "schedulingGates", what, "spec");
	int			n = arr ? JsonContainerSize(arr) : 0;
	Datum	   *names = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		char	   *path = psprintf("spec.schedulingGates[%d]", i);
		char	   *name = JGetString(JObject(getIthJsonbValueFromContainer(arr, i), what, path), "name", what, path);

		if (name == NULL || name[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.name: required value", what, path)));
		names[i] = CStringGetTextDatum(name);
	}
	return PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * Batches
 *
 * Pods and nodes come one at a time, or in a batch (MirrorBatchBegin/End:
 * the watch worker's batches of events, a relist's items).  A batch gathers
 * the rows of each batched kind, the last one per uid winning, and writes
 * them with one DELETE and one INSERT ... ON CONFLICT per kind, nodes
 * first, so the tables' statement triggers (changelog, queue, QueueingHints)
 * run once per batch rather than once per object.
 * ------------------------------------------------------------------------
 */
#define POD_COLUMNS 25
#define NODE_COLUMNS 10

/*
 * The end of both pod upserts (one row, a batch): every column from the
 * incoming row; a reservation kept until the pod is seen bound, or until
 * its deletion starts (kube-scheduler's handleAssumedPodDeletion forgets
 * an assumed pod then: its room is free again, and the pods that wait for
 * room are moved as for an assigned pod's deletion); nothing written when
 * the object is unchanged.
 */
#define POD_UPSERT_REST \
	" node_name = EXCLUDED.node_name," \
	" assumed_node = CASE WHEN EXCLUDED.node_name IS NULL AND EXCLUDED.deletion_timestamp IS NULL" \
	"                THEN p.assumed_node END," \
	" scheduler_name = EXCLUDED.scheduler_name, priority = EXCLUDED.priority," \
	" phase = EXCLUDED.phase, deletion_timestamp = EXCLUDED.deletion_timestamp," \
	" labels = EXCLUDED.labels, node_selector = EXCLUDED.node_selector," \
	" tolerations = EXCLUDED.tolerations, affinity = EXCLUDED.affinity," \
	" requests = EXCLUDED.requests, nonzero_cpu = EXCLUDED.nonzero_cpu," \
	" nonzero_memory = EXCLUDED.nonzero_memory, object = EXCLUDED.object," \
	" host_ports = EXCLUDED.host_ports, images = EXCLUDED.images," \
	" has_sidecar = EXCLUDED.has_sidecar, scheduling_gates = EXCLUDED.scheduling_gates," \
	" volumes = EXCLUDED.volumes, pending_nonzero_cpu = EXCLUDED.pending_nonzero_cpu," \
	" pending_nonzero_memory = EXCLUDED.pending_nonzero_memory, updated_at = now()" \
	" WHERE p.object IS DISTINCT FROM EXCLUDED.object"

/* The end of both node upserts */
#define NODE_UPSERT_REST \
	" labels = EXCLUDED.labels, taints = EXCLUDED.taints, unschedulable = EXCLUDED.unschedulable," \
	" allocatable = EXCLUDED.allocatable, images = EXCLUDED.images," \
	" object = EXCLUDED.object, updated_at = now()" \
	" WHERE n.object IS DISTINCT FROM EXCLUDED.object"

static const Oid pod_types[POD_COLUMNS] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID, TEXTOID,
	TEXTOID, INT4OID, TEXTOID, TIMESTAMPTZOID, JSONBOID, JSONBOID, JSONBOID, JSONBOID,
JSONBOID, INT8OID, INT8OID, JSONBOID, JSONBOID, JSONBOID, BOOLOID, TEXTARRAYOID, JSONBOID, INT8OID, INT8OID};

static const Oid node_types[NODE_COLUMNS] = {TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID, JSONBOID, JSONBOID,
BOOLOID, JSONBOID, JSONBOID, JSONBOID};

/*
 * A batched kind: its columns (as its apply function fills them, the uid
 * first), the columns of its name (an older object of the same name is
 * gone), and its statements over arrays of rows.  A text[] column travels
 * as its text form.
 */
typedef struct BatchTable
{
	const char *table;
	const char *columns;		/* the table's names of the ncols columns, in order */
	int			ncols;
	const Oid  *types;
	int			ns_col;			/* the name's namespace column, or -1 */
	int			name_col;
	int			nkey;			/* $1 (uids) and the name's columns: $2 [, $3] */
	const char *older;			/* is there an older namesake? ($1.. the key) */
	const char *replace;		/* delete the older namesakes */
	const char *upsert;			/* $1..$ncols: the rows */
} BatchTable;

enum
{
	BATCH_NODES,				/* written first: a pod of the batch may be on one */
	BATCH_PODS,
	NBATCHED
};

static const BatchTable batch_tables[NBATCHED] = {
	[BATCH_NODES] = {
		.table = "scheduler.nodes",.ncols = NODE_COLUMNS,.types = node_types,
		.columns = "uid, name, resource_version, created_at, labels, taints, unschedulable, allocatable, images,"
		" object",
		.ns_col = -1,.name_col = 1,.nkey = 2,
		.older = "SELECT 1 FROM unnest($1, $2) AS d(uid, name),"
		" LATERAL (SELECT 1 FROM scheduler.nodes n WHERE n.name = d.name AND n.uid <> d.uid OFFSET 0) o LIMIT 1",
		.replace = "DELETE FROM scheduler.nodes n USING unnest($1, $2) AS d(uid, name)"
		" WHERE n.name = d.name AND n.uid <> d.uid",
		.upsert = "INSERT INTO scheduler.nodes AS n (uid, name, resource_version, created_at, labels, taints,"
		" unschedulable, allocatable, images, object)"
		" SELECT u.uid, u.name, u.rv,"
		"  coalesce(u.created, (SELECT o.created_at FROM scheduler.nodes o WHERE o.uid = u.uid), now()),"
		"  u.labels, u.taints, u.unsched, u.alloc, u.images, u.object"
		" FROM (SELECT unnest($1) AS uid, unnest($2) AS name, unnest($3) AS rv, unnest($4) AS created,"
		"  unnest($5) AS labels, unnest($6) AS taints, unnest($7) AS unsched, unnest($8) AS alloc,"
		"  unnest($9) AS images, unnest($10) AS object) u"
		" ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, resource_version = EXCLUDED.resource_version,"
		" created_at = EXCLUDED.created_at," NODE_UPSERT_REST
	},
	[BATCH_PODS] = {
		.table = "scheduler.pods",.ncols = POD_COLUMNS,.types = pod_types,
		.columns = "uid, namespace, name, resource_version, created_at, node_name, scheduler_name, priority,"
		" phase, deletion_timestamp, labels, node_selector, tolerations, affinity, requests, nonzero_cpu,"
		" nonzero_memory, object, host_ports, images, has_sidecar, scheduling_gates, volumes,"
		" pending_nonzero_cpu, pending_nonzero_memory",
		.ns_col = 1,.name_col = 2,.nkey = 3,
		.older = "SELECT 1 FROM unnest($1, $2, $3) AS d(uid, ns, name),"
		" LATERAL (SELECT 1 FROM scheduler.pods p WHERE p.namespace = d.ns AND p.name = d.name"
		"  AND p.uid <> d.uid OFFSET 0) o LIMIT 1",
		.replace = "DELETE FROM scheduler.pods p USING unnest($1, $2, $3) AS d(uid, ns, name)"
		" WHERE p.namespace = d.ns AND p.name = d.name AND p.uid <> d.uid",
		.upsert = "INSERT INTO scheduler.pods AS p (uid, namespace, name, resource_version, created_at,"
		" node_name, scheduler_name, priority, phase, deletion_timestamp, labels,"
		" node_selector, tolerations, affinity, requests, nonzero_cpu, nonzero_memory, object,"
		" host_ports, images, has_sidecar, scheduling_gates, volumes, pending_nonzero_cpu,"
		" pending_nonzero_memory)"
		" SELECT u.uid, u.ns, u.name, u.rv,"
		"  coalesce(u.created, (SELECT o.created_at FROM scheduler.pods o WHERE o.uid = u.uid), now()),"
		"  u.node, u.sched, u.prio, u.phase, u.deleting, u.labels, u.selector, u.tolerations,"
		"  u.affinity, u.requests, u.nzc, u.nzm, u.object, u.ports, u.images, u.sidecar,"
		"  u.gates::text[], u.volumes, u.pnzc, u.pnzm"
		" FROM (SELECT unnest($1) AS uid, unnest($2) AS ns, unnest($3) AS name, unnest($4) AS rv,"
		"  unnest($5) AS created, unnest($6) AS node, unnest($7) AS sched, unnest($8) AS prio,"
		"  unnest($9) AS phase, unnest($10) AS deleting, unnest($11) AS labels, unnest($12) AS selector,"
		"  unnest($13) AS tolerations, unnest($14) AS affinity, unnest($15) AS requests, unnest($16) AS nzc,"
		"  unnest($17) AS nzm, unnest($18) AS object, unnest($19) AS ports, unnest($20) AS images,"
		"  unnest($21) AS sidecar, unnest($22) AS gates, unnest($23) AS volumes, unnest($24) AS pnzc,"
		"  unnest($25) AS pnzm) u"
		" ON CONFLICT (uid) DO UPDATE SET namespace = EXCLUDED.namespace, name = EXCLUDED.name,"
		" resource_version = EXCLUDED.resource_version, created_at = EXCLUDED.created_at,"
		POD_UPSERT_REST
	},
};

/*
 * A batch's key: a uid (36 bytes from the API server), or the uid rule's
 * "<Kind>:<namespace>/<name>" (a DNS subdomain name is up to 253 bytes)
 */
#define BATCH_UID_MAX 512

typedef struct BatchRow
{
	char		uid[BATCH_UID_MAX];	/* hash key */
	bool		deleted;
	char	   *ns;				/* deleted: the object's namespace (NULL when none) and name */
	char	   *name;
	Datum	   *values;			/* of the table's columns */
	char	   *nulls;
	int			order;			/* of its last event in the batch */
} BatchRow;

/* An open batch (MirrorBatchBegin): its rows live in its own context */
struct MirrorBatch
{
	MemoryContext cxt;
	HTAB	   *rows[NBATCHED]; /* uid -> BatchRow, per batched kind */
	int			seq;			/* events gathered */
};

/*
 * Gather an object's row (or its deletion) into the batch.  The values are
 * kept as they are: they were made in the batch's memory (apply_object).
 */
static int
batch_row(MirrorBatch *batch, int bt, const char *uid, bool deleted, Datum *values, const char *nulls)
{
	const BatchTable *t = &batch_tables[bt];
	MemoryContext old;
	char		key[BATCH_UID_MAX];
	BatchRow   *row;
	bool		found;

	Assert(CurrentMemoryContext == batch->cxt); /* apply_object's */
	old = MemoryContextSwitchTo(batch->cxt);
	if (strlen(uid) >= sizeof(key))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("metadata.uid: longer than %d bytes", (int) sizeof(key) - 1)));
	memset(key, 0, sizeof(key));
	strcpy(key, uid);
	row = hash_search(batch->rows[bt], key, HASH_ENTER, &found);
	if (!found)
	{
		row->values = palloc(sizeof(Datum) * t->ncols);
		row->nulls = palloc(t->ncols);
	}
	row->deleted = deleted;
	row->ns = row->name = NULL;
	row->order = batch->seq++;
	if (!deleted)
	{
		memcpy(row->nulls, nulls, t->ncols);
		memcpy(row->values, values, sizeof(Datum) * t->ncols);
	}
	MemoryContextSwitchTo(old);
	return 0;					/* counted when the batch is written */
}

/* Gather an object's deletion into the batch, with its name (a what-if reads it) */
static int
batch_delete(MirrorBatch *batch, int bt, const MirrorObject *o)
{
	char		key[BATCH_UID_MAX];
	BatchRow   *row;

	(void) batch_row(batch, bt, o->uid, true, NULL, NULL);
	memset(key, 0, sizeof(key));
	strcpy(key, o->uid);		/* batch_row checked its length */
	row = hash_search(batch->rows[bt], key, HASH_FIND, NULL);
	row->ns = o->ns ? MemoryContextStrdup(batch->cxt, o->ns) : NULL;
	row->name = MemoryContextStrdup(batch->cxt, o->name ? o->name : "");
	return 0;
}

/*
 * MirrorBatchBegin
 *		Start gathering pods and nodes, to pass to MirrorApply;
 *		MirrorBatchEnd writes them.  The batch lives in the caller's memory
 *		context: after an error it is simply dropped.
 */
MirrorBatch *
MirrorBatchBegin(void)
{
	MirrorBatch *batch = palloc0(sizeof(MirrorBatch));
	HASHCTL		ctl;

	batch->cxt = AllocSetContextCreate(CurrentMemoryContext, "scheduler mirror batch", ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = BATCH_UID_MAX;
	ctl.entrysize = sizeof(BatchRow);
	ctl.hcxt = batch->cxt;
	for (int bt = 0; bt < NBATCHED; bt++)
		batch->rows[bt] = hash_create("scheduler mirror batch", 256, &ctl,
									  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	return batch;
}

static int
row_order_cmp(const void *a, const void *b)
{
	return (*(BatchRow *const *) a)->order - (*(BatchRow *const *) b)->order;
}

static char *
row_text(const BatchRow *row, int col)
{
	return col < 0 || row->nulls[col] == 'n' ? "" : TextDatumGetCString(row->values[col]);
}

/* Non-deleted rows by name (namespace, name: arg, the BatchTable), then order of their events */
static int
row_name_cmp(const void *a, const void *b, void *arg)
{
	const BatchTable *sorting = (const BatchTable *) arg;
	const BatchRow *x = *(BatchRow *const *) a;
	const BatchRow *y = *(BatchRow *const *) b;
	int			c = strcmp(row_text(x, sorting->ns_col), row_text(y, sorting->ns_col));

	if (c == 0)
		c = strcmp(row_text(x, sorting->name_col), row_text(y, sorting->name_col));
	return c != 0 ? c : x->order - y->order;
}

/*
 * Two uids under one name in a batch: an object was deleted and made again
 * between two events the batch gathered.  The later one is the object; the
 * earlier one is gone (as the name's older object in the table is).
 */
static void
one_row_per_name(const BatchTable *t, BatchRow **rows, int nrow)
{
	BatchRow  **live = palloc(sizeof(BatchRow *) * Max(nrow, 1));
	int			n = 0;

	for (int r = 0; r < nrow; r++)
		if (!rows[r]->deleted)
			live[n++] = rows[r];
	qsort_arg(live, n, sizeof(BatchRow *), row_name_cmp, (void *) t);
	for (int i = 0; i + 1 < n; i++)
		if (strcmp(row_text(live[i], t->ns_col), row_text(live[i + 1], t->ns_col)) == 0 &&
			strcmp(row_text(live[i], t->name_col), row_text(live[i + 1], t->name_col)) == 0)
			live[i]->deleted = true;
	pfree(live);
}

/*
 * The rows gathered for one kind, in the order of their events: the uids
 * of the deleted ones (*del), and the others as one array per column
 * (args, argtypes).  In the batch's context.
 */
static void
batch_arrays(const BatchTable *t, HTAB *hash, Datum **del, int *ndel, int *nup, Datum *args, Oid *argtypes)
{
	long		nrows = hash_get_num_entries(hash);
	BatchRow  **rows = palloc(sizeof(BatchRow *) * Max(nrows, 1));
	Datum	  **cols = palloc(sizeof(Datum *) * t->ncols);
	bool	  **colnulls = palloc(sizeof(bool *) * t->ncols);
	HASH_SEQ_STATUS seq;
	BatchRow   *row;
	int			nrow = 0;
	int			dims[1];
	int			lbs[1] = {1};

	hash_seq_init(&seq, hash);
	while ((row = hash_seq_search(&seq)) != NULL)
		rows[nrow++] = row;
	qsort(rows, nrow, sizeof(BatchRow *), row_order_cmp);
	one_row_per_name(t, rows, nrow);

	*del = palloc(sizeof(Datum) * Max(nrow, 1));
	*ndel = *nup = 0;
	for (int c = 0; c < t->ncols; c++)
	{
		cols[c] = palloc(sizeof(Datum) * Max(nrow, 1));
		colnulls[c] = palloc(sizeof(bool) * Max(nrow, 1));
	}
	for (int r = 0; r < nrow; r++)
	{
		if (rows[r]->deleted)
		{
			(*del)[(*ndel)++] = CStringGetTextDatum(rows[r]->uid);
			continue;
		}
		for (int c = 0; c < t->ncols; c++)
		{
			colnulls[c][*nup] = rows[r]->nulls[c] == 'n';
			cols[c][*nup] = rows[r]->values[c];
			if (t->types[c] == TEXTARRAYOID && !colnulls[c][*nup])
				cols[c][*nup] = CStringGetTextDatum(OidOutputFunctionCall(F_ARRAY_OUT, cols[c][*nup]));
		}
		(*nup)++;
	}
	dims[0] = *nup;
	for (int c = 0; c < t->ncols; c++)
	{
		Oid			elem = t->types[c] == TEXTARRAYOID ? TEXTOID : t->types[c];
		int16		len;
		bool		byval;
		char		align;

		get_typlenbyvalalign(elem, &len, &byval, &align);
		args[c] = PointerGetDatum(construct_md_array(cols[c], colnulls[c], 1, dims, lbs, elem, len, byval, align));
		argtypes[c] = get_array_type(elem);
	}
}

/* Write one kind's gathered rows; how many changed */
static int
batch_write(int bt, HTAB *hash, MemoryContext cxt)
{
	static SPIPlanPtr del_plan[NBATCHED];
	static SPIPlanPtr older_plan[NBATCHED];
	static SPIPlanPtr replace_plan[NBATCHED];
	static SPIPlanPtr upsert_plan[NBATCHED];
	const BatchTable *t = &batch_tables[bt];
	Datum	   *del;
	int			ndel;
	int			nup;
	Datum		args[Max(POD_COLUMNS, NODE_COLUMNS)];
	Oid			argtypes[Max(POD_COLUMNS, NODE_COLUMNS)];
	int			changed = 0;
	MemoryContext old;

	if (hash_get_num_entries(hash) == 0)
		return 0;
	old = MemoryContextSwitchTo(cxt);
	batch_arrays(t, hash, &del, &ndel, &nup, args, argtypes);
	MemoryContextSwitchTo(old);

	if (ndel > 0)
	{
		Oid			ty[1] = {TEXTARRAYOID};
		Datum		a[1] = {PointerGetDatum(construct_array(del, ndel, TEXTOID, -1, false, TYPALIGN_INT))};

		changed += exec(PlanKeptBatch(&del_plan[bt], psprintf("DELETE FROM %s WHERE uid = ANY($1)", t->table),
									  1, ty), a, NULL);
	}
	if (nup == 0)
		return changed;

	/*
	 * The same name with another uid is an older object: it is gone.  Looked
	 * for first, by the name's index (OFFSET 0 keeps the probe per row:
	 * joined, the planner hashes the whole table), and rare.
	 */
	if (exec(PlanKeptBatch(&older_plan[bt], t->older, t->nkey, argtypes), args, NULL) > 0)
		exec(PlanKeptBatch(&replace_plan[bt], t->replace, t->nkey, argtypes), args, NULL);
	/* not forced custom: a custom plan copies every array into its tree */
	return changed + exec(PlanKept(&upsert_plan[bt], t->upsert, t->ncols, argtypes), args, NULL);
}

/*
 * Write the gathered rows, nodes first: one DELETE for the deleted ones,
 * one for the older objects of the same names, one INSERT ... ON CONFLICT
 * for the rest, per kind.  Returns how many rows changed.  The caller has
 * SPI connected.
 */
int
MirrorBatchEnd(MirrorBatch *batch)
{
	MemoryContext cxt;
	int			changed = 0;

	if (batch == NULL || batch->cxt == NULL)
		elog(ERROR, "no mirror batch is open");
	cxt = batch->cxt;
	batch->cxt = NULL;			/* closed, whatever happens below */
	for (int bt = 0; bt < NBATCHED; bt++)
		changed += batch_write(bt, batch->rows[bt], cxt);
	MemoryContextDelete(cxt);
	for (int bt = 0; bt < NBATCHED; bt++)
		batch->rows[bt] = NULL;
	return changed;
}

/*
 * The columns a row of the table has beyond those a batch gathers, each
 * as ", <expression> AS <name>": the generated ones (generated) computed as
 * the table computes them, their expressions read from the catalog, over
 * the others; the others (assumed_node, updated_at) null: nothing is
 * assumed of a what-if.
 */
static char *
other_columns(const char *table, bool generated)
{
	Datum		args[2] = {CStringGetTextDatum(table), BoolGetDatum(generated)};
	Oid			types[2] = {TEXTOID, BOOLOID};
	bool		isnull;
	Datum		d;

	if (SPI_execute_with_args("SELECT string_agg(', ' || CASE WHEN a.attgenerated = 's'"
							  "   THEN pg_catalog.pg_get_expr(d.adbin, d.adrelid) ELSE 'NULL::'"
							  "   || pg_catalog.format_type(a.atttypid, a.atttypmod) END"
							  "   || ' AS ' || pg_catalog.quote_ident(a.attname), '' ORDER BY a.attnum)"
							  " FROM pg_catalog.pg_attribute a"
							  " LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
							  " WHERE a.attrelid = $1::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped"
							  " AND CASE WHEN $2 THEN a.attgenerated = 's'"
							  "          ELSE a.attname IN ('assumed_node', 'updated_at') END",
							  2, types, args, NULL, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the columns of %s", table);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? "" : TextDatumGetCString(d);
}

/*
 * MirrorBatchRead
 *		What a batch gathered of one kind, read without writing it (a
 *		what-if): *deleted the objects it deletes (MirrorDeletion: the uid,
 *		and the name the event gave, NULL for one replaced by a newer
 *		object of its name), and in
 *		SPI_tuptable the others, each as select_list reads it from a row of
 *		the kind's table named p, the FROM clause ending with from_rest
 *		(joins, or "").  The batch stays open.  The caller has SPI connected.
 */
void
MirrorBatchRead(MirrorBatch *batch, MirrorBatchKind kind, const char *select_list, const char *from_rest,
				List **deleted)
{
	const BatchTable *t = &batch_tables[kind == MIRROR_NODES ? BATCH_NODES : BATCH_PODS];
	HTAB	   *hash = batch->rows[kind == MIRROR_NODES ? BATCH_NODES : BATCH_PODS];
	Datum	   *del;
	int			ndel;
	int			nup;
	Datum		args[Max(POD_COLUMNS, NODE_COLUMNS)];
	Oid			argtypes[Max(POD_COLUMNS, NODE_COLUMNS)];
	StringInfoData sql;
	StringInfoData cols;
	char	   *plain = other_columns(t->table, false);
	char	   *generated = other_columns(t->table, true);
	char	   *names = pstrdup(t->columns);
	char	   *name;
	char	   *save;
	int			c = 0;
	MemoryContext old;

	if (batch == NULL || batch->cxt == NULL)
		elog(ERROR, "no mirror batch is open");
	old = MemoryContextSwitchTo(batch->cxt);
	batch_arrays(t, hash, &del, &ndel, &nup, args, argtypes);
	MemoryContextSwitchTo(old);
	*deleted = NIL;
	{
		HASH_SEQ_STATUS seq;
		BatchRow   *row;

		hash_seq_init(&seq, hash);
		while ((row = hash_seq_search(&seq)) != NULL)
			if (row->deleted)
			{
				MirrorDeletion *d = palloc0(sizeof(MirrorDeletion));

				d->uid = pstrdup(row->uid);
				d->ns = row->ns ? pstrdup(row->ns) : NULL;
				d->name = row->name ? pstrdup(row->name) : NULL;
				*deleted = lappend(*deleted, d);
			}
	}

	/* u: the gathered columns (a text[] travels as text); r: a whole row */
	initStringInfo(&cols);
	initStringInfo(&sql);
	for (name = strtok_r(names, ", ", &save); name; name = strtok_r(NULL, ", ", &save), c++)
		appendStringInfo(&cols, "%su.%s%s AS %s", c ? ", " : "", name,
						 t->types[c] == TEXTARRAYOID ? "::text[]" : "", name);
	if (c != t->ncols)
		elog(ERROR, "%s: %d columns named for %d gathered", t->table, c, t->ncols);
	appendStringInfo(&sql, "SELECT %s FROM (SELECT g.*%s FROM (SELECT %s%s FROM unnest(",
					 select_list, generated, cols.data, plain);
	for (int i = 0; i < t->ncols; i++)
		appendStringInfo(&sql, "%s$%d", i ? ", " : "", i + 1);
	appendStringInfo(&sql, ") AS u(%s)) g) p %s", t->columns, from_rest);
	if (SPI_execute_with_args(sql.data, t->ncols, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the gathered rows of %s", t->table);
}

/* ------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------
 */
static SPIPlanPtr node_upsert_plan;
static SPIPlanPtr node_replace_plan;
static SPIPlanPtr node_older_plan;

int
MirrorApplyNode(const MirrorObject *o, MirrorBatch *batch)
{
	JsonbValue *objv = o->objv;
	JsonbContainer *obj = o->obj;
	JsonbContainer *meta = o->meta;
	const char *what = o->what;
	Oid		   *types = (Oid *) node_types;
	Datum		values[NODE_COLUMNS];
	char		nulls[NODE_COLUMNS];
	JsonbContainer *spec = JGetObject(obj, "spec", what, NULL);
	JsonbContainer *status = JGetObject(obj, "status", what, NULL);
	JsonbContainer *alloc;
	const char *alloc_path = "status.allocatable";
	JsonbValue *labels = JGet(meta, "labels");
	JsonbValue *taints = JGet(spec, "taints");
	char	   *created = JGetString(meta, "creationTimestamp", what, "metadata");
	ResourceVec allocatable;

	memset(nulls, ' ', sizeof(nulls));

	/* SetDefaults_NodeStatus: allocatable defaults to capacity */
	alloc = JGetObject(status, "allocatable", what, "status");
	if (alloc == NULL)
	{
		alloc = JGetObject(status, "capacity", what, "status");
		alloc_path = "status.capacity";
	}
	memset(&allocatable, 0, sizeof(allocatable));
	ParseResourceList(alloc, &allocatable, NULL, what, alloc_path);
	(void) JGetArray(status, "images", what, "status");

	values[0] = CStringGetTextDatum(o->uid);
	values[1] = CStringGetTextDatum(o->name);
	values[2] = text_or_null(JGetString(meta, "resourceVersion", what, "metadata"), &nulls[2]);
	if (created)
		values[3] = parse_time(created, what, "metadata.creationTimestamp");
	else
		nulls[3] = 'n';
	values[4] = jsonb_or(labels, "{}");
	values[5] = jsonb_or(taints, "[]");
	values[6] = BoolGetDatum(JBool(JGet(spec, "unschedulable"), what, "spec.unschedulable"));
	values[7] = JsonbPGetDatum(ResourceVecToJsonb(&allocatable));
	values[8] = jsonb_or(JGet(status, "images"), "[]");
	values[9] = JsonbPGetDatum(JToJsonb(objv));

	if (batch)
		return batch_row(batch, BATCH_NODES, o->uid, false, values, nulls);

	/*
	 * The same name with another uid is an older object: it is gone.  Looked
	 * for first: a DELETE fires the table's statement triggers even when it
	 * finds nothing, and a relist applies every node of the list.
	 */
	if (exec(PlanKept(&node_older_plan,
					 "SELECT 1 FROM scheduler.nodes WHERE name = $2 AND uid <> $1 LIMIT 1",
					 2, types), values, nulls) > 0)
		exec(PlanKept(&node_replace_plan,
					 "DELETE FROM scheduler.nodes WHERE name = $2 AND uid <> $1",
					 2, types), values, nulls);

	return exec(PlanKept(&node_upsert_plan,
						"INSERT INTO scheduler.nodes AS n (uid, name, resource_version, created_at, labels, taints,"
						" unschedulable, allocatable, images, object)"
						" VALUES ($1, $2, $3, coalesce($4, now()), $5, $6, $7, $8, $9, $10)"
						" ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name,"
						" resource_version = EXCLUDED.resource_version,"
						" created_at = coalesce($4, n.created_at)," NODE_UPSERT_REST,
						NODE_COLUMNS, types), values, nulls);
}

/* Deleting a node: in a batch, gathered with the rest */
int
MirrorRemoveNode(const MirrorObject *o, MirrorBatch *batch)
{
	if (batch)
		return batch_delete(batch, BATCH_NODES, o);
	return MirrorDeleteRow(o);
}

/* ------------------------------------------------------------------------
 * Namespaces (their labels, for InterPodAffinity's namespaceSelector)
 * ------------------------------------------------------------------------
 */
static SPIPlanPtr namespace_upsert_plan;
static SPIPlanPtr namespace_replace_plan;

int
MirrorApplyNamespace(const MirrorObject *o, MirrorBatch *batch pg_attribute_unused())
{
	static Oid	types[] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID, JSONBOID};
	Datum		values[5];
	char		nulls[5];
	JsonbValue *labels = JGet(o->meta, "labels");

	memset(nulls, ' ', sizeof(nulls));
	values[0] = CStringGetTextDatum(o->uid);
	values[1] = CStringGetTextDatum(o->name);
	values[2] = text_or_null(JGetString(o->meta, "resourceVersion", o->what, "metadata"), &nulls[2]);
	values[3] = jsonb_or(labels, "{}");
	values[4] = JsonbPGetDatum(JToJsonb(o->objv));

	/* the same name with another uid is an older object: it is gone */
	exec(PlanKept(&namespace_replace_plan,
				 "DELETE FROM scheduler.namespaces WHERE name = $2 AND uid <> $1",
				 2, types), values, nulls);
	return exec(PlanKept(&namespace_upsert_plan,
						"INSERT INTO scheduler.namespaces AS n (uid, name, resource_version, labels, object)"
						" VALUES ($1, $2, $3, $4, $5)"
						" ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name,"
						" resource_version = EXCLUDED.resource_version, labels = EXCLUDED.labels,"
						" object = EXCLUDED.object, updated_at = now()"
						" WHERE n.object IS DISTINCT FROM EXCLUDED.object",
						5, types), values, nulls);
}

/* ------------------------------------------------------------------------
 * PodDisruptionBudgets (policy/v1), for DefaultPreemption
 * ------------------------------------------------------------------------
 */
static SPIPlanPtr pdb_upsert_plan;
static SPIPlanPtr pdb_replace_plan;

int
MirrorApplyPdb(const MirrorObject *o, MirrorBatch *batch pg_attribute_unused())
{
	JsonbContainer *obj = o->obj;
	const char *what = o->what;
	static Oid	types[] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, INT4OID, JSONBOID, JSONBOID};
	Datum		values[8];
	char		nulls[8];
	JsonbContainer *spec = JGetObject(obj, "spec", what, NULL);
	JsonbContainer *status = JGetObject(obj, "status", what, NULL);
	JsonbValue *selector = spec ? JGet(spec, "selector") : NULL;
	JsonbValue *allowed = status ? JGet(status, "disruptionsAllowed") : NULL;
	JsonbValue *disrupted = status ? JGet(status, "disruptedPods") : NULL;

	memset(nulls, ' ', sizeof(nulls));
	if (selector && selector->type != jbvNull)
		(void) JObject(selector, what, "spec.selector");
	if (disrupted && disrupted->type != jbvNull)
		(void) JObject(disrupted, what, "status.disruptedPods");
	values[0] = CStringGetTextDatum(o->uid);
	values[1] = CStringGetTextDatum(o->ns);
	values[2] = CStringGetTextDatum(o->name);
	values[3] = text_or_null(JGetString(o->meta, "resourceVersion", what, "metadata"), &nulls[3]);
	values[4] = jsonb_or_null(selector && selector->type != jbvNull ? selector : NULL, &nulls[4]);
	values[5] = Int32GetDatum((allowed && allowed->type != jbvNull) ?
							  JInt32(allowed, what, "status.disruptionsAllowed") : 0);
	values[6] = jsonb_or(disrupted && disrupted->type != jbvNull ? disrupted : NULL, "{}");
	values[7] = JsonbPGetDatum(JToJsonb(o->objv));

	exec(PlanKept(&pdb_replace_plan,
				 "DELETE FROM scheduler.pdbs WHERE namespace = $2 AND name = $3 AND uid <> $1",
				 3, types), values, nulls);
	return exec(PlanKept(&pdb_upsert_plan,
						"INSERT INTO scheduler.pdbs AS b (uid, namespace, name, resource_version, selector,"
						" disruptions_allowed, disrupted_pods, object)"
						" VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
						" ON CONFLICT (uid) DO UPDATE SET namespace = EXCLUDED.namespace, name = EXCLUDED.name,"
						" resource_version = EXCLUDED.resource_version, selector = EXCLUDED.selector,"
						" disruptions_allowed = EXCLUDED.disruptions_allowed,"
						" disrupted_pods = EXCLUDED.disrupted_pods, object = EXCLUDED.object, updated_at = now()"
						" WHERE b.object IS DISTINCT FROM EXCLUDED.object",
						8, types), values, nulls);
}

/* ------------------------------------------------------------------------
 * Workloads: Services and ReplicationControllers (spec.selector a label
 * map), ReplicaSets and StatefulSets (a LabelSelector), for
 * PodTopologySpread's system default constraints
 * ------------------------------------------------------------------------
 */
static SPIPlanPtr workload_upsert_plan;
static SPIPlanPtr workload_replace_plan;

int
MirrorApplyWorkload(const MirrorObject *o, MirrorBatch *batch pg_attribute_unused())
{
	static Oid	types[] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, JSONBOID};
	Datum		values[7];
	char		nulls[7];
	JsonbContainer *spec = JGetObject(o->obj, "spec", o->what, NULL);
	JsonbValue *selector = spec ? JGet(spec, "selector") : NULL;

	memset(nulls, ' ', sizeof(nulls));
	values[0] = CStringGetTextDatum(o->uid);
	values[1] = CStringGetTextDatum(o->kind->kind);
	values[2] = CStringGetTextDatum(o->ns);
	values[3] = CStringGetTextDatum(o->name);
	values[4] = text_or_null(JGetString(o->meta, "resourceVersion", o->what, "metadata"), &nulls[4]);
	values[5] = jsonb_or_null(selector && selector->type != jbvNull ? selector : NULL, &nulls[5]);
	values[6] = JsonbPGetDatum(JToJsonb(o->objv));

	exec(PlanKept(&workload_replace_plan,
				 "DELETE FROM scheduler.workloads WHERE kind = $2 AND namespace = $3 AND name = $4 AND uid <> $1",
				 4, types), values, nulls);
	return exec(PlanKept(&workload_upsert_plan,
						"INSERT INTO scheduler.workloads AS w (uid, kind, namespace, name, resource_version, selector, object)"
						" VALUES ($1, $2, $3, $4, $5, $6, $7)"
						" ON CONFLICT (uid) DO UPDATE SET kind = EXCLUDED.kind, namespace = EXCLUDED.namespace,"
						" name = EXCLUDED.name, resource_version = EXCLUDED.resource_version,"
						" selector = EXCLUDED.selector, object = EXCLUDED.object, updated_at = now()"
						" WHERE w.object IS DISTINCT FROM EXCLUDED.object",
						7, types), values, nulls);
}

/* ------------------------------------------------------------------------
 * Objects kept whole: the storage kinds (volumes.c reads them).  Their
 * tables hold the uid, the namespace (if namespaced), the name, the
 * resourceVersion and the object; the typed columns are generated from the
 * object by the table.
 * ------------------------------------------------------------------------
 */
int
MirrorApplyObject(const MirrorObject *o, MirrorBatch *batch pg_attribute_unused())
{
	static SPIPlanPtr *upserts = NULL;	/* per kind */
	static SPIPlanPtr *replaces = NULL;
	static Oid	ns_types[] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	static Oid	types[] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	const MirrorKind *k = o->kind;
	int			ki = k - MirrorKinds;
	bool		ns = k->namespaced;
	Datum		values[5];
	char		nulls[5];
	int			n = 0;

	if (upserts == NULL)
	{
		upserts = MemoryContextAllocZero(TopMemoryContext, sizeof(SPIPlanPtr) * NumMirrorKinds);
		replaces = MemoryContextAllocZero(TopMemoryContext, sizeof(SPIPlanPtr) * NumMirrorKinds);
	}
	if (upserts[ki] == NULL)
	{
		const char *cols = ns ? "namespace, name" : "name";
		const char *vals = ns ? "$1, $2, $3, $4, $5" : "$1, $2, $3, $4";

		(void) PlanKept(&replaces[ki], ns ?
						psprintf("DELETE FROM %s WHERE namespace = $2 AND name = $3 AND uid <> $1", k->table) :
						psprintf("DELETE FROM %s WHERE name = $2 AND uid <> $1", k->table),
						ns ? 3 : 2, ns ? ns_types : types);
		(void) PlanKept(&upserts[ki],
						psprintf("INSERT INTO %s AS t (uid, %s, resource_version, object) VALUES (%s)"
								 " ON CONFLICT (uid) DO UPDATE SET %s name = EXCLUDED.name,"
								 " resource_version = EXCLUDED.resource_version,"
								 " object = EXCLUDED.object, updated_at = now()"
								 " WHERE t.object IS DISTINCT FROM EXCLUDED.object",
								 k->table, cols, vals, ns ? "namespace = EXCLUDED.namespace," : ""),
						ns ? 5 : 4, ns ? ns_types : types);
	}
	memset(nulls, ' ', sizeof(nulls));
	values[n++] = CStringGetTextDatum(o->uid);
	if (ns)
		values[n++] = CStringGetTextDatum(o->ns);
	values[n++] = CStringGetTextDatum(o->name);
	values[n] = text_or_null(JGetString(o->meta, "resourceVersion", o->what, "metadata"), &nulls[n]);
	n++;
	values[n++] = JsonbPGetDatum(JToJsonb(o->objv));

	/* the same name with another uid is an older object: it is gone */
	exec(replaces[ki], values, nulls);
	return exec(upserts[ki], values, nulls);
}

/* ------------------------------------------------------------------------
 * Pods
 * ------------------------------------------------------------------------
 */
static SPIPlanPtr pod_upsert_plan;
static SPIPlanPtr pod_replace_plan;

/* What a pod's row holds of its resources (scheduler.pods, resources.c) */
typedef struct PodRequestColumns
{
	Jsonb	   *requests;
	int64		nonzero_cpu;	/* as a node counts the pod */
	int64		nonzero_memory;
	bool		pending_differs;	/* a pending pod the scorer reads otherwise */
	int64		pending_cpu;
	int64		pending_memory;
} PodRequestColumns;

/*
 * The request of a pod on a node (spec.nodeName set) as NodeInfo reads it,
 * of a pending one as the pod scheduled; the non-zero pair as a node
 * counts the pod, and, for a pending pod the scorer reads otherwise, the
 * scorer's.
 */
static void
pod_request_columns(JsonbContainer *spec, JsonbContainer *status, const char *what, PodRequestColumns *out)
{
	char	   *node = JGetString(spec, "nodeName", what, "spec");
	bool		assigned = node != NULL && node[0] != '\0';
	ResourceVec req;

	PodEffectiveRequests(spec, status, assigned, what, &req, &out->nonzero_cpu, &out->nonzero_memory,
						 &out->pending_cpu, &out->pending_memory);
	out->requests = ResourceVecToJsonb(&req);
	out->pending_differs = !assigned &&
		(out->pending_cpu != out->nonzero_cpu || out->pending_memory != out->nonzero_memory);
}

PG_FUNCTION_INFO_V1(scheduler_pod_requests);
/*
 * scheduler.pod_requests(pod jsonb): what apply() would store of a Pod's
 * resources, from the object alone (read as apply() reads it: the same
 * errors, naming the field).
 */
Datum
scheduler_pod_requests(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	JsonbContainer *obj;
	JsonbContainer *meta;
	char	   *kind;
	char	   *ns;
	char	   *name;
	const char *what;
	PodRequestColumns c;
	TupleDesc	desc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (!JB_ROOT_IS_OBJECT(doc) || JB_ROOT_IS_SCALAR(doc))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scheduler.pod_requests: pod: must be a JSON object (a Pod)")));
	obj = &doc->root;
	kind = JGetString(obj, "kind", "Pod", "(object)");
	if (kind != NULL && strcmp(kind, "Pod") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scheduler.pod_requests: kind: must be \"Pod\", not \"%s\"", JShort(kind))));
	meta = JGetObject(obj, "metadata", "Pod", NULL);
	ns = JGetString(meta, "namespace", "Pod", "metadata");
	name = JGetString(meta, "name", "Pod", "metadata");
	what = psprintf("Pod %s/%s", JShort(ns && ns[0] ? ns : "default"), JShort(name ? name : ""));
	pod_request_columns(JGetObject(obj, "spec", what, NULL), JGetObject(obj, "status", what, NULL), what, &c);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "scheduler.pod_requests: a composite result is expected");
	values[0] = JsonbPGetDatum(c.requests);
	values[1] = Int64GetDatum(c.nonzero_cpu);
	values[2] = Int64GetDatum(c.nonzero_memory);
	values[3] = Int64GetDatum(c.pending_cpu);
	values[4] = Int64GetDatum(c.pending_memory);
	nulls[3] = nulls[4] = !c.pending_differs;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

int
MirrorApplyPod(const MirrorObject *o, MirrorBatch *batch)
{
	JsonbValue *objv = o->objv;
	JsonbContainer *obj = o->obj;
	JsonbContainer *meta = o->meta;
	const char *what = o->what;
	const char *uid = o->uid;
	Oid		   *types = (Oid *) pod_types;
	Datum		values[POD_COLUMNS];
	char		nulls[POD_COLUMNS];
	Jsonb	   *host_ports;
	Jsonb	   *images;
	bool		has_sidecar;
	Jsonb	   *volumes;
	JsonbContainer *spec = JGetObject(obj, "spec", what, NULL);
	JsonbContainer *status = JGetObject(obj, "status", what, NULL);
	JsonbValue *labels = JGet(meta, "labels");
	JsonbValue *selector = JGet(spec, "nodeSelector");
	JsonbValue *tolerations = JGet(spec, "tolerations");
	JsonbValue *affinity = JGet(spec, "affinity");
	char	   *created = JGetString(meta, "creationTimestamp", what, "metadata");
	char	   *deleted = JGetString(meta, "deletionTimestamp", what, "metadata");
	char	   *sched = JGetString(spec, "schedulerName", what, "spec");
	PodRequestColumns rc;

	memset(nulls, ' ', sizeof(nulls));
	pod_request_columns(spec, status, what, &rc);
	container_facts(spec, what, &host_ports, &images, &has_sidecar);

	values[0] = CStringGetTextDatum(uid);
	values[1] = CStringGetTextDatum(o->ns);
	values[2] = CStringGetTextDatum(o->name);
	values[3] = text_or_null(JGetString(meta, "resourceVersion", what, "metadata"), &nulls[3]);
	if (created)
		values[4] = parse_time(created, what, "metadata.creationTimestamp");
	else
		nulls[4] = 'n';
	values[5] = text_or_null(JGetString(spec, "nodeName", what, "spec"), &nulls[5]);
	if (nulls[5] == ' ' && TextDatumGetCString(values[5])[0] == '\0')
		nulls[5] = 'n';
	values[6] = CStringGetTextDatum(sched && sched[0] ? sched : "default-scheduler");
	values[7] = Int32GetDatum(JInt32(JGet(spec, "priority"), what, "spec.priority"));
	values[8] = text_or_null(JGetString(status, "phase", what, "status"), &nulls[8]);
	if (deleted)
		values[9] = parse_time(deleted, what, "metadata.deletionTimestamp");
	else
		nulls[9] = 'n';
	values[10] = jsonb_or(labels, "{}");
	/* absent and empty differ for NodeAffinity's PreFilter */
	values[11] = jsonb_or_null(selector, &nulls[11]);
	values[12] = jsonb_or(tolerations, "[]");
	values[13] = jsonb_or(affinity, "{}");
	values[14] = JsonbPGetDatum(rc.requests);
	values[15] = Int64GetDatum(rc.nonzero_cpu);
	values[16] = Int64GetDatum(rc.nonzero_memory);
	values[17] = JsonbPGetDatum(JToJsonb(objv));
	values[18] = JsonbPGetDatum(host_ports);
	values[19] = JsonbPGetDatum(images);
	values[20] = BoolGetDatum(has_sidecar);
	values[21] = scheduling_gates(spec, what);
	volumes = PodVolumesColumn(spec, what);
	values[22] = volumes ? JsonbPGetDatum(volumes) : (Datum) 0;
	nulls[22] = volumes ? ' ' : 'n';
	values[23] = Int64GetDatum(rc.pending_cpu);
	values[24] = Int64GetDatum(rc.pending_memory);
	if (!rc.pending_differs)
		nulls[23] = nulls[24] = 'n';

	if (batch)
		return batch_row(batch, BATCH_PODS, uid, false, values, nulls);

	exec(PlanKept(&pod_replace_plan,
				 "DELETE FROM scheduler.pods WHERE namespace = $2 AND name = $3 AND uid <> $1",
				 3, types), values, nulls);

	return exec(PlanKept(&pod_upsert_plan,
						"INSERT INTO scheduler.pods AS p (uid, namespace, name, resource_version, created_at,"
						" node_name, scheduler_name, priority, phase, deletion_timestamp, labels,"
						" node_selector, tolerations, affinity, requests, nonzero_cpu, nonzero_memory, object,"
						" host_ports, images, has_sidecar, scheduling_gates, volumes, pending_nonzero_cpu,"
						" pending_nonzero_memory)"
						" VALUES ($1, $2, $3, $4, coalesce($5, now()), $6, $7, $8, $9, $10, $11, $12, $13,"
						" $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"
						" ON CONFLICT (uid) DO UPDATE SET namespace = EXCLUDED.namespace, name = EXCLUDED.name,"
						" resource_version = EXCLUDED.resource_version, created_at = coalesce($5, p.created_at),"
						POD_UPSERT_REST,
						POD_COLUMNS, types), values, nulls);
}

/*
 * MirrorDeleteRow
 *		The row of an object's uid goes from its kind's table: how an object
 *		is removed, unless its kind says otherwise.
 */
int
MirrorDeleteRow(const MirrorObject *o)
{
	static SPIPlanPtr *plans = NULL;	/* per kind */
	static Oid	types[] = {TEXTOID};
	int			ki = o->kind - MirrorKinds;
	Datum		v[1] = {CStringGetTextDatum(o->uid)};

	if (plans == NULL)
		plans = MemoryContextAllocZero(TopMemoryContext, sizeof(SPIPlanPtr) * NumMirrorKinds);
	if (plans[ki] == NULL)
		(void) PlanKept(&plans[ki], psprintf("DELETE FROM %s WHERE uid = $1", o->kind->table), 1, types);
	return exec(plans[ki], v, NULL);
}

/* Deleting a pod: in a batch, gathered with the rest */
int
MirrorRemovePod(const MirrorObject *o, MirrorBatch *batch)
{
	if (batch)
		return batch_delete(batch, BATCH_PODS, o);
	return MirrorDeleteRow(o);
}

/* ------------------------------------------------------------------------
 * Dispatch, by the table of kinds (kinds.c)
 * ------------------------------------------------------------------------
 */
static void
apply_hint(void)
{
	errhint("scheduler.apply accepts %s, a List of them, or a watch event.", KindsText(false));
}

/*
 * Read an object's identity, checking its metadata as the API server would
 * (ValidateObjectMeta).  An object without metadata.uid (hand-written) gets
 * the kind's uid rule's (KindUid).
 */
static void
object_id(JsonbValue *objv, const char *kind, const char *where, MirrorObject *o)
{
	const MirrorKind *k = KindByName(kind);
	const char *kname;

	if (k == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s%sunsupported kind \"%s\"", where ? where : "", where ? ": " : "", JShort(kind)),
				 apply_hint()));
	kname = KindLabel(k);
	memset(o, 0, sizeof(*o));
	o->kind = k;
	o->objv = objv;
	o->obj = JObject(objv, kname, "(object)");
	o->meta = JGetObject(o->obj, "metadata", kname, NULL);
	o->name = JGetString(o->meta, "name", kname, "metadata");
	if (o->name == NULL || o->name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: metadata.name: Required value", kname)));
	if (k->namespaced)
	{
		o->ns = JGetString(o->meta, "namespace", kname, "metadata");
		if (o->ns == NULL || o->ns[0] == '\0')
			o->ns = "default";
		o->what = psprintf("%s %s/%s", kname, JShort(o->ns), JShort(o->name));
	}
	else
		o->what = psprintf("%s %s", kname, JShort(o->name));
	ValidateObjectMeta(k, o->meta, o->what);
	o->uid = JGetString(o->meta, "uid", o->what, "metadata");
	if (o->uid == NULL || o->uid[0] == '\0')
		o->uid = KindUid(k, o->ns, o->name);
}

/* Apply (or, with deleted, remove) one object. */
static int
apply_object(JsonbValue *objv, const char *kind, bool deleted, const char *where, ApplyCtx *ctx)
{
	MirrorObject o;
	ErrorContextCallback cb;
	MemoryContext old = NULL;
	int			n;

	object_id(objv, kind, where, &o);
	if (ctx->only)
	{
		/* relist(): every item of its list's kind, its uid kept */
		if (o.kind != ctx->only)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: a %s in a %s", where ? where : "", o.kind->kind, ctx->only->list_kind)));
		ctx->uids = lappend(ctx->uids, o.uid);
	}

	/* a what-if gathers what a batch holds (nodes and pods), and writes nothing */
	if (ctx->what_if && o.kind->apply != MirrorApplyNode && o.kind->apply != MirrorApplyPod)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: only Node and Pod changes can be simulated", o.what)));

	cb.callback = apply_error_callback;
	cb.arg = (void *) o.what;
	cb.previous = error_context_stack;
	error_context_stack = &cb;

	/*
	 * Within a batch, what the object's apply makes lives in the batch's
	 * memory, freed when the batch is written: its row is kept there as it
	 * was made (batch_row), and a relist's objects do not pile up.
	 */
	if (ctx->batch)
		old = MemoryContextSwitchTo(ctx->batch->cxt);
	if (deleted)
	{
		n = o.kind->remove ? o.kind->remove(&o, ctx->batch) : MirrorDeleteRow(&o);
	}
	else
	{
		ValidateObject(o.kind, o.obj, o.what);
		n = o.kind->apply(&o, ctx->batch);
	}
	if (ctx->batch)
		MemoryContextSwitchTo(old);

	error_context_stack = cb.previous;
	return n;
}

/* Apply a watch event of type type; objv is its object, NULL when none. */
static int
apply_event(const char *type, JsonbValue *objv, ApplyCtx *ctx)
{
	JsonbContainer *obj;
	char	   *kind;
	bool		deleted;

	/* the type first: an event of no known type says nothing of its object */
	if (strcmp(type, "BOOKMARK") == 0)
		return 0;
	if (strcmp(type, "ERROR") == 0)
	{
		char	   *msg;
		char	   *reason;
		JsonbValue *code;

		obj = JObject(objv, "watch ERROR event", "object");
		msg = JGetString(obj, "message", "watch ERROR event", "object");
		reason = JGetString(obj, "reason", "watch ERROR event", "object");
		code = JGet(obj, "code");
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("watch ERROR event: %s", msg ? JCut(msg, strlen(msg), 500) : "(no message)"),
				 errdetail("reason: %s, code: %s", reason ? JShort(reason) : "(none)",
						   code ? JShortScalar(code) : "(none)")));
	}
	if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0)
		deleted = false;
	else if (strcmp(type, "DELETED") == 0)
		deleted = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("watch event: type: Unsupported value: \"%s\": supported values: \"ADDED\", \"BOOKMARK\", \"DELETED\", \"ERROR\", \"MODIFIED\"",
						JShort(type))));
	if (objv == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("watch event: object: Required value")));
	obj = JObject(objv, "watch event", "object");
	kind = JGetString(obj, "kind", "watch event", "object");
	if (kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("watch event: object.kind: Required value")));
	return apply_object(objv, kind, deleted, "watch event: object", ctx);
}

/* Item i of a List of kind (whose items are of item_kind when they say none) */
static int
apply_list_item(JsonbContainer *items, int i, const char *kind, const char *item_kind, ApplyCtx *ctx)
{
	char	   *path = psprintf("items[%d]", i);
	JsonbValue *item = getIthJsonbValueFromContainer(items, i);
	const char *ik = JGetString(JObject(item, kind, path), "kind", kind, path);

	if (ik == NULL)
		ik = item_kind;
	if (ik == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s.kind: Required value", JShort(kind), path)));
	return apply_object(item, ik, false, psprintf("%s: %s", kind, path), ctx);
}

/*
 * A List's items (but those in left_out), their pods and nodes written in
 * batches of LIST_BATCH (MirrorBatch) as the watch writes its events, when
 * the caller has no batch of its own: one by one, each pod's statement ran
 * the pods trigger's statements for one row, each planned anew (20000 pods
 * through apply(): 27.7 billion instructions, half of them planning; in
 * batches 4.3).  Returns how many objects changed.
 */
static int
apply_items(JsonbContainer *items, const char *list_kind, const char *item_kind, Bitmapset *left_out,
			ApplyCtx *ctx)
{
	int			n = 0;
	bool		own = (ctx->batch == NULL && !ctx->what_if);

	if (own)
		ctx->batch = MirrorBatchBegin();
	for (int i = 0; i < (int) JsonContainerSize(items); i++)
	{
		if (!bms_is_member(i, left_out))
			n += apply_list_item(items, i, list_kind, item_kind, ctx);
		if (own && (i + 1) % LIST_BATCH == 0)
		{
			n += MirrorBatchEnd(ctx->batch);
			ctx->batch = MirrorBatchBegin();
		}
	}
	if (own)
	{
		n += MirrorBatchEnd(ctx->batch);
		ctx->batch = NULL;
	}
	return n;
}

/* The kind of a List's items when they say none: "Pod" of "PodList" */
static char *
item_kind_of(const char *list_kind)
{
	size_t		klen = strlen(list_kind);

	return klen > 4 ? pnstrdup(list_kind, klen - 4) : NULL;
}

static bool
is_list_kind(const char *kind)
{
	size_t		klen = strlen(kind);

	return klen >= 4 && strcmp(kind + klen - 4, "List") == 0;
}

static int
apply_document(JsonbValue *docv, ApplyCtx *ctx)
{
	JsonbContainer *doc = docv->val.binary.data;
	char	   *kind = JGetString(doc, "kind", "document", NULL);

	if (kind == NULL)
	{
		char	   *type = JGetString(doc, "type", "watch event", NULL);

		/* a watch event: its type is checked first, then its object */
		if (type)
			return apply_event(type, JGet(doc, "object"), ctx);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("document has neither \"kind\" nor \"type\" and \"object\""),
				 apply_hint()));
	}

	if (is_list_kind(kind))
	{
		JsonbContainer *items = JGetArray(doc, "items", kind, NULL);

		return items ? apply_items(items, kind, item_kind_of(kind), NULL, ctx) : 0;
	}

	return apply_object(docv, kind, false, NULL, ctx);
}

static JsonbValue *
document_value(Jsonb *doc, JsonbValue *docv)
{
	docv->type = jbvBinary;
	docv->val.binary.data = &doc->root;
	docv->val.binary.len = VARSIZE(doc) - VARHDRSZ;
	return docv;
}

/*
 * MirrorApply
 *		Apply a document (an object, a List, a watch event), its pods
 *		gathered into batch when one is given.  The caller has SPI
 *		connected and the right to write (the watch worker, or an entry
 *		point below after its role check).
 */
int
MirrorApply(Jsonb *doc, MirrorBatch *batch)
{
	JsonbValue	docv;
	ApplyCtx	ctx = {.batch = batch};

	if (!JB_ROOT_IS_OBJECT(doc))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scheduler.apply expects a JSON object, got %s",
						JB_ROOT_IS_ARRAY(doc) && !JB_ROOT_IS_SCALAR(doc) ? "an array" : "a scalar"),
				 apply_hint()));
	return apply_document(document_value(doc, &docv), &ctx);
}

/*
 * MirrorApplyWhatIf
 *		Gather a document's nodes and pods into batch, as MirrorApply
 *		would apply them (validated, in order, the last event of an object
 *		winning), for MirrorBatchRead: any other kind is refused, nothing is
 *		written.
 */
int
MirrorApplyWhatIf(Jsonb *doc, MirrorBatch *batch)
{
	JsonbValue	docv;
	ApplyCtx	ctx = {.batch = batch,.what_if = true};

	if (batch == NULL)
		elog(ERROR, "a what-if needs a batch");
	if (!JB_ROOT_IS_OBJECT(doc))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a change must be a JSON object (an object, a List or a watch event), got %s",
						JB_ROOT_IS_ARRAY(doc) && !JB_ROOT_IS_SCALAR(doc) ? "an array" : "a scalar")));
	return apply_document(document_value(doc, &docv), &ctx);
}

/*
 * MirrorApplyListItem
 *		Apply item i of a List alone, as apply() would apply a List of that
 *		item only (the watch worker, finding which items of a list fail).
 */
int
MirrorApplyListItem(Jsonb *list, int i)
{
	ApplyCtx	ctx = {0};
	char	   *kind = JB_ROOT_IS_OBJECT(list) ? JGetString(&list->root, "kind", "list", NULL) : NULL;
	JsonbContainer *items = JB_ROOT_IS_OBJECT(list) ? JGetArray(&list->root, "items", "list", NULL) : NULL;

	if (kind == NULL)
		kind = "List";
	if (items == NULL || i < 0 || i >= (int) JsonContainerSize(items))
		elog(ERROR, "a list has no item %d", i);
	return apply_list_item(items, i, kind, is_list_kind(kind) ? item_kind_of(kind) : NULL, &ctx);
}

PG_FUNCTION_INFO_V1(scheduler_apply);
/*
 * scheduler.apply(doc jsonb) RETURNS integer
 *		Apply an object of a kind the scheduler mirrors, a List of them, or
 *		a watch event.
 */
Datum
scheduler_apply(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	AsOwner		as;
	int			n;

	AsOwnerBegin(&as, ROLE_WRITER, "apply objects to the scheduler's mirror");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	n = MirrorApply(doc, NULL);
	SPI_finish();
	AsOwnerEnd(&as);
	PG_RETURN_INT32(n);
}

PG_FUNCTION_INFO_V1(scheduler_apply_events);
/*
 * scheduler.apply_events(events jsonb[]) RETURNS integer
 *		Apply watch events (or objects) in order, as one batch: what the watch
 *		worker does with a batch of lines.
 */
Datum
scheduler_apply_events(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elems;
	bool	   *isnull;
	int			n;
	int			changed = 0;
	AsOwner		as;
	MirrorBatch *batch;

	AsOwnerBegin(&as, ROLE_WRITER, "apply objects to the scheduler's mirror");
	deconstruct_array(arr, JSONBOID, -1, false, TYPALIGN_INT, &elems, &isnull, &n);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	batch = MirrorBatchBegin();
	for (int i = 0; i < n; i++)
	{
		if (isnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("scheduler.apply_events: events[%d] is null", i + 1)));
		if (!JB_ROOT_IS_OBJECT(DatumGetJsonbP(elems[i])))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scheduler.apply_events: events[%d]: expected a JSON object", i + 1)));
		changed += MirrorApply(DatumGetJsonbP(elems[i]), batch);
	}
	changed += MirrorBatchEnd(batch);
	SPI_finish();
	AsOwnerEnd(&as);
	PG_RETURN_INT32(changed);
}

/* ------------------------------------------------------------------------
 * relist(): a List as the whole truth
 * ------------------------------------------------------------------------
 */


/* The rows of kind k whose uids are in neither uids nor keep go */
static int
delete_unlisted(const MirrorKind *k, Datum uids, Datum keep)
{
	Oid			types[3] = {TEXTARRAYOID, TEXTARRAYOID, TEXTOID};
	Datum		args[3] = {uids, keep, CStringGetTextDatum(k->kind)};

	/* NOT IN over a hashed subplan: linear in the list (a uid is never NULL) */
	if (SPI_execute_with_args(psprintf("DELETE FROM %s t WHERE %s t.uid <> ALL($2)"
									   " AND t.uid NOT IN (SELECT unnest($1))",
									   k->table, k->by_kind ? "t.kind = $3 AND" : ""),
							  3, types, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not delete what the list no longer has");
	return (int) SPI_processed;
}

/*
 * The resourceVersion a watch of resource resumes from (a list's, or a
 * batch's last); a list's also says when the resource was last listed
 * (listed_at, for the metrics)
 */
static void
store_resource_version(const char *resource, const char *rv, bool listed)
{
	Oid			types[3] = {TEXTOID, TEXTOID, BOOLOID};
	Datum		args[3] = {CStringGetTextDatum(resource), CStringGetTextDatum(rv), BoolGetDatum(listed)};

	if (SPI_execute_with_args("INSERT INTO scheduler.watch_state AS w (resource, resource_version, listed_at)"
							  " VALUES ($1, $2, CASE WHEN $3 THEN now() END)"
							  " ON CONFLICT (resource) DO UPDATE"
							  " SET resource_version = EXCLUDED.resource_version, updated_at = now(),"
							  " listed_at = coalesce(EXCLUDED.listed_at, w.listed_at)",
							  3, types, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not store the resourceVersion of %s", resource);
}

void
MirrorStoreResourceVersion(const char *resource, const char *rv)
{
	store_resource_version(resource, rv, false);
}

/*
 * MirrorRelist
 *		A List of one kind as the whole truth: its items applied (but those
 *		in left_out, by index), the rows of that kind it no longer has
 *		deleted (but the uids in keep, a text[]), its resourceVersion stored
 *		for the watch.  Returns how many objects changed.  SPI connected.
 */
int
MirrorRelist(Jsonb *doc, Datum keep, Bitmapset *left_out)
{
	char	   *list_kind;
	const MirrorKind *k = NULL;
	ApplyCtx	ctx = {0};
	int			changed = 0;
	JsonbContainer *items;
	JsonbContainer *md;
	char	   *rv;

	if (!JB_ROOT_IS_OBJECT(doc))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scheduler.relist expects a JSON object")));
	list_kind = JGetString(&doc->root, "kind", "list", NULL);
	if (list_kind)
		k = KindByListKind(list_kind);
	if (k == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scheduler.relist expects a %s, got kind %s", KindsText(true),
						list_kind ? psprintf("'%s'", JShort(list_kind)) : "none")));
	items = JGetArray(&doc->root, "items", list_kind, NULL);
	if (items == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: items: expected an array", list_kind)));
	md = JGetObject(&doc->root, "metadata", list_kind, NULL);
	rv = JGetString(md, "resourceVersion", list_kind, "metadata");

	ctx.only = k;
	changed += apply_items(items, list_kind, k->kind, left_out, &ctx);
	changed += delete_unlisted(k, TextArrayFromList(ctx.uids), keep);
	if (rv && rv[0] != '\0')
		store_resource_version(k->resource, rv, true);
	return changed;
}

PG_FUNCTION_INFO_V1(scheduler_relist);
/*
 * scheduler.relist(doc jsonb, keep text[] DEFAULT '{}') RETURNS integer
 *		A list of one kind as the whole truth: its items applied, the rows of
 *		that kind it no longer has deleted (but the uids in keep), its
 *		resourceVersion stored for the watch.  Returns how many objects
 *		changed, the deleted ones included.
 */
Datum
scheduler_relist(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	AsOwner		as;
	int			n;

	AsOwnerBegin(&as, ROLE_WRITER, "apply objects to the scheduler's mirror");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	n = MirrorRelist(doc, PG_GETARG_DATUM(1), NULL);
	SPI_finish();
	AsOwnerEnd(&as);
	PG_RETURN_INT32(n);
}
