/*
 * taint_toleration.c
 *	  TaintToleration: a node's NoSchedule and NoExecute taints keep off pods
 *	  that do not tolerate them; PreferNoSchedule taints lower the score.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/tainttoleration.
 *
 * Filter: the node's NoSchedule/NoExecute taints in order; the first one no
 * toleration tolerates rejects the node (UnschedulableAndUnresolvable), with
 * "node(s) had untolerated taint(s)", or with the error a Gt/Lt toleration
 * gave when its values did not parse.
 * Score: the number of PreferNoSchedule taints not tolerated by the pod's
 * tolerations with effect PreferNoSchedule or none; normalized in reverse
 * (fewest untolerated taints scores 100).
 */
#include "postgres.h"

#include "plugin.h"
#include "tolerations.h"

#define ErrReasonUntolerated "node(s) had untolerated taint(s)"

static void
filter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, const NodeInfo *node, Status *st)
{
	for (int i = 0; i < node->ntaints; i++)
	{
		const Taint *t = &node->taints[i];
		char	   *err;

		if (t->effect == NULL ||
			(strcmp(t->effect, "NoSchedule") != 0 && strcmp(t->effect, "NoExecute") != 0))
			continue;
		if (TolerationsTolerateTaint(pod->tolerations, pod->ntolerations, t, &err))
			continue;
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, err ? err : ErrReasonUntolerated);
		return;
	}
}

typedef struct PreferTolerations
{
	int			n;
	Toleration *tols;
} PreferTolerations;

static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes pg_attribute_unused(), int n pg_attribute_unused(), Status *st pg_attribute_unused())
{
	PreferTolerations *p = palloc0(sizeof(PreferTolerations));

	p->tols = palloc(sizeof(Toleration) * Max(pod->ntolerations, 1));
	for (int i = 0; i < pod->ntolerations; i++)
	{
		const char *e = pod->tolerations[i].effect;

		if (e == NULL || strcmp(e, "PreferNoSchedule") == 0)
			p->tols[p->n++] = pod->tolerations[i];
	}
	call->state = p;
}

static int64
score(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, Status *st pg_attribute_unused())
{
	PreferTolerations *p = call->state;
	int64		count = 0;

	for (int i = 0; i < node->ntaints; i++)
	{
		char	   *err;

		if (node->taints[i].effect && strcmp(node->taints[i].effect, "PreferNoSchedule") == 0 &&
			!TolerationsTolerateTaint(p->tols, p->n, &node->taints[i], &err))
			count++;
	}
	return count;
}

static void
normalize(PluginCall *call pg_attribute_unused(), const PodInfo *pod pg_attribute_unused(), int64 *scores, int n, Status *st pg_attribute_unused())
{
	DefaultNormalizeScore(100, true, scores, n);
}

/* Hint: a node added or retainted that the pod now tolerates, and did not before. */
static QueueingHint
hint(const PodInfo *pod, const ClusterEvent *ev)
{
	return NodeNowPasses(filter, pod, ev);
}

/* SignPod: its Filter, PreScore and Score read the tolerations */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(tolerations));
}

const Plugin TaintTolerationPlugin = {
	.sign = sign,
	.name = "TaintToleration",
	.filter = filter,
	.prescore = prescore,
	.score = score,
	.score_node_local = true,
	.normalize = normalize,
	.events = {
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_TAINT, hint},
	},
};
