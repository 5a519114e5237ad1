/*
 * codec.c
 *	  The pod's shape, once.
 *
 * pod_columns.def lists the fields of the pod to schedule (PodInfo): each
 * with the SQL that reads it, and here its decoder (decode_<id>) and its
 * signer (sign_<id>).  PodInfo itself, the SELECT list and the decoding
 * loop are made from that list, so a field cannot be added to one and
 * missed by another.  An equivalence class (equivalence.c) is the text of
 * the fields the profile's plugins sign (Plugin.sign, as kube-scheduler's
 * SignPod): a plugin that reads a field signs it.
 *
 * IDENTIFICATION
 *	  src/codec.c
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "codec.h"
#include "jsonutil.h"
#include "pod_volumes.h"

StaticAssertDecl(POD_NCOLUMNS <= 64, "a PodKey's fields are a 64-bit mask");

/* ------------------------------------------------------------------------
 * Pieces of stored rows
 * ------------------------------------------------------------------------
 */
Jsonb *
TupleJsonb(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? NULL : DatumGetJsonbPCopy(d);
}

int64
TupleInt64(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

/* A string member, NULL when absent, not a string or empty */
char *
JStr(JsonbContainer *c, const char *key)
{
	JsonbValue *v = JGet(c, key);

	if (v == NULL || v->type != jbvString || v->val.string.len == 0)
		return NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

JsonbContainer *
JArrayElem(Jsonb *jb, int i)
{
	JsonbValue *v = getIthJsonbValueFromContainer(&jb->root, i);

	return (v && v->type == jbvBinary) ? v->val.binary.data : NULL;
}

/* Elements of an array; 0 for NULL or what is not an array */
int
JArrayLen(Jsonb *jb)
{
	if (jb == NULL || !JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_SCALAR(jb))
		return 0;
	return JB_ROOT_COUNT(jb);
}

Taint *
TaintsFromJsonb(Jsonb *jb, int *n)
{
	int			count = JArrayLen(jb);
	Taint	   *taints = palloc0(sizeof(Taint) * Max(count, 1));

	for (int i = 0; i < count; i++)
	{
		JsonbContainer *c = JArrayElem(jb, i);
		char	   *value = JStr(c, "value");

		taints[i].key = JStr(c, "key");
		taints[i].value = value ? value : "";
		taints[i].effect = JStr(c, "effect");
	}
	*n = count;
	return taints;
}

Toleration *
TolerationsFromJsonb(Jsonb *jb, int *n)
{
	int			count = JArrayLen(jb);
	Toleration *tols = palloc0(sizeof(Toleration) * Max(count, 1));

	for (int i = 0; i < count; i++)
	{
		JsonbContainer *c = JArrayElem(jb, i);
		char	   *value = JStr(c, "value");

		tols[i].key = JStr(c, "key");
		tols[i].operator = JStr(c, "operator");
		tols[i].value = value ? value : "";
		tols[i].effect = JStr(c, "effect");
	}
	*n = count;
	return tols;
}

/*
 * [{"hostIP", "protocol", "hostPort"}] as the mirror stores them.  A port
 * that is not an integer in 1..65535 is left out, and *err says so.
 */
HostPort *
HostPortsFromJsonb(Jsonb *jb, int *n, char **err)
{
	int			count = JArrayLen(jb);
	HostPort   *ports = count ? palloc0(sizeof(HostPort) * count) : NULL;
	int			k = 0;

	*err = NULL;
	if (jb && count == 0 && !(JB_ROOT_IS_ARRAY(jb) && !JB_ROOT_IS_SCALAR(jb)))
		*err = "host_ports: not an array";
	for (int i = 0; i < count; i++)
	{
		JsonbContainer *c = JArrayElem(jb, i);
		int32		port;

		if (!JValueInt32(JGet(c, "hostPort"), &port) || port < 1 || port > 65535)
		{
			*err = psprintf("host_ports[%d].hostPort: not a port number", i);
			continue;
		}
		ports[k].ip = JStr(c, "hostIP");
		ports[k].protocol = JStr(c, "protocol");
		ports[k].port = port;
		k++;
	}
	*n = k;
	return ports;
}

/*
 * status.images as the mirror stores them ([{"names": [...], "sizeBytes"}]):
 * each name of each image counts once for the node.  What is not of that
 * shape is left out (*err says so).
 */
static NodeImage *
node_images(Jsonb *images, int *nimages, char **err)
{
	int			count = JArrayLen(images);
	NodeImage  *out = palloc0(sizeof(NodeImage) * Max(count, 1));
	int			cap = Max(count, 1);
	int			k = 0;

	*err = NULL;
	for (int i = 0; i < count; i++)
	{
		JsonbContainer *img = JArrayElem(images, i);
		JsonbValue *names = JGet(img, "names");
		JsonbValue *size = JGet(img, "sizeBytes");
		int64		bytes = 0;

		if (size && (!JValueInt64(size, &bytes) || bytes < 0))
		{
			*err = psprintf("images[%d].sizeBytes: not a size", i);
			bytes = 0;
		}
		if (names == NULL || names->type != jbvBinary || !JsonContainerIsArray(names->val.binary.data))
			continue;
		for (int j = 0; j < (int) JsonContainerSize(names->val.binary.data); j++)
		{
			JsonbValue *nm = getIthJsonbValueFromContainer(names->val.binary.data, j);

			if (nm->type != jbvString)
				continue;
			if (k == cap)
			{
				cap *= 2;
				out = repalloc(out, sizeof(NodeImage) * cap);
			}
			out[k].name = pnstrdup(nm->val.string.val, nm->val.string.len);
			out[k].size = bytes;
			k++;
		}
	}
	*nimages = k;
	return out;
}

/* ------------------------------------------------------------------------
 * A pod on a node (pod_ref_columns.def) and a node (node_columns.def)
 * ------------------------------------------------------------------------
 */
#define POD_REF_COLUMN(id, sql) ", " sql
static const char pod_ref_columns[] =
#include "pod_ref_columns.def"
;
#undef POD_REF_COLUMN
const char *const PodRefColumns = pod_ref_columns + 2;	/* past the first ", " */

#define NODE_COLUMN(id, sql) ", " sql
static const char node_columns[] =
#include "node_columns.def"
;
#undef NODE_COLUMN
const char *const NodeColumns = node_columns + 2;

/*
 * A stored row's columns, taken apart once (heap_deform_tuple) for the
 * decoders that read them by number: read one by one, each column past a
 * varlena one was found again from the row's start.
 */
typedef struct Deformed
{
	HeapTuple	tup;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
} Deformed;

static void
deform(Deformed *d, HeapTuple tup, TupleDesc desc, int ncolumns)
{
	if (desc->natts < ncolumns)
		elog(ERROR, "a row of %d columns where %d are read", desc->natts, ncolumns);
	d->tup = tup;
	d->desc = desc;
	d->values = palloc(sizeof(Datum) * desc->natts);
	d->nulls = palloc(sizeof(bool) * desc->natts);
	heap_deform_tuple(tup, desc, d->values, d->nulls);
}

static void
deformed_free(Deformed *d)
{
	pfree(d->values);
	pfree(d->nulls);
}

/* column col (1-based) as text, or NULL; a text column without its output function */
static char *
deformed_text(const Deformed *d, int col)
{
	if (d->nulls[col - 1])
		return NULL;
	if (TupleDescAttr(d->desc, col - 1)->atttypid == TEXTOID)
		return TextDatumGetCString(d->values[col - 1]);
	return SPI_getvalue(d->tup, d->desc, col);
}

static Datum
deformed_datum(const Deformed *d, int col, bool *isnull)
{
	*isnull = d->nulls[col - 1];
	return d->values[col - 1];
}

static Jsonb *
deformed_jsonb(const Deformed *d, int col)
{
	return d->nulls[col - 1] ? NULL : DatumGetJsonbPCopy(d->values[col - 1]);
}

static int64
deformed_int64(const Deformed *d, int col)
{
	return d->nulls[col - 1] ? 0 : DatumGetInt64(d->values[col - 1]);
}

/* A cell being decoded; what is kept goes to keep, the rest is scratch */
typedef struct RowRead
{
	Deformed	row;
	int			col;			/* 1-based */
	MemoryContext keep;
	List	  **problems;
	bool		counts;			/* a PodRef's: takes room on its node */
} RowRead;

static void
problem(RowRead *r, const char *field, const char *err)
{
	if (err)
		*r->problems = lappend(*r->problems, field ? psprintf("%s: %s", field, err) : pstrdup(err));
}

static char *
read_text(RowRead *r)
{
	return deformed_text(&r->row, r->col);
}

static char *
keep_text(RowRead *r, const char *dflt)
{
	char	   *s = read_text(r);

	return MemoryContextStrdup(r->keep, s ? s : dflt);
}

static bool
read_bool(RowRead *r)
{
	bool		isnull;
	Datum		d = deformed_datum(&r->row, r->col, &isnull);

	return !isnull && DatumGetBool(d);
}

static Jsonb *
read_jsonb(RowRead *r)
{
	return deformed_jsonb(&r->row, r->col);
}

/* a jsonb object kept, or NULL (for what is none, noted when field is given) */
static Jsonb *
keep_object(RowRead *r, const char *field)
{
	Jsonb	   *jb = read_jsonb(r);

	if (jb && !JB_ROOT_IS_OBJECT(jb))
	{
		if (field)
			problem(r, field, "not an object");
		return NULL;
	}
	if (jb == NULL)
		return NULL;
	return memcpy(MemoryContextAlloc(r->keep, VARSIZE(jb)), jb, VARSIZE(jb));
}

static void
decode_ref_uid(PodRef *p, RowRead *r)
{
	p->uid = read_text(r);		/* not kept: the caller keys it */
}

static void
decode_ref_node(PodRef *p, RowRead *r)
{
	p->node = read_text(r);		/* kept once the row is a PodRef */
}

static void
decode_ref_counts(PodRef *p pg_attribute_unused(), RowRead *r)
{
	r->counts = read_bool(r);
}

static void
decode_ref_namespace(PodRef *p, RowRead *r)
{
	p->namespace = keep_text(r, "");
}

static void
decode_ref_name(PodRef *p, RowRead *r)
{
	p->name = keep_text(r, "");
}

/* a normalized resource list (resources.c), kept; what cannot be read noted */
static void
keep_resources(RowRead *r, ResourceVec *out, const char *field)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old = MemoryContextSwitchTo(r->keep);
	char	   *err = NULL;
	bool		ok = ResourceVecFromNormalized(out, jb, &err);

	MemoryContextSwitchTo(old);
	if (!ok)
		problem(r, field, err);
}

static void
decode_ref_requests(PodRef *p, RowRead *r)
{
	keep_resources(r, &p->requests, "requests");
}

static int64
read_nonnegative(RowRead *r, const char *field)
{
	int64		n = deformed_int64(&r->row, r->col);

	if (n < 0)
	{
		problem(r, field, "negative");
		return 0;
	}
	return n;
}

static void
decode_ref_nonzero_cpu(PodRef *p, RowRead *r)
{
	p->nonzero_cpu = read_nonnegative(r, "nonzero_cpu");
}

static void
decode_ref_nonzero_memory(PodRef *p, RowRead *r)
{
	p->nonzero_memory = read_nonnegative(r, "nonzero_memory");
}

static void
decode_ref_ports(PodRef *p, RowRead *r)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old = MemoryContextSwitchTo(r->keep);
	char	   *err;

	p->ports = HostPortsFromJsonb(jb, &p->nports, &err);
	MemoryContextSwitchTo(old);
	problem(r, NULL, err);
}

