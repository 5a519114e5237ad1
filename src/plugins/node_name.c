/*
 * node_name.c
 *	  NodeName: a pod that names its node (spec.nodeName) fits only there.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodename.
 */
#include "postgres.h"

#include "plugin.h"

#define ErrReason "node(s) didn't match the requested node name"

static void
filter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, const NodeInfo *node, Status *st)
{
	if (pod->node_name == NULL || pod->node_name[0] == '\0' ||
		strcmp(pod->node_name, node->name) == 0)
		return;
	StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReason);
}

/* SignPod: its Filter reads spec.nodeName */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(node_name));
}

const Plugin NodeNamePlugin = {
	.sign = sign,
	.name = "NodeName",
	.filter = filter,
	.events = {
		{RES_NODE, ACT_ADD, NULL},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
	},
};
