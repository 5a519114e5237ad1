/*
 * volume_restrictions.c
 *	  VolumeRestrictions: a pod's disks must not be in use on the node in a
 *	  way that conflicts, and its ReadWriteOncePod claims must not be in use
 *	  by any other pod of the cluster.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumerestrictions.
 *
 * Disk conflicts (Filter, Unschedulable: preemption may free the disk),
 * between one of the pod's volumes and one of a pod on the node, of the same
 * kind:
 *	 - GCE PD: the same pdName, unless both mount it read-only;
 *	 - AWS EBS: the same volumeID, read-only or not;
 *	 - iSCSI: the same IQN, unless both mount it read-only;
 *	 - RBD: a Ceph monitor in common, the same pool and the same image,
 *	   unless both mount it read-only.
 *
 * ReadWriteOncePod: PreFilter reads each of the pod's claims (a missing one
 * rejects every node, UnschedulableAndUnresolvable, with the API's NotFound
 * text) and counts those with the ReadWriteOncePod access mode that a pod on
 * a node already uses (the snapshot's StorageInfos().IsPVCUsedByPods: any
 * pod of the claim's namespace with a persistentVolumeClaim volume naming
 * it).  Filter then rejects every node, Unschedulable, while that count is
 * above 0; DefaultPreemption's dry runs take victims off their node and run
 * PreFilter again (.reads_pods), as kube-scheduler's RemovePod lowers the
 * count.
 *
 * Pods nominated to a node (preemption made room for them) count there as
 * kube-scheduler's RunFilterPluginsWithNominatedPods counts them: their
 * disks are among the node's pods', and AddPod adds their uses of the
 * pod's ReadWriteOncePod claims to the count.
 *
 * PreFilter skips a pod with no disk volume and no claim in use by another
 * pod: pods without volumes never read the storage catalog.
 *
 * IDENTIFICATION
 *	  src/plugins/volume_restrictions.c
 */
#include "postgres.h"

#include "plugin.h"
#include "volumes.h"

#define ErrReasonDiskConflict "node(s) had no available disk"
#define ErrReasonReadWriteOncePodConflict \
	"node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"

/*
 * PreFilter's state: the pod's ReadWriteOncePod claims (names, each once)
 * and how many of them are in use
 */
typedef struct State
{
	char	  **rwop;
	int			nrwop;
	int			conflicting_claims;
} State;

/* Go compares strings where an unset one is "": so does this file */
static bool
same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* needsRestrictionsCheck: a volume whose disk another pod may hold */
static bool
is_disk(const PodVolume *v)
{
	return v->kind == PVOL_GCE_PD || v->kind == PVOL_AWS_EBS ||
		v->kind == PVOL_RBD || v->kind == PVOL_ISCSI;
}

/* haveOverlap: is any Ceph monitor in both lists? */
static bool
monitors_overlap(const PodVolume *a, const PodVolume *b)
{
	if (a->monitors == NULL || b->monitors == NULL)
		return false;
	for (int i = 0; i < a->nmonitors; i++)
		for (int j = 0; j < b->nmonitors; j++)
			if (same(a->monitors[i], b->monitors[j]))
				return true;
	return false;
}

/* Do the pod's volume v and the volume e of a pod on the node hold the same disk? */
static bool
volumes_conflict(const PodVolume *v, const PodVolume *e)
{
	bool		both_read_only = v->read_only && e->read_only;

	if (v->kind != e->kind)
		return false;
	switch (v->kind)
	{
		case PVOL_GCE_PD:
		case PVOL_ISCSI:
			/* pdName, or IQN: several read-only mounts may share it */
			return same(v->disk, e->disk) && !both_read_only;
		case PVOL_AWS_EBS:
			/* an EBS volume attaches to one instance, read-only or not */
			return same(v->disk, e->disk);
		case PVOL_RBD:
			return monitors_overlap(v, e) && same(v->pool, e->pool) &&
				same(v->disk, e->disk) && !both_read_only;
		default:
			return false;
	}
}

