/*
 * cluster.h
 *	  Objects as a cycle sees them: nodes, the pod being scheduled, and the
 *	  pods on nodes (kube-scheduler's NodeInfo, PodInfo).
 *
 * IDENTIFICATION
 *	  src/cluster.h
 */
#ifndef SCHEDULER_CLUSTER_H
#define SCHEDULER_CLUSTER_H

#include "postgres.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "labels.h"
#include "resources.h"

typedef struct Taint
{
	char	   *key;
	char	   *value;			/* "" when unset */
	char	   *effect;
} Taint;

typedef struct Toleration
{
	char	   *key;			/* NULL = empty key */
	char	   *operator;		/* NULL = "Equal" */
	char	   *value;			/* "" when unset */
	char	   *effect;			/* NULL = all effects */
} Toleration;

typedef struct HostPort
{
	char	   *ip;				/* "0.0.0.0" when unset */
	char	   *protocol;		/* "TCP" when unset */
	int32		port;
} HostPort;

typedef struct NodeImage
{
	char	   *name;			/* normalized (ImageLocality) */
	int64		size;
} NodeImage;

/* A volume of a pod, as the volume plugins read it (spec.volumes; volumes.h) */
typedef enum PodVolumeKind
{
	PVOL_PVC = 1,				/* persistentVolumeClaim */
	PVOL_EPHEMERAL,				/* ephemeral: a generic ephemeral volume's claim */
	PVOL_GCE_PD,				/* gcePersistentDisk */
	PVOL_AWS_EBS,				/* awsElasticBlockStore */
	PVOL_RBD,					/* rbd */
	PVOL_ISCSI					/* iscsi */
} PodVolumeKind;

typedef struct PodVolume
{
	PodVolumeKind kind;
	char	   *name;			/* the volume's name, "" when unset */
	/* PVC: claimName; EPHEMERAL: "<pod name>-<volume name>" */
	char	   *claim;
	bool		read_only;
	/* GCE_PD: pdName; AWS_EBS: volumeID; RBD: image; ISCSI: iqn */
	char	   *disk;
	char	   *pool;			/* RBD */
	int			nmonitors;		/* RBD */
	char	  **monitors;
	char	   *fs_type;		/* RBD, ISCSI, GCE_PD, AWS_EBS: fsType ("" unset) */
	char	   *portal;			/* ISCSI: targetPortal */
	int32		lun;			/* ISCSI */
	int32		partition;		/* GCE_PD, AWS_EBS */
} PodVolume;

/* A pod bound or assumed to a node, as the snapshot keeps it */
typedef struct PodRef
{
	char	   *uid;			/* hash key (snapshot.c's pods table) */
	char	   *node;			/* NULL when not on a node */
	ResourceVec requests;
	int64		nonzero_cpu;
	int64		nonzero_memory;
	int			nports;
	HostPort   *ports;
	char	   *namespace;
	char	   *name;
	int32		priority;
	TimestampTz start_time;		/* DefaultPreemption's order (creation time) */
	Jsonb	   *labels;
	bool		terminating;	/* metadata.deletionTimestamp is set */
	PodAffinity *affinity;		/* inter-pod affinity terms; NULL: none */
	int			nvolumes;		/* the volumes the volume plugins read */
	PodVolume  *volumes;		/* NULL when none */
	bool		taken_out;		/* off its node for a what-if (SnapshotTakeOut) */
} PodRef;

/*
 * Room for a node's name (a DNS subdomain, at most 253 bytes) with its
 * terminator: the snapshot's key.  A name that does not fit names no node.
 */
#define NODE_NAME_KEYSIZE	256

/* A node: its fields from node_columns.def (codec.c), then the snapshot's */
typedef struct NodeInfo
{
	char	   *uid;
	char	   *name;
	int			ordinal;		/* numbers the nodes of a snapshot, from 0 */
	int			position;		/* in ClusterSnapshot.nodes (when it exists) */
	uint64		generation;		/* changes with anything a Filter reads of it */
	bool		exists;			/* false: only pods name it so far */
	bool		unschedulable;
	Jsonb	   *labels;
	uint64		labels_version; /* the snapshot's: a new one when its labels change;
								 * 0 in any other NodeInfo (node_labels.c) */
	int			ntaints;
	Taint	   *taints;
	int			nimages;
	NodeImage  *images;
	ResourceVec allocatable;
	ResourceVec requested;		/* sum of the requests of its pods */
	int64		nonzero_cpu;	/* same, with non-zero defaults, for scoring */
	int64		nonzero_memory;
	bool		saturated;		/* a sum above stopped at the int64 limit */
	int			npods;
	List	   *port_pods;		/* PodRefs on this node that use host ports */
	List	   *pods;			/* every PodRef on this node */
	List	   *affinity_pods;	/* those with inter-pod affinity terms */
	List	   *anti_pods;		/* those with required anti-affinity terms */
	List	   *nominated;		/* PodRefs of pending pods nominated here (preemption) */
	bool		nominated_in;	/* a copy with those of them counted in that the
								 * pod being filtered counts
								 * (NodeWithNominatedPods) */
	MemoryContext cxt;			/* node-owned data (labels, taints, images) */
} NodeInfo;

/*
 * The pod being scheduled: its fields come from pod_columns.def, where each
 * has its column, its decoder and its signature (codec.c).
 */
typedef struct PodInfo
{
#define POD_COLUMN(id, sql, declaration) declaration
#include "pod_columns.def"
#undef POD_COLUMN
	char	   *invalid;		/* its stored row could not be read whole: why (the
								 * cycle fails for this pod alone); NULL when fine */
} PodInfo;

#endif							/* SCHEDULER_CLUSTER_H */
