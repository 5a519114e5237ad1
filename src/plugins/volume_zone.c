/*
 * volume_zone.c
 *	  VolumeZone: a pod's bound PersistentVolumes that carry zone or region
 *	  labels fit only nodes in those zones and regions.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumezone.
 *
 * PreFilter walks the pod's persistentVolumeClaim volumes (not ephemeral
 * ones, nor inline sources) in order, and for each claim:
 *	 - a claim with an empty claimName: "PersistentVolumeClaim had no name";
 *	 - a claim that does not exist: the lister's NotFound message;
 *	 - a claim bound to a PV (spec.volumeName): that PV's topology labels,
 *	   its NotFound message when it does not exist;
 *	 - an unbound claim: its class (GetPersistentVolumeClaimClass: the beta
 *	   annotation, then spec.storageClassName) must be named and exist and set
 *	   volumeBindingMode; WaitForFirstConsumer claims are skipped (they will
 *	   be provisioned where the pod goes), any other mode rejects.
 * Every rejection is UnschedulableAndUnresolvable, and the first one ends
 * the walk.  With no topology found PreFilter skips, so Filter never runs.
 *
 * A PV's topology is, for each of failure-domain.beta.kubernetes.io/zone,
 * failure-domain.beta.kubernetes.io/region, topology.kubernetes.io/zone and
 * topology.kubernetes.io/region it carries, the set of values its label
 * holds (volumehelpers.LabelZonesToSet: "__"-separated, each trimmed; a label
 * with an empty element is ignored).
 *
 * Filter passes a node that has none of those four labels (a single-zone
 * cluster).  Otherwise every topology of every PV must find its key on the
 * node, or, for a beta key, the GA key it became, with a value in its set;
 * else "node(s) had no available volume zone", UnschedulableAndUnresolvable.
 * A GA key on the PV is not looked up under its beta name on the node.
 * The node's four labels are read as numbers in the snapshot's label
 * columns (node_labels.c), the PVs' values looked up there once per cycle,
 * so that Filter compares numbers; a node the columns did not number is
 * read from its labels.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "mb/pg_wchar.h"

#include "labels.h"
#include "node_labels.h"
#include "plugin.h"
#include "volumes.h"

#define ErrReasonConflict "node(s) had no available volume zone"
#define ErrReasonNoClaimName "PersistentVolumeClaim had no name"
#define ErrReasonNoPvNoClass "PersistentVolumeClaim had no pv name and storageClass name"
#define ErrReasonNoPvName "PersistentVolume had no name"
#define ErrReasonNoBindingMode "VolumeBindingMode not set for StorageClass %s"

/*
 * The NotFound messages of the listers the plugin reads.  Claims and
 * volumes as client-go's informer listers word them (v1.Resource of the
 * singular name); StorageClasses as kube-scheduler's own tests see them, from
 * the fake StorageClassLister (storagev1.Resource("storageclasses"), the
 * conformance case's text), where client-go's lister would say
 * "storageclass.storage.k8s.io".
 */
#define ResourcePvc "persistentvolumeclaim"
#define ResourcePv "persistentvolume"
#define ResourceClass "storageclasses.storage.k8s.io"

/* v1.LabelFailureDomainBeta{Zone,Region}, v1.LabelTopology{Zone,Region}: the order PVs are read in */
#define NTOPOLOGY_KEYS 4
static const char *const topology_keys[NTOPOLOGY_KEYS] = {
	"failure-domain.beta.kubernetes.io/zone",
	"failure-domain.beta.kubernetes.io/region",
	"topology.kubernetes.io/zone",
	"topology.kubernetes.io/region",
};

/* translateToGALabel: the GA key a beta key became (a GA key is itself) */
static const int ga_key[NTOPOLOGY_KEYS] = {2, 3, 2, 3};

/* pvTopology: one topology label of one PV, its values as a set */
typedef struct Topology
{
	const char *pv_name;
	int			key;			/* index into topology_keys */
	int			nvalues;
	char	  **values;
	int		   *lens;
	/* PreFilter's: the values' numbers in the columns of key and of its GA key */
	int32	   *ids;
	int32	   *ga_ids;
} Topology;

/* PreFilter's state: every topology of the pod's bound PVs */
typedef struct State
{
	int			ntopologies;
	Topology   *topologies;
	NodeLabelColumn *columns[NTOPOLOGY_KEYS];	/* the four keys on the nodes */
} State;

/*
 * Go's unicode.IsSpace at s (UTF-8): the length of the space character
 * there, 0 when there is none.
 */
