/*
 * balanced_allocation.c
 *	  NodeResourcesBalancedAllocation: prefer nodes whose resources would be
 *	  used in balance (cpu as full as memory).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/noderesources
 * (balanced_allocation.go), args validation as validation_pluginargs.go.
 *
 * Per configured resource the node has (and, for scalars, the pod
 * requests), the fraction requested/allocatable after placing the pod,
 * capped at 1, with requests as they are (no non-zero defaults).  Score =
 * int((1 - std) * 100), where std is |f1 - f2| / 2 for two resources and
 * the population standard deviation for more.  PreScore skips a pod that
 * requests none of the resources.
 */
#include "postgres.h"

#include <math.h>

#include "utils/builtins.h"

#include "jsonutil.h"
#include "plugin.h"

typedef struct BalancedArgs
{
	int			nresources;
	char	  **names;
	int		   *fixed;			/* ResourceFixedIndex of each name */
} BalancedArgs;

static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "resources", NULL};
	static const char *const resource_fields[] = {"name", "weight", NULL};
	BalancedArgs *a = palloc0(sizeof(BalancedArgs));
	JsonbValue *res = JGet(&args->root, "resources");

	JCheckKnownFields(&args->root, top, "NodeResourcesBalancedAllocation args", NULL);

	if (res == NULL)
	{
		a->nresources = 2;
		a->names = palloc(sizeof(char *) * 2);
		a->names[0] = "cpu";
		a->names[1] = "memory";
		a->fixed = ResourceFixedIndexes(a->names, a->nresources);
		return a;
	}
	if (res->type != jbvBinary || !JsonContainerIsArray(res->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("NodeResourcesBalancedAllocation args: resources: Invalid value: must be a list")));
	a->names = palloc(sizeof(char *) * Max(JsonContainerSize(res->val.binary.data), 1));
	for (int i = 0; i < (int) JsonContainerSize(res->val.binary.data); i++)
	{
		JsonbValue *r = getIthJsonbValueFromContainer(res->val.binary.data, i);
		char	   *path = psprintf("resources[%d]", i);
		char	   *name;
		JsonbValue *w;

		if (r->type != jbvBinary || !JsonContainerIsObject(r->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("NodeResourcesBalancedAllocation args: %s: Invalid value: must be an object", path)));
		JCheckKnownFields(r->val.binary.data, resource_fields, "NodeResourcesBalancedAllocation args", path);
		name = JGetString(r->val.binary.data, "name", "NodeResourcesBalancedAllocation args", path);
		if (name == NULL)
			name = "";
		w = JGet(r->val.binary.data, "weight");
		if (w == NULL || w->type != jbvNumeric || strcmp(JScalarText(w), "1") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("NodeResourcesBalancedAllocation args: %s.weight: Invalid value: %s: must be 1",
							path, w ? JShortScalar(w) : "0")));
		for (int j = 0; j < a->nresources; j++)
			if (strcmp(a->names[j], name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("NodeResourcesBalancedAllocation args: %s.name: Duplicate value: \"%s\"", path, JShort(name))));
		a->names[a->nresources++] = name;
	}
	a->fixed = ResourceFixedIndexes(a->names, a->nresources);
	return a;
}

static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes pg_attribute_unused(), int n pg_attribute_unused(), Status *st)
{
	const BalancedArgs *a = call->args;

	for (int i = 0; i < a->nresources; i++)
		if (ResourceGet(&pod->requests, a->names[i]) != 0)
			return;
	st->code = CODE_SKIP;
}

static int64
score(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st pg_attribute_unused())
{
	const BalancedArgs *a = call->args;
	double		few[8];
	double	   *f = a->nresources <= (int) lengthof(few) ? few : palloc(sizeof(double) * a->nresources);
	int			n = 0;
	double		std = 0;

	for (int i = 0; i < a->nresources; i++)
	{
		int64		alloc,
					req;

		if (!ResourceAllocatableRequested(pod, node, a->names[i], a->fixed[i], false, &alloc, &req))
			continue;
		f[n++] = Min((double) req / (double) alloc, 1.0);
	}
	if (n == 2)
		std = fabs(f[0] - f[1]) / 2;
	else if (n > 2)
	{
		double		mean = 0,
					var = 0;

		for (int i = 0; i < n; i++)
			mean += f[i];
		mean /= n;
		for (int i = 0; i < n; i++)
			var += (f[i] - mean) * (f[i] - mean);
		std = sqrt(var / n);
	}
	return (int64) ((1 - std) * 100);
}

/* SignPod: its PreScore and Score read the requests */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(requests));
}

const Plugin NodeResourcesBalancedAllocationPlugin = {
	.sign = sign,
	.name = "NodeResourcesBalancedAllocation",
	.parse_args = parse_args,
	.prescore = prescore,
	.score = score,
	.score_node_local = true,
};