/*
 * satisfyVolumeConflicts, negated: does one of the pod's disk volumes
 * conflict with a volume of a pod on the node?
 */
static bool
disk_conflict(const PodInfo *pod, const List *pods)
{
	ListCell   *lc;

	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *v = &pod->volumes[i];

		if (!is_disk(v))
			continue;
		foreach(lc, pods)
		{
			const PodRef *p = lfirst(lc);

			if (p->volumes == NULL)
				continue;
			for (int j = 0; j < p->nvolumes; j++)
				if (volumes_conflict(v, &p->volumes[j]))
					return true;
		}
	}
	return false;
}

/*
 * How many of the claims (names in namespace ns, each once) a pod on an
 * existing node uses through a persistentVolumeClaim volume: kube-scheduler's
 * usedPVCSet, made of every NodeInfo's PVCRefCounts ("<namespace>/<claim>").
 */
static int
claims_in_use(ClusterSnapshot *snap, const char *ns, char **claims, int nclaims)
{
	bool	   *used = palloc0(sizeof(bool) * Max(nclaims, 1));
	int			count = 0;

	for (int n = 0; n < snap->nnodes && count < nclaims; n++)
	{
		const NodeInfo *node = snap->nodes[n];
		ListCell   *lc;

		if (node == NULL)
			continue;
		foreach(lc, node->pods)
		{
			const PodRef *p = lfirst(lc);

			if (p->volumes == NULL || !same(p->namespace, ns))
				continue;
			for (int j = 0; j < p->nvolumes; j++)
			{
				if (p->volumes[j].kind != PVOL_PVC)
					continue;
				for (int k = 0; k < nclaims; k++)
					if (!used[k] && same(p->volumes[j].claim, claims[k]))
					{
						used[k] = true;
						count++;
					}
			}
		}
	}
	pfree(used);
	return count;
}

/*
 * PreFilter: the pod's claims looked up (readWriteOncePodPVCsForPod), those
 * with ReadWriteOncePod counted when in use (calPreFilterState); Skip when
 * the pod has no disk volume and none of them is in use.
 */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	bool		has_disk = false;
	bool		has_claim = false;
	VolumeCatalog *catalog;
	char	  **rwop;
	int			nrwop = 0;
	const char *ns = pod->namespace ? pod->namespace : "";
	State	   *s;

	for (int i = 0; i < pod->nvolumes; i++)
	{
		has_disk |= is_disk(&pod->volumes[i]);
		has_claim |= (pod->volumes[i].kind == PVOL_PVC);
	}
	if (!has_disk && !has_claim)
	{
		st->code = CODE_SKIP;
		return;
	}

	s = palloc0(sizeof(State));
	if (has_claim)
	{
		catalog = VolumeCatalogGet(call->snap);
		rwop = palloc(sizeof(char *) * pod->nvolumes);
		for (int i = 0; i < pod->nvolumes; i++)
		{
			const PodVolume *v = &pod->volumes[i];
			const char *claim = v->claim ? v->claim : "";
			Pvc		   *pvc;
			bool		seen = false;

			if (v->kind != PVOL_PVC)
				continue;
			pvc = VolumeFindPvc(catalog, ns, claim);
			if (pvc == NULL)
			{
				/* the lister's NotFound: the claim may yet be created */
				StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
						  VolumeNotFound("persistentvolumeclaim", claim));
				return;
			}
			if ((pvc->access_modes & ACCESS_RWOP) == 0)
				continue;
			/* a set of claim names: a claim mounted twice counts once */
			for (int k = 0; k < nrwop; k++)
				seen |= strcmp(rwop[k], claim) == 0;
			if (!seen)
				rwop[nrwop++] = (char *) claim;
		}
		if (nrwop > 0)
			s->conflicting_claims = claims_in_use(call->snap, ns, rwop, nrwop);
		s->rwop = rwop;
		s->nrwop = nrwop;
	}
	if (!has_disk && s->conflicting_claims == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	call->state = s;
}

