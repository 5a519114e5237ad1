/*
 * node_ports.c
 *	  NodePorts: a pod's host ports must be free on the node.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodeports.
 *
 * PreFilter skips pods with no host ports.  A wanted (ip, protocol, port)
 * conflicts with a used one of the same protocol and port when either IP is
 * 0.0.0.0 or the IPs are equal.  Unschedulable, since preemption could free
 * the port.
 */
#include "postgres.h"

#include "plugin.h"

#define ErrReason "node(s) didn't have free ports for the requested pod ports"

static bool
wildcard(const char *ip)
{
	return ip == NULL || strcmp(ip, "0.0.0.0") == 0;
}

static bool
conflicts(const HostPort *want, const HostPort *used)
{
	const char *wp = want->protocol ? want->protocol : "TCP";
	const char *up = used->protocol ? used->protocol : "TCP";

	if (want->port != used->port || strcmp(wp, up) != 0)
		return false;
	return wildcard(want->ip) || wildcard(used->ip) || strcmp(want->ip, used->ip) == 0;
}

static void
prefilter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	if (pod->nports == 0)
		st->code = CODE_SKIP;
}

static void
filter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, const NodeInfo *node, Status *st)
{
	ListCell   *lc;

	foreach(lc, node->port_pods)
	{
		const PodRef *p = lfirst(lc);

		for (int i = 0; i < pod->nports; i++)
			for (int j = 0; j < p->nports; j++)
				if (conflicts(&pod->ports[i], &p->ports[j]))
				{
					StatusSet(st, CODE_UNSCHEDULABLE, ErrReason);
					return;
				}
	}
}

/* Hint: an assigned pod deleted that held a port the pod wants. */
static QueueingHint
hint(const PodInfo *pod, const ClusterEvent *ev)
{
	if (ev->old_pod == NULL)
		return HINT_SKIP;
	for (int i = 0; i < pod->nports; i++)
		for (int j = 0; j < ev->old_pod->nports; j++)
			if (conflicts(&pod->ports[i], &ev->old_pod->ports[j]))
				return HINT_QUEUE;
	return HINT_SKIP;
}

/* SignPod: PreFilter and Filter read the host ports */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(ports));
}

const Plugin NodePortsPlugin = {
	.sign = sign,
	.name = "NodePorts",
	.prefilter = prefilter,
	.filter = filter,
	.events = {
		{RES_ASSIGNED_POD, ACT_DELETE, hint},
		{RES_NODE, ACT_ADD, NULL},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
	},
};
