/*
 * framework.c
 *	  One scheduling cycle for one pod over a snapshot, with kube-scheduler's
 *	  extension points: PreFilter, Filter, PostFilter, PreScore,
 *	  Score, NormalizeScore, weights, and selecting the host.
 *
 * As in kube-scheduler (schedule_one.go, runtime/framework.go):
 *	 - PreFilter may Skip a plugin's Filter for this pod, reject the pod on
 *	   every node, or restrict the nodes to a set of names (the intersection
 *	   over plugins); nodes left out report "node(s) didn't satisfy
 *	   plugin(s) [...]".
 *	 - Filter runs the plugins in profile order and stops at the first that
 *	   does not return Success; that status is the node's.
 *	 - The search for feasible nodes starts where the previous one stopped
 *	   and goes round the node list, stopping once numFeasibleNodesToFind
 *	   feasible nodes are found (percentageOfNodesToScore).
 *	 - When no node passes, the PostFilter plugins run in order (DefaultPreemption
 *	   in kube-scheduler): the first Success or UnschedulableAndUnresolvable
 *	   ends them; a nominated node and the plugins' message are kept.
 *	 - One feasible node is chosen without scoring.  Otherwise PreScore may
 *	   Skip a plugin's Score; scores are normalized, checked to be in
 *	   [0, 100], weighted and summed; equal top totals are broken at random,
 *	   each tied node equally likely (one draw among the ties counted, at
 *	   selectHost's odds).
 */
#include "postgres.h"

#include "common/pg_prng.h"
#include "fmgr.h"

#include "access.h"
#include "jsonutil.h"
#include "equivalence.h"
#include "framework.h"
#include "topology.h"

#define MAX_NODE_SCORE 100
#define MIN_FEASIBLE_NODES_TO_FIND 100
#define MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND 5

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

/*
 * One-reason lists, shared: a cycle rejects thousands of nodes with the
 * same few reasons, and a list made for each was a good part of what a
 * rejection cost.  A list holds only its reason's pointer, so the list
 * kept for a pointer is right whatever it points to; they live in the
 * context they were made for (the cycle's, reset after each pod), and the
 * table goes with it.  Reasons lists are not changed once made: a second
 * reason is appended to a copy (StatusSet).
 */
#define REASON_SLOTS 64

typedef struct ReasonLists
{
	MemoryContext cxt;
	MemoryContextCallback forget;
	const char *reasons[REASON_SLOTS];
	List	   *lists[REASON_SLOTS];
} ReasonLists;

static ReasonLists *reason_lists = NULL;

static void
forget_reason_lists(void *arg)
{
	if (reason_lists == arg)
		reason_lists = NULL;
}

static List *
reason_list(const char *reason)
{
	uint32		slot;

	if (reason_lists == NULL)
	{
		reason_lists = MemoryContextAllocZero(CurrentMemoryContext, sizeof(ReasonLists));
		reason_lists->cxt = CurrentMemoryContext;
		reason_lists->forget.func = forget_reason_lists;
		reason_lists->forget.arg = reason_lists;
		MemoryContextRegisterResetCallback(CurrentMemoryContext, &reason_lists->forget);
	}
	if (reason_lists->cxt != CurrentMemoryContext)
		return list_make1((void *) reason);
	slot = (uint32) (((uintptr_t) reason >> 3) * 2654435761u) % REASON_SLOTS;
	if (reason_lists->reasons[slot] != reason)
	{
		reason_lists->reasons[slot] = reason;
		reason_lists->lists[slot] = list_make1((void *) reason);
	}
	return reason_lists->lists[slot];
}

void
StatusSet(Status *st, StatusCode code, const char *reason)
{
	st->code = code;
	if (reason == NULL)
		return;
	if (st->reasons == NIL)
		st->reasons = reason_list(reason);
	else
		st->reasons = lappend(list_copy(st->reasons), (void *) reason);
}

/* Status.Message(): the reasons joined with ", " */
char *
StatusMessage(const Status *st)
{
	StringInfoData buf;
	ListCell   *lc;

	if (list_length(st->reasons) == 1)
		return (char *) linitial(st->reasons);	/* callers do not change it */
	initStringInfo(&buf);
	foreach(lc, st->reasons)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, (const char *) lfirst(lc));
	}
	return buf.data;
}

/*
 * numFeasibleNodesToFind: every node below 100 nodes; else the percentage
 * (0 = adaptive: 50 - nodes/125, at least 5) of the nodes, at least 100.
 */
int
NumFeasibleNodesToFind(int percentage, int num_all_nodes)
{
	int64		n;

	if (num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND)
		return num_all_nodes;
	if (percentage == 0)
	{
		percentage = 50 - num_all_nodes / 125;
		if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
			percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
	}
	n = (int64) num_all_nodes * percentage / 100;
	if (n < MIN_FEASIBLE_NODES_TO_FIND)
		return MIN_FEASIBLE_NODES_TO_FIND;
	return (int) n;
}

/* helper.DefaultNormalizeScore */
void
DefaultNormalizeScore(int64 max_priority, bool reverse, int64 *scores, int n)
{
	int64		max = 0;

	for (int i = 0; i < n; i++)
		if (scores[i] > max)
			max = scores[i];
	if (max == 0)
	{
		if (reverse)
			for (int i = 0; i < n; i++)
				scores[i] = max_priority;
		return;
	}
	for (int i = 0; i < n; i++)
	{
		int64		s = MulDiv(max_priority, scores[i], max);

		scores[i] = reverse ? max_priority - s : s;
	}
}