static int
space_len(const unsigned char *s, int len)
{
	if (len >= 1 && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
		return 1;
	if (len >= 2 && s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0))
		return 2;				/* U+0085, U+00A0 */
	if (len >= 3)
	{
		if (s[0] == 0xE1 && s[1] == 0x9A && s[2] == 0x80)
			return 3;			/* U+1680 */
		if (s[0] == 0xE2 && s[1] == 0x80 &&
			((s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF))
			return 3;			/* U+2000..U+200A, U+2028, U+2029, U+202F */
		if (s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F)
			return 3;			/* U+205F */
		if (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
			return 3;			/* U+3000 */
	}
	return 0;
}

/* the length of the space character that ends s[0..len), 0 when none */
static int
trailing_space_len(const unsigned char *s, int len)
{
	for (int k = 1; k <= 3 && k <= len; k++)
		if (space_len(s + len - k, k) == k)
			return k;
	return 0;
}

/*
 * volumehelpers.LabelZonesToSet: value split at "__", each element trimmed
 * as strings.TrimSpace does; false when an element comes out empty (the PV's
 * label is then ignored).  Equal elements count once, as in a set.
 */
static bool
zones_to_set(const char *value, int len, Topology *t)
{
	int			max = 1;
	int			start = 0;

	for (int i = 0; i + 1 < len; i++)
		if (value[i] == '_' && value[i + 1] == '_')
		{
			max++;
			i++;
		}
	t->nvalues = 0;
	t->values = palloc(sizeof(char *) * max);
	t->lens = palloc(sizeof(int) * max);
	while (start <= len)
	{
		const unsigned char *e = (const unsigned char *) value + start;
		int			end = start;
		int			elen;
		int			k;
		bool		dup = false;

		while (end < len && !(end + 1 < len && value[end] == '_' && value[end + 1] == '_'))
			end++;
		elen = end - start;
		while (elen > 0 && (k = space_len(e, elen)) > 0)
		{
			e += k;
			elen -= k;
		}
		while (elen > 0 && (k = trailing_space_len(e, elen)) > 0)
			elen -= k;
		if (elen == 0)
			return false;
		for (int j = 0; j < t->nvalues && !dup; j++)
			dup = t->lens[j] == elen && memcmp(t->values[j], e, elen) == 0;
		if (!dup)
		{
			t->values[t->nvalues] = pnstrdup((const char *) e, elen);
			t->lens[t->nvalues] = elen;
			t->nvalues++;
		}
		start = end + 2;
	}
	return true;
}

/* getPVTopologies: pv's topology labels, appended to *out */
static void
add_pv_topologies(const Pv *pv, List **out)
{
	for (int k = 0; k < NTOPOLOGY_KEYS; k++)
	{
		int			len;
		const char *value = LabelGet(pv->labels, topology_keys[k], strlen(topology_keys[k]), &len);
		Topology   *t;

		if (value == NULL)
			continue;
		t = palloc0(sizeof(Topology));
		t->pv_name = pv->name ? pstrdup(pv->name) : "";
		t->key = k;
		if (!zones_to_set(value, len, t))
		{
			pfree(t);
			continue;
		}
		*out = lappend(*out, t);
	}
}

/*
 * Go's %q of s (strconv.Quote): quotes, with backslash escapes for quotes,
 * backslashes, control characters and bytes that are not UTF-8.
 */
static void
append_go_quoted(StringInfo buf, const char *s)
{
	int			len = strlen(s);

	appendStringInfoChar(buf, '"');
	for (int i = 0; i < len;)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x80)
		{
			int			n = pg_utf_mblen((const unsigned char *) s + i);

			if (i + n <= len && pg_utf8_islegal((const unsigned char *) s + i, n))
				appendBinaryStringInfo(buf, s + i, n);
			else
			{
				appendStringInfo(buf, "\\x%02x", c);
				n = 1;
			}
			i += n;
			continue;
		}
		switch (c)
		{
			case '"':
				appendStringInfoString(buf, "\\\"");
				break;
			case '\\':
				appendStringInfoString(buf, "\\\\");
				break;
			case '\a':
				appendStringInfoString(buf, "\\a");
				break;
			case '\b':
				appendStringInfoString(buf, "\\b");
				break;
			case '\f':
				appendStringInfoString(buf, "\\f");
				break;
			case '\n':
				appendStringInfoString(buf, "\\n");
				break;
			case '\r':
				appendStringInfoString(buf, "\\r");
				break;
			case '\t':
				appendStringInfoString(buf, "\\t");
				break;
			case '\v':
				appendStringInfoString(buf, "\\v");
				break;
			default:
				if (c < 0x20 || c == 0x7f)
					appendStringInfo(buf, "\\x%02x", c);
				else
					appendStringInfoChar(buf, c);
		}
		i++;
	}
	appendStringInfoChar(buf, '"');
}

static bool
has_claims(const PodInfo *pod)
{
	for (int i = 0; i < pod->nvolumes; i++)
		if (pod->volumes[i].kind == PVOL_PVC)
			return true;
	return false;
}

