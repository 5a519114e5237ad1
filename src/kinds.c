/*
 * kinds.c
 *	  The table of the Kubernetes kinds the scheduler mirrors.
 *
 * One entry per kind says where the API server serves it (group/version and
 * resource), how its objects are named, validated and applied, which table
 * mirrors them, how an object without a uid is keyed, and which cluster
 * events its rows raise.  The mirror (apply, apply_events, relist), the
 * watch worker (one watch per entry) and the QueueingHints all read it, and
 * scheduler.kinds() shows it.  No other list of kinds exists: a new kind is
 * one entry here, its apply function, its validation and its table.
 *
 * IDENTIFICATION
 *	  src/kinds.c
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "kinds.h"
#include "events.h"

/*
 * Pods are watched as kube-scheduler's informer watches them: all but the
 * terminal ones.
 */
#define NOT_TERMINAL "fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"

/* In the order messages name them and the watch worker starts its watches */
const MirrorKind MirrorKinds[] = {
	{
		.kind = "Node",.list_kind = "NodeList",.api_version = "v1",.resource = "nodes",
		.table = "scheduler.nodes",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateNode,.apply = MirrorApplyNode,.remove = MirrorRemoveNode,
		.events = RES_NODE,.row_events = NodeRowEvents
	},
	{
		.kind = "Pod",.list_kind = "PodList",.api_version = "v1",.resource = "pods",.query = NOT_TERMINAL,
		.table = "scheduler.pods",.namespaced = true,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidatePod,
		.apply = MirrorApplyPod,.remove = MirrorRemovePod,
		.events = RES_ASSIGNED_POD,.row_events = PodRowEvents
	},
	{
		.kind = "Namespace",.list_kind = "NamespaceList",.api_version = "v1",.resource = "namespaces",
		.table = "scheduler.namespaces",.namespaced = false,
		.name_rule = NameRuleDns1123Label,.apply = MirrorApplyNamespace
	},
	{
		.kind = "PodDisruptionBudget",.list_kind = "PodDisruptionBudgetList",
		.api_version = "policy/v1",.old_api_version = "policy/v1beta1",.resource = "poddisruptionbudgets",
		.table = "scheduler.pdbs",.namespaced = true,
		.name_rule = NameRulePathSegment,.validate = ValidatePdb,.apply = MirrorApplyPdb
	},
	{
		.kind = "Service",.list_kind = "ServiceList",.api_version = "v1",.resource = "services",
		.table = "scheduler.workloads",.by_kind = true,.namespaced = true,
		.name_rule = NameRuleDns1035Label,.validate = ValidateService,.apply = MirrorApplyWorkload
	},
	{
		.kind = "ReplicationController",.list_kind = "ReplicationControllerList",.api_version = "v1",
		.resource = "replicationcontrollers",.table = "scheduler.workloads",.by_kind = true,.namespaced = true,
		.name_rule = NameRuleDns1123SubdomainBytes,.validate = ValidateReplicationController,
		.apply = MirrorApplyWorkload
	},
	{
		.kind = "ReplicaSet",.list_kind = "ReplicaSetList",.api_version = "apps/v1",.resource = "replicasets",
		.table = "scheduler.workloads",.by_kind = true,.namespaced = true,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateSelectorOwner,.apply = MirrorApplyWorkload
	},
	{
		.kind = "StatefulSet",.list_kind = "StatefulSetList",.api_version = "apps/v1",.resource = "statefulsets",
		.table = "scheduler.workloads",.by_kind = true,.namespaced = true,
		.name_rule = NameRuleDns1123Label,.validate = ValidateSelectorOwner,.apply = MirrorApplyWorkload
	},
	/* the storage kinds the volume plugins read (volumes.c) */
	{
		.kind = "PersistentVolumeClaim",.list_kind = "PersistentVolumeClaimList",.api_version = "v1",
		.resource = "persistentvolumeclaims",.table = "scheduler.persistent_volume_claims",.namespaced = true,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidatePersistentVolumeClaim,.apply = MirrorApplyObject,
		.events = RES_PVC,.row_events = ObjectRowEvents
	},
	{
		.kind = "PersistentVolume",.list_kind = "PersistentVolumeList",.api_version = "v1",
		.resource = "persistentvolumes",.table = "scheduler.persistent_volumes",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidatePersistentVolume,.apply = MirrorApplyObject,
		.events = RES_PV,.row_events = ObjectRowEvents
	},
	{
		.kind = "StorageClass",.list_kind = "StorageClassList",.api_version = "storage.k8s.io/v1",
		.old_api_version = "storage.k8s.io/v1beta1",.resource = "storageclasses",
		.table = "scheduler.storage_classes",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateStorageClass,.apply = MirrorApplyObject,
		.events = RES_STORAGE_CLASS,.row_events = ObjectRowEvents
	},
	{
		.kind = "CSINode",.list_kind = "CSINodeList",.api_version = "storage.k8s.io/v1",
		.resource = "csinodes",.table = "scheduler.csi_nodes",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateCSINode,.apply = MirrorApplyObject,
		.events = RES_CSI_NODE,.row_events = ObjectRowEvents
	},
	{
		.kind = "CSIDriver",.list_kind = "CSIDriverList",.api_version = "storage.k8s.io/v1",
		.resource = "csidrivers",.table = "scheduler.csi_drivers",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateCSIDriver,.apply = MirrorApplyObject,
		.events = RES_CSI_DRIVER,.row_events = ObjectRowEvents
	},
	{
		.kind = "CSIStorageCapacity",.list_kind = "CSIStorageCapacityList",.api_version = "storage.k8s.io/v1",
		.old_api_version = "storage.k8s.io/v1beta1",.resource = "csistoragecapacities",
		.table = "scheduler.csi_storage_capacities",.namespaced = true,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateCSIStorageCapacity,.apply = MirrorApplyObject,
		.events = RES_CSI_STORAGE_CAPACITY,.row_events = ObjectRowEvents
	},
	{
		.kind = "VolumeAttachment",.list_kind = "VolumeAttachmentList",.api_version = "storage.k8s.io/v1",
		.resource = "volumeattachments",.table = "scheduler.volume_attachments",.namespaced = false,
		.name_rule = NameRuleDns1123Subdomain,.validate = ValidateVolumeAttachment,.apply = MirrorApplyObject,
		.events = RES_VOLUME_ATTACHMENT,.row_events = ObjectRowEvents
	},
};

