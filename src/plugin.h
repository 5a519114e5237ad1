/*
 * plugin.h
 *	  The plugin interface: statuses, extension points, profiles and the
 *	  result of a cycle that PostFilter reads; every plugin of plugins.def.
 *
 * IDENTIFICATION
 *	  src/plugin.h
 */
#ifndef SCHEDULER_PLUGIN_H
#define SCHEDULER_PLUGIN_H

#include "postgres.h"
#include "common/pg_prng.h"
#include "events.h"
#include "snapshot.h"
#include "feature_gates.h"

/* the cycle's random choices (scheduler.random_seed) */
extern pg_prng_state scheduler_prng;

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

/*
 * What a Reserve leaves for PreBind: the API requests that must be done
 * before the pod's Binding is sent (the outbox sends them first), and the
 * claims the Binding waits for, as VolumeBinding's PreBind does.
 */
typedef struct PreBindRequest
{
	const char *kind;			/* "volume": PATCH a PersistentVolume; "claim": PATCH a
								 * claim of the pod's namespace */
	const char *object;			/* its name */
	Jsonb	   *patch;			/* a JSON merge patch (its resourceVersion a precondition) */
} PreBindRequest;

typedef struct PluginCall
{
	const void *args;
	void	   *state;			/* PreFilter's or PreScore's */
	ClusterSnapshot *snap;
	bool		restricts_nodes;	/* PreFilter: *node_names is the set, even if empty */
	List	   *node_names;		/* PreFilter's node names, when it restricts */
	bool		passes_every_node;	/* PreFilter: its Filter would pass every node for
									 * this pod, so the cycle does not run it
									 * (scheduler.filter() still does) */
	bool		scores_zero;	/* PreScore: Success, and Score would give every
								 * node 0 and NormalizeScore keep it 0 (nothing
								 * to score), so the cycle runs neither */
} PluginCall;

typedef struct Plugin
{
	const char *name;
	bool		reads_pods;		/* its PreFilter state counts pods on other nodes */

	/* validate and parse plugin args (jsonb object); ERROR naming the field */
	void	   *(*parse_args) (Jsonb *args);

	/*
	 * PreFilter: Success, Skip (Filter not run for this pod), or a rejection
	 * for every node.  May restrict the nodes to *node_names (a List of
	 * char *), as PreFilterResult does.
	 */
	void		(*prefilter) (PluginCall *call, const PodInfo *pod, Status *st, List **node_names);
	void		(*filter) (PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st);
	/*
	 * PreScore over the feasible nodes: Success or Skip (Score not run);
	 * Success with call->scores_zero when every node would score 0
	 */
	void		(*prescore) (PluginCall *call, const PodInfo *pod, NodeInfo **nodes, int n, Status *st);
	int64		(*score) (PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st);
	void		(*normalize) (PluginCall *call, const PodInfo *pod, int64 *scores, int n, Status *st);

	/*
	 * Score reads only what its sign signs of the pod, the node (what bumps
	 * its generation, and its labels) and, of the rest of the cluster, the
	 * nodes' images: a node's raw score is kept for the pod's class
	 * (equivalence.c) and read again while none of that has changed.
	 */
	bool		score_node_local;

	/*
	 * PostFilter, run when no node passed: may make room (preemption),
	 * setting res->nominated and res->victims on Success.  Its message joins
	 * the FitError.
	 */
	void		(*postfilter) (PluginCall *call, const PodInfo *pod, struct CycleResult *res, Status *st);

	/*
	 * Reserve, on the node chosen: assume in this call's view what binding
	 * there needs (so that the next pods of the call see it taken), and put
	 * the PreBind requests in res->prebind (res->wait_claims: the claims the
	 * Binding then waits for, res->wait_seconds: for how long).  Only
	 * schedule_pending() runs it, after Filter and Score chose the node.
	 */
	void		(*reserve) (PluginCall *call, const PodInfo *pod, const NodeInfo *node,
							struct CycleResult *res, Status *st);

	/*
	 * SignPod: PodKeyAdd the pod's fields (POD_FIELD) that its PreFilter,
	 * Filter and PostFilter read, and its PreScore and Score when its score
	 * is score_node_local, so that pods signed alike share kept verdicts
	 * and scores (equivalence.c).  A plugin with one of those filtering
	 * stages and no sign leaves its profile's pods without a class: nothing
	 * is kept for them.
	 */
	void		(*sign) (const PodInfo *pod, PodKey *key);

	/*
	 * EventsToRegister: the events that may make a pod this plugin rejected
	 * schedulable, each with its QueueingHint; ends at resource 0.
	 */
	EventRegistration events[MAX_EVENT_REGISTRATIONS];
} Plugin;

