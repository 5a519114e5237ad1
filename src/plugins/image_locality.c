/*
 * image_locality.c
 *	  ImageLocality: prefer nodes that already have the pod's images, the
 *	  more so the bigger the images and the fewer nodes have them.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/imagelocality.
 *
 * For each init and regular container whose image (":latest" added when it
 * has no tag) the node lists, add size * (nodes having it / all nodes).
 * Clamp the sum to [23 MiB, 1000 MiB * containers] and scale to 0..100.
 */
#include "postgres.h"

#include "plugin.h"

#define MiB (INT64CONST(1024) * 1024)
#define MIN_THRESHOLD (23 * MiB)
#define MAX_CONTAINER_THRESHOLD (1000 * MiB)
#define MAX_NODE_SCORE 100

typedef struct State
{
	char	  **normalized;
} State;

static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes pg_attribute_unused(), int n pg_attribute_unused(), Status *st pg_attribute_unused())
{
	State	   *s = palloc0(sizeof(State));

	s->normalized = palloc(sizeof(char *) * Max(pod->nimages, 1));
	for (int i = 0; i < pod->nimages; i++)
		s->normalized[i] = NormalizedImageName(pod->images[i]);
	call->state = s;
}

static int64
score(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st pg_attribute_unused())
{
	State	   *s = call->state;
	int64		sum = 0;
	int64		max_threshold = MAX_CONTAINER_THRESHOLD * (int64) pod->nimages;
	int			total = call->snap->nnodes;

	if (pod->nimages == 0 || total == 0)
		return 0;
	for (int i = 0; i < pod->nimages; i++)
		for (int k = 0; k < node->nimages; k++)
			if (strcmp(node->images[k].name, s->normalized[i]) == 0)
			{
				int			having = SnapshotImageNodes(call->snap, node->images[k].name);

				double		spread = (double) node->images[k].size * ((double) having / (double) total);

				/* sizes come from nodes: no cast of a double beyond int64, no wrapping sum */
				(void) AddSaturating(&sum, spread >= 9.2e18 ? (int64) 9200000000000000000 : (int64) spread);
				break;
			}
	if (sum < MIN_THRESHOLD)
		sum = MIN_THRESHOLD;
	else if (sum > max_threshold)
		sum = max_threshold;
	return MulDiv(MAX_NODE_SCORE, sum - MIN_THRESHOLD, max_threshold - MIN_THRESHOLD);
}

/* SignPod: its Score reads the images (and nothing of the pod else) */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(images));
}

const Plugin ImageLocalityPlugin = {
	.sign = sign,
	.name = "ImageLocality",
	.prescore = prescore,
	.score = score,
	.score_node_local = true,
};