/*
 * AddPod's count (conflictingPVCRefCountForPod), for the pods nominated to
 * the node that count: each persistentVolumeClaim volume of theirs naming
 * one of the pod's ReadWriteOncePod claims.  kube-scheduler compares the
 * claim's name only, not the nominated pod's namespace: so does this.
 */
static int
nominated_claims(const State *s, const PodInfo *pod, const NodeInfo *node)
{
	int			count = 0;
	ListCell   *lc;

	foreach(lc, node->nominated)
	{
		const PodRef *p = lfirst(lc);

		if (p->volumes == NULL || !NominatedPodCounts(p, pod))
			continue;
		for (int j = 0; j < p->nvolumes; j++)
		{
			if (p->volumes[j].kind != PVOL_PVC)
				continue;
			for (int k = 0; k < s->nrwop; k++)
				if (same(p->volumes[j].claim, s->rwop[k]))
				{
					count++;
					break;
				}
		}
	}
	return count;
}

/*
 * Filter: disk conflicts with the node's pods first, then the
 * ReadWriteOncePod claims in use (the same verdict on every node).  On a
 * node copy with nominated pods in (NodeWithNominatedPods), their disks are
 * the node's too, and their uses of the claims add to the count (the
 * plugin's AddPod).  Without PreFilter state (a QueueingHint's dry run)
 * only the disks are checked.
 */
static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	const State *s = call->state;

	if (disk_conflict(pod, NodePodsWithNominated(node, pod)))
	{
		StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonDiskConflict);
		return;
	}
	if (s == NULL)
		return;
	if (s->conflicting_claims > 0 ||
		(node->nominated_in && s->nrwop > 0 && nominated_claims(s, pod, node) > 0))
		StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonReadWriteOncePodConflict);
}

/*
 * isSchedulableAfterPodDeleted: an assigned pod of the pod's namespace was
 * deleted that held one of its disks, or used one of the claims it names
 * (the claim's access mode is not read: kube-scheduler leaves that out as
 * too costly for a hint).
 */
static QueueingHint
pod_deleted_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	const PodRef *gone = ev->old_pod;
	List	   *one;

	if (gone == NULL || !same(gone->namespace, pod->namespace))
		return HINT_SKIP;
	one = list_make1((void *) gone);
	if (disk_conflict(pod, one))
		return HINT_QUEUE;
	if (gone->volumes == NULL)
		return HINT_SKIP;
	for (int i = 0; i < pod->nvolumes; i++)
	{
		if (pod->volumes[i].kind != PVOL_PVC)
			continue;
		for (int j = 0; j < gone->nvolumes; j++)
			if (gone->volumes[j].kind == PVOL_PVC &&
				same(gone->volumes[j].claim, pod->volumes[i].claim))
				return HINT_QUEUE;
	}
	return HINT_SKIP;
}

/*
 * isSchedulableAfterPersistentVolumeClaimAdded: a claim of the pod (a
 * persistentVolumeClaim volume, in its namespace) created: PreFilter needs
 * it to read its access modes.
 */
static QueueingHint
claim_added_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	return VolumePodUsesClaim(pod, VolumeEventPvc(ev->new_obj), false) ? HINT_QUEUE : HINT_SKIP;
}


const Plugin VolumeRestrictionsPlugin = {
	.name = "VolumeRestrictions",
	.reads_pods = true,
	.sign = VolumesSign,
	.prefilter = prefilter,
	.filter = filter,
	.events = {
		/* volumes are immutable: only a deletion frees a disk or a claim */
		{RES_ASSIGNED_POD, ACT_DELETE, pod_deleted_hint},
		{RES_NODE, ACT_ADD, NULL},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
		/* a missing claim rejects the pod until it is created */
		{RES_PVC, ACT_ADD, claim_added_hint},
	},
};