/*
 * getPVbyPod: the topologies of the pod's bound PVs; NULL with st set when
 * a claim rejects the pod.
 */
static State *
pod_topologies(PluginCall *call, const PodInfo *pod, Status *st)
{
	VolumeCatalog *c = VolumeCatalogGet(call->snap);
	const char *ns = pod->namespace ? pod->namespace : "";
	List	   *found = NIL;
	ListCell   *lc;
	State	   *s;
	int			i = 0;

	for (int v = 0; v < pod->nvolumes; v++)
	{
		const PodVolume *vol = &pod->volumes[v];
		const char *claim = vol->claim ? vol->claim : "";
		Pvc		   *pvc;
		Pv		   *pv;

		if (vol->kind != PVOL_PVC)
			continue;
		if (claim[0] == '\0')
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNoClaimName);
			return NULL;
		}
		pvc = VolumeFindPvc(c, ns, claim);
		if (pvc == NULL)
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, VolumeNotFound(ResourcePvc, claim));
			return NULL;
		}
		if (pvc->volume_name == NULL || pvc->volume_name[0] == '\0')
		{
			/* unbound: only a WaitForFirstConsumer class lets it wait */
			const char *class_name = VolumePvcClass(pvc);
			StorageClass *class;
			StringInfoData msg;

			if (class_name[0] == '\0')
			{
				StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNoPvNoClass);
				return NULL;
			}
			class = VolumeFindClass(c, class_name);
			if (class == NULL)
			{
				StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, VolumeNotFound(ResourceClass, class_name));
				return NULL;
			}
			if (!class->binding_mode_set)
			{
				initStringInfo(&msg);
				append_go_quoted(&msg, class_name);
				StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, psprintf(ErrReasonNoBindingMode, msg.data));
				return NULL;
			}
			if (class->wait_for_first_consumer)
				continue;
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNoPvName);
			return NULL;
		}
		pv = VolumeFindPv(c, pvc->volume_name);
		if (pv == NULL)
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, VolumeNotFound(ResourcePv, pvc->volume_name));
			return NULL;
		}
		add_pv_topologies(pv, &found);
	}

	s = palloc0(sizeof(State));
	s->ntopologies = list_length(found);
	s->topologies = palloc(sizeof(Topology) * Max(s->ntopologies, 1));
	foreach(lc, found)
		s->topologies[i++] = *(Topology *) lfirst(lc);
	list_free_deep(found);
	for (int k = 0; k < NTOPOLOGY_KEYS && s->ntopologies > 0; k++)
		s->columns[k] = NodeLabelColumnFor(call->snap, topology_keys[k], strlen(topology_keys[k]));
	for (int k = 0; k < s->ntopologies; k++)
	{
		Topology   *t = &s->topologies[k];

		t->ids = palloc(sizeof(int32) * Max(t->nvalues, 1));
		t->ga_ids = palloc(sizeof(int32) * Max(t->nvalues, 1));
		for (int j = 0; j < t->nvalues; j++)
		{
			t->ids[j] = NodeLabelValueNumber(s->columns[t->key], t->values[j], t->lens[j]);
			t->ga_ids[j] = NodeLabelValueNumber(s->columns[ga_key[t->key]], t->values[j], t->lens[j]);
		}
	}
	return s;
}

/*
 * PreFilter: the topologies of the pod's bound PVs; Skip when there are
 * none (no claims, or only WaitForFirstConsumer ones, or PVs without zone
 * labels).  A pod without claims does not read the catalog.
 */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	State	   *s;

	if (!has_claims(pod))
	{
		st->code = CODE_SKIP;
		return;
	}
	s = pod_topologies(call, pod, st);
	if (s == NULL)
		return;
	if (s->ntopologies == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	call->state = s;
}

/*
 * The node's number for topology key k, read from its column once per
 * Filter (ids[k] NOT_READ until then): NODE_LABEL_NONE when it has no such
 * label, NODE_LABEL_UNKNOWN when it has one the column did not number.
 */
#define NOT_READ PG_INT32_MIN

static inline int32
node_zone(const State *s, const NodeInfo *node, int32 *ids, int k)
{
	int			len;

	if (ids[k] == NOT_READ)
	{
		ids[k] = NodeLabelOf(s->columns[k], node);
		if (ids[k] == NODE_LABEL_UNKNOWN &&
			LabelGet(node->labels, topology_keys[k], strlen(topology_keys[k]), &len) == NULL)
			ids[k] = NODE_LABEL_NONE;
	}
	return ids[k];
}

/*
 * Does the topology's key on the node (else its GA key) hold one of its
 * values?  Equal numbers in a column, equal values; a node the column did
 * not number is read from its labels.
 */