static void
decode_ref_labels(PodRef *p, RowRead *r)
{
	p->labels = keep_object(r, NULL);
}

/* Terms that do not parse are left out, as kube-scheduler's cache does */
static void
decode_ref_affinity(PodRef *p, RowRead *r)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old = MemoryContextSwitchTo(r->keep);
	char	   *err;

	p->affinity = PodAffinityParse(jb, p->namespace, p->labels, &err);
	MemoryContextSwitchTo(old);
}

static void
decode_ref_terminating(PodRef *p, RowRead *r)
{
	p->terminating = read_bool(r);
}

static void
decode_ref_priority(PodRef *p, RowRead *r)
{
	bool		isnull;
	Datum		d = deformed_datum(&r->row, r->col, &isnull);

	p->priority = isnull ? 0 : DatumGetInt32(d);
}

static void
decode_ref_start_time(PodRef *p, RowRead *r)
{
	bool		isnull;
	Datum		d = deformed_datum(&r->row, r->col, &isnull);

	p->start_time = isnull ? 0 : DatumGetTimestampTz(d);
}

/* the volumes (volumes.c), kept; a column that does not read is noted */
static void
decode_ref_volumes(PodRef *p, RowRead *r)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old;
	char	   *err = NULL;

	if (jb == NULL)
		return;
	old = MemoryContextSwitchTo(r->keep);
	p->volumes = PodVolumesFromJsonb(jb, p->name, &p->nvolumes, &err);
	MemoryContextSwitchTo(old);
	problem(r, "volumes", err);
}

