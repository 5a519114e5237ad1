/*
 * scheduler.h
 *	  Types shared by the stages of the scheduler: the snapshot a cycle reads,
 *	  plugin statuses, the plugin interface and profiles.
 *
 * Data flows mirror (mirror.c) -> tables -> snapshot (snapshot.c) ->
 * cycle (framework.c, plugins/) -> results written back (schedule.c).
 */
#ifndef SCHEDULER_H
#define SCHEDULER_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "common/pg_prng.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "nodes/execnodes.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "labels.h"
#include "resources.h"

/* an ERROR caught in a subtransaction (scheduler.c) */
extern ErrorData *RunInSubxact(void (*fn) (void *arg), void *arg);

/* GUCs (scheduler.c) */
extern char *scheduler_scheduler_name;
extern int	scheduler_percentage_of_nodes_to_score;
extern int	scheduler_pod_initial_backoff;	/* ms */
extern int	scheduler_pod_max_backoff;	/* ms */
extern int	scheduler_unschedulable_timeout;	/* ms */
extern int	scheduler_history_retention;	/* s */
extern char *scheduler_kube_api_url;
extern int	scheduler_event_interval;	/* ms */
extern pg_prng_state scheduler_prng;

/* Feature gates (scheduler.feature_gates), as kube-scheduler's */
typedef struct FeatureGates
{
	bool		SidecarContainers;
	bool		TaintTolerationComparisonOperators;
	bool		MatchLabelKeysInPodTopologySpread;
	bool		NodeInclusionPolicyInPodTopologySpread;
} FeatureGates;
extern FeatureGates scheduler_features;

/* ------------------------------------------------------------------------
 * Objects as the cycle sees them
 * ------------------------------------------------------------------------
 */
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
} PodRef;

typedef struct NodeInfo
{
	char	   *name;
	int			ordinal;		/* numbers the nodes of a snapshot, from 0 */
	int			position;		/* in ClusterSnapshot.nodes (when it exists) */
	uint64		generation;		/* changes with anything a Filter reads of it */
	bool		exists;			/* false: only pods name it so far */
	bool		unschedulable;
	Jsonb	   *labels;
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
	MemoryContext cxt;			/* node-owned data (labels, taints, images) */
} NodeInfo;

/* The pod being scheduled */
typedef struct PodInfo
{
	char	   *uid;
	char	   *namespace;
	char	   *name;
	char	   *node_name;		/* spec.nodeName, NULL when unset */
	int32		priority;
	ResourceVec requests;		/* effective request (resources.c) */
	int64		nonzero_cpu;
	int64		nonzero_memory;
	int			ntolerations;
	Toleration *tolerations;
	Jsonb	   *labels;
	Jsonb	   *node_selector;
	Jsonb	   *affinity;
	int			nports;
	HostPort   *ports;
	int			nimages;
	char	  **images;			/* container images, init containers first */
	bool		has_sidecar;	/* a restartable init container */
	Jsonb	   *spread;			/* spec.topologySpreadConstraints, NULL when none */
	bool		preempt_never;	/* spec.preemptionPolicy Never */
	Jsonb	   *owner_refs;		/* metadata.ownerReferences, NULL when none */
	char	   *nominated_node; /* where an earlier preemption made room, or NULL */
	char	   *invalid;		/* its stored row could not be read whole: why (the
								 * cycle fails for this pod alone); NULL when fine */
} PodInfo;

typedef struct TopologyState TopologyState;

typedef struct ClusterSnapshot
{
	int			nnodes;			/* nodes that exist, in NodeTree order */
	NodeInfo  **nodes;
	HTAB	   *by_name;		/* node name -> NodeInfo (incl. placeholders) */
	HTAB	   *pods;			/* uid -> PodRef */
	HTAB	   *image_nodes;	/* normalized image name -> nodes having it */
	int			nordinals;		/* NodeInfo ordinals given out */
	uint64		nodes_version;	/* bumped when nodes come, go or change labels */
	uint64		generations;	/* the last NodeInfo generation given out */
	uint64		refreshes;		/* SnapshotGet calls: what was read once per call is stale after */
	MemoryContext cxt;			/* where it lives */
	struct TopologyState *topology; /* per-domain counts (topology.c) */
} ClusterSnapshot;

/* snapshot.c */
extern ClusterSnapshot *SnapshotGet(void);
extern void SnapshotAssume(ClusterSnapshot *snap, const PodInfo *pod, NodeInfo *node);
extern NodeInfo *SnapshotNode(ClusterSnapshot *snap, const char *name);
extern Datum TextArrayFromList(List *items);

