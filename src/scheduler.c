/*
 * scheduler.c
 *	  Module entry point and settings (GUCs), and RunInSubxact, which the
 *	  stages share.
 */
#include "postgres.h"

#include <limits.h>

#include "access/xact.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "framework.h"
#include "queue.h"
#include "snapshot.h"
#include "topology.h"
#include "schedule.h"
#include "scheduling_queue.h"
#include "bind.h"
#include "kube_client.h"
#include "watch.h"
#include "worker.h"

PG_MODULE_MAGIC;

char	   *scheduler_scheduler_name = NULL;
int			scheduler_percentage_of_nodes_to_score = 0;
int			scheduler_history_retention = 86400;
int			scheduler_event_interval = 60000;
static int	scheduler_random_seed = -1;
static char *scheduler_feature_gates = NULL;
pg_prng_state scheduler_prng;
FeatureGates scheduler_features;

void		_PG_init(void);


/* The tie-break's random source: seeded from this GUC, or at random. */
static void
assign_random_seed(int newval, void *extra pg_attribute_unused())
{
	if (newval >= 0)
		pg_prng_seed(&scheduler_prng, (uint64) newval);
	else
		pg_prng_seed(&scheduler_prng, pg_prng_uint64(&pg_global_prng_state));
}

/*
 * scheduler.feature_gates: "Name=true,Name=false", as kube-scheduler's
 * --feature-gates.  Defaults are the newest release's.
 */
static bool
parse_gates(const char *value, FeatureGates *out)
{
	char	   *copy = pstrdup(value);
	char	   *save = NULL;

	out->SidecarContainers = true;
	out->TaintTolerationComparisonOperators = false;
	out->MatchLabelKeysInPodTopologySpread = true;
	out->NodeInclusionPolicyInPodTopologySpread = true;
	out->VolumeCapacityPriority = false;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
	{
		char	   *eq;
		bool		on;
		bool	   *gate;

		while (*item == ' ')
			item++;
		if (*item == '\0')
			continue;
		eq = strchr(item, '=');
		if (eq == NULL || !parse_bool(eq + 1, &on))
		{
			GUC_check_errdetail("Expected Name=true or Name=false, got \"%s\".", item);
			return false;
		}
		*eq = '\0';
		if (strcmp(item, "SidecarContainers") == 0)
			gate = &out->SidecarContainers;
		else if (strcmp(item, "TaintTolerationComparisonOperators") == 0)
			gate = &out->TaintTolerationComparisonOperators;
		else if (strcmp(item, "MatchLabelKeysInPodTopologySpread") == 0)
			gate = &out->MatchLabelKeysInPodTopologySpread;
		else if (strcmp(item, "NodeInclusionPolicyInPodTopologySpread") == 0)
			gate = &out->NodeInclusionPolicyInPodTopologySpread;
		else if (strcmp(item, "VolumeCapacityPriority") == 0)
			gate = &out->VolumeCapacityPriority;
		else
		{
			GUC_check_errdetail("Unknown feature gate \"%s\"; known: SidecarContainers, TaintTolerationComparisonOperators,"
								" MatchLabelKeysInPodTopologySpread, NodeInclusionPolicyInPodTopologySpread,"
								" VolumeCapacityPriority.", item);
			return false;
		}
		*gate = on;
	}
	return true;
}

static bool
check_feature_gates(char **newval, void **extra, GucSource source pg_attribute_unused())
{
	FeatureGates gates;

	if (!parse_gates(*newval ? *newval : "", &gates))
		return false;
	*extra = malloc(sizeof(FeatureGates));
	if (*extra == NULL)
		return false;
	memcpy(*extra, &gates, sizeof(gates));
	return true;
}

static void
assign_feature_gates(const char *newval pg_attribute_unused(), void *extra)
{
	if (extra)
		memcpy(&scheduler_features, extra, sizeof(FeatureGates));
}

void
_PG_init(void)
{
	/* topology.c's counts follow what the snapshot counts */
	SnapshotListen(&TopologyListener);
	/* the queue's triggers hand changed rows to the QueueingHints */
	SchedQueueSetHints(QueueHints);

	DefineCustomStringVariable("scheduler.scheduler_name",
							   "The spec.schedulerName whose pods this scheduler schedules.",
							   NULL,
							   &scheduler_scheduler_name,
							   "default-scheduler",
							   PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.percentage_of_nodes_to_score",
							"Percentage of nodes to find feasible before scoring (0: adaptive, as kube-scheduler).",
							"0 means max(5, 50 - nodes/125) percent; at least 100 nodes are always searched.",
							&scheduler_percentage_of_nodes_to_score,
							0, 0, 100,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.random_seed",
							"Seed of the random choice between equally scored nodes (-1: unseeded).",
							NULL,
							&scheduler_random_seed,
							-1, -1, INT_MAX,
							PGC_USERSET, 0, NULL, assign_random_seed, NULL);
	DefineCustomStringVariable("scheduler.feature_gates",
							   "kube-scheduler feature gates, as Name=true,Name=false.",
							   NULL,
							   &scheduler_feature_gates,
							   "",
							   PGC_USERSET, GUC_LIST_INPUT, check_feature_gates, assign_feature_gates, NULL);
	DefineCustomIntVariable("scheduler.history_retention",
							"How long scheduler.attempt_history keeps attempts.",
							NULL,
							&scheduler_history_retention,
							86400, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.event_interval",
							"At most one FailedScheduling event per pod this often.",
							NULL,
							&scheduler_event_interval,
							60000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	SchedQueueInit();
	KubeClientInit();
	WatchInitGucs();
	BindInitGucs();
	WorkerInit();
	MarkGUCPrefixReserved("scheduler");
	assign_random_seed(scheduler_random_seed, NULL);
}