typedef void (*PodRefDecoder) (PodRef *p, RowRead *r);

static const PodRefDecoder pod_ref_decoders[] = {
#define POD_REF_COLUMN(id, sql) decode_ref_##id,
#include "pod_ref_columns.def"
#undef POD_REF_COLUMN
};

StaticAssertDecl(lengthof(pod_ref_decoders) == POD_REF_NCOLUMNS, "a decoder per column");
StaticAssertDecl(POD_REF_COL_uid < POD_REF_COL_counts && POD_REF_COL_node < POD_REF_COL_counts,
				 "whether a row is a PodRef is read first");

bool
PodRefFromTuple(PodRef *p, HeapTuple tup, TupleDesc desc, MemoryContext keep, List **problems)
{
	RowRead		r = {{0}, 0, keep, problems, false};
	bool		counted = true;

	memset(p, 0, sizeof(*p));
	deform(&r.row, tup, desc, POD_REF_NCOLUMNS);
	for (int i = 0; i < POD_REF_NCOLUMNS && counted; i++)
	{
		r.col = i + 1;
		pod_ref_decoders[i] (p, &r);
		if (i == POD_REF_COL_counts)
		{
			if (p->uid == NULL || p->node == NULL || !r.counts)
				counted = false;
			else if (strlen(p->node) >= NODE_NAME_KEYSIZE)
			{
				problem(&r, NULL, "its node's name is longer than a node name can be; it counts on no node");
				counted = false;
			}
			else
				p->node = MemoryContextStrdup(keep, p->node);
		}
	}
	deformed_free(&r.row);
	return counted;
}

