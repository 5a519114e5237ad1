/*
 * node_volume_limits.c
 *	  NodeVolumeLimits: a node takes no more volumes of a CSI driver than
 *	  its CSINode says the driver can attach (spec.drivers[].allocatable.count).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodevolumelimits (csi.go,
 * struct CSILimits; utils.go's isCSIMigrationOn), with the in-tree to CSI
 * translation of k8s.io/csi-translation-lib (plugins/aws_ebs.go, gce_pd.go).
 *
 * A volume counts as "<driver>/<volume handle>", once however many pods use
 * it:
 *	 - a claim (persistentVolumeClaim, or a generic ephemeral volume's claim,
 *	   which must be the pod's own) bound to a PersistentVolume counts as the
 *	   PV's CSI driver and handle, or, for an in-tree AWS EBS or GCE PD PV
 *	   while the node has a CSINode, as the CSI driver it migrates to;
 *	 - an unbound claim (or one bound to a PV that does not exist) counts as
 *	   its StorageClass's provisioner (translated when in-tree) and a handle
 *	   of its own; without a class it does not count;
 *	 - an inline AWS EBS or GCE PD volume counts, translated, when the node
 *	   has a CSINode.
 * The pod's volumes not already on the node, plus the node's: its pods'
 * volumes (with the pods nominated to it that count, as kube-scheduler's
 * RunFilterPluginsWithNominatedPods adds them to the node's pods) and the
 * VolumeAttachments to it, must stay within each driver's limit.  A node
 * without a CSINode, or whose drivers give no limit, takes any number.
 *
 * The pod's volumes are read once per cycle (twice at most: on nodes with
 * and without a CSINode), and a node's, with the least room its limits
 * leave, once per change of the node (its generation), beside the catalog
 * (but afresh on a copy with nominated pods that have volumes): a node
 * with room for all the pod's volumes passes at once.
 *
 * IDENTIFICATION
 *	  src/plugins/node_volume_limits.c
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "jsonutil.h"
#include "labels.h"
#include "plugin.h"
#include "volumes.h"

/* csi.go: ErrReasonMaxVolumeCountExceeded */
#define ErrReasonMaxVolumeCountExceeded "node(s) exceed max volume count"
/* filterAttachableVolumes, the claim's lister NotFound error wrapped */
#define ErrLookingUpPvc "looking up PVC %s/%s: %s"
/* the fake lister's resource in kube-scheduler's test (the informer's says "persistentvolumeclaim") */
#define PvcResource "persistentvolumeclaims"
/* filterAttachableVolumes, a claim without a name */
#define ErrPvcNoName "PersistentVolumeClaim had no name"
/* component-helpers ephemeral.VolumeIsForPod */
#define ErrNotOwner "PVC %s/%s was not created for pod %s/%s (pod is not owner)"
/* checkAttachableInlineVolume, translation failed */
#define ErrInlineToCsi "converting volume(%s) from inline to csi: %s"

/* ------------------------------------------------------------------------
 * In-tree plugins and the CSI drivers they migrate to
 * (csi-translation-lib's plugin table; utils.go's isCSIMigrationOn)
 * ------------------------------------------------------------------------
 */
#define AWS_EBS_PLUGIN	"kubernetes.io/aws-ebs"
#define AWS_EBS_DRIVER	"ebs.csi.aws.com"
#define GCE_PD_PLUGIN	"kubernetes.io/gce-pd"
#define GCE_PD_DRIVER	"pd.csi.storage.gke.io"
#define GCE_UNSPECIFIED "UNSPECIFIED"

typedef struct InTreePlugin
{
	const char *plugin;
	const char *driver;
	bool		migrated;		/* isCSIMigrationOn, given a CSINode */
} InTreePlugin;

static const InTreePlugin intree_plugins[] = {
	{AWS_EBS_PLUGIN, AWS_EBS_DRIVER, true},
	{GCE_PD_PLUGIN, GCE_PD_DRIVER, true},
	{"kubernetes.io/azure-disk", "disk.csi.azure.com", true},
	{"kubernetes.io/cinder", "cinder.csi.openstack.org", true},
	{"kubernetes.io/portworx-volume", "pxd.portworx.com", true},
	/* migratable, but isCSIMigrationOn says no */
	{"kubernetes.io/azure-file", "file.csi.azure.com", false},
	{"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", false},
};

static const InTreePlugin *
intree_plugin(const char *name)
{
	for (int i = 0; name && i < (int) lengthof(intree_plugins); i++)
		if (strcmp(intree_plugins[i].plugin, name) == 0)
			return &intree_plugins[i];
	return NULL;
}

/*
 * isCSIMigrationOn: for the plugins migrated for good (AWS EBS, GCE PD,
 * Azure Disk, Cinder, Portworx) migration is on wherever the node has a
 * CSINode; the migrated-plugins annotation is no longer read.
 */
