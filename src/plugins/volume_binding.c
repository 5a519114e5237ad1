/*
 * volume_binding.c
 *	  VolumeBinding: the pod's PersistentVolumeClaims must be bound, or
 *	  bindable on the node: a bound claim's volume must be reachable from the
 *	  node, an unbound WaitForFirstConsumer claim needs an available volume
 *	  there or a class that can provision one there.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumebinding
 * (volume_binding.go, binder.go, scorer.go), with FindMatchingVolume,
 * CheckNodeAffinity and IsDelayBindingMode of
 * k8s.io/component-helpers/storage/volume, GetLocalPersistentVolumeNodeNames
 * of pkg/scheduler/util and MatchTopologySelectorTerms of
 * pkg/apis/core/v1/helper.
 *
 * PreFilter: Skip for a pod with no persistentVolumeClaim or ephemeral
 * volume.  A claim that is missing, Lost, being deleted, or (ephemeral) not
 * owned by the pod rejects the pod (UnschedulableAndUnresolvable, the
 * error's text); so does an unbound claim that is not WaitForFirstConsumer,
 * or that names its volume already ("pod has unbound immediate
 * PersistentVolumeClaims").  A class without volumeBindingMode is an error.
 * Bound claims whose volumes are local (node affinity "kubernetes.io/hostname
 * In") restrict the nodes to those hostnames (PreFilterResult).
 *
 * Filter (FindPodVolumes): bound claims' volumes must exist and their node
 * affinity match the node's labels; unbound claims are matched, smallest
 * request first, to the smallest available volume of their class that fits
 * (capacity, access modes, volume mode, selector, node affinity), a volume
 * pre-bound to the claim winning outright; claims left over, and claims with
 * a selected node (which must be this one), need a class with a provisioner
 * whose allowedTopologies match the node and, for a CSI driver with
 * storageCapacity, a CSIStorageCapacity of the class that reaches the node
 * and holds the request.  Reasons, all UnschedulableAndUnresolvable, in
 * this order: node conflict, bind conflict, not enough space, PV not exist.
 *
 * PreScore/Score (only with the VolumeCapacityPriority gate): the static
 * bindings chosen on a node, grouped by their volumes' class, score the
 * class's utilization (requested / capacity) through the shape; the node's
 * score is the classes' rounded mean.  PreScore skips when no node has a
 * static binding.
 *
 * Not done here: the in-tree to CSI translation of a bound volume's node
 * affinity on nodes where the plugin is migrated (tryTranslatePVToCSI), and
 * Reserve/PreBind/Unreserve (the plugin interface has no such points yet;
 * the per-node PodVolumes below are what they would read).
 */
#include "postgres.h"

#include <math.h>

#include "common/int.h"
#include "utils/builtins.h"

#include "jsonutil.h"
#include "labels.h"
#include "plugin.h"
#include "resources.h"
#include "shape.h"
#include "volumes.h"

/* binder.go's ConflictReasons */
#define ErrReasonBindConflict "node(s) didn't find available persistent volumes to bind"
#define ErrReasonNodeConflict "node(s) had volume node affinity conflict"
#define ErrReasonNotEnoughSpace "node(s) did not have enough free storage"
#define ErrReasonPVNotExist "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
/* volume_binding.go's PreFilter */
#define ErrReasonUnboundImmediate "pod has unbound immediate PersistentVolumeClaims"

#define LABEL_HOSTNAME "kubernetes.io/hostname"
#define NOT_SUPPORTED_PROVISIONER "kubernetes.io/no-provisioner"

#define MAX_NODE_SCORE 100
#define MAX_UTILIZATION 100
#define DEFAULT_BIND_TIMEOUT_SECONDS 600

/* ------------------------------------------------------------------------
 * Args (VolumeBindingArgs), validated as ValidateVolumeBindingArgsWithOptions
 * ------------------------------------------------------------------------
 */
typedef struct BindingArgs
{
	int64		bind_timeout_seconds;	/* how long a binding waits for its claims (PreBind) */
	bool		scorer;			/* VolumeCapacityPriority was on: Score runs */
	Shape		shape;			/* n == 0 without the scorer */
} BindingArgs;

static void
field_error(const char *type, const char *path, const char *value, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("VolumeBinding args: %s: %s%s%s%s%s", path, type,
					value ? ": " : "", value ? value : "", detail ? ": " : "", detail ? detail : "")));
}

static int64
arg_int(JsonbValue *v, const char *path)
{
	int64		x;

	if (v == NULL)
		return 0;
	if (!JValueInt64(v, &x))
		field_error("Invalid value", path, JShortScalar(v), "must be an integer");
	return x;
}

/*
 * bindTimeoutSeconds (default 600) must not be negative; shape is for the
 * VolumeCapacityPriority gate only (an error without it), and defaults with
 * it to {0, 0}, {100, 10} (SetDefaults_VolumeBindingArgs).
 */
static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "bindTimeoutSeconds", "shape", NULL};
	BindingArgs *a = palloc0(sizeof(BindingArgs));
	JsonbValue *timeout = JGet(&args->root, "bindTimeoutSeconds");
	JsonbValue *shape = JGet(&args->root, "shape");

	JCheckKnownFields(&args->root, top, "VolumeBinding args", NULL);
	a->bind_timeout_seconds = timeout ? arg_int(timeout, "bindTimeoutSeconds") : DEFAULT_BIND_TIMEOUT_SECONDS;
	if (a->bind_timeout_seconds < 0)
		field_error("Invalid value", "bindTimeoutSeconds", psprintf("%lld", (long long) a->bind_timeout_seconds),
					"invalid BindTimeoutSeconds, should not be a negative value");
	a->scorer = scheduler_features.VolumeCapacityPriority;
	if (!a->scorer)
	{
		if (shape)
			field_error("Invalid value", "shape", NULL,
						"unexpected field `shape`, remove it or turn on the feature gate VolumeCapacityPriority");
		return a;
	}
	if (shape)
		ShapeParse(&a->shape, shape, "VolumeBinding args", "shape",
				   "utilization values must be sorted in increasing order");
	else
	{
		a->shape.n = 2;
		a->shape.points = palloc0(sizeof(ShapePoint) * 2);
		a->shape.points[1].utilization = MAX_UTILIZATION;
		a->shape.points[1].score = MAX_NODE_SCORE;
	}
	return a;
}