static void
decode_nodecol_uid(NodeInfo *n, RowRead *r)
{
	n->uid = keep_text(r, "");
}

static void
decode_nodecol_name(NodeInfo *n, RowRead *r)
{
	if (n->name == NULL)
		n->name = keep_text(r, "");
}

static void
decode_nodecol_unschedulable(NodeInfo *n, RowRead *r)
{
	n->unschedulable = read_bool(r);
}

static void
decode_nodecol_labels(NodeInfo *n, RowRead *r)
{
	n->labels = keep_object(r, "labels");
}

static void
decode_nodecol_taints(NodeInfo *n, RowRead *r)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old = MemoryContextSwitchTo(r->keep);

	n->taints = TaintsFromJsonb(jb, &n->ntaints);
	MemoryContextSwitchTo(old);
}

static void
decode_nodecol_allocatable(NodeInfo *n, RowRead *r)
{
	keep_resources(r, &n->allocatable, "allocatable");
}

static void
decode_nodecol_images(NodeInfo *n, RowRead *r)
{
	Jsonb	   *jb = read_jsonb(r);
	MemoryContext old = MemoryContextSwitchTo(r->keep);
	char	   *err;

	n->images = node_images(jb, &n->nimages, &err);
	MemoryContextSwitchTo(old);
	problem(r, NULL, err);
}

typedef void (*NodeDecoder) (NodeInfo *n, RowRead *r);

