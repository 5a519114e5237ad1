/*
 * volumes.h
 *	  What the volume plugins read: the pod's volumes (decoded with the pod,
 *	  codec.c) and the storage objects of the cluster (PersistentVolumeClaims,
 *	  PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
 *	  CSIStorageCapacities, VolumeAttachments), read from their mirror tables
 *	  once per refresh of the snapshot (volumes.c), as kube-scheduler's
 *	  plugins read them from informer listers.
 *
 * Every string field is NULL when the object leaves it unset, "" when it sets
 * it empty: kube-scheduler distinguishes the two where a field is a pointer
 * (storageClassName), and compares strings where it is not.
 *
 * IDENTIFICATION
 *	  src/volumes.h
 */
#ifndef SCHEDULER_VOLUMES_H
#define SCHEDULER_VOLUMES_H

#include "postgres.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "cluster.h"
#include "codec.h"

struct ClusterSnapshot;

/* ------------------------------------------------------------------------
 * Access modes, as a bit set
 * ------------------------------------------------------------------------
 */
#define ACCESS_RWO		0x01		/* ReadWriteOnce */
#define ACCESS_ROX		0x02		/* ReadOnlyMany */
#define ACCESS_RWX		0x04		/* ReadWriteMany */
#define ACCESS_RWOP		0x08		/* ReadWriteOncePod */

/* ------------------------------------------------------------------------
 * The storage objects
 * ------------------------------------------------------------------------
 */
typedef struct Pvc
{
	char	   *uid;
	char	   *namespace;
	char	   *name;
	char	   *storage_class;	/* spec.storageClassName; NULL unset */
	char	   *beta_class;		/* annotation volume.beta.kubernetes.io/storage-class (read
								 * before storage_class), or NULL */
	char	   *volume_name;	/* spec.volumeName; NULL or "": unbound */
	bool		bind_completed; /* annotation pv.kubernetes.io/bind-completed */
	char	   *selected_node;	/* annotation volume.kubernetes.io/selected-node, or NULL */
	int			access_modes;	/* spec.accessModes, ACCESS_* */
	bool		has_request;
	int64		request;		/* spec.resources.requests.storage, bytes */
	Jsonb	   *selector;		/* spec.selector, NULL when none */
	char	   *volume_mode;	/* spec.volumeMode; NULL = Filesystem */
	char	   *phase;			/* status.phase, or NULL */
	Jsonb	   *owner_refs;		/* metadata.ownerReferences, NULL when none */
	bool		deleting;		/* metadata.deletionTimestamp set */
	char	   *resource_version;	/* metadata.resourceVersion, or NULL */
} Pvc;

typedef struct Pv
{
	char	   *uid;
	char	   *name;
	char	   *storage_class;	/* spec.storageClassName, "" when unset */
	char	   *beta_class;		/* annotation volume.beta.kubernetes.io/storage-class, or NULL */
	char	   *claim_namespace;	/* spec.claimRef, NULL when none */
	char	   *claim_name;
	char	   *claim_uid;		/* NULL when the claimRef has none */
	int			access_modes;
	bool		has_capacity;
	int64		capacity;		/* spec.capacity.storage, bytes */
	Jsonb	   *node_affinity;	/* spec.nodeAffinity.required (a NodeSelector), or NULL */
	Jsonb	   *labels;			/* metadata.labels, {} when none */
	char	   *volume_mode;	/* NULL = Filesystem */
	char	   *phase;			/* status.phase, or NULL */
	bool		deleting;
	/* the volume's source, as NodeVolumeLimits counts it */
	char	   *csi_driver;		/* spec.csi.driver, or NULL */
	char	   *csi_handle;		/* spec.csi.volumeHandle */
	PodVolumeKind intree;		/* spec.gcePersistentDisk / awsElasticBlockStore, else 0 */
	char	   *intree_id;		/* pdName / volumeID */
	char	   *resource_version;	/* metadata.resourceVersion, or NULL */
	/* assumed (VolumeBinding's Reserve, until the mirror shows it): claimed by ns/name */
	char	   *assumed_claim_namespace;
	char	   *assumed_claim_name;
} Pv;

typedef struct StorageClass
{
	char	   *name;
	char	   *provisioner;	/* "" when unset */
	bool		binding_mode_set;	/* volumeBindingMode given */
	bool		wait_for_first_consumer;	/* volumeBindingMode WaitForFirstConsumer */
	Jsonb	   *allowed_topologies; /* allowedTopologies, or NULL */
} StorageClass;

typedef struct CsiNodeDriver
{
	char	   *name;
	char	   *node_id;
	bool		has_count;		/* allocatable.count given */
	int32		count;
	int			ntopology_keys;
	char	  **topology_keys;
} CsiNodeDriver;

typedef struct CsiNode
{
	char	   *name;			/* the node's name */
	char	   *migrated_plugins;	/* annotation storage.alpha.kubernetes.io/migrated-plugins, or NULL */
	int			ndrivers;
	CsiNodeDriver *drivers;
} CsiNode;