static bool
topology_fits(const State *s, const Topology *t, const NodeInfo *node, int32 *ids)
{
	int			key = t->key;
	int32		id = node_zone(s, node, ids, key);
	const int32 *want = t->ids;
	bool		in = false;

	if (id == NODE_LABEL_NONE)
	{
		key = ga_key[key];
		id = node_zone(s, node, ids, key);
		want = t->ga_ids;
	}
	if (id == NODE_LABEL_UNKNOWN)
	{
		int			len = 0;
		const char *v = LabelGet(node->labels, topology_keys[key], strlen(topology_keys[key]), &len);

		for (int j = 0; v && j < t->nvalues && !in; j++)
			in = t->lens[j] == len && memcmp(t->values[j], v, len) == 0;
		return in;
	}
	for (int j = 0; id >= 0 && j < t->nvalues && !in; j++)
		in = want[j] == id;
	return in;
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	const State *s = call->state;
	int32		ids[NTOPOLOGY_KEYS] = {NOT_READ, NOT_READ, NOT_READ, NOT_READ};

	if (pod->nvolumes == 0)
		return;
	if (s == NULL)
	{
		/* no PreFilter state: found out here, as kube-scheduler falls back */
		if (call->snap == NULL || !has_claims(pod))
			return;
		s = pod_topologies(call, pod, st);
		if (s == NULL)
			return;
	}

	for (int i = 0; i < s->ntopologies; i++)
	{
		if (topology_fits(s, &s->topologies[i], node, ids))
			continue;
		/* a node with no zone or region label fits any volume (the labels read first) */
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < NTOPOLOGY_KEYS; k++)
				if ((pass == 1 || ids[k] != NOT_READ) && node_zone(s, node, ids, k) != NODE_LABEL_NONE)
				{
					StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonConflict);
					return;
				}
		return;
	}
}


/* ------------------------------------------------------------------------
 * QueueingHints
 * ------------------------------------------------------------------------
 */

/*
 * isSchedulableAfterStorageClassAdded: only a class that waits for the first
 * consumer lets an unbound claim of it be skipped (volumeBindingMode cannot
 * change, so updates are not registered).
 */
static QueueingHint
class_added_hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	StorageClass *sc = VolumeEventClass(ev->new_obj);

	return sc != NULL && sc->wait_for_first_consumer ? HINT_QUEUE : HINT_SKIP;
}

/*
 * isSchedulableAfterPersistentVolumeClaimChange: a claim of the pod (a
 * persistentVolumeClaim volume, in its namespace) created, or updated (its
 * volumeName filled).
 */
static QueueingHint
claim_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	return VolumePodUsesClaim(pod, VolumeEventPvc(ev->new_obj), false) ? HINT_QUEUE : HINT_SKIP;
}

/* reflect.DeepEqual of two getPVTopologies: the same keys in order, the same sets */
static bool
same_topologies(List *a, List *b)
{
	ListCell   *la,
			   *lb;

	if (list_length(a) != list_length(b))
		return false;
	forboth(la, a, lb, b)
	{
		const Topology *x = lfirst(la);
		const Topology *y = lfirst(lb);

		if (x->key != y->key || x->nvalues != y->nvalues)
			return false;
		for (int i = 0; i < x->nvalues; i++)
		{
			bool		found = false;

			for (int j = 0; j < y->nvalues && !found; j++)
				found = x->lens[i] == y->lens[j] && memcmp(x->values[i], y->values[j], x->lens[i]) == 0;
			if (!found)
				return false;
		}
	}
	return true;
}

/*
 * isSchedulableAfterPersistentVolumeChange: a PV created, or one whose
 * topology labels (as getPVTopologies reads them) changed.
 */
static QueueingHint
volume_hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	Pv		   *before = VolumeEventPv(ev->old_obj);
	Pv		   *after = VolumeEventPv(ev->new_obj);
	List	   *was = NIL;
	List	   *is = NIL;

	if (before == NULL || after == NULL)
		return HINT_QUEUE;
	add_pv_topologies(before, &was);
	add_pv_topologies(after, &is);
	return same_topologies(was, is) ? HINT_SKIP : HINT_QUEUE;
}


/*
 * EventsToRegister: StorageClass/Add, PersistentVolumeClaim/Add|Update and
 * PersistentVolume/Add|Update with their hints, and the Node events without
 * one.
 */
const Plugin VolumeZonePlugin = {
	.sign = VolumesSign,
	.name = "VolumeZone",
	.prefilter = prefilter,
	.filter = filter,
	.events = {
		{RES_STORAGE_CLASS, ACT_ADD, class_added_hint},
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_LABEL, NULL},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
		{RES_PVC, ACT_ADD | ACT_UPDATE_OBJECT, claim_hint},
		{RES_PV, ACT_ADD | ACT_UPDATE_OBJECT, volume_hint},
	},
};
