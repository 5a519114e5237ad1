/*
 * volumes.c
 *	  The pod's volumes and the cluster's storage objects, as the volume
 *	  plugins read them (volumes.h).
 *
 * The pods table keeps the volumes of spec.volumes that a volume plugin
 * reads (PodVolumesColumn, at apply), and the cycle decodes them with the
 * pod (PodVolumesFromJsonb, codec.c).  The storage objects are read from
 * their mirror tables once per refresh of the snapshot, and only when a pod
 * with volumes asks (VolumeCatalogGet).  Rows are read defensively: a field
 * of the wrong type reads as unset, as a row planted past validation may
 * hold anything.
 *
 * IDENTIFICATION
 *	  src/volumes.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "common/hashfn.h"
#include "utils/memutils.h"

#include "jsonutil.h"
#include "outbox.h"
#include "quantity.h"
#include "snapshot.h"
#include "volumes.h"

/* the lenient readers of jsonutil.c: a field of another type reads as unset */
#define obj_at JAtObject
#define arr_at JAtArray
#define str_at JAtString
#define bool_at JAtBool
#define int32_at JAtInt32

/* ------------------------------------------------------------------------
 * Reading fields that may be anything
 * ------------------------------------------------------------------------
 */

/* a quantity (string or number) in bytes; false when absent or unreadable */
static bool
quantity_at(JsonbContainer *c, const char *key, int64 *out)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;
	char	   *s;

	if (v == NULL || (v->type != jbvString && v->type != jbvNumeric))
		return false;
	s = JScalarText(v);
	return QuantityParse(s, strlen(s), QUANTITY_SCALE_UNIT, out) == QUANTITY_OK;
}

/* a jsonb copy of c.key when it is an object, or NULL */
static Jsonb *
jsonb_obj_at(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
		return JToJsonb(v);
	return NULL;
}

static Jsonb *
jsonb_arr_at(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
		return JToJsonb(v);
	return NULL;
}

static int
access_modes_at(JsonbContainer *spec)
{
	JsonbContainer *a = arr_at(spec, "accessModes");
	int			modes = 0;

	for (int i = 0; a && i < (int) JsonContainerSize(a); i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(a, i);
		char	   *m;

		if (e->type != jbvString)
			continue;
		m = pnstrdup(e->val.string.val, e->val.string.len);
		if (strcmp(m, "ReadWriteOnce") == 0)
			modes |= ACCESS_RWO;
		else if (strcmp(m, "ReadOnlyMany") == 0)
			modes |= ACCESS_ROX;
		else if (strcmp(m, "ReadWriteMany") == 0)
			modes |= ACCESS_RWX;
		else if (strcmp(m, "ReadWriteOncePod") == 0)
			modes |= ACCESS_RWOP;
	}
	return modes;
}

/* ------------------------------------------------------------------------
 * The storage objects
 * ------------------------------------------------------------------------
 */
typedef struct NameEntry
{
	char	   *key;			/* hash key: a palloc'd string */
	void	   *value;
} NameEntry;

static uint32
string_hash_fn(const void *key, Size keysize pg_attribute_unused())
{
	const char *s = *(char *const *) key;

	return string_hash(s, strlen(s) + 1);
}