/* What a plugin reads once per refresh of the snapshot (snapshot.c) */
typedef struct PerCallCache
{
	uint64		at;				/* the refresh it holds; 0: none */
	MemoryContext cxt;
} PerCallCache;
extern MemoryContext SnapshotPerCall(ClusterSnapshot *snap, PerCallCache *c, const char *name);
extern void SnapshotPerCallFilled(ClusterSnapshot *snap, PerCallCache *c);
extern void SnapshotNominate(ClusterSnapshot *snap, const PodInfo *pod, const char *node);
extern NodeInfo *NodeWithNominatedPods(const NodeInfo *node, const PodInfo *pod);
extern void SnapshotTakeOut(ClusterSnapshot *snap, PodRef *p);
extern void SnapshotPutBack(ClusterSnapshot *snap, PodRef *p);
extern int	SnapshotImageNodes(ClusterSnapshot *snap, const char *image);
extern void SnapshotPrune(void);
extern NodeInfo *NodeInfoFromJsonb(Jsonb *row);
extern PodRef *PodRefFromJsonb(Jsonb *row);
extern void PodInfoFromTuple(PodInfo *pod, HeapTuple tup, TupleDesc desc);
extern const char *PodInfoColumns;
extern const char *PodInfoColumnsQualified;
extern Toleration *TolerationsFromJsonb(Jsonb *jb, int *n);
extern HostPort *HostPortsFromJsonb(Jsonb *jb, int *n, char **err);
extern char *NormalizedImageName(const char *name);

/* tolerations.c */
extern bool ToleratesTaint(const Toleration *tol, const Taint *taint, char **err);
extern bool TolerationsTolerateTaint(const Toleration *tols, int ntols, const Taint *taint, char **err);

/* ------------------------------------------------------------------------
 * Statuses
 * ------------------------------------------------------------------------
 */
typedef enum StatusCode
{
	CODE_SUCCESS = 0,
	CODE_ERROR,
	CODE_UNSCHEDULABLE,
	CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
	CODE_SKIP
} StatusCode;

extern const char *StatusCodeName(StatusCode code);

/* A plugin's verdict: a code and its reasons (kube-scheduler's Status). */
typedef struct Status
{
	StatusCode	code;
	List	   *reasons;		/* of char * */
} Status;

extern void StatusSet(Status *st, StatusCode code, const char *reason);
extern char *StatusMessage(const Status *st);

/* ------------------------------------------------------------------------
 * Plugins
 *
 * A plugin implements the extension points it needs; NULL means it has
 * none there.  args is what parse_args returned for the profile; state is
 * the plugin's own per-pod data, set by PreFilter or PreScore.
 * ------------------------------------------------------------------------
 */
struct CycleResult;				/* below: PostFilter reads it */

/* ------------------------------------------------------------------------
 * Cluster events and QueueingHints (queue.c)
 * ------------------------------------------------------------------------
 */
/* Resources, and kube-scheduler's ActionType bits (one per event) */
#define RES_NODE			1
#define RES_ASSIGNED_POD	2

#define ACT_ADD						0x0001
#define ACT_DELETE					0x0002
#define ACT_UPDATE_NODE_ALLOCATABLE	0x0004
#define ACT_UPDATE_NODE_LABEL		0x0008
#define ACT_UPDATE_NODE_TAINT		0x0010
#define ACT_UPDATE_POD_LABEL		0x0100
#define ACT_UPDATE_POD_SCALE_DOWN	0x0200
#define ACT_UPDATE					0x1FFC	/* every update */

typedef struct ClusterEvent
{
	int			resource;		/* RES_* */
	int			action;			/* one ACT_* */
	const char *label;			/* "NodeAdd", "NodeUpdateNodeTaint", ... */
	NodeInfo   *old_node;		/* node events: before (NULL on add) */
	NodeInfo   *new_node;		/* and after (NULL on delete) */
	PodRef	   *old_pod;		/* assigned pod events: before */
	PodRef	   *new_pod;		/* and after */
} ClusterEvent;

/* queue.c: the rows a statement changed, as cluster events (kinds.c) */
extern List *NodeRowEvents(Jsonb *olds, Jsonb *news);
extern List *PodRowEvents(Jsonb *olds, Jsonb *news);

typedef enum QueueingHint
{
	HINT_SKIP = 0,
	HINT_QUEUE
} QueueingHint;

struct PodInfo;

/* EventsToRegister: an event of interest, and its hint (NULL: always Queue) */
typedef struct EventRegistration
{
	int			resource;
	int			actions;
	QueueingHint (*hint) (const struct PodInfo *pod, const ClusterEvent *ev);
} EventRegistration;

#define MAX_EVENT_REGISTRATIONS 6