typedef struct CsiDriver
{
	char	   *name;
	bool		attach_required;	/* spec.attachRequired, default true */
	bool		storage_capacity;	/* spec.storageCapacity, default false */
} CsiDriver;

typedef struct CsiCapacity
{
	char	   *namespace;
	char	   *name;
	char	   *storage_class;
	Jsonb	   *node_topology;	/* a LabelSelector, or NULL (matches no node) */
	bool		has_capacity;
	int64		capacity;
	bool		has_max_size;
	int64		max_size;		/* maximumVolumeSize */
} CsiCapacity;

typedef struct VolAttachment
{
	char	   *name;
	char	   *attacher;
	char	   *node;
	char	   *pv_name;		/* spec.source.persistentVolumeName, or NULL */
	char	   *inline_driver;	/* spec.source.inlineVolumeSpec.csi.driver, or NULL */
} VolAttachment;

/*
 * Every storage object of the cluster, as of the snapshot's last refresh.
 * Lookups by name return NULL when there is none; the lists are in name
 * order.
 */
typedef struct VolumeCatalog
{
	HTAB	   *pvcs;			/* "<namespace>/<name>" -> Pvc * */
	HTAB	   *pvs;			/* name -> Pv * */
	HTAB	   *classes;		/* name -> StorageClass * */
	HTAB	   *csinodes;		/* node name -> CsiNode * */
	HTAB	   *drivers;		/* name -> CsiDriver * */
	List	   *pv_list;		/* Pv *, by name */
	List	   *capacities;		/* CsiCapacity * */
	List	   *attachments;	/* VolAttachment * */
	uint64		serial;			/* numbers each reading, for what a plugin keeps
								 * beside it (in cxt) */
	MemoryContext cxt;
} VolumeCatalog;

extern VolumeCatalog *VolumeCatalogGet(struct ClusterSnapshot *snap);
extern Pvc *VolumeFindPvc(VolumeCatalog *c, const char *ns, const char *name);
extern Pv  *VolumeFindPv(VolumeCatalog *c, const char *name);
extern StorageClass *VolumeFindClass(VolumeCatalog *c, const char *name);
extern CsiNode *VolumeFindCsiNode(VolumeCatalog *c, const char *node);
extern CsiDriver *VolumeFindDriver(VolumeCatalog *c, const char *name);

/*
 * storagehelpers.GetPersistentVolumeClaimClass: the beta annotation when
 * present (even ""), else spec.storageClassName, else "".  Never NULL.
 */
extern const char *VolumePvcClass(const Pvc *pvc);

/*
 * VolumeBinding's Reserve, kube-scheduler's assume caches: the volume
 * claimed by a claim (the claimRef its PreBind writes), a claim's
 * selected-node (the annotation its PreBind writes).  The catalog holds them
 * for the rest of the call, and reads them back from the outbox (or the
 * tables, without an API server) in the next.
 */
extern void VolumeAssumeClaimRef(VolumeCatalog *c, Pv *pv, const char *ns, const char *name);
extern void VolumeAssumeSelectedNode(VolumeCatalog *c, Pvc *pvc, const char *node);

/* "persistentvolumeclaim \"<name>\" not found", as the API's NotFound error reads */
extern char *VolumeNotFound(const char *resource, const char *name);

/*
 * The object of a cluster event of a storage kind (ClusterEvent.old_obj or
 * new_obj, events.h), read as the catalog reads its table's rows: leniently,
 * as a planted row may hold anything.  NULL for NULL.
 */
extern Pvc *VolumeEventPvc(Jsonb *obj);
extern Pv  *VolumeEventPv(Jsonb *obj);
extern StorageClass *VolumeEventClass(Jsonb *obj);
extern CsiNode *VolumeEventCsiNode(Jsonb *obj);
extern CsiDriver *VolumeEventDriver(Jsonb *obj);
extern CsiCapacity *VolumeEventCapacity(Jsonb *obj);
extern VolAttachment *VolumeEventAttachment(Jsonb *obj);

/*
 * The QueueingHints' "is this claim the pod's": pvc is in the pod's
 * namespace and a persistentVolumeClaim volume names it, or, with
 * ephemeral, a generic ephemeral volume's claim ("<pod>-<volume>") is it.
 */
extern bool VolumePodUsesClaim(const PodInfo *pod, const Pvc *pvc, bool ephemeral);

/* for hints, inside SPI: a claim's spec.volumeName now; a pod's inline CSI volume of driver */
extern char *VolumeClaimVolumeName(const char *ns, const char *name, bool *found);
extern bool VolumePodHasInlineCsi(const PodInfo *pod, const char *driver);

/* the volume plugins' SignPod */
extern void VolumesSign(const PodInfo *pod, PodKey *key);

#endif							/* SCHEDULER_VOLUMES_H */