/* ------------------------------------------------------------------------
 * The stages, shared by the cycle and by scheduler.filter()/score()
 * ------------------------------------------------------------------------
 */

/*
 * RunPreFilters
 *		Fill ctx->calls and ctx->skip_filter; on a rejection set
 *		res->prefilter_plugin/status and return false.  *names is the
 *		intersection of the plugins' node names, or NIL (all nodes).
 */
bool
RunPreFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res, List **names, bool *restricted)
{
	const Profile *prof = ctx->profile;
	int			unschedulable = -1;
	Status		unschedulable_st = {CODE_SUCCESS, NIL};

	*names = NIL;
	*restricted = false;
	res->prefilter_plugin = -1;
	ctx->nfilters = -1;			/* skip_filter is made anew */
	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status		st = {CODE_SUCCESS, NIL};
		List	   *these = NIL;

		ctx->calls[i].args = prof->plugins[i].args;
		ctx->calls[i].state = NULL;
		ctx->calls[i].snap = ctx->snap;
		ctx->calls[i].restricts_nodes = false;
		ctx->calls[i].node_names = NIL;
		ctx->calls[i].passes_every_node = false;
		ctx->skip_filter[i] = (pl->filter == NULL);
		if (pl->prefilter == NULL)
			continue;
		pl->prefilter(&ctx->calls[i], pod, &st, &these);
		if (st.code == CODE_SKIP)
		{
			ctx->skip_filter[i] = true;
			continue;
		}
		if (st.code == CODE_ERROR)
		{
			res->prefilter_plugin = i;
			res->prefilter_status.code = CODE_ERROR;
			res->prefilter_status.reasons =
				list_make1(psprintf("running PreFilter plugin \"%s\": %s", pl->name, StatusMessage(&st)));
			return false;
		}
		if (st.code == CODE_UNSCHEDULABLE_AND_UNRESOLVABLE)
		{
			res->prefilter_plugin = i;
			res->prefilter_status = st;
			return false;
		}
		if (st.code == CODE_UNSCHEDULABLE)
		{
			/* the remaining PreFilters still run; this is reported after */
			if (unschedulable < 0)
			{
				unschedulable = i;
				unschedulable_st = st;
			}
			continue;
		}
		if (these != NIL || ctx->calls[i].restricts_nodes)
		{
			ctx->calls[i].restricts_nodes = true;
			ctx->calls[i].node_names = these;
			res->absent_plugins = lappend(res->absent_plugins, (void *) pl->name);
			if (!*restricted)
				*names = these;
			else
			{
				List	   *keep = NIL;
				ListCell   *a;

				foreach(a, *names)
				{
					ListCell   *b;

					foreach(b, these)
						if (strcmp(lfirst(a), lfirst(b)) == 0)
						{
							keep = lappend(keep, lfirst(a));
							break;
						}
				}
				*names = keep;
			}
			*restricted = true;
			if (*names == NIL)
			{
				/* PreFilterResult.Merge came out empty */
				res->prefilter_plugin = i;
				res->prefilter_status.code = CODE_UNSCHEDULABLE_AND_UNRESOLVABLE;
				res->prefilter_status.reasons = list_make1(list_length(res->absent_plugins) == 1 ?
														   psprintf("node(s) didn't satisfy plugin %s", pl->name) :
														   psprintf("node(s) didn't satisfy plugin(s) %s simultaneously",
																	AbsentPluginsText(res)));
				return false;
			}
		}
	}
	if (unschedulable >= 0)
	{
		res->prefilter_plugin = unschedulable;
		res->prefilter_status = unschedulable_st;
		return false;
	}
	return true;
}

static int
cmp_cstring(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* "[A B]": the plugins that restricted the nodes, sorted, as Go prints a slice */
char *
AbsentPluginsText(const CycleResult *res)
{
	List	   *sorted = list_copy(res->absent_plugins);
	StringInfoData buf;
	ListCell   *lc;

	list_sort(sorted, cmp_cstring);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	foreach(lc, sorted)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? " " : "", (char *) lfirst(lc));
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

/*
 * A node a cycle will filter or score soon, asked of the memory now: a
 * cycle walks thousands of nodes whose NodeInfos lie apart, and waiting for
 * the first read of each one was most of what filtering it cost.
 */
#define PREFETCH_AHEAD 8

static inline void
prefetch_node(const NodeInfo *n)
{
#if defined(__GNUC__) || defined(__clang__)
	for (size_t off = 0; off < sizeof(NodeInfo); off += 64)
		__builtin_prefetch((const char *) n + off);
#endif
}

/*
 * What a kept verdict reads of it alone, its ordinal and generation (side by
 * side; a NodeInfo is not aligned to a line, so they may lie on the next)
 */
StaticAssertDecl(offsetof(NodeInfo, generation) > offsetof(NodeInfo, ordinal) &&
				 offsetof(NodeInfo, generation) - offsetof(NodeInfo, ordinal) <= 16,
				 "ordinal and generation side by side");
static inline void
prefetch_node_head(const NodeInfo *n)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(&n->ordinal);
	__builtin_prefetch((const char *) &n->generation + sizeof(n->generation) - 1);
#endif
}

