/*
 * node_resources_fit.c
 *	  NodeResourcesFit: does the node have room for the pod's requests, and
 *	  the LeastAllocated score.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/noderesources (fit.go,
 * least_allocated.go, resource_allocation.go).
 *
 * Filter: one reason per resource that does not fit, in kube-scheduler's
 * order: pods, cpu, memory, ephemeral-storage, then scalar resources (ours
 * in the order the pod lists them; kube-scheduler's follow Go map order).
 * A pod that requests no cpu, memory, ephemeral-storage or scalar resource is
 * checked for the pod count only.
 *
 * Score (LeastAllocated, cpu and memory with weight 1): per resource
 * (allocatable - requested) * 100 / allocatable, 0 when over, where requested
 * counts the node's pods and this pod with the non-zero defaults (100m cpu,
 * 200Mi memory); a resource the node does not have is skipped; the node's
 * score is the weighted mean, in integer arithmetic.
 */
#include "postgres.h"

#include "scheduler.h"

#define MAX_NODE_SCORE 100

static void
insufficient(Status *st, const char *reason)
{
	st->code = CODE_UNSCHEDULABLE;
	st->reasons = lappend(st->reasons, (void *) reason);
}

static void
filter(const PodInfo *pod, const NodeInfo *node, Status *st)
{
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

		if (r->value == 0 || !ResourceIsScalar(r->name))
			continue;
		if (r->value > ResourceGet(alloc, r->name) - ResourceGet(used, r->name))
			insufficient(st, psprintf("Insufficient %s", r->name));
	}
}

static int64
least_requested(int64 requested, int64 capacity)
{
	if (capacity == 0 || requested > capacity)
		return 0;
	return (capacity - requested) * MAX_NODE_SCORE / capacity;
}

static int64
score(const PodInfo *pod, const NodeInfo *node)
{
	int64		sum = 0;
	int64		weights = 0;

	if (node->allocatable.cpu > 0)
	{
		sum += least_requested(node->nonzero_cpu + pod->nonzero_cpu, node->allocatable.cpu);
		weights += 1;
	}
	if (node->allocatable.memory > 0)
	{
		sum += least_requested(node->nonzero_memory + pod->nonzero_memory, node->allocatable.memory);
		weights += 1;
	}
	return weights ? sum / weights : 0;
}

const Plugin NodeResourcesFitPlugin = {
	.name = "NodeResourcesFit",
	.filter = filter,
	.score = score,
	.weight = 1,
};