static int
string_match_fn(const void *a, const void *b, Size keysize pg_attribute_unused())
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static HTAB *
name_table(const char *what, long size, MemoryContext cxt)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(char *);
	ctl.entrysize = sizeof(NameEntry);
	ctl.hash = string_hash_fn;
	ctl.match = string_match_fn;
	ctl.hcxt = cxt;
	return hash_create(what, Max(size, 16), &ctl, HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

static void
name_put(HTAB *h, char *key, void *value)
{
	bool		found;
	NameEntry  *e = hash_search(h, &key, HASH_ENTER, &found);

	if (!found)
	{
		e->key = key;
		e->value = value;
	}
}

static void *
name_get(HTAB *h, const char *key)
{
	NameEntry  *e;

	if (h == NULL || key == NULL)
		return NULL;
	e = hash_search(h, &key, HASH_FIND, NULL);
	return e ? e->value : NULL;
}

static char *
annotation(JsonbContainer *meta, const char *key)
{
	return str_at(obj_at(meta, "annotations"), key);
}

static Pvc *
read_pvc(JsonbContainer *obj)
{
	JsonbContainer *meta = obj_at(obj, "metadata");
	JsonbContainer *spec = obj_at(obj, "spec");
	JsonbContainer *status = obj_at(obj, "status");
	Pvc		   *c = palloc0(sizeof(Pvc));
	char	   *done = annotation(meta, "pv.kubernetes.io/bind-completed");
	char	   *s;

	c->uid = str_at(meta, "uid");
	/* apply() keeps an object without one in "default" */
	c->namespace = (s = str_at(meta, "namespace")) ? s : "default";
	c->name = str_at(meta, "name");
	c->storage_class = str_at(spec, "storageClassName");
	c->beta_class = annotation(meta, "volume.beta.kubernetes.io/storage-class");
	c->volume_name = str_at(spec, "volumeName");
	/* metav1.HasAnnotation: present, whatever its value */
	c->bind_completed = done != NULL;
	c->selected_node = annotation(meta, "volume.kubernetes.io/selected-node");
	c->access_modes = access_modes_at(spec);
	c->has_request = quantity_at(obj_at(obj_at(spec, "resources"), "requests"), "storage", &c->request);
	c->selector = jsonb_obj_at(spec, "selector");
	c->volume_mode = str_at(spec, "volumeMode");
	c->phase = str_at(status, "phase");
	c->owner_refs = jsonb_arr_at(meta, "ownerReferences");
	c->deleting = meta && JGet(meta, "deletionTimestamp") && JGet(meta, "deletionTimestamp")->type == jbvString;
	c->resource_version = str_at(meta, "resourceVersion");
	return c;
}

/* {}, the labels of every PV without any: one, in static memory (never freed) */
static Jsonb *
no_labels(void)
{
	static union
	{
		Jsonb		jb;
		int64		align;
	}			empty;

	if (VARSIZE(&empty.jb) == 0)
	{
		SET_VARSIZE(&empty.jb, sizeof(Jsonb));
		empty.jb.root.header = JB_FOBJECT;
	}
	return &empty.jb;
}

static Pv *
read_pv(JsonbContainer *obj)
{
	JsonbContainer *meta = obj_at(obj, "metadata");
	JsonbContainer *spec = obj_at(obj, "spec");
	JsonbContainer *claim = obj_at(spec, "claimRef");
	JsonbContainer *csi = obj_at(spec, "csi");
	JsonbContainer *src;
	Pv		   *v = palloc0(sizeof(Pv));
	char	   *s;

	v->uid = str_at(meta, "uid");
	v->name = str_at(meta, "name");
	v->storage_class = (s = str_at(spec, "storageClassName")) ? s : "";
	v->beta_class = annotation(meta, "volume.beta.kubernetes.io/storage-class");
	if (claim)
	{
		v->claim_namespace = (s = str_at(claim, "namespace")) ? s : "";
		v->claim_name = (s = str_at(claim, "name")) ? s : "";
		v->claim_uid = str_at(claim, "uid");
	}
	v->access_modes = access_modes_at(spec);
	v->has_capacity = quantity_at(obj_at(spec, "capacity"), "storage", &v->capacity);
	v->node_affinity = jsonb_obj_at(obj_at(spec, "nodeAffinity"), "required");
	v->labels = jsonb_obj_at(meta, "labels");
	if (v->labels == NULL)
		v->labels = no_labels();
	v->volume_mode = str_at(spec, "volumeMode");
	v->phase = str_at(obj_at(obj, "status"), "phase");
	v->deleting = meta && JGet(meta, "deletionTimestamp") && JGet(meta, "deletionTimestamp")->type == jbvString;
	v->resource_version = str_at(meta, "resourceVersion");
	if (csi)
	{
		v->csi_driver = (s = str_at(csi, "driver")) ? s : "";
		v->csi_handle = (s = str_at(csi, "volumeHandle")) ? s : "";
	}
	if ((src = obj_at(spec, "gcePersistentDisk")) != NULL)
	{
		v->intree = PVOL_GCE_PD;
		v->intree_id = (s = str_at(src, "pdName")) ? s : "";
	}
	else if ((src = obj_at(spec, "awsElasticBlockStore")) != NULL)
	{
		v->intree = PVOL_AWS_EBS;
		v->intree_id = (s = str_at(src, "volumeID")) ? s : "";
	}
	return v;
}

static StorageClass *
read_class(JsonbContainer *obj)
{
	StorageClass *sc = palloc0(sizeof(StorageClass));
	char	   *mode = str_at(obj, "volumeBindingMode");
	char	   *s;

	sc->name = str_at(obj_at(obj, "metadata"), "name");
	sc->provisioner = (s = str_at(obj, "provisioner")) ? s : "";
	sc->binding_mode_set = mode != NULL;
	sc->wait_for_first_consumer = mode && strcmp(mode, "WaitForFirstConsumer") == 0;
	sc->allowed_topologies = jsonb_arr_at(obj, "allowedTopologies");
	return sc;
}

static CsiNode *
read_csinode(JsonbContainer *obj)
{
	JsonbContainer *meta = obj_at(obj, "metadata");
	JsonbContainer *drivers = arr_at(obj_at(obj, "spec"), "drivers");
	int			n = drivers ? JsonContainerSize(drivers) : 0;
	CsiNode    *cn = palloc0(sizeof(CsiNode));

	cn->name = str_at(meta, "name");
	cn->migrated_plugins = annotation(meta, "storage.alpha.kubernetes.io/migrated-plugins");
	cn->drivers = palloc0(sizeof(CsiNodeDriver) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(drivers, i);
		JsonbContainer *d;
		JsonbContainer *keys;
		CsiNodeDriver *cd;
		char	   *s;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			continue;
		d = e->val.binary.data;
		cd = &cn->drivers[cn->ndrivers++];
		cd->name = (s = str_at(d, "name")) ? s : "";
		cd->node_id = (s = str_at(d, "nodeID")) ? s : "";
		cd->count = int32_at(obj_at(d, "allocatable"), "count", &cd->has_count);
		keys = arr_at(d, "topologyKeys");
		cd->topology_keys = palloc0(sizeof(char *) * Max(keys ? JsonContainerSize(keys) : 0, 1));
		for (int j = 0; keys && j < (int) JsonContainerSize(keys); j++)
		{
			JsonbValue *k = getIthJsonbValueFromContainer(keys, j);

			if (k->type == jbvString)
				cd->topology_keys[cd->ntopology_keys++] = pnstrdup(k->val.string.val, k->val.string.len);
		}
	}
	return cn;
}

static CsiDriver *
read_driver(JsonbContainer *obj)
{
	JsonbContainer *spec = obj_at(obj, "spec");
	CsiDriver  *d = palloc0(sizeof(CsiDriver));

	d->name = str_at(obj_at(obj, "metadata"), "name");
	d->attach_required = bool_at(spec, "attachRequired", true);
	d->storage_capacity = bool_at(spec, "storageCapacity", false);
	return d;
}

static CsiCapacity *
read_capacity(JsonbContainer *obj)
{
	JsonbContainer *meta = obj_at(obj, "metadata");
	CsiCapacity *c = palloc0(sizeof(CsiCapacity));
	char	   *s;

	/* apply() keeps an object without one in "default" */
	c->namespace = (s = str_at(meta, "namespace")) ? s : "default";
	c->name = str_at(meta, "name");
	c->storage_class = (s = str_at(obj, "storageClassName")) ? s : "";
	c->node_topology = jsonb_obj_at(obj, "nodeTopology");
	c->has_capacity = quantity_at(obj, "capacity", &c->capacity);
	c->has_max_size = quantity_at(obj, "maximumVolumeSize", &c->max_size);
	return c;
}

static VolAttachment *
read_attachment(JsonbContainer *obj)
{
	JsonbContainer *spec = obj_at(obj, "spec");
	VolAttachment *a = palloc0(sizeof(VolAttachment));
	char	   *s;

	a->name = str_at(obj_at(obj, "metadata"), "name");
	a->attacher = (s = str_at(spec, "attacher")) ? s : "";
	a->node = (s = str_at(spec, "nodeName")) ? s : "";
	a->pv_name = str_at(obj_at(spec, "source"), "persistentVolumeName");
	a->inline_driver = str_at(obj_at(obj_at(obj_at(spec, "source"), "inlineVolumeSpec"), "csi"), "driver");
	return a;
}

/* Every object of table, in name order, as read (a List of what read returns) */
static List *
read_table(const char *table, void *(*read) (JsonbContainer *obj))
{
	char	   *sql = psprintf("SELECT object FROM %s ORDER BY name, uid", table);
	SPITupleTable *tt;
	List	   *out = NIL;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read %s", table);
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull);
		Jsonb	   *jb;

		if (isnull)
			continue;
		jb = DatumGetJsonbP(d);
		if (!JB_ROOT_IS_OBJECT(jb))
			continue;
		out = lappend(out, read(&jb->root));
	}
	SPI_freetuptable(tt);
	return out;
}