/* ------------------------------------------------------------------------
 * The cycle's state
 *
 * PreFilter sorts the pod's claims (GetPodVolumeClaims); Filter records per
 * node what it found there, kube-scheduler's PodVolumes: the volume chosen
 * for each unbound claim (StaticBindings) and the claims to provision
 * (DynamicProvisions).  Reserve assumes what the chosen node's PodVolumes
 * hold, and leaves PreBind's requests to the outbox.
 * ------------------------------------------------------------------------
 */
typedef struct StaticBinding
{
	Pvc		   *pvc;
	Pv		   *pv;
} StaticBinding;

typedef struct PodVolumes
{
	bool		filtered;		/* Filter (or PreScore) looked at this node */
	bool		feasible;		/* and it passed */
	int			nstatic;
	StaticBinding *statics;		/* StaticBindings */
	int			ndynamic;
	Pvc		  **dynamics;		/* DynamicProvisions */
} PodVolumes;

/* A volume with its node affinity parsed once per cycle */
typedef struct VolumeRef
{
	Pv		   *pv;
	const void *affinity;		/* NodeSelectorParse: NULL matches every node */
} VolumeRef;

/* An unbound WaitForFirstConsumer claim, with the volumes of its class */
typedef struct DelayedClaim
{
	Pvc		   *pvc;
	const char *class_name;		/* GetPersistentVolumeClaimClass */
	List	   *pvs;			/* VolumeRef *: unboundVolumesDelayBinding[class] */
} DelayedClaim;

typedef struct BindingState
{
	VolumeCatalog *cat;
	MemoryContext cxt;			/* the cycle's: what Filter records lives there */
	int			nbound;
	Pvc		  **bound;			/* boundClaims */
	VolumeRef  *bound_pvs;		/* their volumes (pv NULL: missing) */
	int			ndelayed;
	DelayedClaim *delayed;		/* unboundClaimsDelayBinding */
	int			nnodes;
	PodVolumes *by_node;		/* podVolumesByNode, by node ordinal; NULL
								 * with every claim bound (nothing to read) */
	bool		has_static;		/* hasStaticBindings */
	NodeInfo   *labels_only;	/* the node volume.CheckNodeAffinity sees */
	ClusterSnapshot *snap;		/* whose label columns number the nodes */
} BindingState;

/* ------------------------------------------------------------------------
 * Helpers of component-helpers/storage/volume
 * ------------------------------------------------------------------------
 */

/* Go's %q of a name: quoted, with '"', '\' and control bytes escaped */
static char *
quote(const char *s)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '"');
	for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++)
	{
		if (*p == '"' || *p == '\\')
			appendStringInfo(&buf, "\\%c", *p);
		else if (*p == '\n')
			appendStringInfoString(&buf, "\\n");
		else if (*p == '\t')
			appendStringInfoString(&buf, "\\t");
		else if (*p == '\r')
			appendStringInfoString(&buf, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			appendStringInfo(&buf, "\\x%02x", *p);
		else
			appendStringInfoChar(&buf, (char) *p);
	}
	appendStringInfoChar(&buf, '"');
	return buf.data;
}

static const char *
str_or_empty(const char *s)
{
	return s ? s : "";
}

/* GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName */
static const char *
claim_class(const Pvc *pvc)
{
	if (pvc->beta_class)
		return pvc->beta_class;
	return str_or_empty(pvc->storage_class);
}

/* GetPersistentVolumeClass */
static const char *
volume_class(const Pv *pv)
{
	if (pv->beta_class)
		return pv->beta_class;
	return str_or_empty(pv->storage_class);
}

/* The claimRef a volume has in this call: an assumed binding first */
static bool
volume_claim_ref(const Pv *pv, const char **ns, const char **name, const char **uid)
{
	if (pv->assumed_claim_name)
	{
		*ns = str_or_empty(pv->assumed_claim_namespace);
		*name = pv->assumed_claim_name;
		*uid = "";
		return true;
	}
	if (pv->claim_name == NULL)
		return false;
	*ns = str_or_empty(pv->claim_namespace);
	*name = pv->claim_name;
	*uid = str_or_empty(pv->claim_uid);
	return true;
}

/*
 * IsVolumeBoundToClaim: the volume's claimRef names the claim (namespace
 * and name), and its uid if it has one.
 */
static bool
volume_bound_to_claim(const Pv *pv, const Pvc *pvc)
{
	const char *ns;
	const char *name;
	const char *uid;

	if (!volume_claim_ref(pv, &ns, &name, &uid))
		return false;
	if (strcmp(name, str_or_empty(pvc->name)) != 0 || strcmp(ns, str_or_empty(pvc->namespace)) != 0)
		return false;
	return uid[0] == '\0' || strcmp(uid, str_or_empty(pvc->uid)) == 0;
}

/*
 * CheckNodeAffinity(pv, node.Labels): no required node affinity matches
 * every node; else a term must match the node's labels (the node is one
 * with labels only: matchFields are not read).
 */
static bool
volume_node_affinity_matches(const VolumeRef *v, ClusterSnapshot *snap, const NodeInfo *labels_only)
{
	return NodeSelectorMatches(v->affinity, snap, labels_only);
}

static VolumeRef *
volume_ref(Pv *pv)
{
	VolumeRef  *v = palloc(sizeof(VolumeRef));

	v->pv = pv;
	v->affinity = NodeSelectorParse(pv->node_affinity);
	return v;
}

/* CheckVolumeModeMismatches: unset is Filesystem on both sides */
static bool
volume_mode_matches(const Pvc *pvc, const Pv *pv)
{
	return strcmp(pvc->volume_mode ? pvc->volume_mode : "Filesystem",
				  pv->volume_mode ? pv->volume_mode : "Filesystem") == 0;
}

/*
 * FindMatchingVolume (scheduler path, delayBinding): a volume pre-bound to
 * the claim is the answer (or none, when its node affinity does not match);
 * else the smallest available volume of the claim's class that holds the
 * request, has its access modes and volume mode, matches its selector and
 * reaches the node.  Volumes being deleted, or claimed by another claim, or
 * already chosen, are passed over.  *err on a selector that does not parse.
 */
