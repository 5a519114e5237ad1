/*
 * node_unschedulable.c
 *	  NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods
 *	  that tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodeunschedulable.
 */
#include "postgres.h"

#include "plugin.h"
#include "tolerations.h"

#define ErrReasonUnschedulable "node(s) were unschedulable"

static void
filter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, const NodeInfo *node, Status *st)
{
	static const Taint unschedulable = {"node.kubernetes.io/unschedulable", "", "NoSchedule"};
	char	   *err;

	if (!node->unschedulable)
		return;
	if (TolerationsTolerateTaint(pod->tolerations, pod->ntolerations, &unschedulable, &err))
		return;
	StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonUnschedulable);
}

/* Hint: a node added schedulable, or uncordoned. */
static QueueingHint
hint(const PodInfo *pod pg_attribute_unused(), const ClusterEvent *ev)
{
	if (ev->new_node == NULL || ev->new_node->unschedulable)
		return HINT_SKIP;
	if (ev->old_node && !ev->old_node->unschedulable)
		return HINT_SKIP;
	return HINT_QUEUE;
}

/* SignPod: its Filter reads the tolerations (of the unschedulable taint) */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(tolerations));
}

const Plugin NodeUnschedulablePlugin = {
	.sign = sign,
	.name = "NodeUnschedulable",
	.filter = filter,
	.events = {
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_TAINT, hint},
	},
};