typedef struct PluginCall
{
	const void *args;
	void	   *state;			/* PreFilter's or PreScore's */
	ClusterSnapshot *snap;
	bool		restricts_nodes;	/* PreFilter: *node_names is the set, even if empty */
	List	   *node_names;		/* PreFilter's node names, when it restricts */
} PluginCall;

typedef struct Plugin
{
	const char *name;
	bool		reads_pods;		/* its PreFilter state counts pods on other nodes */
	int			default_weight; /* in kube-scheduler's default profile; 0 = not a scorer */

	/* validate and parse plugin args (jsonb object); ERROR naming the field */
	void	   *(*parse_args) (Jsonb *args);

	/*
	 * PreFilter: Success, Skip (Filter not run for this pod), or a rejection
	 * for every node.  May restrict the nodes to *node_names (a List of
	 * char *), as PreFilterResult does.
	 */
	void		(*prefilter) (PluginCall *call, const PodInfo *pod, Status *st, List **node_names);
	void		(*filter) (PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st);
	/* PreScore over the feasible nodes: Success or Skip (Score not run) */
	void		(*prescore) (PluginCall *call, const PodInfo *pod, NodeInfo **nodes, int n, Status *st);
	int64		(*score) (PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st);
	void		(*normalize) (PluginCall *call, const PodInfo *pod, int64 *scores, int n, Status *st);

	/*
	 * PostFilter, run when no node passed: may make room (preemption),
	 * setting res->nominated and res->victims on Success.  Its message joins
	 * the FitError.
	 */
	void		(*postfilter) (PluginCall *call, const PodInfo *pod, struct CycleResult *res, Status *st);

	/*
	 * EventsToRegister: the events that may make a pod this plugin rejected
	 * schedulable, each with its QueueingHint; ends at resource 0.
	 */
	EventRegistration events[MAX_EVENT_REGISTRATIONS];
} Plugin;

extern const Plugin NodeUnschedulablePlugin;
extern const Plugin NodeNamePlugin;
extern const Plugin TaintTolerationPlugin;
extern const Plugin NodeAffinityPlugin;
extern const Plugin NodePortsPlugin;
extern const Plugin NodeResourcesFitPlugin;
extern const Plugin NodeResourcesBalancedAllocationPlugin;
extern const Plugin ImageLocalityPlugin;
extern const Plugin InterPodAffinityPlugin;
extern const Plugin PodTopologySpreadPlugin;
extern const Plugin DefaultPreemptionPlugin;

extern const Plugin *FindPlugin(const char *name);
extern bool EventOfInterest(const ClusterEvent *ev);

/* node_resources_fit.c: resource_allocation.go, shared with BalancedAllocation */
extern bool ResourceAllocatableRequested(const PodInfo *pod, const NodeInfo *node, const char *name,
										 bool nonzero, int64 *alloc, int64 *requested);

/* node_affinity.c: nodeaffinity.GetRequiredNodeAffinity(pod).Match(node), for other plugins */
extern const void *RequiredNodeAffinity(const PodInfo *pod);
extern bool RequiredNodeAffinityMatches(const void *req, const PodInfo *pod, const NodeInfo *node);

/* helper/normalize_score.go: DefaultNormalizeScore */
extern void DefaultNormalizeScore(int64 max_priority, bool reverse, int64 *scores, int n);

/* ------------------------------------------------------------------------
 * Profiles (profile.c)
 * ------------------------------------------------------------------------
 */
typedef struct ProfilePlugin
{
	const Plugin *plugin;
	void	   *args;
	int			weight;			/* score weight, 0 when it does not score */
} ProfilePlugin;

typedef struct Profile
{
	char	   *scheduler_name;
	int			nplugins;
	ProfilePlugin *plugins;		/* in profile order */
	int			percentage_of_nodes_to_score;	/* -1: use the GUC */
} Profile;

extern Profile *ProfileLoad(const char *scheduler_name);

/* ------------------------------------------------------------------------
 * The cycle (framework.c)
 * ------------------------------------------------------------------------
 */
typedef struct NodeVerdict
{
	NodeInfo   *node;
	int			rejected_by;	/* index into profile plugins, -1 = feasible */
	Status		status;
} NodeVerdict;