static Pv *
find_matching_volume(const DelayedClaim *dc, ClusterSnapshot *snap, const NodeInfo *labels_only,
					 List *chosen, char **err)
{
	const Pvc  *pvc = dc->pvc;
	int64		requested = pvc->has_request ? pvc->request : 0;
	LabelSelector *selector = NULL;
	Pv		   *smallest = NULL;
	ListCell   *lc;

	*err = NULL;
	if (pvc->selector)
	{
		char	   *why;

		selector = LabelSelectorParseJsonb(pvc->selector, &why);
		if (selector == NULL)
		{
			*err = psprintf("error creating internal label selector for claim: %s/%s: %s",
							str_or_empty(pvc->namespace), str_or_empty(pvc->name), why);
			return NULL;
		}
	}
	foreach(lc, dc->pvs)
	{
		VolumeRef  *ref = lfirst(lc);
		Pv		   *pv = ref->pv;
		int64		capacity = pv->has_capacity ? pv->capacity : 0;
		const char *ns;
		const char *name;
		const char *uid;
		bool		affinity_ok;

		if (list_member_ptr(chosen, pv))
			continue;
		if (volume_claim_ref(pv, &ns, &name, &uid) && !volume_bound_to_claim(pv, pvc))
			continue;
		if (capacity < requested || !volume_mode_matches(pvc, pv) || pv->deleting)
			continue;
		affinity_ok = volume_node_affinity_matches(ref, snap, labels_only);
		if (volume_bound_to_claim(pv, pvc))
			return affinity_ok ? pv : NULL;
		if (pv->phase == NULL || strcmp(pv->phase, "Available") != 0)
			continue;
		if (selector && !LabelSelectorMatches(selector, pv->labels))
			continue;
		if (strcmp(volume_class(pv), dc->class_name) != 0 || !affinity_ok)
			continue;
		/* CheckAccessModes: every mode the claim asks for */
		if ((pvc->access_modes & ~pv->access_modes) != 0)
			continue;
		if (smallest == NULL || (smallest->has_capacity ? smallest->capacity : 0) > capacity)
			smallest = pv;
	}
	return smallest;
}

/* ------------------------------------------------------------------------
 * PreFilter
 * ------------------------------------------------------------------------
 */

/*
 * ephemeral.VolumeIsForPod: the claim is in the pod's namespace and its
 * controller (the first owner reference with controller true) is the pod.
 */
static bool
claim_is_for_pod(const Pvc *pvc, const PodInfo *pod)
{
	Jsonb	   *refs = pvc->owner_refs;

	if (strcmp(str_or_empty(pvc->namespace), str_or_empty(pod->namespace)) != 0)
		return false;
	if (refs == NULL || !JB_ROOT_IS_ARRAY(refs) || JB_ROOT_IS_SCALAR(refs))
		return false;
	for (int i = 0; i < (int) JB_ROOT_COUNT(refs); i++)
	{
		JsonbValue *r = getIthJsonbValueFromContainer(&refs->root, i);
		JsonbValue *controller;
		JsonbValue *uid;

		if (r->type != jbvBinary)
			continue;
		controller = JGet(r->val.binary.data, "controller");
		if (controller == NULL || controller->type != jbvBool || !controller->val.boolean)
			continue;
		uid = JGet(r->val.binary.data, "uid");
		return uid && uid->type == jbvString && pod->uid &&
			strlen(pod->uid) == (size_t) uid->val.string.len &&
			memcmp(pod->uid, uid->val.string.val, uid->val.string.len) == 0;
	}
	return false;
}

/*
 * podHasPVCs: the claim of a persistentVolumeClaim or ephemeral volume,
 * or why the pod cannot use it (NULL and *why set).
 */
static Pvc *
pod_claim(VolumeCatalog *cat, const PodInfo *pod, const PodVolume *vol, char **why)
{
	Pvc		   *pvc = VolumeFindPvc(cat, str_or_empty(pod->namespace), str_or_empty(vol->claim));

	*why = NULL;
	if (pvc == NULL)
	{
		/* a generic ephemeral volume's claim comes a moment after the pod */
		if (vol->kind == PVOL_EPHEMERAL)
			*why = psprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %s",
							quote(vol->claim));
		else
			*why = VolumeNotFound("persistentvolumeclaim", str_or_empty(vol->claim));
		return NULL;
	}
	if (pvc->phase && strcmp(pvc->phase, "Lost") == 0)
		*why = psprintf("persistentvolumeclaim %s bound to non-existent persistentvolume %s",
						quote(pvc->name), quote(pvc->volume_name));
	else if (pvc->deleting)
		*why = psprintf("persistentvolumeclaim %s is being deleted", quote(pvc->name));
	else if (vol->kind == PVOL_EPHEMERAL && !claim_is_for_pod(pvc, pod))
		*why = psprintf("PVC %s/%s was not created for pod %s/%s (pod is not owner)",
						str_or_empty(pvc->namespace), str_or_empty(pvc->name),
						str_or_empty(pod->namespace), str_or_empty(pod->name));
	return *why ? NULL : pvc;
}

/*
 * IsDelayBindingMode: the claim's class is WaitForFirstConsumer; a claim
 * with no class, or a class that does not exist, binds immediately; a class
 * with no volumeBindingMode is an error (*err).
 */
static bool
delay_binding(VolumeCatalog *cat, const Pvc *pvc, char **err)
{
	const char *name = claim_class(pvc);
	StorageClass *sc;

	*err = NULL;
	if (name[0] == '\0' || (sc = VolumeFindClass(cat, name)) == NULL)
		return false;
	if (!sc->binding_mode_set)
	{
		*err = psprintf("VolumeBindingMode not set for StorageClass %s", quote(name));
		return false;
	}
	return sc->wait_for_first_consumer;
}

/* pvCache.ListPVs(class): the volumes of the class, by name */
static List *
class_volumes(VolumeCatalog *cat, const char *class_name)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, cat->pv_list)
	{
		Pv		   *pv = lfirst(lc);

		if (strcmp(volume_class(pv), class_name) == 0)
			out = lappend(out, volume_ref(pv));
	}
	return out;
}

/* names compared as strings (list_intersection/list_union compare Nodes) */
static List *
names_intersection(List *a, List *b)
{
	List	   *out = NIL;
	ListCell   *x;
	ListCell   *y;

	foreach(x, a)
		foreach(y, b)
			if (strcmp(lfirst(x), lfirst(y)) == 0)
			{
				out = lappend(out, lfirst(x));
				break;
			}
	return out;
}