static const NodeDecoder node_decoders[] = {
#define NODE_COLUMN(id, sql) decode_nodecol_##id,
#include "node_columns.def"
#undef NODE_COLUMN
};

StaticAssertDecl(lengthof(node_decoders) == NODE_NCOLUMNS, "a decoder per column");

void
NodeInfoFromTuple(NodeInfo *n, HeapTuple tup, TupleDesc desc, MemoryContext keep, List **problems)
{
	RowRead		r = {{0}, 0, keep, problems, false};

	deform(&r.row, tup, desc, NODE_NCOLUMNS);
	for (int i = 0; i < NODE_NCOLUMNS; i++)
	{
		r.col = i + 1;
		node_decoders[i] (n, &r);
	}
	deformed_free(&r.row);
	n->exists = true;
}

/* ------------------------------------------------------------------------
 * The pod to schedule (pod_columns.def)
 * ------------------------------------------------------------------------
 */
#define POD_COLUMN(id, sql, declaration) ", " sql
static const char pod_info_columns[] =
#include "pod_columns.def"
;
#undef POD_COLUMN

const char *const PodInfoColumns = pod_info_columns + 2;	/* past the first ", " */

/* The first problem found in a stored row, for PodInfo.invalid */
static void
note_invalid(PodInfo *pod, const char *column, const char *err)
{
	if (err && pod->invalid == NULL)
		pod->invalid = psprintf("%s: %s", column, err);
}

typedef struct PodCell
{
	Deformed	row;
	int			col;			/* 1-based */
} PodCell;

static char *
cell_text(const PodCell *c)
{
	return deformed_text(&c->row, c->col);
}

static Datum
cell_datum(const PodCell *c, bool *isnull)
{
	return deformed_datum(&c->row, c->col, isnull);
}

static Jsonb *
cell_jsonb(const PodCell *c)
{
	return deformed_jsonb(&c->row, c->col);
}

/* a jsonb object (or NULL); what is not one is noted and left out */
static Jsonb *
cell_object(PodInfo *pod, const PodCell *c, const char *what)
{
	Jsonb	   *jb = cell_jsonb(c);

	if (jb && !JB_ROOT_IS_OBJECT(jb))
	{
		note_invalid(pod, what, "not an object");
		return NULL;
	}
	return jb;
}

static Jsonb *
cell_array(PodInfo *pod, const PodCell *c, const char *what)
{
	Jsonb	   *jb = cell_jsonb(c);

	if (jb && (!JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_SCALAR(jb)))
	{
		note_invalid(pod, what, "not an array");
		return NULL;
	}
	return jb;
}

static char *
cell_identity(PodInfo *pod, const PodCell *c, const char *what)
{
	char	   *s = cell_text(c);

	if (s == NULL)
		note_invalid(pod, what, "null");
	return s ? s : "";
}

static void
decode_uid(PodInfo *pod, const PodCell *c)
{
	pod->uid = cell_identity(pod, c, "uid");
}

static void
decode_namespace(PodInfo *pod, const PodCell *c)
{
	pod->namespace = cell_identity(pod, c, "namespace");
}

static void
decode_name(PodInfo *pod, const PodCell *c)
{
	pod->name = cell_identity(pod, c, "name");
}

static void
decode_node_name(PodInfo *pod, const PodCell *c)
{
	pod->node_name = cell_text(c);
}

static void
decode_priority(PodInfo *pod, const PodCell *c)
{
	bool		isnull;
	Datum		d = cell_datum(c, &isnull);

	pod->priority = isnull ? 0 : DatumGetInt32(d);
}

static void
decode_requests(PodInfo *pod, const PodCell *c)
{
	char	   *err;

	ResourceVecFromNormalized(&pod->requests, cell_jsonb(c), &err);
	note_invalid(pod, "requests", err);
}

/* as a node counts the pod */
static void
decode_placed_nonzero_cpu(PodInfo *pod, const PodCell *c)
{
	pod->placed_nonzero_cpu = deformed_int64(&c->row, c->col);
	if (pod->placed_nonzero_cpu < 0)
		note_invalid(pod, "nonzero_cpu", "negative");
}