/* The objects of l by the name at name_offset in each (those without one left out) */
static HTAB *
index_by_name(List *l, size_t name_offset, const char *what, MemoryContext cxt)
{
	HTAB	   *h = name_table(psprintf("scheduler volume catalog: %s", what), list_length(l), cxt);
	ListCell   *lc;

	foreach(lc, l)
	{
		char	   *name = *(char **) ((char *) lfirst(lc) + name_offset);

		if (name)
			name_put(h, name, lfirst(lc));
	}
	return h;
}

static PerCallCache catalog_cache;
static VolumeCatalog *catalog;
static uint64 catalog_serials = 0;

/* ------------------------------------------------------------------------
 * Assumptions (VolumeBinding's Reserve)
 * ------------------------------------------------------------------------
 */

/* A resourceVersion of digits only, as a number no wider than 30 digits */
static bool
version_digits(const char *v)
{
	size_t		n = v ? strlen(v) : 0;

	if (n == 0 || n > 30)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return false;
	return true;
}

/*
 * Is the mirror's version newer than the one a PreBind request patched?
 * Compared as numbers, as kube-scheduler's assume cache compares them; an
 * unreadable one counts as newer: the mirror is then believed.
 */
static bool
version_newer(const char *mirror, const char *patched)
{
	size_t		m,
				p;

	if (!version_digits(mirror) || !version_digits(patched))
		return true;
	while (*mirror == '0' && mirror[1])
		mirror++;
	while (*patched == '0' && patched[1])
		patched++;
	m = strlen(mirror);
	p = strlen(patched);
	return m != p ? m > p : strcmp(mirror, patched) > 0;
}