/* each plugin's Plugin, defined in its file (plugins/plugins.def lists them) */
#define PLUGIN(name, weight, position) extern const Plugin name##Plugin;
#include "plugins/plugins.def"


/* node_resources_fit.c: resource_allocation.go, shared with BalancedAllocation */
extern bool ResourceAllocatableRequested(const PodInfo *pod, const NodeInfo *node, const char *name,
										 int fixed, bool nonzero, int64 *alloc, int64 *requested);
extern int *ResourceFixedIndexes(char **names, int n);

/* default_preemption.c: util.MoreImportantPod as a list_sort comparator of PodRefs */
extern int	PodMoreImportant(const ListCell *a, const ListCell *b);

/* inter_pod_affinity.c: a namespace's labels (NULL: not mirrored), read through SPI */
extern Jsonb *NamespaceLabels(const char *ns);

/* node_affinity.c: nodeaffinity.GetRequiredNodeAffinity(pod).Match(node), for other plugins */
extern const void *RequiredNodeAffinity(const PodInfo *pod);
extern bool RequiredNodeAffinityMatches(const void *req, ClusterSnapshot *snap, const PodInfo *pod,
										const NodeInfo *node);
/*
 * node_affinity.c: a NodeSelector jsonb (a PV's node affinity) parsed, and
 * matched against a node (snap: the snapshot whose label columns number
 * it, or NULL)
 */
extern const void *NodeSelectorParse(Jsonb *required);
extern bool NodeSelectorMatches(const void *sel, ClusterSnapshot *snap, const NodeInfo *node);


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
	/*
	 * every verdict has the first's plugin, code and reasons (the same
	 * list, as verdicts kept for the pod's class share): set by the search
	 * when every candidate failed, so that the message and the diagnosis
	 * need not compare them node by node (false where not known)
	 */
	bool		verdicts_alike;
	int64		best_score;
	char	   *error;			/* a plugin failed: the cycle failed for this pod */
	char	   *postfilter_msg; /* PostFilter's status message, if any */
	char	   *nominated;		/* node a PostFilter nominated */
	bool		clear_nomination;	/* PostFilter: the pod's nomination, if any, goes */
	List	   *victims;		/* PodRef *: pods to delete for the nominated node */
	const char *absent_status;	/* the reason of the nodes not among the verdicts, when
								 * not a PreFilterResult's */
	struct CycleCtx *ctx;		/* the cycle's PreFilter state */
	/* Reserve's (schedule_pending only) */
	List	   *prebind;		/* PreBindRequest *, in order */
	List	   *wait_claims;	/* char *: claims to be bound before the Binding */
	int64		wait_seconds;	/* and how long the Binding waits for them */
} CycleResult;

/* Per-pod state of one cycle: each plugin's call data */
typedef struct CycleCtx
{
	ClusterSnapshot *snap;
	const Profile *profile;
	PluginCall *calls;			/* per profile plugin */
	bool	   *skip_filter;	/* per profile plugin; after a change, nfilters = -1 */
	int			nfilters;		/* the plugins whose Filter runs, from skip_filter; -1: not known */
	struct FilterStep *filters; /* them, in profile order */
	int			nprefix;		/* the first of them, before any plugin that reads pods */
	struct EquivClass *equiv;	/* the pod's equivalence class, or NULL */
	struct EquivClass *scores_class;	/* its class for node-local scores, or NULL */
} CycleCtx;

/* A Filter a cycle runs: the plugin's function, its call, its profile index */
typedef struct FilterStep
{
	void		(*filter) (PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st);
	PluginCall *call;
	int			plugin;
} FilterStep;

/* for QueueingHints: whether a Filter passes a pod on a node (framework.c) */
extern bool FilterPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
						 const PodInfo *pod, const NodeInfo *node);
extern QueueingHint NodeNowPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
								  const PodInfo *pod, const ClusterEvent *ev);

#endif							/* SCHEDULER_PLUGIN_H */