static void
decode_placed_nonzero_memory(PodInfo *pod, const PodCell *c)
{
	pod->placed_nonzero_memory = deformed_int64(&c->row, c->col);
	if (pod->placed_nonzero_memory < 0)
		note_invalid(pod, "nonzero_memory", "negative");
}

/*
 * as NodeResourcesFit's scorer reads it: pending_nonzero_*, or as a node
 * counts it (NULL: the same)
 */
static void
pending_or_placed(PodInfo *pod, const PodCell *c, int64 placed, int64 *out, const char *column)
{
	if (c->row.nulls[c->col - 1])
		*out = placed;
	else if ((*out = deformed_int64(&c->row, c->col)) < 0)
		note_invalid(pod, column, "negative");
}

static void
decode_nonzero_cpu(PodInfo *pod, const PodCell *c)
{
	pending_or_placed(pod, c, pod->placed_nonzero_cpu, &pod->nonzero_cpu, "pending_nonzero_cpu");
}

static void
decode_nonzero_memory(PodInfo *pod, const PodCell *c)
{
	pending_or_placed(pod, c, pod->placed_nonzero_memory, &pod->nonzero_memory, "pending_nonzero_memory");
}

static void
decode_tolerations(PodInfo *pod, const PodCell *c)
{
	pod->tolerations = TolerationsFromJsonb(cell_jsonb(c), &pod->ntolerations);
}

static void
decode_labels(PodInfo *pod, const PodCell *c)
{
	pod->labels = cell_object(pod, c, "labels");
}

static void
decode_node_selector(PodInfo *pod, const PodCell *c)
{
	pod->node_selector = cell_object(pod, c, "node_selector");
}

static void
decode_affinity(PodInfo *pod, const PodCell *c)
{
	pod->affinity = cell_object(pod, c, "affinity");
}

static void
decode_ports(PodInfo *pod, const PodCell *c)
{
	char	   *err;

	pod->ports = HostPortsFromJsonb(cell_jsonb(c), &pod->nports, &err);
	note_invalid(pod, "host_ports", err);
}

static void
decode_images(PodInfo *pod, const PodCell *c)
{
	Jsonb	   *images = cell_jsonb(c);

	pod->nimages = JArrayLen(images);
	pod->images = palloc0(sizeof(char *) * Max(pod->nimages, 1));
	for (int i = 0; i < pod->nimages; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&images->root, i);

		pod->images[i] = v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : "";
	}
}

static void
decode_has_sidecar(PodInfo *pod, const PodCell *c)
{
	bool		isnull;
	Datum		d = cell_datum(c, &isnull);

	pod->has_sidecar = !isnull && DatumGetBool(d);
}

static void
decode_spread(PodInfo *pod, const PodCell *c)
{
	pod->spread = cell_array(pod, c, "spec.topologySpreadConstraints");
}

static void
decode_preempt_never(PodInfo *pod, const PodCell *c)
{
	char	   *policy = cell_text(c);

	pod->preempt_never = policy && strcmp(policy, "Never") == 0;
}

static void
decode_nominated_node(PodInfo *pod, const PodCell *c)
{
	pod->nominated_node = cell_text(c);
}

static void
decode_owner_refs(PodInfo *pod, const PodCell *c)
{
	pod->owner_refs = cell_array(pod, c, "metadata.ownerReferences");
}

static void
decode_volumes(PodInfo *pod, const PodCell *c)
{
	char	   *err = NULL;

	pod->volumes = PodVolumesFromJsonb(cell_jsonb(c), pod->name, &pod->nvolumes, &err);
	note_invalid(pod, "volumes", err);
}

typedef void (*PodDecoder) (PodInfo *pod, const PodCell *c);

static const PodDecoder pod_decoders[] = {
#define POD_COLUMN(id, sql, declaration) decode_##id,
#include "pod_columns.def"
#undef POD_COLUMN
};

StaticAssertDecl(lengthof(pod_decoders) == POD_NCOLUMNS, "a decoder per column");