/*
 * The plugins to run, listed once per pod (skip_filter is PreFilter's); one
 * whose PreFilter found that it passes every node is left out.  The first
 * nprefix of them come before any plugin of the profile that reads pods
 * (whether it runs for this pod or not): what they say of a node depends on
 * the pod's signed fields and the node alone (equivalence.c).
 */
static void
list_filters(CycleCtx *ctx)
{
	const Profile *prof = ctx->profile;
	int			reader = prof->nplugins;

	for (int i = 0; i < prof->nplugins; i++)
		if (prof->plugins[i].plugin->reads_pods && prof->plugins[i].plugin->filter)
		{
			reader = i;
			break;
		}
	ctx->nfilters = 0;
	ctx->nprefix = 0;
	for (int i = 0; i < prof->nplugins; i++)
		if (!ctx->skip_filter[i] && !ctx->calls[i].passes_every_node)
		{
			FilterStep *f = &ctx->filters[ctx->nfilters++];

			f->filter = prof->plugins[i].plugin->filter;
			f->call = &ctx->calls[i];
			f->plugin = i;
			if (i < reader)
				ctx->nprefix = ctx->nfilters;
		}
}

/* Filter one node with steps [from, to), stopping at the first that does not pass it */
static int
run_steps(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st, int from, int to)
{
	for (const FilterStep *f = ctx->filters + from, *end = ctx->filters + to; f < end; f++)
	{
		st->code = CODE_SUCCESS;
		st->reasons = NIL;
		f->filter(f->call, pod, node, st);
		if (st->code != CODE_SUCCESS)
		{
			if (st->code == CODE_ERROR)
				st->reasons = list_make1(psprintf("running \"%s\" filter plugin: %s",
												  ctx->profile->plugins[f->plugin].plugin->name,
												  StatusMessage(st)));
			return f->plugin;
		}
	}
	st->code = CODE_SUCCESS;
	st->reasons = NIL;
	return -1;
}

/* Filter one node, stopping at the first plugin that does not pass it. */
static int
run_filters(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	if (ctx->nfilters < 0)
		list_filters(ctx);
	return run_steps(ctx, pod, node, st, 0, ctx->nfilters);
}

/*
 * Filter one node for a pod whose verdicts depend on pods elsewhere, the
 * verdict of the node-local first steps kept in its class c: read from
 * there while the node is unchanged, else made and kept; the steps after
 * them run every time.  (A node with nominated pods is filtered whole,
 * twice: RunFilters.)
 */
static int
filter_by_prefix(CycleCtx *ctx, EquivClass *c, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	int			rejected;

	if (ctx->nfilters < 0)
		list_filters(ctx);
	if (!EquivVerdictGet(c, VERDICT_PREFIX, node, &rejected, st))
	{
		rejected = run_steps(ctx, pod, node, st, 0, ctx->nprefix);
		EquivVerdictPut(c, VERDICT_PREFIX, node, rejected, st);
	}
	if (rejected >= 0)
		return rejected;
	return run_steps(ctx, pod, node, st, ctx->nprefix, ctx->nfilters);
}

/*
 * RunFilters (RunFilterPluginsWithNominatedPods): when pods of the same or
 * higher priority are nominated to the node (preemption made room for
 * them), the node must first pass with them counted in, then without them
 * (a filter such as inter-pod affinity may pass only with them).  Returns
 * the rejecting plugin, or -1.
 */
int
RunFilters(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	if (node->nominated != NIL)
	{
		NodeInfo   *with = NodeWithNominatedPods(node, pod);

		if (with)
		{
			int			rejected = run_filters(ctx, pod, with, st);

			if (rejected >= 0)
				return rejected;
		}
	}
	return run_filters(ctx, pod, node, st);
}

/*
 * FilterNode, filter_node
 *		The node's Filter verdict for the pod (the rejecting plugin, or -1),
 *		from what the pod's class keeps while the node is unchanged
 *		(equivalence.c): the whole verdict of a pod whose Filters read no
 *		other pods (ctx->equiv), else that of the node-local first steps
 *		(the class of ctx->scores_class; a node with nominated pods is
 *		filtered whole); else every Filter runs.
 */
static inline int
filter_node(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	int			rejected;

	if (ctx->equiv != NULL)
	{
		if (!EquivVerdictGet(ctx->equiv, VERDICT_WHOLE, node, &rejected, st))
		{
			rejected = RunFilters(ctx, pod, node, st);
			EquivVerdictPut(ctx->equiv, VERDICT_WHOLE, node, rejected, st);
		}
		return rejected;
	}
	if (ctx->scores_class != NULL && node->nominated == NIL)
		return filter_by_prefix(ctx, ctx->scores_class, pod, node, st);
	return RunFilters(ctx, pod, node, st);
}

/* (the search's loop inlines it) */
int
FilterNode(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	return filter_node(ctx, pod, node, st);
}

/*
 * Which plugins' raw scores the pod's class keeps, read back by
 * read_kept_scores, and the nodes that had not all of them: kept_scores()
 * makes it empty (RunScores' PreScore says which plugins score), NULL when
 * the pod has no class or its class keeps no scores for this profile
 * (EquivScoresUsable).
 */
typedef struct KeptScores
{
	uint64		local;			/* the node-local plugins that score */
	uint64		summed;			/* of those, the ones added to the totals as read */
	int		   *miss;			/* the nodes (indexes) where not all of those were kept */
	int			nmiss;
} KeptScores;

