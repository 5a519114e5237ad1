/*
 * node_resources_fit.c
 *	  NodeResourcesFit: does the node have room for the pod's requests, and
 *	  the scoring strategies LeastAllocated, MostAllocated and
 *	  RequestedToCapacityRatio.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/noderesources (fit.go,
 * least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go,
 * resource_allocation.go), args validation as validation_pluginargs.go.
 *
 * Filter: one reason per resource that does not fit, in kube-scheduler's
 * order: Too many pods, cpu, memory, ephemeral-storage, then scalar
 * resources (in the order the pod's request lists them; kube-scheduler's
 * follow Go map order).  Extended resources named in ignoredResources, or
 * whose group (before the '/') is in ignoredResourceGroups, are not checked.
 * A pod that requests no cpu, memory, ephemeral-storage or scalar resource
 * is checked for the pod count only.  The code is Unschedulable.
 *
 * Score: per configured resource, allocatable and requested (cpu and
 * memory with the non-zero defaults, for the node's pods and this one;
 * others as requested); a resource the node does not have, or a scalar the
 * pod does not request, is left out; the strategy's per-resource scores are
 * averaged with the resource weights, in integer arithmetic (RTCR rounds).
 */
#include "postgres.h"

#include <math.h>

#include "utils/builtins.h"

#include "jsonutil.h"
#include "plugin.h"
#include "shape.h"

#define MAX_NODE_SCORE 100
#define MAX_UTILIZATION 100

typedef enum
{
	LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO
} Strategy;

typedef struct FitArgs
{
	int			nignored;
	char	  **ignored;
	int			ngroups;
	char	  **groups;
	Strategy	strategy;
	int			nresources;
	char	  **names;
	int		   *fixed;			/* ResourceFixedIndex of each name */
	int64	   *weights;
	Shape		shape;			/* RequestedToCapacityRatio's */
} FitArgs;

/* ------------------------------------------------------------------------
 * Args, validated as ValidateNodeResourcesFitArgs; errors read like
 * Kubernetes field errors: "<path>: Invalid value: <v>: <detail>".
 * ------------------------------------------------------------------------
 */
static void
field_error(const char *type, const char *path, const char *value, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("NodeResourcesFit args: %s: %s%s%s%s%s", path, type,
					value ? ": " : "", value ? value : "", detail ? ": " : "", detail ? detail : "")));
}

static int64
jint(JsonbValue *v, const char *path)
{
	int64		x;

	if (v == NULL)
		return 0;
	if (!JValueInt64(v, &x))
		field_error("Invalid value", path, JShortScalar(v), "must be an integer");
	return x;
}

static char **
string_list(JsonbValue *v, const char *path, int *n)
{
	JsonbContainer *arr;
	char	  **out;

	*n = 0;
	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		field_error("Invalid value", path, NULL, "must be a list of strings");
	arr = v->val.binary.data;
	out = palloc(sizeof(char *) * Max(JsonContainerSize(arr), 1));
	for (int i = 0; i < (int) JsonContainerSize(arr); i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(arr, i);

		if (e->type != jbvString)
			field_error("Invalid value", psprintf("%s[%d]", path, i), JShortScalar(e), "must be a string");
		out[(*n)++] = pnstrdup(e->val.string.val, e->val.string.len);
	}
	return out;
}

/* scoringStrategy.requestedToCapacityRatio: the shape, checked and scaled */
static void
parse_shape(FitArgs *a, JsonbValue *rtcr)
{
	static const char *const rtcr_fields[] = {"shape", NULL};
	JsonbValue *shape = (rtcr && rtcr->type == jbvBinary) ? JGet(rtcr->val.binary.data, "shape") : NULL;

	if (rtcr && (rtcr->type != jbvBinary || !JsonContainerIsObject(rtcr->val.binary.data)))
		field_error("Invalid value", "scoringStrategy.requestedToCapacityRatio", NULL, "must be an object");
	if (rtcr)
		JCheckKnownFields(rtcr->val.binary.data, rtcr_fields, "NodeResourcesFit args",
						  "scoringStrategy.requestedToCapacityRatio");
	ShapeParse(&a->shape, shape, "NodeResourcesFit args", "scoringStrategy.requestedToCapacityRatio.shape",
			   "values must be sorted in increasing order");
}