static bool
migration_on(const CsiNode *cn, const InTreePlugin *p)
{
	return cn != NULL && p != NULL && p->migrated;
}

/* IsInlineMigratable, for the inline sources the pods table keeps */
static const InTreePlugin *
inline_plugin(const PodVolume *v)
{
	if (v->kind == PVOL_AWS_EBS)
		return intree_plugin(AWS_EBS_PLUGIN);
	if (v->kind == PVOL_GCE_PD)
		return intree_plugin(GCE_PD_PLUGIN);
	return NULL;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * KubernetesVolumeIDToEBSVolumeID: "vol-..." as it is, or the path of
 * "aws://<zone>/vol-...", which must then read ^vol-[^/]*$.  NULL and *err
 * when it does not.  (url.Parse's path is unescaped; its other refusals, of
 * the host, are not reproduced.)
 */
static char *
ebs_volume_id(const char *id, char **err)
{
	const char *p;
	StringInfoData path;
	char	   *start;
	char	   *end;

	*err = NULL;
	if (strncmp(id, "aws://", 6) != 0)
		return pstrdup(id);
	p = id + 6;
	p += strcspn(p, "/?#");		/* the host */
	initStringInfo(&path);
	for (; *p && *p != '?' && *p != '#'; p++)
	{
		if (*p == '%')
		{
			int			hi = hexval(p[1]);
			int			lo = hi < 0 ? -1 : hexval(p[2]);

			if (lo < 0)
			{
				*err = psprintf("Invalid disk name (%s): invalid URL escape", id);
				return NULL;
			}
			appendStringInfoChar(&path, (char) (hi * 16 + lo));
			p += 2;
		}
		else
			appendStringInfoChar(&path, *p);
	}
	/* strings.Trim(path, "/") */
	start = path.data;
	while (*start == '/')
		start++;
	end = start + strlen(start);
	while (end > start && end[-1] == '/')
		*--end = '\0';
	if (strncmp(start, "vol-", 4) != 0 || strchr(start, '/') != NULL)
	{
		*err = psprintf("Invalid format for AWS volume (%s)", id);
		return NULL;
	}
	return pstrdup(start);
}

/*
 * gce_pd.go getRegionFromZones: every zone <locale>-<region>-<zone>, all
 * in one region; NULL otherwise.
 */
static char *
gce_region(List *zones)
{
	char	   *region = NULL;
	ListCell   *lc;

	foreach(lc, zones)
	{
		char	   *zone = lfirst(lc);
		char	   *first = strchr(zone, '-');
		char	   *second = first ? strchr(first + 1, '-') : NULL;
		char	   *this;

		if (second == NULL || strchr(second + 1, '-') != NULL)
			return NULL;
		this = pnstrdup(zone, second - zone);
		if (region != NULL && strcmp(region, this) != 0)
			return NULL;
		region = this;
	}
	return region;
}

/*
 * TranslateInTreePVToCSI's handle of a GCE PD PV: the zone from the label
 * failure-domain.beta.kubernetes.io/zone (else topology.kubernetes.io/zone),
 * several zones joined by "__" making a regional disk.  NULL when the zones
 * name no one region (the PV is then not counted).
 */
static char *
gce_pv_handle(const Pv *pv, const char *pd)
{
	static const char *const keys[] = {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"};
	const char *label = NULL;
	int			len = 0;
	char	   *zones;
	List	   *list = NIL;
	char	   *p;
	char	   *region;

	for (int i = 0; i < (int) lengthof(keys) && len == 0; i++)
		label = pv->labels ? LabelGet(pv->labels, keys[i], strlen(keys[i]), &len) : NULL;
	if (label == NULL || len == 0)
		return psprintf("projects/%s/zones/%s/disks/%s", GCE_UNSPECIFIED, GCE_UNSPECIFIED, pd);
	zones = pnstrdup(label, len);
	/* strings.Split(zones, "__") */
	for (p = zones;;)
	{
		char	   *sep = strstr(p, "__");

		if (sep == NULL)
		{
			list = lappend(list, p);
			break;
		}
		*sep = '\0';
		list = lappend(list, p);
		p = sep + 2;
	}
	if (list_length(list) == 1)
		return psprintf("projects/%s/zones/%s/disks/%s", GCE_UNSPECIFIED, (char *) linitial(list), pd);
	region = gce_region(list);
	if (region == NULL)
		return NULL;
	return psprintf("projects/%s/regions/%s/disks/%s", GCE_UNSPECIFIED, region, pd);
}

/* ------------------------------------------------------------------------
 * Sets of strings: the volumes, by "<driver>/<handle>", each with its driver
 * ------------------------------------------------------------------------
 */
typedef struct StrEntry
{
	char	   *key;			/* hash key */
	void	   *value;
} StrEntry;

static uint32
str_hash(const void *key, Size keysize pg_attribute_unused())
{
	const char *s = *(char *const *) key;

	return string_hash(s, strlen(s) + 1);
}

static int
str_match(const void *a, const void *b, Size keysize pg_attribute_unused())
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static HTAB *
str_table(const char *what)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(char *);
	ctl.entrysize = sizeof(StrEntry);
	ctl.hash = str_hash;
	ctl.match = str_match;
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(what, 32, &ctl, HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

/* the entry of key, made (value NULL) when absent and enter is set */
static StrEntry *
str_find(HTAB *h, const char *key, bool enter)
{
	bool		found;
	StrEntry   *e = hash_search(h, &key, enter ? HASH_ENTER : HASH_FIND, &found);

	if (e && !found)
	{
		e->key = pstrdup(key);
		e->value = NULL;
	}
	return e;
}

/* result[driver/handle] = driver */
static void
add_volume(HTAB *result, const char *driver, const char *handle)
{
	StrEntry   *e = str_find(result, psprintf("%s/%s", driver, handle), true);

	e->value = (void *) driver;
}

/* ------------------------------------------------------------------------
 * A pod's volumes (filterAttachableVolumes)
 * ------------------------------------------------------------------------
 */

/*
 * Volumes as "<driver>/<handle>" keys, sorted, each with its driver: the
 * pod's new volumes, or those its node's pods hold.
 */
typedef struct VolumeKey
{
	char	   *key;
	const char *driver;
} VolumeKey;

typedef struct VolumeSet
{
	int			n;
	VolumeKey  *keys;
} VolumeSet;

/*
 * The pod to schedule's volumes (filterAttachableVolumes of the new pod):
 * they depend on the node only through whether it has a CSINode (an in-tree
 * volume counts only where its plugin is migrated, isCSIMigrationOn), so
 * they are read at most twice per cycle, not once per node.  code and
 * reason: the Status that reading gave, when it failed.
 */
typedef struct NewVolumes
{
	bool		done;
	StatusCode	code;
	char	   *reason;
	VolumeSet	set;
} NewVolumes;

/* PreFilter's state: the catalog and the VolumeAttachments by node */
typedef struct LimitsState
{
	VolumeCatalog *catalog;
	HTAB	   *attachments;	/* node name -> List of VolAttachment * */
	char	   *unbound_prefix; /* randomVolumeIDPrefix */
	MemoryContext cxt;			/* the cycle's, where mine is kept */
	NewVolumes	mine[2];		/* on a node without (0) or with (1) a CSINode */
} LimitsState;

/*
 * What a node holds, as Filter counts it for any pod: its CSINode, and the
 * volumes of its pods and of the VolumeAttachments to it.  Kept beside the
 * catalog (in its memory, for as long as it is read), by node ordinal,
 * while the node's generation is unchanged: the snapshot gives the node a
 * new one whenever its pods change.
 */
typedef struct NodeVolumes
{
	const char *name;			/* the node's name (pointer) the CSINode is for */
	const CsiNode *cn;
	bool		limited;		/* has_limits(cn) */
	uint64		generation;		/* of what follows; 0: not read */
	int64		headroom;		/* the least room a driver's limit leaves */
	char	   *error;			/* a pod's volumes could not be read: Error */
	VolumeSet	attached;		/* its pods' volumes */
	int64	   *counts;			/* per cn driver: its pods' and attachments' volumes */
} NodeVolumes;

static uint64 nodes_serial = 0; /* the catalog reading node_cache was made for */
static NodeVolumes *node_cache;
static int	node_cache_size;

/* The pod whose volumes are read: the one to schedule, or one on the node */
typedef struct VolumeOwner
{
	const char *namespace;
	const char *name;
	const char *uid;
	int			nvolumes;
	const PodVolume *volumes;
} VolumeOwner;

/*
 * getCSIDriverInfoFromSC: an unbound claim counts as its class's
 * provisioner (the CSI driver of a migrated in-tree one) with a handle of
 * its own; without a class, or with an in-tree one not migrated here, it
 * does not count (*driver NULL).
 */
static void
driver_from_class(LimitsState *s, const CsiNode *cn, const Pvc *pvc, const char **driver, const char **handle)
{
	/* storagehelpers.GetPersistentVolumeClaimClass: the beta annotation first */
	const char *class = VolumePvcClass(pvc);
	StorageClass *sc;
	const InTreePlugin *p;

	*driver = NULL;
	if (class[0] == '\0')
		return;
	sc = VolumeFindClass(s->catalog, class);
	if (sc == NULL || sc->provisioner == NULL)
		return;
	*handle = psprintf("%s-%s/%s", s->unbound_prefix, pvc->namespace ? pvc->namespace : "",
					   pvc->name ? pvc->name : "");
	if ((p = intree_plugin(sc->provisioner)) != NULL)
		*driver = migration_on(cn, p) ? p->driver : NULL;
	else
		*driver = sc->provisioner;
}

/*
 * getCSIDriverInfo: the driver and handle of a claim's volume; *driver NULL
 * (or either "") when it does not count.
 */
static void
driver_info(LimitsState *s, const CsiNode *cn, const Pvc *pvc, const char **driver, const char **handle)
{
	Pv		   *pv;
	char	   *err;

	*driver = NULL;
	if (pvc->volume_name == NULL || pvc->volume_name[0] == '\0' ||
		(pv = VolumeFindPv(s->catalog, pvc->volume_name)) == NULL)
	{
		driver_from_class(s, cn, pvc, driver, handle);
		return;
	}
	if (pv->csi_driver != NULL)
	{
		*driver = pv->csi_driver;
		*handle = pv->csi_handle ? pv->csi_handle : "";
		return;
	}
	/* an in-tree PV counts, translated, where its plugin is migrated */
	if (pv->intree == PVOL_AWS_EBS && migration_on(cn, intree_plugin(AWS_EBS_PLUGIN)))
	{
		*handle = ebs_volume_id(pv->intree_id ? pv->intree_id : "", &err);
		*driver = *handle ? AWS_EBS_DRIVER : NULL;
	}
	else if (pv->intree == PVOL_GCE_PD && migration_on(cn, intree_plugin(GCE_PD_PLUGIN)))
	{
		*handle = gce_pv_handle(pv, pv->intree_id ? pv->intree_id : "");
		*driver = *handle ? GCE_PD_DRIVER : NULL;
	}
}

/*
 * checkAttachableInlineVolume: an inline AWS EBS or GCE PD volume, where
 * its plugin is migrated, as its CSI driver and translated handle.  false
 * with *st Error when the volume ID does not translate.
 */
static bool
inline_volume(const CsiNode *cn, const PodVolume *v, HTAB *result, Status *st, MemoryContext outer)
{
	const InTreePlugin *p = inline_plugin(v);
	const char *disk = v->disk ? v->disk : "";
	char	   *handle;
	char	   *err;

	if (p == NULL || !migration_on(cn, p))
		return true;
	if (v->kind == PVOL_GCE_PD)
	{
		add_volume(result, p->driver, psprintf("projects/%s/zones/%s/disks/%s",
											   GCE_UNSPECIFIED, GCE_UNSPECIFIED, disk));
		return true;
	}
	if ((handle = ebs_volume_id(disk, &err)) == NULL)
	{
		char	   *why = psprintf("failed to translate Kubernetes ID to EBS Volume ID %s", err);

		StatusSet(st, CODE_ERROR, MemoryContextStrdup(outer, psprintf(ErrInlineToCsi, v->name ? v->name : "", why)));
		return false;
	}
	add_volume(result, p->driver, handle);
	return true;
}

/*
 * metav1.IsControlledBy(pvc, pod): the claim's first owner reference with
 * controller true has the pod's uid.
 */
static bool
controlled_by(const Pvc *pvc, const char *uid)
{
	JsonbContainer *refs;

	if (pvc->owner_refs == NULL || !JB_ROOT_IS_ARRAY(pvc->owner_refs) || JB_ROOT_IS_SCALAR(pvc->owner_refs))
		return false;
	refs = &pvc->owner_refs->root;
	for (int i = 0; i < (int) JsonContainerSize(refs); i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(refs, i);
		JsonbValue *c;
		JsonbValue *u;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			continue;
		c = JGet(e->val.binary.data, "controller");
		if (c == NULL || c->type != jbvBool || !c->val.boolean)
			continue;
		u = JGet(e->val.binary.data, "uid");
		return u != NULL && u->type == jbvString && uid != NULL &&
			strlen(uid) == (size_t) u->val.string.len &&
			memcmp(uid, u->val.string.val, u->val.string.len) == 0;
	}
	return false;
}

/*
 * filterAttachableVolumes: the volumes of a pod that count, into result.
 * false with *st set (its reason in outer) when the pod cannot be counted:
 * for the pod to schedule a missing claim is UnschedulableAndUnresolvable
 * (a pod on the node skips it); an ephemeral volume's claim that is not the
 * pod's, a claim without a name, an inline volume that does not translate
 * are an Error.
 */
static bool
attachable_volumes(LimitsState *s, const CsiNode *cn, const VolumeOwner *o, bool new_pod,
				   HTAB *result, Status *st, MemoryContext outer)
{
	for (int i = 0; i < o->nvolumes; i++)
	{
		const PodVolume *v = &o->volumes[i];
		const char *claim = v->claim ? v->claim : "";
		const char *driver;
		const char *handle = "";
		Pvc		   *pvc;

		if (v->kind != PVOL_PVC && v->kind != PVOL_EPHEMERAL)
		{
			if (!inline_volume(cn, v, result, st, outer))
				return false;
			continue;
		}
		if (claim[0] == '\0')
		{
			StatusSet(st, CODE_ERROR, MemoryContextStrdup(outer, ErrPvcNoName));
			return false;
		}
		pvc = VolumeFindPvc(s->catalog, o->namespace, claim);
		if (pvc == NULL)
		{
			if (!new_pod)
				continue;		/* not counted: it may not be this pod's */
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
					  MemoryContextStrdup(outer, psprintf(ErrLookingUpPvc, o->namespace, claim,
														  VolumeNotFound(PvcResource, claim))));
			return false;
		}
		/* ephemeral.VolumeIsForPod (same namespace: it was looked up there) */
		if (v->kind == PVOL_EPHEMERAL && !controlled_by(pvc, o->uid))
		{
			StatusSet(st, CODE_ERROR, MemoryContextStrdup(outer, psprintf(ErrNotOwner, o->namespace, claim,
																		  o->namespace, o->name)));
			return false;
		}
		driver_info(s, cn, pvc, &driver, &handle);
		if (driver == NULL || driver[0] == '\0' || handle == NULL || handle[0] == '\0')
			continue;
		add_volume(result, driver, handle);
	}
	return true;
}

/* ------------------------------------------------------------------------
 * PreFilter, Filter
 * ------------------------------------------------------------------------
 */

/* PreFilter: only pods with a claim, an ephemeral or a migratable inline volume */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	static char prefix[33];
	LimitsState *s;
	bool		relevant = false;
	ListCell   *lc;

	for (int i = 0; i < pod->nvolumes && !relevant; i++)
		relevant = pod->volumes[i].kind == PVOL_PVC || pod->volumes[i].kind == PVOL_EPHEMERAL ||
			inline_plugin(&pod->volumes[i]) != NULL;
	if (!relevant)
	{
		st->code = CODE_SKIP;
		return;
	}
	/* rand.String(32), once per backend as once per plugin instance */
	if (prefix[0] == '\0')
	{
		static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
		uint8		bytes[32];

		if (!pg_strong_random(bytes, sizeof(bytes)))
			memset(bytes, 0, sizeof(bytes));
		for (int i = 0; i < 32; i++)
			prefix[i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
		prefix[32] = '\0';
	}
	s = palloc0(sizeof(LimitsState));
	s->cxt = CurrentMemoryContext;
	s->catalog = VolumeCatalogGet(call->snap);
	s->unbound_prefix = prefix;
	/* the VolumeAttachments by spec.nodeName, as the plugin's indexer */
	s->attachments = str_table("NodeVolumeLimits attachments");
	foreach(lc, s->catalog->attachments)
	{
		VolAttachment *a = lfirst(lc);
		StrEntry   *e = str_find(s->attachments, a->node ? a->node : "", true);

		e->value = lappend((List *) e->value, a);
	}
	call->state = s;
}

/* getVolumeLimits: the CSINode's drivers with allocatable.count (the last of a name) */
static const CsiNodeDriver *
driver_limit(const CsiNode *cn, const char *driver)
{
	for (int i = cn->ndrivers - 1; i >= 0; i--)
		if (cn->drivers[i].name && strcmp(cn->drivers[i].name, driver) == 0)
			return cn->drivers[i].has_count ? &cn->drivers[i] : NULL;
	return NULL;
}

static bool
has_limits(const CsiNode *cn)
{
	for (int i = 0; cn && i < cn->ndrivers; i++)
		if (cn->drivers[i].has_count && cn->drivers[i].name)
			return true;
	return false;
}

static int
cmp_volume_key(const void *a, const void *b)
{
	return strcmp(((const VolumeKey *) a)->key, ((const VolumeKey *) b)->key);
}

/* The volumes of h as a sorted VolumeSet, its keys copied into cxt */
static void
volume_set(HTAB *h, VolumeSet *out, MemoryContext cxt)
{
	HASH_SEQ_STATUS seq;
	StrEntry   *e;
	long		n = hash_get_num_entries(h);

	out->n = 0;
	out->keys = MemoryContextAlloc(cxt, sizeof(VolumeKey) * Max(n, 1));
	hash_seq_init(&seq, h);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		out->keys[out->n].key = MemoryContextStrdup(cxt, e->key);
		out->keys[out->n++].driver = e->value;
	}
	qsort(out->keys, out->n, sizeof(VolumeKey), cmp_volume_key);
}

static bool
volume_set_has(const VolumeSet *set, const char *key)
{
	VolumeKey	k = {(char *) key, NULL};

	return set->n > 0 && bsearch(&k, set->keys, set->n, sizeof(VolumeKey), cmp_volume_key) != NULL;
}

/* The pod's new volumes on a node with or without a CSINode, read once per cycle */
static const NewVolumes *
new_volumes(LimitsState *s, const PodInfo *pod, const CsiNode *cn)
{
	NewVolumes *nv = &s->mine[cn != NULL];
	VolumeOwner o = {pod->namespace ? pod->namespace : "", pod->name ? pod->name : "", pod->uid,
	pod->nvolumes, pod->volumes};
	MemoryContext scratch;
	MemoryContext old;
	Status		st = {CODE_SUCCESS, NIL};
	HTAB	   *h;

	if (nv->done)
		return nv;
	scratch = AllocSetContextCreate(s->cxt, "NodeVolumeLimits new volumes", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(scratch);
	h = str_table("NodeVolumeLimits new volumes");
	if (attachable_volumes(s, cn, &o, true, h, &st, s->cxt))
		volume_set(h, &nv->set, s->cxt);
	else
	{
		nv->code = st.code;
		nv->reason = st.reasons ? linitial(st.reasons) : NULL;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	nv->done = true;
	return nv;
}

/* Free what nv holds (a node's entry is read again each time the node changes) */
static void
forget_node_volumes(NodeVolumes *nv)
{
	for (int i = 0; i < nv->attached.n; i++)
		pfree(nv->attached.keys[i].key);
	if (nv->attached.keys)
		pfree(nv->attached.keys);
	if (nv->counts)
		pfree(nv->counts);
	if (nv->error)
		pfree(nv->error);
	nv->attached.n = 0;
	nv->attached.keys = NULL;
	nv->counts = NULL;
	nv->error = NULL;
}

/*
 * The node's volumes into nv (cn and name already set): those of pods (the
 * node's, or those NodePodsWithNominated gives), then those the
 * VolumeAttachments to it hold that no pod does
 * (getNodeVolumeAttachmentInfo: a VolumeAttachment with an attacher and a
 * CSI PV counts as "<attacher>/<the PV's handle>"), counted per CSINode
 * driver.  A pod's volumes that cannot be read make nv->error.  Kept in
 * cxt; the work is done in a context of its own.
 */
static void
read_node_volumes(LimitsState *s, const NodeInfo *node, List *pods, NodeVolumes *nv, MemoryContext cxt)
{
	const CsiNode *cn = nv->cn;
	MemoryContext scratch = AllocSetContextCreate(cxt, "NodeVolumeLimits node", ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(scratch);
	HTAB	   *attached = str_table("NodeVolumeLimits attached");
	HTAB	   *by_attachment = str_table("NodeVolumeLimits attachments of the node");
	Status		st = {CODE_SUCCESS, NIL};
	StrEntry   *e;
	HASH_SEQ_STATUS seq;
	ListCell   *lc;

	forget_node_volumes(nv);
	nv->counts = MemoryContextAllocZero(cxt, sizeof(int64) * Max(cn->ndrivers, 1));
	foreach(lc, pods)
	{
		const PodRef *p = lfirst(lc);
		VolumeOwner o = {p->namespace ? p->namespace : "", p->name ? p->name : "", p->uid,
		p->nvolumes, p->volumes};

		if (!attachable_volumes(s, cn, &o, false, attached, &st, scratch))
		{
			/* framework.AsStatus(err): an Error, whatever the cause */
			nv->error = MemoryContextStrdup(cxt, st.reasons ? (char *) linitial(st.reasons) : "");
			break;
		}
	}
	if (nv->error == NULL)
	{
		e = node->name ? str_find(s->attachments, node->name, false) : NULL;
		foreach(lc, e ? (List *) e->value : NIL)
		{
			VolAttachment *a = lfirst(lc);
			Pv		   *pv;

			if (a->attacher == NULL || a->attacher[0] == '\0' || a->pv_name == NULL ||
				(pv = VolumeFindPv(s->catalog, a->pv_name)) == NULL || pv->csi_driver == NULL)
				continue;
			add_volume(by_attachment, a->attacher, pv->csi_handle ? pv->csi_handle : "");
		}
		hash_seq_init(&seq, attached);
		while ((e = hash_seq_search(&seq)) != NULL)
			for (int i = 0; i < cn->ndrivers; i++)
				if (cn->drivers[i].name && strcmp(cn->drivers[i].name, e->value) == 0)
					nv->counts[i]++;
		hash_seq_init(&seq, by_attachment);
		while ((e = hash_seq_search(&seq)) != NULL)
		{
			if (str_find(attached, e->key, false) != NULL)
				continue;
			for (int i = 0; i < cn->ndrivers; i++)
				if (cn->drivers[i].name && strcmp(cn->drivers[i].name, e->value) == 0)
					nv->counts[i]++;
		}
		volume_set(attached, &nv->attached, cxt);
	}
	/* the least room left under a driver's limit (its entry, the last of that name) */
	nv->headroom = PG_INT64_MAX;
	for (int i = 0; i < cn->ndrivers; i++)
	{
		const CsiNodeDriver *d = cn->drivers[i].name ? driver_limit(cn, cn->drivers[i].name) : NULL;

		if (d == &cn->drivers[i])
			nv->headroom = Min(nv->headroom, (int64) d->count - nv->counts[i]);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
}

/*
 * The node's entry in the cache beside the catalog, its CSINode looked up;
 * NULL for a node the snapshot did not number (no snapshot, no generation).
 */
static NodeVolumes *
cached_node(PluginCall *call, LimitsState *s, const NodeInfo *node)
{
	VolumeCatalog *cat = s->catalog;
	NodeVolumes *nv;

	if (call->snap == NULL || node->generation == 0 || node->ordinal < 0)
		return NULL;
	if (nodes_serial != cat->serial)
	{
		node_cache_size = Max(call->snap->nordinals, 1);
		node_cache = MemoryContextAllocZero(cat->cxt, sizeof(NodeVolumes) * node_cache_size);
		nodes_serial = cat->serial;
	}
	if (node->ordinal >= node_cache_size)
		return NULL;
	nv = &node_cache[node->ordinal];
	if (nv->name != node->name)
	{
		nv->name = node->name;
		nv->cn = node->name ? VolumeFindCsiNode(cat, node->name) : NULL;
		nv->limited = has_limits(nv->cn);
		nv->generation = 0;
	}
	return nv;
}

/*
 * Filter (CSILimits.Filter): the pod's new volumes, those the node's pods
 * do not hold already, counted per driver on top of the node's, within
 * each driver's limit.  On a node copy with nominated pods in
 * (NodeWithNominatedPods) they are among the node's pods, as in
 * kube-scheduler's copy: the node is read afresh, not from the cache.
 */
static void
filter_in(PluginCall *call, LimitsState *s, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	List	   *pods;
	NodeVolumes *nv;
	NodeVolumes scratch;
	const NewVolumes *mine;
	const CsiNode *cn;
	int64	   *wanted;

	/* a copy with nominated pods that have volumes is read afresh */
	pods = NodePodsWithNominated(node, pod);
	nv = pods == node->pods ? cached_node(call, s, node) : NULL;
	if (nv == NULL)
	{
		memset(&scratch, 0, sizeof(scratch));
		scratch.name = node->name;
		scratch.cn = node->name ? VolumeFindCsiNode(s->catalog, node->name) : NULL;
		scratch.limited = has_limits(scratch.cn);
		nv = &scratch;
	}
	cn = nv->cn;
	mine = new_volumes(s, pod, cn);
	if (mine->code != CODE_SUCCESS)
	{
		StatusSet(st, mine->code, mine->reason);
		return;
	}
	/* no new volume, or no limit: it fits */
	if (mine->set.n == 0 || !nv->limited)
		return;
	if (nv == &scratch)
		read_node_volumes(s, node, pods, nv, CurrentMemoryContext);
	else if (nv->generation != node->generation)
	{
		read_node_volumes(s, node, pods, nv, s->catalog->cxt);
		nv->generation = node->generation;
	}
	if (nv->error)
	{
		StatusSet(st, CODE_ERROR, nv->error);
		return;
	}
	/* room for every new volume under every limit: it fits, whichever they are */
	if (mine->set.n <= nv->headroom)
		return;
	/* Don't count single volume used in multiple pods more than once */
	wanted = palloc0(sizeof(int64) * cn->ndrivers);
	for (int k = 0; k < mine->set.n; k++)
	{
		if (volume_set_has(&nv->attached, mine->set.keys[k].key))
			continue;
		for (int i = 0; i < cn->ndrivers; i++)
			if (cn->drivers[i].name && strcmp(cn->drivers[i].name, mine->set.keys[k].driver) == 0)
				wanted[i]++;
	}
	/* each driver's limit: its entry's count, the last of that name */
	for (int i = 0; i < cn->ndrivers; i++)
	{
		const CsiNodeDriver *d = cn->drivers[i].name ? driver_limit(cn, cn->drivers[i].name) : NULL;

		if (d != &cn->drivers[i] || wanted[i] == 0)
			continue;
		if (nv->counts[i] + wanted[i] > (int64) d->count)
		{
			StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonMaxVolumeCountExceeded);
			break;
		}
	}
	pfree(wanted);
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	if (pod->nvolumes == 0)
		return;
	if (call->state == NULL)
	{
		List	   *names = NIL;

		prefilter(call, pod, st, &names);
		if (st->code == CODE_SKIP)
		{
			st->code = CODE_SUCCESS;
			return;
		}
	}
	filter_in(call, call->state, pod, node, st);
}

/* ------------------------------------------------------------------------
 * QueueingHints, SignPod
 * ------------------------------------------------------------------------
 */

/*
 * isSchedulableAfterPodDeleted: an assigned pod deleted that had a claim,
 * an ephemeral volume or a migratable inline volume.
 */
static QueueingHint
hint_pod_deleted(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	const PodRef *p = ev->old_pod;

	if (p == NULL || p->node == NULL || p->node[0] == '\0')
		return HINT_SKIP;
	for (int i = 0; i < p->nvolumes; i++)
		if (p->volumes[i].kind == PVOL_PVC || p->volumes[i].kind == PVOL_EPHEMERAL ||
			inline_plugin(&p->volumes[i]) != NULL)
			return HINT_QUEUE;
	return HINT_SKIP;
}


/*
 * isSchedulableAfterPVCAdded: a claim of the pod (a persistentVolumeClaim
 * volume's, or a generic ephemeral volume's "<pod>-<volume>", in its
 * namespace) created.
 */
static QueueingHint
hint_claim_added(const PodInfo *pod, const ClusterEvent *ev)
{
	return VolumePodUsesClaim(pod, VolumeEventPvc(ev->new_obj), true) ? HINT_QUEUE : HINT_SKIP;
}

/*
 * isSchedulableAfterVolumeAttachmentDeleted: the deleted attachment was of
 * the PV one of the pod's persistentVolumeClaim volumes is bound to
 * (spec.source.persistentVolumeName), or of the CSI driver an inline AWS EBS
 * or GCE PD volume of the pod migrates to (spec.source.inlineVolumeSpec's
 * csi.driver).  A claim that is not there, or an inline volume that does
 * not translate, is a lookup that failed: Queue, as kube-scheduler does
 * when a hint returns an error.
 */
static QueueingHint
hint_attachment_deleted(const PodInfo *pod, const ClusterEvent *ev)
{
	VolAttachment *va = VolumeEventAttachment(ev->old_obj);

	if (va == NULL)
		return HINT_QUEUE;
	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *v = &pod->volumes[i];
		const InTreePlugin *p;
		char	   *err;

		if (v->kind == PVOL_PVC)
		{
			bool		found;
			char	   *pv;

			if (v->claim == NULL || pod->namespace == NULL)
				continue;
			pv = VolumeClaimVolumeName(pod->namespace, v->claim, &found);
			if (!found || (pv != NULL && va->pv_name != NULL && strcmp(pv, va->pv_name) == 0))
				return HINT_QUEUE;
			continue;
		}
		if ((p = inline_plugin(v)) == NULL)
			continue;
		if (v->kind == PVOL_AWS_EBS && ebs_volume_id(v->disk ? v->disk : "", &err) == NULL)
			return HINT_QUEUE;
		if (va->inline_driver != NULL && strcmp(va->inline_driver, p->driver) == 0)
			return HINT_QUEUE;
	}
	return HINT_SKIP;
}

/*
 * isSchedulableAfterCSINodeUpdated: a driver's allocatable.count went up (a
 * count unset, or a driver the CSINode did not list, reading 0).
 */
static QueueingHint
hint_csinode_updated(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	CsiNode    *was = VolumeEventCsiNode(ev->old_obj);
	CsiNode    *is = VolumeEventCsiNode(ev->new_obj);

	if (was == NULL || is == NULL)
		return HINT_QUEUE;
	for (int i = 0; i < is->ndrivers; i++)
	{
		const CsiNodeDriver *d = &is->drivers[i];
		int32		before = 0;

		/* the old limits as a map: a name listed twice keeps its last count */
		for (int j = 0; j < was->ndrivers; j++)
			if (strcmp(was->drivers[j].name, d->name) == 0)
				before = was->drivers[j].has_count ? was->drivers[j].count : 0;
		if ((d->has_count ? d->count : 0) > before)
			return HINT_QUEUE;
	}
	return HINT_SKIP;
}


const Plugin NodeVolumeLimitsPlugin = {
	.sign = VolumesSign,
	.name = "NodeVolumeLimits",
	.prefilter = prefilter,
	.filter = filter,
	.events = {
		/* any new CSINode may give a limit: no hint */
		{RES_CSI_NODE, ACT_ADD, NULL},
		{RES_ASSIGNED_POD, ACT_DELETE, hint_pod_deleted},
		{RES_PVC, ACT_ADD, hint_claim_added},
		{RES_VOLUME_ATTACHMENT, ACT_DELETE, hint_attachment_deleted},
		{RES_CSI_NODE, ACT_UPDATE_OBJECT, hint_csinode_updated},
	},
};