/*
 * A pod to schedule, from a row of PodInfoColumns (more columns may follow).
 * It never throws: what cannot be read (a row written past
 * scheduler.apply()) is left out, and pod->invalid says what, so that this
 * pod's cycle fails alone.
 */
void
PodInfoFromTuple(PodInfo *pod, HeapTuple tup, TupleDesc desc)
{
	PodInfoFromTupleAt(pod, tup, desc, 1);
}

/* As PodInfoFromTuple, the columns from column first (1-based) on */
void
PodInfoFromTupleAt(PodInfo *pod, HeapTuple tup, TupleDesc desc, int first)
{
	PodCell		c = {{0}, 0};

	if (first < 1)
		elog(ERROR, "a pod's columns from column %d", first);
	memset(pod, 0, sizeof(*pod));
	deform(&c.row, tup, desc, first - 1 + POD_NCOLUMNS);
	for (int i = 0; i < POD_NCOLUMNS; i++)
	{
		c.col = first + i;
		pod_decoders[i] (pod, &c);
	}
	deformed_free(&c.row);
}

/* ------------------------------------------------------------------------
 * Signatures
 * ------------------------------------------------------------------------
 */
/*
 * an integer's digits (pg_lltoa: no format string to parse, once per field
 * of every pod), written in place, NUL-terminated as pg_lltoa ends them
 */
static void
append_int(StringInfo buf, int64 v)
{
	enlargeStringInfo(buf, MAXINT8LEN);
	buf->len += pg_lltoa(v, buf->data + buf->len);
}

/* a string in a signature: its length first, so no two lists read alike */
static void
sign_counted(StringInfo buf, const char *s)
{
	size_t		len;

	if (s == NULL)
	{
		appendStringInfoString(buf, "-;");
		return;
	}
	len = strlen(s);
	append_int(buf, (int64) len);
	appendStringInfoChar(buf, ':');
	appendBinaryStringInfo(buf, s, (int) len);
}

/*
 * A field's string: counted too, as an image (which the API server takes
 * with any characters but blanks) may hold the separator: ["a|b", "c"] and
 * ["a", "b|c"] read alike uncounted.
 */
static void
sign_str(StringInfo buf, const char *s)
{
	appendStringInfoCharMacro(buf, '|');
	sign_counted(buf, s);
}

static void
sign_jsonb(StringInfo buf, Jsonb *jb)
{
	appendStringInfoChar(buf, '|');
	if (jb)
	{
		/*
		 * its stored bytes, counted, in hex: jsonb stores an object's keys
		 * sorted and unique, so the same JSON is stored in the same bytes
		 * however its keys came ordered (two values stored apart would
		 * only not share a class).  Printing it walked the value, per pod.
		 */
		size_t		len = VARSIZE(jb) - VARHDRSZ;

		append_int(buf, (int64) len);
		appendStringInfoChar(buf, ':');
		enlargeStringInfo(buf, (int) (len * 2));
		buf->len += (int) hex_encode((const char *) VARDATA(jb), len, buf->data + buf->len);
		buf->data[buf->len] = '\0';
	}
	else
		appendStringInfoChar(buf, '\x01');
}

static void
sign_int(StringInfo buf, int64 v)
{
	appendStringInfoCharMacro(buf, '|');
	append_int(buf, v);
}

static void
sign_uid(const PodInfo *pod, StringInfo buf)
{
	sign_str(buf, pod->uid);
}

static void
sign_namespace(const PodInfo *pod, StringInfo buf)
{
	sign_str(buf, pod->namespace);
}

static void
sign_name(const PodInfo *pod, StringInfo buf)
{
	sign_str(buf, pod->name);
}

static void
sign_node_name(const PodInfo *pod, StringInfo buf)
{
	sign_str(buf, pod->node_name);
}

static void
sign_priority(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->priority);
}

static void
sign_requests(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->requests.cpu);
	sign_int(buf, pod->requests.memory);
	sign_int(buf, pod->requests.ephemeral);
	sign_int(buf, pod->requests.pods);
	for (int i = 0; i < pod->requests.nscalar; i++)
		appendStringInfo(buf, "|%s=%lld", pod->requests.scalar[i].name, (long long) pod->requests.scalar[i].value);
}