void
VolumeAssumeClaimRef(VolumeCatalog *c, Pv *pv, const char *ns, const char *name)
{
	pv->assumed_claim_namespace = MemoryContextStrdup(c->cxt, ns ? ns : "");
	pv->assumed_claim_name = MemoryContextStrdup(c->cxt, name ? name : "");
}

void
VolumeAssumeSelectedNode(VolumeCatalog *c, Pvc *pvc, const char *node)
{
	pvc->selected_node = node ? MemoryContextStrdup(c->cxt, node) : NULL;
}

/* One PreBind request of an earlier call, assumed unless the mirror is newer */
static void
assume_prebind(void *arg, const char *kind, const char *ns, const char *object, Jsonb *patch)
{
	VolumeCatalog *c = arg;
	JsonbContainer *meta = obj_at(&patch->root, "metadata");
	char	   *patched = str_at(meta, "resourceVersion");

	if (strcmp(kind, "volume") == 0)
	{
		Pv		   *pv = VolumeFindPv(c, object);
		JsonbContainer *ref = obj_at(obj_at(&patch->root, "spec"), "claimRef");

		if (pv && ref && !version_newer(pv->resource_version, patched))
			VolumeAssumeClaimRef(c, pv, str_at(ref, "namespace"), str_at(ref, "name"));
	}
	else if (strcmp(kind, "claim") == 0)
	{
		Pvc		   *pvc = VolumeFindPvc(c, ns, object);
		char	   *node = annotation(meta, "volume.kubernetes.io/selected-node");

		if (pvc && node && !version_newer(pvc->resource_version, patched))
			VolumeAssumeSelectedNode(c, pvc, node);
	}
}