static KeptScores *
kept_scores(CycleCtx *ctx, int n)
{
	KeptScores *ks;

	if (ctx->scores_class == NULL || n == 0 || !EquivScoresUsable(ctx->scores_class, ctx->snap, ctx->profile))
		return NULL;
	ks = palloc(sizeof(KeptScores));
	ks->miss = palloc(sizeof(int) * n);
	ks->nmiss = 0;
	ks->local = 0;
	ks->summed = 0;
	return ks;
}

/*
 * The kept raw scores read back, node by node (one row per node holds all
 * its plugins', equivalence.c): into raw[i][k] for every node-local plugin
 * i that scores, on each node that has them all kept; the others listed in
 * ks->miss, their totals 0.  A node that has only some has them all
 * computed again: the same numbers.  The plugins of ks->summed are not
 * copied: their scores, by weight, are the node's total so far (totals[k];
 * they have no NormalizeScore, and a score kept was checked in range when
 * it was computed).  Every totals[k] is set.  With ords (the nodes are the
 * snapshot's own, of these ordinals), each node's are read by ordinal
 * (EquivScoresGetAt), without visiting the node.
 */
#define KEPT_ROW(k, kept) \
	(AssertMacro(ords == NULL || (nodes[k]->ordinal == ords[k] && SnapshotOwnNode(ctx->snap, nodes[k]) && \
								  ctx->snap->labels_version_of[ords[k]] == nodes[k]->labels_version)), \
	 ords ? EquivScoresGetAt(c, ctx->snap, ords[k], (kept)) : EquivScoresGet(c, nodes[k], (kept)))

static void
read_kept_scores(CycleCtx *ctx, KeptScores *ks, NodeInfo **nodes, const int *ords, int n,
				 int64 **raw, int64 *totals)
{
	EquivClass *c = ctx->scores_class;
	int64	   *out[64];
	int			slots[64];
	int			sum_slots[64];
	int64		weights[64];
	int			np = 0;
	int			ns = 0;

	for (int i = 0; i < ctx->profile->nplugins && i < 64; i++)
		if (ks->summed & (UINT64CONST(1) << i))
		{
			sum_slots[ns] = EquivScoreSlot(c, i);
			weights[ns++] = ctx->profile->plugins[i].weight;
		}
		else if (ks->local & (UINT64CONST(1) << i))
		{
			out[np] = raw[i];
			slots[np++] = EquivScoreSlot(c, i);
		}
	if (np <= 2 && ns <= 4)
	{
		/*
		 * the default profile's (two copied, three summed), without a loop
		 * per node: the copies padded to two (into a scratch row), the sum
		 * to four (weight 0, on a slot the row has)
		 */
		int64	   *scratch = np < 2 ? palloc(sizeof(int64) * n) : NULL;
		int			pad = ns > 0 ? sum_slots[0] : (np > 0 ? slots[0] : 0);

		for (int j = np; j < 2; j++)
		{
			out[j] = scratch;
			slots[j] = pad;
		}
		for (int j = ns; j < 4; j++)
		{
			sum_slots[j] = pad;
			weights[j] = 0;
		}
		for (int k = 0; k < n; k++)
		{
			uint64		kept;
			const int64 *row = KEPT_ROW(k, &kept);

			if (row == NULL || (kept & ks->local) != ks->local)
			{
				ks->miss[ks->nmiss++] = k;
				totals[k] = 0;
				continue;
			}
			out[0][k] = row[slots[0]];
			out[1][k] = row[slots[1]];
			totals[k] = row[sum_slots[0]] * weights[0] + row[sum_slots[1]] * weights[1] +
				row[sum_slots[2]] * weights[2] + row[sum_slots[3]] * weights[3];
		}
		return;
	}
	for (int k = 0; k < n; k++)
	{
		uint64		kept;
		const int64 *row = KEPT_ROW(k, &kept);
		int64		t = 0;

		if (row == NULL || (kept & ks->local) != ks->local)
		{
			ks->miss[ks->nmiss++] = k;
			totals[k] = 0;
			continue;
		}
		for (int j = 0; j < np; j++)
			out[j][k] = row[slots[j]];
		for (int j = 0; j < ns; j++)
			t += row[sum_slots[j]] * weights[j];
		totals[k] = t;
	}
}
#undef KEPT_ROW

/* After every plugin scored: keep what the nodes did not have kept */
static void
keep_scores(CycleCtx *ctx, KeptScores *ks, NodeInfo **nodes, int64 **raw)
{
	if (ks == NULL || ks->local == 0)
		return;
	for (int m = 0; m < ks->nmiss; m++)
		EquivScoresPut(ctx->scores_class, nodes[ks->miss[m]], raw, ks->miss[m], ks->local);
}

/*
 * Plugin i's raw scores of the nodes, into out: of every node, or with
 * only, of those nodes alone (a node-local plugin's on the nodes where
 * they were not kept).  first: the first plugin to score, which reads the
 * nodes from memory.  False on the plugin's error (in *st).
 */
static bool
score_nodes(CycleCtx *ctx, int i, const PodInfo *pod, NodeInfo **nodes, int n,
			const int *only, int nonly, bool first, int64 *out, Status *st)
{
	int64		(*score) (PluginCall *, const PodInfo *, const NodeInfo *, Status *) =
		ctx->profile->plugins[i].plugin->score;
	PluginCall *call = &ctx->calls[i];
	int			count = only ? nonly : n;

	for (int m = 0; m < count; m++)
	{
		int			k = only ? only[m] : m;

		if (first && m + PREFETCH_AHEAD < count)
			prefetch_node(nodes[only ? only[m + PREFETCH_AHEAD] : m + PREFETCH_AHEAD]);
		st->code = CODE_SUCCESS;
		st->reasons = NIL;
		out[k] = score(call, pod, nodes[k], st);
		if (st->code != CODE_SUCCESS)
			return false;
	}
	return true;
}