static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups",
	"scoringStrategy", NULL};
	static const char *const strategy[] = {"type", "resources", "requestedToCapacityRatio", NULL};
	static const char *const resource_fields[] = {"name", "weight", NULL};
	FitArgs    *a = palloc0(sizeof(FitArgs));
	JsonbValue *ss = JGet(&args->root, "scoringStrategy");

	JCheckKnownFields(&args->root, top, "NodeResourcesFit args", NULL);

	a->ignored = string_list(JGet(&args->root, "ignoredResources"), "ignoredResources", &a->nignored);
	a->groups = string_list(JGet(&args->root, "ignoredResourceGroups"), "ignoredResourceGroups", &a->ngroups);
	for (int i = 0; i < a->ngroups; i++)
		if (strchr(a->groups[i], '/'))
			field_error("Invalid value", psprintf("ignoredResourceGroups[%d]", i),
						psprintf("\"%s\"", JShort(a->groups[i])), "resource group name can't contain '/'");

	if (ss == NULL)
	{
		/* no strategy: kube-scheduler's default, LeastAllocated on cpu and memory */
		a->strategy = LEAST_ALLOCATED;
		a->nresources = 2;
		a->names = palloc(sizeof(char *) * 2);
		a->weights = palloc(sizeof(int64) * 2);
		a->names[0] = "cpu";
		a->names[1] = "memory";
		a->weights[0] = a->weights[1] = 1;
		a->fixed = ResourceFixedIndexes(a->names, a->nresources);
		return a;
	}
	if (ss->type != jbvBinary || !JsonContainerIsObject(ss->val.binary.data))
		field_error("Invalid value", "scoringStrategy", NULL, "must be an object");
	{
		JsonbContainer *c = ss->val.binary.data;
		char	   *type = JGetString(c, "type", "NodeResourcesFit args", "scoringStrategy");
		JsonbValue *res = JGet(c, "resources");

		JCheckKnownFields(c, strategy, "NodeResourcesFit args", "scoringStrategy");
		if (type == NULL || strcmp(type, "LeastAllocated") == 0)
			a->strategy = LEAST_ALLOCATED;
		else if (strcmp(type, "MostAllocated") == 0)
			a->strategy = MOST_ALLOCATED;
		else if (strcmp(type, "RequestedToCapacityRatio") == 0)
			a->strategy = REQUESTED_TO_CAPACITY_RATIO;
		else
			field_error("Unsupported value", "scoringStrategy.type", psprintf("\"%s\"", JShort(type)),
						"supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");

		if (res && (res->type != jbvBinary || !JsonContainerIsArray(res->val.binary.data)))
			field_error("Invalid value", "scoringStrategy.resources", NULL, "must be a list");
		if (res)
		{
			int			n = JsonContainerSize(res->val.binary.data);

			a->names = palloc(sizeof(char *) * Max(n, 1));
			a->weights = palloc(sizeof(int64) * Max(n, 1));
			for (int i = 0; i < n; i++)
			{
				JsonbValue *r = getIthJsonbValueFromContainer(res->val.binary.data, i);
				char	   *path = psprintf("scoringStrategy.resources[%d]", i);
				char	   *name;
				int64		w;

				if (r->type != jbvBinary || !JsonContainerIsObject(r->val.binary.data))
					field_error("Invalid value", path, NULL, "must be an object");
				JCheckKnownFields(r->val.binary.data, resource_fields, "NodeResourcesFit args", path);
				name = JGetString(r->val.binary.data, "name", "NodeResourcesFit args", path);
				w = jint(JGet(r->val.binary.data, "weight"), psprintf("%s.weight", path));
				if (w <= 0 || w > 100)
					field_error("Invalid value", psprintf("%s.weight", path), psprintf("%lld", (long long) w),
								psprintf("resource weight of %s not in valid range (0, 100]", name ? JShort(name) : ""));
				a->names[a->nresources] = name ? name : "";
				a->weights[a->nresources++] = w;
			}
		}

		if (a->strategy == REQUESTED_TO_CAPACITY_RATIO)
			parse_shape(a, JGet(c, "requestedToCapacityRatio"));
	}
	a->fixed = ResourceFixedIndexes(a->names, a->nresources);
	return a;
}

/* ------------------------------------------------------------------------
 * PreFilter and Filter
 * ------------------------------------------------------------------------
 */