/*
 * VolumeCatalogGet
 *		The storage objects as of the snapshot's last refresh, read once per
 *		refresh (snap NULL: read now).
 */
VolumeCatalog *
VolumeCatalogGet(ClusterSnapshot *snap)
{
	MemoryContext cxt = SnapshotPerCall(snap, &catalog_cache, "scheduler volume catalog");
	MemoryContext old;
	List	   *l;
	ListCell   *lc;

	if (cxt == NULL)
		return catalog;
	old = MemoryContextSwitchTo(cxt);
	catalog = palloc0(sizeof(VolumeCatalog));
	catalog->cxt = cxt;
	catalog->serial = ++catalog_serials;

	l = read_table("scheduler.persistent_volume_claims", (void *(*) (JsonbContainer *)) read_pvc);
	catalog->pvcs = name_table("scheduler volume catalog: claims", list_length(l), cxt);
	foreach(lc, l)
	{
		Pvc		   *c = lfirst(lc);

		if (c->namespace && c->name)
			name_put(catalog->pvcs, psprintf("%s/%s", c->namespace, c->name), c);
	}
	catalog->pv_list = read_table("scheduler.persistent_volumes", (void *(*) (JsonbContainer *)) read_pv);
	catalog->pvs = index_by_name(catalog->pv_list, offsetof(Pv, name), "volumes", cxt);
	catalog->classes = index_by_name(read_table("scheduler.storage_classes",
												(void *(*) (JsonbContainer *)) read_class),
									 offsetof(StorageClass, name), "classes", cxt);
	catalog->csinodes = index_by_name(read_table("scheduler.csi_nodes", (void *(*) (JsonbContainer *)) read_csinode),
									  offsetof(CsiNode, name), "CSI nodes", cxt);
	catalog->drivers = index_by_name(read_table("scheduler.csi_drivers", (void *(*) (JsonbContainer *)) read_driver),
									 offsetof(CsiDriver, name), "CSI drivers", cxt);
	catalog->capacities = read_table("scheduler.csi_storage_capacities",
									 (void *(*) (JsonbContainer *)) read_capacity);
	catalog->attachments = read_table("scheduler.volume_attachments",
									  (void *(*) (JsonbContainer *)) read_attachment);
	/* what earlier calls assumed and the mirror does not show yet */
	OutboxPreBindAssumed(assume_prebind, catalog);

	MemoryContextSwitchTo(old);
	SnapshotPerCallFilled(snap, &catalog_cache);
	return catalog;
}

Pvc *
VolumeFindPvc(VolumeCatalog *c, const char *ns, const char *name)
{
	char		key[NODE_NAME_KEYSIZE * 2 + 2];

	if (ns == NULL || name == NULL || strlen(ns) + strlen(name) + 2 > sizeof(key))
		return NULL;
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	return name_get(c->pvcs, key);
}

Pv *
VolumeFindPv(VolumeCatalog *c, const char *name)
{
	return name_get(c->pvs, name);
}

StorageClass *
VolumeFindClass(VolumeCatalog *c, const char *name)
{
	return name_get(c->classes, name);
}

CsiNode *
VolumeFindCsiNode(VolumeCatalog *c, const char *node)
{
	return name_get(c->csinodes, node);
}

CsiDriver *
VolumeFindDriver(VolumeCatalog *c, const char *name)
{
	return name_get(c->drivers, name);
}

const char *
VolumePvcClass(const Pvc *pvc)
{
	if (pvc->beta_class)
		return pvc->beta_class;
	return pvc->storage_class ? pvc->storage_class : "";
}

/* The API server's NotFound message: persistentvolumeclaim "x" not found */
char *
VolumeNotFound(const char *resource, const char *name)
{
	return psprintf("%s \"%s\" not found", resource, name);
}

/* ------------------------------------------------------------------------
 * The objects of cluster events (the QueueingHints)
 * ------------------------------------------------------------------------
 */