/*
 * Plugin i's scores normalized (in a copy: without NormalizeScore the raw
 * scores are the final ones), checked, and added to totals by its weight.
 * False, with *err, on a score out of range.
 */
static bool
add_scores(CycleCtx *ctx, int i, const PodInfo *pod, int n, int64 **raw, int64 **norm,
		   int64 *totals, const KeptScores *ks, char **err)
{
	const Plugin *pl = ctx->profile->plugins[i].plugin;
	int			weight = ctx->profile->plugins[i].weight;
	int64	   *scores = raw[i];
	bool		summed = ks && i < 64 && (ks->summed & (UINT64CONST(1) << i));
	int			count = summed ? ks->nmiss : n;

	if (pl->normalize)
	{
		Status		st = {CODE_SUCCESS, NIL};

		scores = palloc(sizeof(int64) * Max(n, 1));
		memcpy(scores, raw[i], sizeof(int64) * n);
		pl->normalize(&ctx->calls[i], pod, scores, n, &st);
	}
	/* a summed plugin's kept scores are in the totals: only its others are added */
	for (int m = 0; m < count; m++)
	{
		int			k = summed ? ks->miss[m] : m;

		/* (unsigned: a negative score reads as past the maximum) */
		if ((uint64) scores[k] > (uint64) MAX_NODE_SCORE)
		{
			*err = psprintf("plugin \"%s\" returns an invalid score %lld, it should in the range of [0, 100] after normalizing",
							pl->name, (long long) scores[k]);
			return false;
		}
		totals[k] += scores[k] * weight;
	}
	if (norm)
		norm[i] = scores;
	return true;
}

/*
 * RunScores
 *		PreScore, Score and NormalizeScore of every scoring plugin over the
 *		feasible nodes, each step for all plugins before the next, as
 *		kube-scheduler runs them (RunPreScorePlugins, then
 *		RunScorePlugins: Score, NormalizeScore, weights).  raw[p][k] and
 *		norm[p][k] per plugin p and node k (NULL rows for plugins that did
 *		not score; norm[p] is raw[p] itself for a plugin without
 *		NormalizeScore; a plugin whose PreScore found every score 0
 *		(scores_zero) is not run, its rows NULL too when norm is NULL, else
 *		zeros); totals[k] the weighted sum.  On a plugin error
 *		returns false with the error in *err (the cycle fails for this pod
 *		only, as in kube-scheduler).  The raw score of a node-local plugin
 *		(score_node_local) on a node unchanged since a pod of the same class
 *		was scored there is the one kept then (equivalence.c): the same
 *		number, not computed again.  norm NULL: only the totals are
 *		wanted, and the kept scores of a node-local plugin without
 *		NormalizeScore go to the totals as they are read (raw[p] then
 *		holds only the nodes where they were not kept).  ords: NULL, or
 *		the nodes' ordinals when they are the snapshot's own (a cycle's
 *		feasible nodes): what was kept is then read by ordinal.
 */
bool
RunScores(CycleCtx *ctx, const PodInfo *pod, NodeInfo **nodes, const int *ords, int n,
		  int64 **raw, int64 **norm, int64 *totals, char **err)
{
	const Profile *prof = ctx->profile;
	int			scorers = 0;
	bool		first = true;
	KeptScores *ks = kept_scores(ctx, n);

	*err = NULL;
	/* PreScore: raw[i] made for each plugin that scores */
	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status		st = {CODE_SUCCESS, NIL};

		raw[i] = NULL;
		if (norm)
			norm[i] = NULL;
		if (pl->score == NULL || prof->plugins[i].weight == 0)
			continue;
		scorers++;
		ctx->calls[i].scores_zero = false;
		if (pl->prescore)
		{
			pl->prescore(&ctx->calls[i], pod, nodes, n, &st);
			if (st.code == CODE_SKIP)
				continue;
			if (st.code != CODE_SUCCESS)
			{
				*err = psprintf("running PreScore plugin \"%s\": %s", pl->name, StatusMessage(&st));
				return false;
			}
		}
		if (ctx->calls[i].scores_zero)
		{
			/* 0 everywhere adds nothing: rows of 0 for a caller that reads them */
			if (norm)
				raw[i] = norm[i] = palloc0(sizeof(int64) * Max(n, 1));
			continue;
		}
		raw[i] = palloc(sizeof(int64) * Max(n, 1));
		if (ks && pl->score_node_local && i < 64)
		{
			ks->local |= UINT64CONST(1) << i;
			if (norm == NULL && pl->normalize == NULL)
				ks->summed |= UINT64CONST(1) << i;
		}
	}
	/* Score: what is kept read back (setting every total), the rest computed */
	if (ks != NULL && ks->local != 0)
		read_kept_scores(ctx, ks, nodes, ords, n, raw, totals);
	else
		memset(totals, 0, sizeof(int64) * Max(n, 1));
	for (int i = 0; i < prof->nplugins; i++)
	{
		bool		local = ks && i < 64 && (ks->local & (UINT64CONST(1) << i));
		Status		st = {CODE_SUCCESS, NIL};

		if (raw[i] == NULL || ctx->calls[i].scores_zero)
			continue;
		if (!score_nodes(ctx, i, pod, nodes, n, local ? ks->miss : NULL, local ? ks->nmiss : 0,
						 first, raw[i], &st))
		{
			*err = psprintf("running Score plugin \"%s\": %s", prof->plugins[i].plugin->name, StatusMessage(&st));
			return false;
		}
		first &= local;			/* (the nodes were read) */
	}
	/* NormalizeScore, the weights */
	for (int i = 0; i < prof->nplugins; i++)
		if (raw[i] != NULL && !ctx->calls[i].scores_zero &&
			!add_scores(ctx, i, pod, n, raw, norm, totals, ks, err))
			return false;
	/* no scoring plugin: every node scores 1, as kube-scheduler does */
	if (scorers == 0)
		for (int k = 0; k < n; k++)
			totals[k] = 1;
	keep_scores(ctx, ks, nodes, raw);
	return true;
}