static void
prefilter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	if (pod->has_sidecar && !scheduler_features.SidecarContainers)
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
				  "Pod has a restartable init container and the SidecarContainers feature is disabled");
}

static bool
ignored(const FitArgs *a, const char *name)
{
	const char *slash;

	if (a == NULL || !ResourceIsExtended(name))
		return false;
	for (int i = 0; i < a->nignored; i++)
		if (strcmp(a->ignored[i], name) == 0)
			return true;
	slash = strchr(name, '/');
	for (int i = 0; i < a->ngroups; i++)
		if ((size_t) (slash - name) == strlen(a->groups[i]) && strncmp(a->groups[i], name, slash - name) == 0)
			return true;
	return false;
}

static void
insufficient(Status *st, const char *reason)
{
	StatusSet(st, CODE_UNSCHEDULABLE, reason);
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	const FitArgs *a = call->args;
	const ResourceVec *req = &pod->requests;
	const ResourceVec *alloc = &node->allocatable;
	const ResourceVec *used = &node->requested;
	bool		any_scalar = false;

	if (node->npods + 1 > alloc->pods)
		insufficient(st, "Too many pods");

	for (int i = 0; i < req->nscalar; i++)
		if (ResourceIsScalar(req->scalar[i].name))
			any_scalar = true;
	if (req->cpu == 0 && req->memory == 0 && req->ephemeral == 0 && !any_scalar)
		return;

	if (req->cpu > 0 && req->cpu > alloc->cpu - used->cpu)
		insufficient(st, "Insufficient cpu");
	if (req->memory > 0 && req->memory > alloc->memory - used->memory)
		insufficient(st, "Insufficient memory");
	if (req->ephemeral > 0 && req->ephemeral > alloc->ephemeral - used->ephemeral)
		insufficient(st, "Insufficient ephemeral-storage");
	for (int i = 0; i < req->nscalar; i++)
	{
		const ScalarResource *r = &req->scalar[i];

		if (r->value == 0 || !ResourceIsScalar(r->name) || ignored(a, r->name))
			continue;
		if (r->value > ResourceGet(alloc, r->name) - ResourceGet(used, r->name))
			insufficient(st, psprintf("Insufficient %s", r->name));
	}
}

/* ------------------------------------------------------------------------
 * Score
 * ------------------------------------------------------------------------
 */

/* The ResourceFixedIndex of each of a scorer's resources, read once with its args */
int *
ResourceFixedIndexes(char **names, int n)
{
	int		   *fixed = palloc(sizeof(int) * Max(n, 1));

	for (int i = 0; i < n; i++)
		fixed[i] = ResourceFixedIndex(names[i]);
	return fixed;
}

/*
 * resource_allocation.go's allocatable and requested for one resource (its
 * ResourceFixedIndex in fixed); false when the resource is left out of the
 * score.  nonzero: cpu and memory with the non-zero defaults
 * (NodeResourcesFit), else as requested (BalancedAllocation).
 */
bool
ResourceAllocatableRequested(const PodInfo *pod, const NodeInfo *node, const char *name, int fixed,
							 bool nonzero, int64 *alloc, int64 *requested)
{
	int64		pod_req;

	/* the sums saturate at the int64 limit: a node that full scores as full */
	if (fixed == RESOURCE_CPU)
	{
		pod_req = nonzero ? pod->nonzero_cpu : pod->requests.cpu;
		*alloc = node->allocatable.cpu;
		*requested = nonzero ? node->nonzero_cpu : node->requested.cpu;
	}
	else if (fixed == RESOURCE_MEMORY)
	{
		pod_req = nonzero ? pod->nonzero_memory : pod->requests.memory;
		*alloc = node->allocatable.memory;
		*requested = nonzero ? node->nonzero_memory : node->requested.memory;
	}
	else if (fixed == RESOURCE_EPHEMERAL)
	{
		pod_req = pod->requests.ephemeral;
		*alloc = node->allocatable.ephemeral;
		*requested = node->requested.ephemeral;
	}
	else
	{
		pod_req = ResourceGet(&pod->requests, name);
		if (!ResourceIsScalar(name) || pod_req == 0 || !ResourceHas(&node->allocatable, name))
			return false;
		*alloc = ResourceGet(&node->allocatable, name);
		*requested = ResourceGet(&node->requested, name);
	}
	(void) AddSaturating(requested, pod_req);
	return *alloc > 0;
}

