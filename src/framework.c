/*
 * framework.c
 *	  One scheduling cycle for one pod over a snapshot: Filter each node with
 *	  the profile's plugins in order, Score the feasible ones, pick the best.
 *
 * As kube-scheduler's framework does, a node's filtering stops at the first
 * plugin that does not return Success, and that plugin's status (with all
 * its reasons) is what the node reports.  Scores are summed with plugin
 * weights; equal top scores are broken at random, each tied node equally
 * likely (selectHost's reservoir sampling).
 */
#include "postgres.h"

#include "common/pg_prng.h"

#include "scheduler.h"

/* kube-scheduler's default profile order, as far as the plugins exist */
static const Plugin *const filter_plugins[] = {
	&NodeUnschedulablePlugin,
	&NodeNamePlugin,
	&NodeResourcesFitPlugin,
};

static const Plugin *const score_plugins[] = {
	&NodeResourcesFitPlugin,
};

const char *
StatusCodeName(StatusCode code)
{
	switch (code)
	{
		case CODE_SUCCESS:
			return "Success";
		case CODE_ERROR:
			return "Error";
		case CODE_UNSCHEDULABLE:
			return "Unschedulable";
		case CODE_UNSCHEDULABLE_AND_UNRESOLVABLE:
			return "UnschedulableAndUnresolvable";
		case CODE_SKIP:
			return "Skip";
	}
	return "Unknown";
}

/* Status.Message(): the reasons joined with ", " */
char *
StatusMessage(const Status *st)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, st->reasons)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, (const char *) lfirst(lc));
	}
	return buf.data;
}

void
RunSchedulingCycle(ClusterSnapshot *snap, const PodInfo *pod, CycleResult *res)
{
	int64		best = -1;
	int			ties = 0;

	memset(res, 0, sizeof(*res));
	res->nnodes = snap->nnodes;
	res->nodes = snap->nodes;
	res->rejected_by = palloc0(sizeof(Plugin *) * Max(snap->nnodes, 1));
	res->statuses = palloc0(sizeof(Status) * Max(snap->nnodes, 1));

	for (int i = 0; i < snap->nnodes; i++)
	{
		NodeInfo   *node = &snap->nodes[i];
		int64		total = 0;
		bool		feasible = true;

		for (size_t p = 0; p < lengthof(filter_plugins); p++)
		{
			Status	   *st = &res->statuses[i];

			filter_plugins[p]->filter(pod, node, st);
			if (st->code != CODE_SUCCESS)
			{
				res->rejected_by[i] = filter_plugins[p];
				feasible = false;
				break;
			}
		}
		if (!feasible)
			continue;

		for (size_t p = 0; p < lengthof(score_plugins); p++)
			total += score_plugins[p]->score(pod, node) * score_plugins[p]->weight;

		if (total > best)
		{
			best = total;
			ties = 1;
			res->chosen = node;
		}
		else if (total == best)
		{
			ties++;
			if (pg_prng_uint64_range(&pg_global_prng_state, 0, ties - 1) == 0)
				res->chosen = node;
		}
	}
	res->best_score = best;
}