static List *
names_union(List *a, List *b)
{
	ListCell   *y;

	foreach(y, b)
		if (names_intersection(a, list_make1(lfirst(y))) == NIL)
			a = lappend(a, lfirst(y));
	return a;
}

static int
cmp_names(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* a string field of a JSON object, or NULL */
static char *
json_str(JsonbValue *obj, const char *key)
{
	JsonbValue *v = obj->type == jbvBinary ? JGet(obj->val.binary.data, key) : NULL;

	return v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

/* the strings of a JSON array value (others left out) */
static List *
json_strings(JsonbValue *arr)
{
	List	   *out = NIL;

	if (arr == NULL || arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
		return NIL;
	for (int k = 0; k < (int) JsonContainerSize(arr->val.binary.data); k++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(arr->val.binary.data, k);

		if (v->type == jbvString)
			out = lappend(out, pnstrdup(v->val.string.val, v->val.string.len));
	}
	return out;
}

/*
 * GetLocalPersistentVolumeNodeNames: per term, the intersection of its
 * "kubernetes.io/hostname In" values (none: the term adds nothing); the
 * union over the terms.  NIL when there are none.
 */
static List *
local_volume_node_names(const Pv *pv)
{
	JsonbValue *terms = pv->node_affinity ? JGet(&pv->node_affinity->root, "nodeSelectorTerms") : NULL;
	List	   *result = NIL;

	if (terms == NULL || terms->type != jbvBinary || !JsonContainerIsArray(terms->val.binary.data))
		return NIL;
	for (int i = 0; i < (int) JsonContainerSize(terms->val.binary.data); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(terms->val.binary.data, i);
		JsonbValue *exprs = t->type == jbvBinary ? JGet(t->val.binary.data, "matchExpressions") : NULL;
		List	   *nodes = NIL;
		bool		any = false;

		if (exprs == NULL || exprs->type != jbvBinary || !JsonContainerIsArray(exprs->val.binary.data))
			continue;
		for (int j = 0; j < (int) JsonContainerSize(exprs->val.binary.data); j++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(exprs->val.binary.data, j);
			char	   *key = json_str(e, "key");
			char	   *op = json_str(e, "operator");
			List	   *these;

			if (key == NULL || op == NULL || strcmp(key, LABEL_HOSTNAME) != 0 || strcmp(op, "In") != 0)
				continue;
			these = json_strings(e->type == jbvBinary ? JGet(e->val.binary.data, "values") : NULL);
			nodes = any ? names_intersection(nodes, these) : names_union(NIL, these);
			any = true;
		}
		result = names_union(result, nodes);
	}
	return result;
}

/*
 * GetEligibleNodes: the nodes every bound claim's local volume allows
 * (intersection over the claims that have one); *restricts false when none
 * has one, or a bound claim's volume is missing.
 */
static List *
eligible_nodes(BindingState *s, bool *restricts)
{
	List	   *eligible = NIL;

	*restricts = false;
	for (int i = 0; i < s->nbound; i++)
	{
		Pv		   *pv = s->bound_pvs[i].pv;
		List	   *names;

		if (pv == NULL)
		{
			*restricts = false;
			return NIL;
		}
		names = local_volume_node_names(pv);
		if (names == NIL)
			continue;
		eligible = *restricts ? names_intersection(eligible, names) : names;
		*restricts = true;
	}
	list_sort(eligible, cmp_names);
	return eligible;
}

/*
 * PreFilter: Skip without claims; every claim must be usable (podHasPVCs),
 * then sorted into bound, WaitForFirstConsumer-unbound and immediate-unbound
 * ones (GetPodVolumeClaims); immediate unbound claims reject the pod; bound
 * local volumes may restrict the nodes (GetEligibleNodes).
 */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names)
{
	BindingState *s;
	Pvc		  **claims;
	int			nclaims = 0;
	bool		immediate = false;
	bool		restricts;
	List	   *names;

	for (int i = 0; i < pod->nvolumes; i++)
		if (pod->volumes[i].kind == PVOL_PVC || pod->volumes[i].kind == PVOL_EPHEMERAL)
			nclaims++;
	if (nclaims == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	s = palloc0(sizeof(BindingState));
	s->cat = VolumeCatalogGet(call->snap);
	s->cxt = CurrentMemoryContext;
	claims = palloc(sizeof(Pvc *) * nclaims);
	nclaims = 0;
	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *vol = &pod->volumes[i];
		char	   *why;

		if (vol->kind != PVOL_PVC && vol->kind != PVOL_EPHEMERAL)
			continue;
		if ((claims[nclaims++] = pod_claim(s->cat, pod, vol, &why)) == NULL)
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, why);
			return;
		}
	}

	s->bound = palloc(sizeof(Pvc *) * nclaims);
	s->bound_pvs = palloc0(sizeof(VolumeRef) * nclaims);
	s->delayed = palloc(sizeof(DelayedClaim) * nclaims);
	for (int i = 0; i < nclaims; i++)
	{
		Pvc		   *pvc = claims[i];
		bool		has_volume = pvc->volume_name && pvc->volume_name[0];
		char	   *err;
		bool		delay;

		/* isPVCFullyBound: a volume, and the bind-completed annotation */
		if (has_volume && pvc->bind_completed)
		{
			Pv		   *pv = VolumeFindPv(s->cat, pvc->volume_name);

			if (pv)
				s->bound_pvs[s->nbound] = *volume_ref(pv);
			s->bound[s->nbound++] = pvc;
			continue;
		}
		delay = delay_binding(s->cat, pvc, &err);
		if (err)
		{
			StatusSet(st, CODE_ERROR, err);
			return;
		}
		/* a claim pre-bound to a volume is left to the PV controller */
		if (!delay || has_volume)
		{
			immediate = true;
			continue;
		}
		s->delayed[s->ndelayed].pvc = pvc;
		s->delayed[s->ndelayed].class_name = claim_class(pvc);
		s->delayed[s->ndelayed].pvs = class_volumes(s->cat, claim_class(pvc));
		s->ndelayed++;
	}
	if (immediate)
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonUnboundImmediate);
		return;
	}
	names = eligible_nodes(s, &restricts);
	if (restricts)
	{
		call->restricts_nodes = true;
		*node_names = names;
	}
	/*
	 * podVolumesByNode: with every claim bound, a node's PodVolumes is
	 * empty (no static bindings, no provisioning) and nothing reads it:
	 * PreScore and Score skip, Reserve has nothing to assume.
	 */
	if (s->ndelayed > 0)
	{
		s->nnodes = Max(call->snap->nordinals, 0);
		s->by_node = palloc0(sizeof(PodVolumes) * Max(s->nnodes, 1));
	}
	/* volume.CheckNodeAffinity sees a node with the labels and no name */
	s->labels_only = palloc0(sizeof(NodeInfo));
	s->labels_only->name = "";
	s->snap = call->snap;
	call->state = s;
	/* every claim bound, to a volume that reaches every node: Filter passes them all */
	call->passes_every_node = (s->ndelayed == 0);
	for (int i = 0; i < s->nbound && call->passes_every_node; i++)
		call->passes_every_node = s->bound_pvs[i].pv != NULL && s->bound_pvs[i].affinity == NULL;
}