/*
 * RunPostFilters (RunPostFilterPlugins): in order; Success or
 * UnschedulableAndUnresolvable ends the run; otherwise the rejecting
 * plugins' reasons are collected into one message.
 */
void
RunPostFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res)
{
	const Profile *prof = ctx->profile;
	Status		all = {CODE_UNSCHEDULABLE, NIL};

	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status		st = {CODE_SUCCESS, NIL};

		if (pl->postfilter == NULL)
			continue;
		pl->postfilter(&ctx->calls[i], pod, res, &st);
		if (st.code == CODE_SUCCESS || st.code == CODE_UNSCHEDULABLE_AND_UNRESOLVABLE)
		{
			if (st.reasons != NIL)
				res->postfilter_msg = StatusMessage(&st);
			return;
		}
		res->nominated = NULL;
		res->victims = NIL;
		all.reasons = list_concat(all.reasons, st.reasons);
	}
	if (all.reasons != NIL)
		res->postfilter_msg = StatusMessage(&all);
}

/*
 * RunReservePlugins (RunReservePluginsReserve), on res->chosen: in order;
 * the first that fails fails the pod's cycle ("running Reserve plugin"),
 * and the node is given up.  A plugin's Reserve fails only before it
 * assumed anything, so there is nothing to unreserve.  False then.
 */
bool
RunReservePlugins(const PodInfo *pod, CycleResult *res)
{
	CycleCtx   *ctx = res->ctx;
	const Profile *prof = ctx->profile;

	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status		st = {CODE_SUCCESS, NIL};

		if (pl->reserve == NULL)
			continue;
		pl->reserve(&ctx->calls[i], pod, res->chosen, res, &st);
		if (st.code != CODE_SUCCESS && st.code != CODE_SKIP)
		{
			res->error = psprintf("running Reserve plugin \"%s\": %s", pl->name, StatusMessage(&st));
			res->chosen = NULL;
			res->prebind = NIL;
			res->wait_claims = NIL;
			return false;
		}
	}
	return true;
}

/*
 * Does a plugin's Filter pass the pod on the node, run on its own with no
 * PreFilter state?  The plugins' QueueingHints ask this of a changed node.
 */
bool
FilterPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
			 const PodInfo *pod, const NodeInfo *node)
{
	PluginCall	call;
	Status		st = {CODE_SUCCESS, NIL};

	memset(&call, 0, sizeof(call));
	filter(&call, pod, node, &st);
	return st.code == CODE_SUCCESS;
}

/*
 * The QueueingHint of a plugin whose verdict depends on the node alone: a
 * node added, or changed, that passes the Filter now and did not before.
 */
QueueingHint
NodeNowPasses(void (*filter) (PluginCall *, const PodInfo *, const NodeInfo *, Status *),
			  const PodInfo *pod, const ClusterEvent *ev)
{
	if (ev->new_node == NULL || !FilterPasses(filter, pod, ev->new_node))
		return HINT_SKIP;
	if (ev->old_node && FilterPasses(filter, pod, ev->old_node))
		return HINT_SKIP;
	return HINT_QUEUE;
}

CycleCtx *
NewCycleCtx(ClusterSnapshot *snap, const Profile *profile)
{
	CycleCtx   *ctx = palloc0(sizeof(CycleCtx));

	ctx->snap = snap;
	ctx->profile = profile;
	TopologyCycleBegin(snap);	/* the term sets this cycle asks for stay through it */
	ctx->calls = palloc0(sizeof(PluginCall) * Max(profile->nplugins, 1));
	ctx->skip_filter = palloc0(sizeof(bool) * Max(profile->nplugins, 1));
	ctx->filters = palloc(sizeof(FilterStep) * Max(profile->nplugins, 1));
	ctx->nfilters = -1;
	/*
	 * Every plugin has its args and the snapshot from the start: a stage may
	 * run after a PreFilter that ended the run early (scheduler.score() of
	 * every node, PostFilter).
	 */
	for (int i = 0; i < profile->nplugins; i++)
	{
		ctx->calls[i].args = profile->plugins[i].args;
		ctx->calls[i].snap = snap;
	}
	return ctx;
}

/* Is name among names (char *; list_member compares Nodes)? */
bool
NameListed(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp(lfirst(lc), name) == 0)
			return true;
	return false;
}

/*
 * The nodes a pod is filtered against: all of them in NodeTree order, or
 * those a PreFilterResult names (in snapshot order); *nabsent counts the
 * nodes left out.
 */