#define EVENT_READER(fn, type, read) \
type * \
fn(Jsonb *obj) \
{ \
	return obj ? read(&obj->root) : NULL; \
}

EVENT_READER(VolumeEventPvc, Pvc, read_pvc)
EVENT_READER(VolumeEventPv, Pv, read_pv)
EVENT_READER(VolumeEventClass, StorageClass, read_class)
EVENT_READER(VolumeEventCsiNode, CsiNode, read_csinode)
EVENT_READER(VolumeEventDriver, CsiDriver, read_driver)
EVENT_READER(VolumeEventCapacity, CsiCapacity, read_capacity)
EVENT_READER(VolumeEventAttachment, VolAttachment, read_attachment)

/*
 * VolumePodUsesClaim
 *		isPVCRequestedFromPod (VolumeZone, VolumeRestrictions) and, with
 *		ephemeral, the claim names of NodeVolumeLimits' and VolumeBinding's
 *		hints (ephemeral.VolumeClaimName): is pvc one of the pod's claims?
 */
bool
VolumePodUsesClaim(const PodInfo *pod, const Pvc *pvc, bool ephemeral)
{
	if (pvc == NULL || pvc->name == NULL || pod->namespace == NULL ||
		strcmp(pvc->namespace, pod->namespace) != 0)
		return false;
	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *v = &pod->volumes[i];

		if ((v->kind == PVOL_PVC || (ephemeral && v->kind == PVOL_EPHEMERAL)) &&
			v->claim != NULL && strcmp(v->claim, pvc->name) == 0)
			return true;
	}
	return false;
}

/*
 * VolumeClaimVolumeName
 *		The spec.volumeName of claim ns/name as the mirror has it now (for a
 *		hint, which has no catalog), NULL when unbound; *found says whether
 *		there is such a claim.  Call inside SPI.
 */
char *
VolumeClaimVolumeName(const char *ns, const char *name, bool *found)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {CStringGetTextDatum(ns), CStringGetTextDatum(name)};
	char	   *volume = NULL;

	if (SPI_execute_with_args("SELECT volume_name FROM scheduler.persistent_volume_claims"
							  " WHERE namespace = $1 AND name = $2",
							  2, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the persistent volume claims");
	*found = SPI_processed > 0;
	if (*found)
		volume = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	SPI_freetuptable(SPI_tuptable);
	return volume;
}

/*
 * VolumePodHasInlineCsi
 *		Has the pod an inline CSI volume (spec.volumes[].csi) of driver?  The
 *		pods table's volumes column keeps no such volume: this reads the
 *		pod's object.  Call inside SPI.
 */
bool
VolumePodHasInlineCsi(const PodInfo *pod, const char *driver)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	bool		found = false;

	if (pod->uid == NULL)
		return false;
	args[0] = CStringGetTextDatum(pod->uid);
	if (SPI_execute_with_args("SELECT object->'spec'->'volumes' FROM scheduler.pods WHERE uid = $1",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the pod's volumes");
	if (SPI_processed > 0)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		Jsonb	   *vols = isnull ? NULL : DatumGetJsonbP(d);
		int			n = vols && JB_ROOT_IS_ARRAY(vols) && !JB_ROOT_IS_SCALAR(vols) ? JB_ROOT_COUNT(vols) : 0;

		for (int i = 0; i < n && !found; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(&vols->root, i);
			char	   *name;

			if (e == NULL || e->type != jbvBinary)
				continue;
			name = str_at(obj_at(e->val.binary.data, "csi"), "driver");
			found = name != NULL && strcmp(name, driver) == 0;
		}
	}
	SPI_freetuptable(SPI_tuptable);
	return found;
}

/*
 * VolumesSign
 *		The volume plugins' SignPod: their PreFilter and Filter read the pod's
 *		volumes and, through its claims (in its namespace; an ephemeral
 *		claim's owner is its uid), the catalog: a pod with volumes is a class
 *		of its own, and pods without volumes stay alike.
 */
void
VolumesSign(const PodInfo *pod, PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(volumes));
	if (pod->nvolumes > 0)
		PodKeyAdd(key, POD_FIELD(uid) | POD_FIELD(namespace));
}