/* ------------------------------------------------------------------------
 * Filter: FindPodVolumes
 * ------------------------------------------------------------------------
 */

/*
 * checkBoundClaims: every bound claim's volume must exist (else
 * *pvs_found false, and the rest are not looked at) and reach the node.
 */
static bool
check_bound_claims(BindingState *s, const NodeInfo *labels_only, bool *pvs_found)
{
	*pvs_found = true;
	for (int i = 0; i < s->nbound; i++)
	{
		if (s->bound_pvs[i].pv == NULL)
		{
			*pvs_found = false;
			return true;
		}
		if (!volume_node_affinity_matches(&s->bound_pvs[i], s->snap, labels_only))
			return false;
	}
	return true;
}

/*
 * findMatchingVolumes: the claims by increasing request (a stable order
 * for equal ones, as Go's insertion sort of short slices), each given the
 * best volume not chosen yet; the claims left without one join *prov.
 */
static bool
find_matching_volumes(DelayedClaim **match, int nmatch, ClusterSnapshot *snap, const NodeInfo *labels_only,
					  PodVolumes *out, DelayedClaim **prov, int *nprov, char **err)
{
	List	   *chosen = NIL;
	bool		found = true;

	for (int i = 1; i < nmatch; i++)
	{
		DelayedClaim *dc = match[i];
		int64		size = dc->pvc->has_request ? dc->pvc->request : 0;
		int			j = i;

		while (j > 0 && (match[j - 1]->pvc->has_request ? match[j - 1]->pvc->request : 0) > size)
		{
			match[j] = match[j - 1];
			j--;
		}
		match[j] = dc;
	}
	out->statics = palloc(sizeof(StaticBinding) * Max(nmatch, 1));
	for (int i = 0; i < nmatch; i++)
	{
		Pv		   *pv = find_matching_volume(match[i], snap, labels_only, chosen, err);

		if (*err)
			return false;
		if (pv == NULL)
		{
			prov[(*nprov)++] = match[i];
			found = false;
			continue;
		}
		chosen = lappend(chosen, pv);
		out->statics[out->nstatic].pvc = match[i]->pvc;
		out->statics[out->nstatic].pv = pv;
		out->nstatic++;
	}
	return found;
}

/*
 * MatchTopologySelectorTerms: no terms match every node; else a term with
 * expressions, each an "In" the node's label satisfies (a term whose
 * requirement is invalid matches nothing).
 */
static bool
topology_matches(Jsonb *allowed, const NodeInfo *node)
{
	if (allowed == NULL || !JB_ROOT_IS_ARRAY(allowed) || JB_ROOT_COUNT(allowed) == 0)
		return true;
	for (int i = 0; i < (int) JB_ROOT_COUNT(allowed); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(&allowed->root, i);
		JsonbValue *exprs = t->type == jbvBinary ? JGet(t->val.binary.data, "matchLabelExpressions") : NULL;
		bool		ok = true;

		if (exprs == NULL || exprs->type != jbvBinary || !JsonContainerIsArray(exprs->val.binary.data) ||
			JsonContainerSize(exprs->val.binary.data) == 0)
			continue;
		for (int j = 0; ok && j < (int) JsonContainerSize(exprs->val.binary.data); j++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(exprs->val.binary.data, j);
			char	   *key = json_str(e, "key");
			List	   *values = json_strings(e->type == jbvBinary ? JGet(e->val.binary.data, "values") : NULL);
			const char *have;
			int			len = 0;
			ListCell   *lc;

			/* labels.NewRequirement(key, In, values) must hold */
			if (key == NULL || !LabelValidKey(key) || values == NIL)
			{
				ok = false;
				break;
			}
			foreach(lc, values)
				if (!LabelValidValue(lfirst(lc)))
					ok = false;
			have = ok ? LabelGet(node->labels, key, strlen(key), &len) : NULL;
			ok = false;
			foreach(lc, values)
				if (have && (int) strlen(lfirst(lc)) == len && memcmp(lfirst(lc), have, len) == 0)
					ok = true;
		}
		if (ok)
			return true;
	}
	return false;
}

/*
 * hasEnoughCapacity: a claim with a request, provisioned by a CSI driver
 * that opts into storage capacity tracking, needs a CSIStorageCapacity of
 * its class whose nodeTopology selects the node and whose
 * maximumVolumeSize (else capacity) holds the request.
 */
static bool
has_enough_capacity(BindingState *s, const StorageClass *sc, const Pvc *pvc, const NodeInfo *node)
{
	CsiDriver  *driver;
	ListCell   *lc;

	if (!pvc->has_request)
		return true;
	driver = VolumeFindDriver(s->cat, sc->provisioner);
	if (driver == NULL || !driver->storage_capacity)
		return true;
	foreach(lc, s->cat->capacities)
	{
		CsiCapacity *cap = lfirst(lc);
		LabelSelector *sel;
		char	   *err;

		if (cap->storage_class == NULL || sc->name == NULL || strcmp(cap->storage_class, sc->name) != 0)
			continue;
		if (cap->has_max_size ? cap->max_size < pvc->request :
			(!cap->has_capacity || cap->capacity < pvc->request))
			continue;
		/* nodeHasAccess: only a label selector; none reaches no node */
		if (cap->node_topology == NULL ||
			(sel = LabelSelectorParseJsonb(cap->node_topology, &err)) == NULL)
			continue;
		if (LabelSelectorMatches(sel, node->labels))
			return true;
	}
	return false;
}

