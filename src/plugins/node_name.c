/*
 * node_name.c
 *	  NodeName: a pod that names its node (spec.nodeName) fits only there.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodename.
 */
#include "postgres.h"

#include "scheduler.h"

#define ErrReason "node(s) didn't match the requested node name"

static void
filter(const PodInfo *pod, const NodeInfo *node, Status *st)
{
	if (pod->node_name == NULL || pod->node_name[0] == '\0' ||
		strcmp(pod->node_name, node->name) == 0)
		return;
	st->code = CODE_UNSCHEDULABLE_AND_UNRESOLVABLE;
	st->reasons = list_make1(ErrReason);
}

const Plugin NodeNamePlugin = {
	.name = "NodeName",
	.filter = filter,
};