NodeInfo **
CandidateNodes(ClusterSnapshot *snap, List *names, bool restricted, int *n, int *nabsent)
{
	NodeInfo  **out;

	*nabsent = 0;
	if (!restricted)
	{
		*n = snap->nnodes;
		return snap->nodes;
	}
	out = palloc(sizeof(NodeInfo *) * Max(list_length(names), 1));
	*n = 0;
	for (int i = 0; i < snap->nnodes; i++)
	{
		ListCell   *lc;

		foreach(lc, names)
			if (strcmp(lfirst(lc), snap->nodes[i]->name) == 0)
			{
				out[(*n)++] = snap->nodes[i];
				break;
			}
	}
	*nabsent = snap->nnodes - *n;
	return out;
}


/*
 * Whether every verdict has the first's plugin, code and reasons (the same
 * list: a verdict kept for the pod's class shares it), once every node
 * failed: the message and the diagnosis then count them as one
 */
static bool
verdicts_alike(const NodeVerdict *v, int n)
{
	const List *reasons = n > 0 ? v[0].status.reasons : NIL;
	int			rejected = n > 0 ? v[0].rejected_by : -1;
	StatusCode	code = n > 0 ? v[0].status.code : CODE_SUCCESS;

	for (int i = 1; i < n; i++)
		if (v[i].status.reasons != reasons || v[i].rejected_by != rejected || v[i].status.code != code)
			return false;
	return true;
}

/*
 * PreferNominatedNode: a pod that preemption made room for tries that node
 * first; if it passes, it is the only feasible node.  NULL when the node is
 * not a candidate or does not pass.
 */
static NodeInfo *
NominatedNodeFits(CycleCtx *ctx, ClusterSnapshot *snap, const PodInfo *pod, NodeInfo **cand, int ncand)
{
	NodeInfo   *nom = NULL;
	Status		st = {CODE_SUCCESS, NIL};

	/*
	 * every node a candidate: the node of that name (looked up, not searched
	 * for among all of them, for each of the pods preemption nominated)
	 */
	if (cand == snap->nodes)
		nom = SnapshotNode(snap, pod->nominated_node);
	else
		for (int i = 0; i < ncand && nom == NULL; i++)
			if (strcmp(cand[i]->name, pod->nominated_node) == 0)
				nom = cand[i];
	if (nom && RunFilters(ctx, pod, nom, &st) < 0)
		return nom;
	return NULL;
}

/*
 * Score the feasible nodes and choose the best; ties are broken at random,
 * each of the tied nodes as likely, as kube-scheduler's selectHost breaks
 * them.  It samples a reservoir, a draw per tie; here the ties are counted
 * and one draw picks among them, at the same odds.  (A draw per tie, each
 * waiting on the one before, was a fifth of basic_5000's cycles: its 500
 * scored nodes tie.)  A score plugin's error is the cycle's.
 */
static void
ScoreAndSelect(CycleCtx *ctx, const PodInfo *pod, NodeInfo **feasible, const int *ords, int nfeasible,
			   CycleResult *res)
{
	const Profile *profile = res->profile;
	int64	  **raw = palloc(sizeof(int64 *) * Max(profile->nplugins, 1));
	int64	   *totals = palloc(sizeof(int64) * nfeasible);
	int64		best = -1;
	int			ties = 0;
	int			first = 0;
	char	   *err;

	/* (the totals alone: no normalized scores per plugin) */
	if (!RunScores(ctx, pod, feasible, ords, nfeasible, raw, NULL, totals, &err))
	{
		res->error = err;
		return;
	}
	for (int k = 0; k < nfeasible; k++)
	{
		if (totals[k] > best)
		{
			best = totals[k];
			ties = 1;
			first = k;
		}
		else if (totals[k] == best)
			ties++;
	}
	if (ties > 0)
	{
		/*
		 * one draw, the pick-th of the tied nodes in the order searched (the
		 * ties all lie from first on: best only grows)
		 */
		uint64		pick = ties > 1 ? pg_prng_uint64_range(&scheduler_prng, 0, ties - 1) : 0;
		int			k;

		for (k = first; k < nfeasible - 1; k++)
			if (totals[k] == best && pick-- == 0)
				break;
		Assert(totals[k] == best);
		res->chosen = feasible[k];
	}
	res->best_score = best;
}

/* What a node search found */
typedef struct Search
{
	NodeInfo  **feasible;
	int		   *ords;			/* their ordinals when read by ordinal, else NULL */
	int			nfeasible;
	int			examined;
} Search;

/*
 * The node search (kube-scheduler's findNodesThatPassFilters): the
 * candidates in turn from position start, until to_find passed or every
 * one was examined; each rejection in res->verdicts.
 */