/*
 * checkVolumeProvisions: each claim's class must provision (a provisioner,
 * not kubernetes.io/no-provisioner), on this node (allowedTopologies), with
 * room (hasEnoughCapacity: else *sufficient false, the claim counted as
 * provisionable).  Stops at the first claim that fails.
 */
static bool
check_volume_provisions(BindingState *s, const NodeInfo *node, DelayedClaim **prov, int nprov,
						PodVolumes *out, bool *sufficient, char **err)
{
	*sufficient = true;
	out->ndynamic = 0;
	out->dynamics = palloc(sizeof(Pvc *) * Max(nprov, 1));
	for (int i = 0; i < nprov; i++)
	{
		Pvc		   *pvc = prov[i]->pvc;
		const char *class_name = claim_class(pvc);
		StorageClass *sc;

		if (class_name[0] == '\0')
		{
			*err = psprintf("no class for claim %s",
							quote(psprintf("%s/%s", str_or_empty(pvc->namespace), str_or_empty(pvc->name))));
			return false;
		}
		if ((sc = VolumeFindClass(s->cat, class_name)) == NULL)
		{
			*err = psprintf("failed to find storage class %s", quote(class_name));
			return false;
		}
		if (sc->provisioner == NULL || sc->provisioner[0] == '\0' ||
			strcmp(sc->provisioner, NOT_SUPPORTED_PROVISIONER) == 0)
			return false;
		if (!topology_matches(sc->allowed_topologies, node))
			return false;
		if (!has_enough_capacity(s, sc, pvc, node))
		{
			*sufficient = false;
			return true;
		}
		out->dynamics[i] = pvc;
	}
	out->ndynamic = nprov;
	return true;
}

/*
 * The unbound claims: those with a selected node must have this one (else
 * the node fails at once); the others are matched to volumes, and those
 * left over, with the selected-node ones, provisioned.
 */
static bool
check_unbound_claims(BindingState *s, const NodeInfo *node, const NodeInfo *labels_only,
					 PodVolumes *out, bool *sufficient, char **err)
{
	DelayedClaim **match = palloc(sizeof(DelayedClaim *) * s->ndelayed);
	DelayedClaim **prov = palloc(sizeof(DelayedClaim *) * s->ndelayed);
	int			nmatch = 0;
	int			nprov = 0;
	bool		satisfied = true;

	for (int i = 0; i < s->ndelayed; i++)
	{
		const char *selected = s->delayed[i].pvc->selected_node;

		if (selected == NULL)
			match[nmatch++] = &s->delayed[i];
		else if (strcmp(selected, node->name) != 0)
			return false;
		else
			prov[nprov++] = &s->delayed[i];
	}
	if (nmatch > 0)
		satisfied = find_matching_volumes(match, nmatch, s->snap, labels_only, out, prov, &nprov, err);
	if (*err == NULL && nprov > 0)
		satisfied = check_volume_provisions(s, node, prov, nprov, out, sufficient, err);
	return satisfied;
}

/*
 * FindPodVolumes of the pod on the node, into out (the node's PodVolumes);
 * st gets the conflict reasons in kube-scheduler's order, or an Error.
 */
static void
find_pod_volumes(BindingState *s, const NodeInfo *node, PodVolumes *out, Status *st)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	NodeInfo   *labels_only = s->labels_only;
	bool		bound_ok = true;
	bool		pvs_found = true;
	bool		unbound_ok = true;
	bool		sufficient = true;
	char	   *err = NULL;

	memset(out, 0, sizeof(PodVolumes));
	/* the node's labels, and its place: the label columns number it so */
	labels_only->labels = node->labels;
	labels_only->labels_version = node->labels_version;
	labels_only->position = node->position;

	if (s->nbound > 0)
		bound_ok = check_bound_claims(s, labels_only, &pvs_found);
	if (s->ndelayed > 0)
		unbound_ok = check_unbound_claims(s, node, labels_only, out, &sufficient, &err);
	if (err)
		StatusSet(st, CODE_ERROR, err);
	else
	{
		if (!bound_ok)
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNodeConflict);
		if (!unbound_ok)
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonBindConflict);
		if (!sufficient)
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNotEnoughSpace);
		if (!pvs_found)
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonPVNotExist);
	}
	out->filtered = true;
	out->feasible = (st->code == CODE_SUCCESS);
	if (out->feasible && out->nstatic > 0)
		s->has_static = true;
	MemoryContextSwitchTo(old);
}

/* The node's PodVolumes (a scratch one for a node the snapshot did not number) */
static PodVolumes *
node_volumes(BindingState *s, const NodeInfo *node)
{
	if (node->ordinal >= 0 && node->ordinal < s->nnodes)
		return &s->by_node[node->ordinal];
	return MemoryContextAllocZero(s->cxt, sizeof(PodVolumes));
}

static void
filter(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, Status *st)
{
	BindingState *s = call->state;
	PodVolumes	unread;

	/* no state: PreFilter skipped or rejected the pod, nothing to check */
	if (s == NULL)
		return;
	/* with every claim bound, only the verdict counts (by_node is NULL) */
	find_pod_volumes(s, node, s->by_node ? node_volumes(s, node) : &unread, st);
}

/* ------------------------------------------------------------------------
 * PreScore and Score
 * ------------------------------------------------------------------------
 */

/*
 * PreScore: Skip without the VolumeCapacityPriority gate, or when no node
 * has a static binding.  A node Filter did not look at in this cycle (its
 * verdict was kept from an equal pod's) is looked at here.
 */