const int	NumMirrorKinds = lengthof(MirrorKinds);

/* The entry of kind ("Pod"), or NULL */
const MirrorKind *
KindByName(const char *kind)
{
	for (int i = 0; i < NumMirrorKinds; i++)
		if (strcmp(MirrorKinds[i].kind, kind) == 0)
			return &MirrorKinds[i];
	return NULL;
}

/* The entry of a list kind ("PodList"), or NULL */
const MirrorKind *
KindByListKind(const char *list_kind)
{
	for (int i = 0; i < NumMirrorKinds; i++)
		if (strcmp(MirrorKinds[i].list_kind, list_kind) == 0)
			return &MirrorKinds[i];
	return NULL;
}

/*
 * The entry whose rows raise cluster events, by its kind in any case ("pod",
 * as the triggers name it), or NULL
 */
const MirrorKind *
KindByEvents(const char *name)
{
	for (int i = 0; i < NumMirrorKinds; i++)
		if (MirrorKinds[i].row_events && pg_strcasecmp(MirrorKinds[i].kind, name) == 0)
			return &MirrorKinds[i];
	return NULL;
}

/* The entry whose rows raise cluster events, by its table ("scheduler.pods"), or NULL */
const MirrorKind *
KindByTable(const char *table)
{
	for (int i = 0; i < NumMirrorKinds; i++)
		if (MirrorKinds[i].row_events && strcmp(MirrorKinds[i].table, table) == 0)
			return &MirrorKinds[i];
	return NULL;
}

/* The collection's path: /api/v1/pods, /apis/apps/v1/replicasets */
char *
KindPath(const MirrorKind *k)
{
	return psprintf("%s/%s/%s", strchr(k->api_version, '/') ? "/apis" : "/api", k->api_version, k->resource);
}

/*
 * The uid rule: an object without metadata.uid (hand-written) is keyed
 * "<Kind>:<namespace>/<name>", or "<Kind>:<name>" when cluster-scoped.
 */
char *
KindUid(const MirrorKind *k, const char *ns, const char *name)
{
	return k->namespaced ? psprintf("%s:%s/%s", k->kind, ns, name) : psprintf("%s:%s", k->kind, name);
}

/* The kind as messages name it: "poddisruptionbudget" */
char *
KindLabel(const MirrorKind *k)
{
	char	   *s = pstrdup(k->kind);

	for (char *c = s; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);
	return s;
}

/*
 * Every kind, for messages: "a Node, a Pod, ..., a StatefulSet" or, with
 * lists, "NodeList, PodList, ... or StatefulSetList"
 */
char *
KindsText(bool lists)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < NumMirrorKinds; i++)
	{
		const char *sep = i == 0 ? "" : (lists && i == NumMirrorKinds - 1) ? " or " : ", ";

		if (lists)
			appendStringInfo(&s, "%s%s", sep, MirrorKinds[i].list_kind);
		else
			appendStringInfo(&s, "%s%s %s", sep, strchr("AEIOU", MirrorKinds[i].kind[0]) ? "an" : "a",
							 MirrorKinds[i].kind);
	}
	return s.data;
}

/* The name of an event resource (RES_*), as kube-scheduler's EventResource */
const char *
EventResourceName(int resource)
{
	switch (resource)
	{
		case RES_NODE:
			return "Node";
		case RES_ASSIGNED_POD:
			return "AssignedPod";
		case RES_PVC:
			return "PersistentVolumeClaim";
		case RES_PV:
			return "PersistentVolume";
		case RES_STORAGE_CLASS:
			return "StorageClass";
		case RES_CSI_NODE:
			return "CSINode";
		case RES_CSI_DRIVER:
			return "CSIDriver";
		case RES_CSI_STORAGE_CAPACITY:
			return "CSIStorageCapacity";
		case RES_VOLUME_ATTACHMENT:
			return "VolumeAttachment";
	}
	return NULL;
}

PG_FUNCTION_INFO_V1(scheduler_kinds);
/*
 * scheduler.kinds() RETURNS SETOF record
 *		The kinds the scheduler mirrors and watches, one row each.
 */
Datum
scheduler_kinds(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < NumMirrorKinds; i++)
	{
		const MirrorKind *k = &MirrorKinds[i];
		const char *events = EventResourceName(k->events);
		Datum		values[9];
		bool		nulls[9] = {0};

		values[0] = CStringGetTextDatum(k->kind);
		values[1] = CStringGetTextDatum(k->list_kind);
		values[2] = CStringGetTextDatum(k->api_version);
		values[3] = CStringGetTextDatum(k->resource);
		values[4] = CStringGetTextDatum(KindPath(k));
		values[5] = CStringGetTextDatum(k->query ? k->query : "");
		values[6] = CStringGetTextDatum(k->table);
		values[7] = BoolGetDatum(k->namespaced);
		values[8] = events ? CStringGetTextDatum(events) : (Datum) 0;
		nulls[8] = events == NULL;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