typedef struct CycleResult
{
	NodeInfo   *chosen;			/* NULL when unschedulable */
	int			nnodes;			/* nodes in the snapshot */
	ClusterSnapshot *snap;
	const Profile *profile;
	/* PreFilter rejection: every node gets this status */
	int			prefilter_plugin;	/* -1 when none */
	Status		prefilter_status;
	/* nodes left out by a PreFilterResult */
	List	   *absent_plugins; /* plugin names restricting the nodes */
	int			nabsent;
	/* the nodes that were filtered, in evaluation order */
	int			nverdicts;
	NodeVerdict *verdicts;
	int64		best_score;
	char	   *error;			/* a plugin failed: the cycle failed for this pod */
	char	   *postfilter_msg; /* PostFilter's status message, if any */
	char	   *nominated;		/* node a PostFilter nominated */
	bool		clear_nomination;	/* PostFilter: the pod's nomination, if any, goes */
	List	   *victims;		/* PodRef *: pods to delete for the nominated node */
	const char *absent_status;	/* the reason of the nodes not among the verdicts, when
								 * not a PreFilterResult's */
	struct CycleCtx *ctx;		/* the cycle's PreFilter state */
} CycleResult;

/* Per-pod state of one cycle: each plugin's call data */
typedef struct CycleCtx
{
	ClusterSnapshot *snap;
	const Profile *profile;
	PluginCall *calls;			/* per profile plugin */
	bool	   *skip_filter;	/* per profile plugin */
	struct EquivClass *equiv;	/* the pod's equivalence class, or NULL */
} CycleCtx;

/* equivalence.c */
typedef struct EquivClass EquivClass;
extern void EquivReset(MemoryContext parent);
extern EquivClass *EquivClassFor(CycleCtx *ctx, const PodInfo *pod);
extern bool PreFilterIsPodLocal(const CycleCtx *ctx);
extern bool EquivFilterGet(EquivClass *c, const NodeInfo *node, int *rejected, Status *st);
extern void EquivFilterPut(EquivClass *c, const NodeInfo *node, int rejected, const Status *st);
extern void *EquivPreemptGet(EquivClass *c, const NodeInfo *node);
extern void EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result);
extern MemoryContext EquivMemory(EquivClass *c);

extern CycleCtx *NewCycleCtx(ClusterSnapshot *snap, const Profile *profile);
extern bool RunPreFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res, List **names, bool *restricted);
extern int	RunFilters(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st);
extern void RunPostFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res);
extern bool FilterPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
						 const PodInfo *pod, const NodeInfo *node);
extern QueueingHint NodeNowPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
								  const PodInfo *pod, const ClusterEvent *ev);
extern bool RunScores(CycleCtx *ctx, const PodInfo *pod, NodeInfo **nodes, int n,
					  int64 **raw, int64 **norm, int64 *totals, char **err);
extern NodeInfo **CandidateNodes(ClusterSnapshot *snap, List *names, bool restricted, int *n, int *nabsent);
extern void RunSchedulingCycle(ClusterSnapshot *snap, const Profile *profile, const PodInfo *pod,
							   int *next_start, CycleResult *res);
extern int	NumFeasibleNodesToFind(int percentage, int num_all_nodes);
extern char *AbsentPluginsText(const CycleResult *res);

/* schedule.c: one call of schedule_pending(), inside SPI */
extern int	SchedulePending(int64 max_pods, ReturnSetInfo *rsinfo);

/* queue.c, worker.c */
extern void SchedulerWakeup(void);
/* The background workers (worker.c); the first two are woken by others */
typedef enum WorkerRole
{
	WORKER_SCHEDULE,			/* worker.c: runs schedule_pending() */
	WORKER_BIND,				/* bind.c: sends the outbox */
	NWORKER_ROLES				/* (and, passed to WorkerConnect: the watch) */
} WorkerRole;
extern void WorkerWakeAtCommit(WorkerRole role);
extern void WorkerConnect(WorkerRole role);
extern void WorkerRecover(MemoryContext back);
extern char *scheduler_database;
extern int	scheduler_worker_interval;
extern void WatchInitGucs(void);
typedef enum WatchLine
{
	WATCH_LINE_MALFORMED,		/* not a JSON object */
	WATCH_LINE_EXPIRED,			/* ERROR event, 410 Gone: relist */
	WATCH_LINE_ERROR,			/* another ERROR event: watch again */
	WATCH_LINE_BOOKMARK,
	WATCH_LINE_EVENT			/* to apply */
} WatchLine;
extern WatchLine WatchReadLine(const char *resource, const char *kind, const char *line, size_t len, Jsonb **event, char **rv);
extern void WorkerBegin(const char *activity);
extern void WorkerCommit(MemoryContext back);
extern bool WorkerTakeLead(int role, const char *who);
extern void BindInitGucs(void);
extern void WorkerInit(void);

/* explain.c */
extern char *FitErrorMessage(const CycleResult *res);
extern Jsonb *DiagnosisToJsonb(const CycleResult *res);
extern Jsonb *RejectingPlugins(const CycleResult *res);

#endif							/* SCHEDULER_H */