static void
prescore(PluginCall *call, const PodInfo *pod pg_attribute_unused(), NodeInfo **nodes, int n, Status *st)
{
	const BindingArgs *a = call->args;
	BindingState *s = call->state;

	/* every claim bound: no static bindings anywhere (hasStaticBindings) */
	if (a == NULL || !a->scorer || s == NULL || s->ndelayed == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	for (int k = 0; k < n; k++)
	{
		PodVolumes *pv = node_volumes(s, nodes[k]);
		Status		ignored = {CODE_SUCCESS, NIL};

		if (!pv->filtered)
			find_pod_volumes(s, nodes[k], pv, &ignored);
	}
	if (!s->has_static)
		st->code = CODE_SKIP;
}

/*
 * Score: the node's static bindings by their volumes' class
 * (spec.storageClassName): each class scores the shape at its utilization
 * (100 when it has no capacity or is over it); the node, the rounded mean.
 */
static int64
score(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, Status *st pg_attribute_unused())
{
	const BindingArgs *a = call->args;
	BindingState *s = call->state;
	PodVolumes *pv;
	const char **classes;
	int64	   *requested;
	int64	   *capacity;
	int			nclasses = 0;
	int64		total = 0;

	if (a == NULL || !a->scorer || a->shape.n == 0 || s == NULL || s->ndelayed == 0)
		return 0;
	pv = node_volumes(s, node);
	if (!pv->filtered)
	{
		Status		ignored = {CODE_SUCCESS, NIL};

		find_pod_volumes(s, node, pv, &ignored);
	}
	if (!pv->feasible || pv->nstatic == 0)
		return 0;
	classes = palloc(sizeof(char *) * pv->nstatic);
	requested = palloc0(sizeof(int64) * pv->nstatic);
	capacity = palloc0(sizeof(int64) * pv->nstatic);
	for (int i = 0; i < pv->nstatic; i++)
	{
		const StaticBinding *b = &pv->statics[i];
		const char *cls = str_or_empty(b->pv->storage_class);
		int			c = 0;

		while (c < nclasses && strcmp(classes[c], cls) != 0)
			c++;
		if (c == nclasses)
			classes[nclasses++] = cls;
		(void) AddSaturating(&requested[c], b->pvc->has_request ? b->pvc->request : 0);
		(void) AddSaturating(&capacity[c], b->pv->has_capacity ? b->pv->capacity : 0);
	}
	for (int c = 0; c < nclasses; c++)
	{
		int64		u = (capacity[c] == 0 || requested[c] > capacity[c]) ? MAX_UTILIZATION :
			MulDiv(requested[c], MAX_UTILIZATION, capacity[c]);

		total += ShapeScore(&a->shape, u);
	}
	/* math.Round of the mean: half away from zero, the scores are >= 0 */
	return (2 * total + nclasses) / (2 * nclasses);
}

/* ------------------------------------------------------------------------
 * Reserve and PreBind
 * ------------------------------------------------------------------------
 */

static void
push_kv(JsonbParseState **st, const char *key, const char *val)
{
	JPushString(st, WJB_KEY, key);
	JPushString(st, WJB_VALUE, val ? val : "");
}

/*
 * GetBindVolumeToClaim, as a merge patch of the volume: spec.claimRef the
 * claim's reference (GetReference: kind, namespace, name, uid, apiVersion,
 * resourceVersion), annotated pv.kubernetes.io/bound-by-controller "yes"
 * when the volume was not bound to it yet; the volume's resourceVersion a
 * precondition, as kube-scheduler's Update is.
 */
static Jsonb *
claim_ref_patch(const Pv *pv, const Pvc *pvc)
{
	JsonbParseState *st = NULL;

	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	JPushString(&st, WJB_KEY, "metadata");
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (pv->resource_version)
		push_kv(&st, "resourceVersion", pv->resource_version);
	if (!volume_bound_to_claim(pv, pvc))
	{
		JPushString(&st, WJB_KEY, "annotations");
		(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		push_kv(&st, "pv.kubernetes.io/bound-by-controller", "yes");
		(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	JPushString(&st, WJB_KEY, "spec");
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	JPushString(&st, WJB_KEY, "claimRef");
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_kv(&st, "kind", "PersistentVolumeClaim");
	push_kv(&st, "namespace", pvc->namespace);
	push_kv(&st, "name", pvc->name);
	if (pvc->uid)
		push_kv(&st, "uid", pvc->uid);
	push_kv(&st, "apiVersion", "v1");
	if (pvc->resource_version)
		push_kv(&st, "resourceVersion", pvc->resource_version);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* The claim annotated volume.kubernetes.io/selected-node: a merge patch */
static Jsonb *
selected_node_patch(const Pvc *pvc, const char *node)
{
	JsonbParseState *st = NULL;

	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	JPushString(&st, WJB_KEY, "metadata");
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (pvc->resource_version)
		push_kv(&st, "resourceVersion", pvc->resource_version);
	JPushString(&st, WJB_KEY, "annotations");
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_kv(&st, "volume.kubernetes.io/selected-node", node);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

static void
add_request(CycleResult *res, const char *kind, const char *object, Jsonb *patch)
{
	PreBindRequest *q = palloc(sizeof(PreBindRequest));

	q->kind = kind;
	q->object = object;
	q->patch = patch;
	res->prebind = lappend(res->prebind, q);
}

/*
 * Reserve (AssumePodVolumes) and PreBind (BindPodVolumes), on the chosen
 * node.  With every claim bound there is nothing to do (allBound: PreBind
 * is skipped).  Else each static binding's volume is assumed claimed by its
 * claim, and each claim to provision assumed annotated with the node, for
 * the rest of the call (the next pods see them taken); PreBind's requests
 * (bindAPIUpdate: the volumes' claimRefs, then the claims' selected-node)
 * go to the outbox, and the pod's binding waits until each of those claims
 * is bound (checkBindings), at most bindTimeoutSeconds.  A request
 * whose object already holds what it would write (an earlier pod of a
 * shared claim wrote it) is not sent again: its version would be stale.
 */
static void
reserve(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, CycleResult *res, Status *st)
{
	const BindingArgs *a = call->args;
	BindingState *s = call->state;
	PodVolumes *v;

	if (s == NULL || s->ndelayed == 0)
		return;
	v = node_volumes(s, node);
	if (!v->filtered)
	{
		Status		ignored = {CODE_SUCCESS, NIL};

		find_pod_volumes(s, node, v, &ignored);
	}
	if (!v->feasible)
	{
		StatusSet(st, CODE_ERROR, psprintf("no pod volumes found for node %s", quote(node->name)));
		return;
	}
	for (int i = 0; i < v->nstatic; i++)
	{
		Pv		   *pv = v->statics[i].pv;
		Pvc		   *pvc = v->statics[i].pvc;
		const char *ns;
		const char *name;
		const char *uid;

		if (pv->name == NULL)
			continue;
		/* bound to it already, its uid too, or assumed by an earlier pod */
		if (volume_bound_to_claim(pv, pvc) && volume_claim_ref(pv, &ns, &name, &uid) &&
			(pv->assumed_claim_name != NULL || uid[0] != '\0'))
			continue;
		add_request(res, "volume", pv->name, claim_ref_patch(pv, pvc));
		VolumeAssumeClaimRef(s->cat, pv, pvc->namespace, pvc->name);
	}
	for (int i = 0; i < v->ndynamic; i++)
	{
		Pvc		   *pvc = v->dynamics[i];

		if (pvc->name == NULL || (pvc->selected_node && strcmp(pvc->selected_node, node->name) == 0))
			continue;
		add_request(res, "claim", pvc->name, selected_node_patch(pvc, node->name));
		VolumeAssumeSelectedNode(s->cat, pvc, node->name);
	}
	/* checkBindings looks at the claims bound or provisioned here */
	for (int i = 0; i < s->ndelayed; i++)
		if (s->delayed[i].pvc->name != NULL)
			res->wait_claims = lappend(res->wait_claims, s->delayed[i].pvc->name);
	res->wait_seconds = a ? a->bind_timeout_seconds : DEFAULT_BIND_TIMEOUT_SECONDS;
}


/* ------------------------------------------------------------------------
 * QueueingHints
 * ------------------------------------------------------------------------
 */

/* apiequality.Semantic.DeepEqual of two allowedTopologies: unset is empty */
static bool
same_topologies(Jsonb *a, Jsonb *b)
{
	bool		a_empty = a == NULL || JsonContainerSize(&a->root) == 0;
	bool		b_empty = b == NULL || JsonContainerSize(&b->root) == 0;

	if (a_empty || b_empty)
		return a_empty && b_empty;
	return compareJsonbContainers(&a->root, &b->root) == 0;
}

/*
 * isSchedulableAfterStorageClassChange: any class created, or one whose
 * allowedTopologies changed (volumeBindingMode cannot).
 */
static QueueingHint
class_hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	StorageClass *was = VolumeEventClass(ev->old_obj);
	StorageClass *is = VolumeEventClass(ev->new_obj);

	if (was == NULL || is == NULL)
		return HINT_QUEUE;
	return same_topologies(was->allowed_topologies, is->allowed_topologies) ? HINT_SKIP : HINT_QUEUE;
}

/*
 * isSchedulableAfterPersistentVolumeClaimChange: a claim of the pod (a
 * persistentVolumeClaim volume's, or a generic ephemeral volume's, in its
 * namespace) created or updated.
 */
static QueueingHint
claim_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	return VolumePodUsesClaim(pod, VolumeEventPvc(ev->new_obj), true) ? HINT_QUEUE : HINT_SKIP;
}

/*
 * isSchedulableAfterCSINodeChange: a CSINode created, or its migrated
 * plugins annotation changed (the in-tree PVs it translates).
 */
static QueueingHint
csinode_hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	CsiNode    *was = VolumeEventCsiNode(ev->old_obj);
	CsiNode    *is = VolumeEventCsiNode(ev->new_obj);

	if (was == NULL || is == NULL)
		return HINT_QUEUE;
	return strcmp(was->migrated_plugins ? was->migrated_plugins : "",
				  is->migrated_plugins ? is->migrated_plugins : "") == 0 ? HINT_SKIP : HINT_QUEUE;
}

/*
 * isSchedulableAfterCSIDriverChange: the storageCapacity of the driver of
 * one of the pod's inline CSI volumes went from true to unset or false.
 */
static QueueingHint
driver_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	CsiDriver  *was = VolumeEventDriver(ev->old_obj);
	CsiDriver  *is = VolumeEventDriver(ev->new_obj);

	if (was == NULL || is == NULL)
		return HINT_QUEUE;
	if (!was->storage_capacity || is->storage_capacity || is->name == NULL)
		return HINT_SKIP;
	return VolumePodHasInlineCsi(pod, is->name) ? HINT_QUEUE : HINT_SKIP;
}

/* volumeLimit: maximumVolumeSize when set, else capacity; false when neither */
static bool
capacity_limit(const CsiCapacity *c, int64 *limit)
{
	*limit = c->has_max_size ? c->max_size : c->capacity;
	return c->has_max_size || c->has_capacity;
}

/*
 * isSchedulableAfterCSIStorageCapacityChange: a capacity created, or one
 * whose volume limit appeared or grew.
 */
static QueueingHint
capacity_hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	CsiCapacity *was = VolumeEventCapacity(ev->old_obj);
	CsiCapacity *is = VolumeEventCapacity(ev->new_obj);
	int64		before,
				after;

	if (was == NULL || is == NULL)
		return HINT_QUEUE;
	if (capacity_limit(is, &after) && (!capacity_limit(was, &before) || after > before))
		return HINT_QUEUE;
	return HINT_SKIP;
}


const Plugin VolumeBindingPlugin = {
	.sign = VolumesSign,
	.name = "VolumeBinding",
	.parse_args = parse_args,
	.prefilter = prefilter,
	.filter = filter,
	.prescore = prescore,
	.score = score,
	.reserve = reserve,
	.events = {
		{RES_STORAGE_CLASS, ACT_ADD | ACT_UPDATE_OBJECT, class_hint},
		{RES_PVC, ACT_ADD | ACT_UPDATE_OBJECT, claim_hint},
		/* claims bind to volumes: any PV created or updated, no hint */
		{RES_PV, ACT_ADD | ACT_UPDATE_OBJECT, NULL},
		/*
		 * Nodes added or relabelled may match a volume's node affinity or a
		 * class's allowedTopologies (UpdateNodeTaint: kube-scheduler's
		 * preCheck workaround); no QueueingHint: always Queue.
		 */
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_LABEL | ACT_UPDATE_NODE_TAINT, NULL},
		{RES_CSI_NODE, ACT_ADD | ACT_UPDATE_OBJECT, csinode_hint},
		{RES_CSI_DRIVER, ACT_UPDATE_OBJECT, driver_hint},
		{RES_CSI_STORAGE_CAPACITY, ACT_ADD | ACT_UPDATE_OBJECT, capacity_hint},
	},
};