static int64
score(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	const FitArgs *a = call->args;
	int64		sum = 0;
	int64		weights = 0;

	if (a->nresources == 0)
	{
		StatusSet(st, CODE_ERROR, "resources not found");
		return 0;
	}
	for (int i = 0; i < a->nresources; i++)
	{
		int64		alloc,
					req,
					s;

		if (!ResourceAllocatableRequested(pod, node, a->names[i], a->fixed[i], true, &alloc, &req))
			continue;
		switch (a->strategy)
		{
			case LEAST_ALLOCATED:
				s = req > alloc ? 0 : MulDiv(alloc - req, MAX_NODE_SCORE, alloc);
				break;
			case MOST_ALLOCATED:
				s = MulDiv(Min(req, alloc), MAX_NODE_SCORE, alloc);
				break;
			default:
				s = ShapeScore(&a->shape, req > alloc ? MAX_UTILIZATION : MulDiv(req, MAX_UTILIZATION, alloc));
				if (s <= 0)
					continue;	/* only resources that score count */
				break;
		}
		sum += s * a->weights[i];
		weights += a->weights[i];
	}
	if (weights == 0)
		return 0;
	if (a->strategy == REQUESTED_TO_CAPACITY_RATIO)
		return (int64) round((double) sum / (double) weights);
	return sum / weights;
}

/*
 * Hints.  A node added, or one whose allocatable grew in a resource the pod
 * requests, where the pod fits its allocatable (isFit, with no pods on it);
 * an assigned pod deleted (it freed room); an assigned pod whose requests
 * shrank (scaled down in place).
 */
static bool
any_requested_increased(const PodInfo *pod, const NodeInfo *before, const NodeInfo *after)
{
	const ResourceVec *req = &pod->requests;

	if (after->allocatable.pods > before->allocatable.pods)
		return true;
	if ((req->cpu > 0 && after->allocatable.cpu > before->allocatable.cpu) ||
		(req->memory > 0 && after->allocatable.memory > before->allocatable.memory) ||
		(req->ephemeral > 0 && after->allocatable.ephemeral > before->allocatable.ephemeral))
		return true;
	for (int i = 0; i < req->nscalar; i++)
		if (req->scalar[i].value > 0 &&
			ResourceGet(&after->allocatable, req->scalar[i].name) >
			ResourceGet(&before->allocatable, req->scalar[i].name))
			return true;
	return false;
}

/* Pod hint: an assigned pod deleted, or one that gave back some of what this pod requests. */
static QueueingHint
pod_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	const ResourceVec *req = &pod->requests;
	const PodRef *before = ev->old_pod;
	const PodRef *after = ev->new_pod;

	if (ev->action == ACT_DELETE)
		return HINT_QUEUE;
	if ((req->cpu > 0 && after->requests.cpu < before->requests.cpu) ||
		(req->memory > 0 && after->requests.memory < before->requests.memory) ||
		(req->ephemeral > 0 && after->requests.ephemeral < before->requests.ephemeral))
		return HINT_QUEUE;
	for (int i = 0; i < req->nscalar; i++)
		if (req->scalar[i].value > 0 &&
			ResourceGet(&after->requests, req->scalar[i].name) < ResourceGet(&before->requests, req->scalar[i].name))
			return HINT_QUEUE;
	return HINT_SKIP;
}

/* Node hint: the pod fits the node's allocatable, and it is new or grew. */
static QueueingHint
node_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	if (!FilterPasses(filter, pod, ev->new_node))
		return HINT_SKIP;
	if (ev->old_node == NULL)
		return HINT_QUEUE;
	return any_requested_increased(pod, ev->old_node, ev->new_node) ? HINT_QUEUE : HINT_SKIP;
}

/* SignPod: PreFilter reads the sidecars, Filter the requests */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(requests) | POD_FIELD(nonzero_cpu) | POD_FIELD(nonzero_memory) | POD_FIELD(has_sidecar));
}

const Plugin NodeResourcesFitPlugin = {
	.sign = sign,
	.name = "NodeResourcesFit",
	.parse_args = parse_args,
	.prefilter = prefilter,
	.filter = filter,
	.score = score,
	.score_node_local = true,
	.events = {
		{RES_ASSIGNED_POD, ACT_DELETE | ACT_UPDATE_POD_SCALE_DOWN, pod_hint},
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_ALLOCATABLE, node_hint},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
	},
};