/* no plugin's verdict or score reads them: only what the pod leaves on its node */
static void
sign_placed_nonzero_cpu(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->placed_nonzero_cpu);
}

static void
sign_placed_nonzero_memory(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->placed_nonzero_memory);
}

static void
sign_nonzero_cpu(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->nonzero_cpu);
}

static void
sign_nonzero_memory(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->nonzero_memory);
}

static void
sign_tolerations(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->ntolerations);
	for (int i = 0; i < pod->ntolerations; i++)
	{
		const Toleration *t = &pod->tolerations[i];

		sign_str(buf, t->key);
		sign_str(buf, t->operator);
		sign_str(buf, t->value);
		sign_str(buf, t->effect);
	}
}

static void
sign_labels(const PodInfo *pod, StringInfo buf)
{
	sign_jsonb(buf, pod->labels);
}

static void
sign_node_selector(const PodInfo *pod, StringInfo buf)
{
	sign_jsonb(buf, pod->node_selector);
}

static void
sign_affinity(const PodInfo *pod, StringInfo buf)
{
	sign_jsonb(buf, pod->affinity);
}

static void
sign_ports(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->nports);
	for (int i = 0; i < pod->nports; i++)
	{
		sign_str(buf, pod->ports[i].ip);
		sign_str(buf, pod->ports[i].protocol);
		sign_int(buf, pod->ports[i].port);
	}
}

static void
sign_images(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->nimages);
	for (int i = 0; i < pod->nimages; i++)
		sign_str(buf, pod->images[i]);
}

static void
sign_has_sidecar(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->has_sidecar);
}

static void
sign_spread(const PodInfo *pod, StringInfo buf)
{
	sign_jsonb(buf, pod->spread);
}

static void
sign_preempt_never(const PodInfo *pod, StringInfo buf)
{
	sign_int(buf, pod->preempt_never);
}

static void
sign_nominated_node(const PodInfo *pod, StringInfo buf)
{
	sign_str(buf, pod->nominated_node);
}

static void
sign_owner_refs(const PodInfo *pod, StringInfo buf)
{
	sign_jsonb(buf, pod->owner_refs);
}

static void
sign_volumes(const PodInfo *pod, StringInfo buf)
{
	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *v = &pod->volumes[i];

		appendStringInfo(buf, "%d,%d,%d,%d,%d,", (int) v->kind, (int) v->read_only, v->lun,
						 v->partition, v->nmonitors);
		sign_counted(buf, v->name);
		sign_counted(buf, v->claim);
		sign_counted(buf, v->disk);
		sign_counted(buf, v->pool);
		sign_counted(buf, v->portal);
		sign_counted(buf, v->fs_type);
		for (int j = 0; j < v->nmonitors; j++)
			sign_counted(buf, v->monitors[j]);
	}
}

typedef void (*PodSigner) (const PodInfo *pod, StringInfo buf);

static const PodSigner pod_signers[] = {
#define POD_COLUMN(id, sql, declaration) sign_##id,
#include "pod_columns.def"
#undef POD_COLUMN
};

StaticAssertDecl(lengthof(pod_signers) == POD_NCOLUMNS, "a signer per column");

void
PodKeyInit(PodKey *key)
{
	key->fields = 0;
	initStringInfo(&key->extra);
}

/* The signer reads these fields of the pod (POD_FIELD(id) | ...) */
void
PodKeyAdd(PodKey *key, uint64 fields)
{
	key->fields |= fields;
}

/* The signature as text: each field signed, once, in column order; then the extra */
char *
PodKeyText(PodKey *key, const PodInfo *pod)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < POD_NCOLUMNS; i++)
		if (key->fields & (UINT64CONST(1) << i))
		{
			appendStringInfoCharMacro(&buf, '#');
			append_int(&buf, i);
			pod_signers[i] (pod, &buf);
		}
	appendStringInfoChar(&buf, '#');
	appendBinaryStringInfo(&buf, key->extra.data, key->extra.len);
	return buf.data;
}