static void
search_nodes(CycleCtx *ctx, const PodInfo *pod, NodeInfo **cand, int ncand, int start, int to_find,
			 CycleResult *res, Search *s)
{
	ClusterSnapshot *snap = ctx->snap;

	/*
	 * every node a candidate, and whole verdicts kept: each node's is read by
	 * its ordinal from arrays side by side (EquivWholeGet), without visiting
	 * the node, whose NodeInfos lie apart
	 */
	bool		dense = ctx->equiv != NULL && cand == snap->nodes;

	/* the node examined, and the one asked of the memory ahead of it (no division per node) */
	int			at = start;
	int			ahead = (int) (((int64) start + PREFETCH_AHEAD) % ncand);

	/* (in locals while it runs, kept in registers across the filters' calls) */
	NodeInfo  **feasible = palloc(sizeof(NodeInfo *) * Max(to_find, 1));
	int		   *ords = dense ? palloc(sizeof(int) * Max(to_find, 1)) : NULL;
	int			nfeasible = 0;
	int			examined = 0;

	/*
	 * room for every candidate: an unschedulable pod's search rejects them
	 * all, and growing by doubling copied them over and over (a block this
	 * size is malloc'd apart, and only the part written is touched)
	 */
	res->verdicts = palloc(sizeof(NodeVerdict) * Max(ncand, 1));

	for (int i = 0; i < ncand && nfeasible < to_find; i++)
	{
		NodeInfo   *node = cand[at];
		Status		st = {CODE_SUCCESS, NIL};
		int			rejected;
		int			ord = -1;

		if (dense)
		{
			ord = snap->ordinals[at];
			Assert(node->ordinal == ord && SnapshotOwnNode(snap, node) && snap->generation_of[ord] == node->generation);
			if (EquivWholeGet(ctx->equiv, ord, snap->generation_of[ord], &rejected))
			{
				if (rejected >= 0)
					st = ctx->equiv->entries[ord].verdicts[VERDICT_WHOLE].status;
			}
			else
				rejected = filter_node(ctx, pod, node, &st);
			if (++at == ncand)
				at = 0;
		}
		else
		{
			if (ctx->equiv != NULL)
				prefetch_node_head(cand[ahead]);
			else
				prefetch_node(cand[ahead]);
			if (++at == ncand)
				at = 0;
			if (++ahead == ncand)
				ahead = 0;
			rejected = filter_node(ctx, pod, node, &st);
		}

		examined++;
		if (rejected < 0)
		{
			if (dense)
				ords[nfeasible] = ord;
			feasible[nfeasible++] = node;
		}
		else
		{
			NodeVerdict *v;

			Assert(res->nverdicts < ncand);
			v = &res->verdicts[res->nverdicts++];
			v->node = node;
			v->rejected_by = rejected;
			v->status = st;
		}
	}
	s->feasible = feasible;
	s->ords = ords;
	s->nfeasible = nfeasible;
	s->examined = examined;
}

/*
 * RunSchedulingCycle
 *		Decide where pod goes.  *next_start is where the node search starts;
 *		it is advanced past the nodes this cycle examined.
 */
void
RunSchedulingCycle(ClusterSnapshot *snap, const Profile *profile, const PodInfo *pod,
				   int *next_start, CycleResult *res)
{
	CycleCtx   *ctx = NewCycleCtx(snap, profile);
	List	   *names;
	bool		restricted;
	NodeInfo  **cand;
	int			ncand;
	int			percentage;
	Search		found;

	memset(res, 0, sizeof(*res));
	res->ctx = ctx;
	res->nnodes = snap->nnodes;
	res->snap = snap;
	res->profile = profile;
	res->best_score = -1;
	res->prefilter_plugin = -1;

	/* a stored row that cannot be read: this pod fails alone, with backoff */
	if (pod->invalid)
	{
		res->error = psprintf("pod %s/%s: its stored row cannot be read: %s",
							  JShort(pod->namespace), JShort(pod->name), pod->invalid);
		return;
	}

	if (!RunPreFilters(ctx, pod, res, &names, &restricted))
	{
		if (res->prefilter_status.code != CODE_ERROR)
			RunPostFilters(ctx, pod, res);
		return;
	}
	ctx->equiv = EquivClassFor(ctx, pod, &ctx->scores_class);
	cand = CandidateNodes(snap, names, restricted, &ncand, &res->nabsent);
	if (ncand == 0)
	{
		RunPostFilters(ctx, pod, res);
		return;
	}

	if (pod->nominated_node &&
		(res->chosen = NominatedNodeFits(ctx, snap, pod, cand, ncand)) != NULL)
		return;

	percentage = profile->percentage_of_nodes_to_score >= 0 ?
		profile->percentage_of_nodes_to_score : scheduler_percentage_of_nodes_to_score;
	/* (0 <= *next_start: SchedulePending's) */
	search_nodes(ctx, pod, cand, ncand, *next_start % ncand, NumFeasibleNodesToFind(percentage, ncand),
				 res, &found);
	/* in int64: a stored start (a planted one too) may be near INT_MAX */
	*next_start = (int) (((int64) *next_start + found.examined) % snap->nnodes);

	if (found.nfeasible == 0)
	{
		res->verdicts_alike = verdicts_alike(res->verdicts, res->nverdicts);
		RunPostFilters(ctx, pod, res);
		return;
	}
	if (found.nfeasible == 1)
	{
		res->chosen = found.feasible[0];
		return;
	}

	ScoreAndSelect(ctx, pod, found.feasible, found.ords, found.nfeasible, res);
}

PG_FUNCTION_INFO_V1(num_feasible_nodes_to_find);
/* scheduler.num_feasible_nodes_to_find(percentage, nodes) */
Datum
num_feasible_nodes_to_find(PG_FUNCTION_ARGS)
{
	int32		pct = PG_GETARG_INT32(0);
	int32		n = PG_GETARG_INT32(1);

	RequireRole(ROLE_READER, "use the scheduler's functions");
	if (pct < 0 || pct > 100 || n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("percentage must be 0..100 and nodes at least 0")));
	PG_RETURN_INT32(NumFeasibleNodesToFind(pct, n));
}
