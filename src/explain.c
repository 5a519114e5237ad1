/*
 * explain.c
 *	  Why a pod is (un)schedulable: kube-scheduler's FailedScheduling message,
 *	  the per-node diagnosis that scheduler.why() reads, and each stage in SQL:
 *	  scheduler.filter() and scheduler.score().
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "access.h"
#include "jsonutil.h"
#include "explain.h"
#include "framework.h"
#include "profile.h"

typedef struct ReasonCount
{
	const char *reason;
	int			count;
	char	   *text;
} ReasonCount;

static int
cmp_text(const void *a, const void *b)
{
	return strcmp(((const ReasonCount *) a)->text, ((const ReasonCount *) b)->text);
}

static void
count_reason(ReasonCount **counts, int *n, int *cap, const char *r, int by)
{
	int			j;

	/* reasons shared by equal verdicts (equivalence.c) match by pointer */
	for (j = 0; j < *n; j++)
		if ((*counts)[j].reason == r || strcmp((*counts)[j].reason, r) == 0)
			break;
	if (j == *n)
	{
		if (*n == *cap)
			*counts = repalloc(*counts, sizeof(ReasonCount) * (*cap *= 2));
		(*counts)[j].reason = r;
		(*counts)[j].count = 0;
		(*n)++;
	}
	(*counts)[j].count += by;
}

static char *
absent_reason(const CycleResult *res)
{
	if (res->absent_status)
		return pstrdup(res->absent_status);
	return psprintf("node(s) didn't satisfy plugin(s) %s", AbsentPluginsText(res));
}

/*
 * FitErrorText
 *		FitError.Error(): "0/N nodes are available:"; then " <PreFilterMsg>."
 *		if a PreFilter rejected the pod, else, for the reasons the nodes gave,
 *		" <histogram>." where each reason prints as "<count> <reason>", sorted
 *		as strings (Go's sort.Strings, so "10 X" sorts before "2 Y") and joined
 *		with ", " (nothing at all when no node gave a reason); then
 *		" <PostFilterMsg>" with no period of its own.
 */
static char *
FitErrorText(int nnodes, ReasonCount *counts, int ncounts, const char *prefilter_msg,
			 const char *postfilter_msg)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "0/%d nodes are available:", nnodes);
	if (prefilter_msg)
		appendStringInfo(&buf, " %s.", prefilter_msg);
	else if (ncounts > 0)
	{
		for (int j = 0; j < ncounts; j++)
			counts[j].text = psprintf("%d %s", counts[j].count, counts[j].reason);
		qsort(counts, ncounts, sizeof(ReasonCount), cmp_text);
		for (int j = 0; j < ncounts; j++)
			appendStringInfo(&buf, "%s%s", j == 0 ? " " : ", ", counts[j].text);
		appendStringInfoChar(&buf, '.');
	}
	if (postfilter_msg)
		appendStringInfo(&buf, " %s", postfilter_msg);
	return buf.data;
}

/*
 * FitErrorMessage
 *		The FailedScheduling message of a failed cycle.  With no nodes at all
 *		kube-scheduler reports ErrNoNodesAvailable; a plugin error is
 *		reported as itself.
 */
char *
FitErrorMessage(const CycleResult *res)
{
	ReasonCount *counts;
	int			ncounts = 0;
	int			cap = 16;

	if (res->error)
		return pstrdup(res->error);
	if (res->nnodes == 0)
		return pstrdup("no nodes available to schedule pods");

	counts = palloc(sizeof(ReasonCount) * cap);
	if (res->prefilter_plugin < 0)
	{
		/* a run of verdicts sharing their reasons (equivalence.c) counted at once */
		for (int i = 0, run; i < res->nverdicts; i += run)
		{
			ListCell   *lc;

			if (res->verdicts_alike)
				run = res->nverdicts;
			else
				for (run = 1; i + run < res->nverdicts &&
					 res->verdicts[i + run].status.reasons == res->verdicts[i].status.reasons; run++)
					;
			foreach(lc, res->verdicts[i].status.reasons)
				count_reason(&counts, &ncounts, &cap, lfirst(lc), run);
		}
		if (res->nabsent > 0)
			count_reason(&counts, &ncounts, &cap, absent_reason(res), res->nabsent);
	}
	return FitErrorText(res->nnodes, counts, ncounts,
						res->prefilter_plugin >= 0 ? StatusMessage(&res->prefilter_status) : NULL,
						res->postfilter_msg);
}

/*
 * FitErrorFromReasons
 *		The message of reasons already counted, as a stored diagnosis gives
 *		them (diagnosis.c): reasons[i] given by counts[i] nodes, equal
 *		reasons added up.
 */
char *
FitErrorFromReasons(int nnodes, const char *const *reasons, const int *counts, int n,
					const char *prefilter_msg, const char *postfilter_msg)
{
	int			cap = 16;
	int			ncounts = 0;
	ReasonCount *rc = palloc(sizeof(ReasonCount) * cap);

	for (int i = 0; i < n; i++)
		count_reason(&rc, &ncounts, &cap, reasons[i], counts[i]);
	return FitErrorText(nnodes, rc, ncounts, prefilter_msg, postfilter_msg);
}

PG_FUNCTION_INFO_V1(scheduler_fit_error_message);
/*
 * scheduler.fit_error_message(num_all_nodes, node_reasons jsonb,
 *							   prefilter_msg, postfilter_msg)
 *		The message FitErrorMessage builds, from a node -> [reasons] map: for
 *		checking the format against kube-scheduler's own tests.
 */
Datum
scheduler_fit_error_message(PG_FUNCTION_ARGS)
{
	int32		nnodes = PG_GETARG_INT32(0);
	Jsonb	   *reasons = PG_GETARG_JSONB_P(1);
	char	   *pre = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *post = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	int			cap = 16;
	int			ncounts = 0;
	ReasonCount *counts = palloc(sizeof(ReasonCount) * cap);
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	RequireRole(ROLE_READER, "use the scheduler's functions");
	if (!JB_ROOT_IS_OBJECT(reasons))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node_reasons must be an object of node name -> array of reasons")));
	it = JsonbIteratorInit(&reasons->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		if (tok == WJB_ELEM && v.type == jbvString)
			count_reason(&counts, &ncounts, &cap, pnstrdup(v.val.string.val, v.val.string.len), 1);
	PG_RETURN_TEXT_P(cstring_to_text(FitErrorText(nnodes, counts, ncounts, pre, post)));
}

static void
jstring(JsonbValue *v, const char *s)
{
	v->type = jbvString;
	v->val.string.val = (char *) s;
	v->val.string.len = strlen(s);
}

/*
 * One group of the diagnosis, as a JsonbValue object made directly (not
 * through pushJsonbValue: a group may name thousands of nodes).  Its keys
 * in jsonb order: shorter first, then bytewise.  A status of several
 * reasons (NodeResourcesFit's "Insufficient cpu", "Insufficient memory")
 * also lists them, as FitError counts them one by one: "reason" joins them
 * as why() shows them, and could not be split back for sure.
 */
static void
make_group(JsonbValue *obj, const char *plugin, StatusCode code, const char *reason, List *nodes,
		   List *reasons)
{
	static const char *const keys[] = {"code", "nodes", "plugin", "reason", "reasons"};
	int			npairs = list_length(reasons) > 1 ? 5 : 4;
	JsonbPair  *pairs = palloc(sizeof(JsonbPair) * npairs);
	JsonbValue *arr = &pairs[1].value;
	ListCell   *lc;
	int			k = 0;

	for (int i = 0; i < npairs; i++)
	{
		jstring(&pairs[i].key, keys[i]);
		pairs[i].order = i;
	}
	jstring(&pairs[0].value, StatusCodeName(code));
	arr->type = jbvArray;
	arr->val.array.rawScalar = false;
	arr->val.array.nElems = list_length(nodes);
	arr->val.array.elems = palloc(sizeof(JsonbValue) * Max(list_length(nodes), 1));
	foreach(lc, nodes)
		jstring(&arr->val.array.elems[k++], lfirst(lc));
	jstring(&pairs[2].value, plugin);
	jstring(&pairs[3].value, reason);
	if (npairs == 5)
	{
		JsonbValue *rs = &pairs[4].value;

		k = 0;
		rs->type = jbvArray;
		rs->val.array.rawScalar = false;
		rs->val.array.nElems = list_length(reasons);
		rs->val.array.elems = palloc(sizeof(JsonbValue) * list_length(reasons));
		foreach(lc, reasons)
			jstring(&rs->val.array.elems[k++], lfirst(lc));
	}
	obj->type = jbvObject;
	obj->val.object.nPairs = npairs;
	obj->val.object.pairs = pairs;
}

/* Nodes of the snapshot not among the verdicts: left out by a PreFilterResult */
static List *
absent_nodes(const CycleResult *res)
{
	List	   *out = NIL;
	bool	   *seen = palloc0(sizeof(bool) * Max(res->snap->nordinals, 1));

	for (int k = 0; k < res->nverdicts; k++)
		seen[res->verdicts[k].node->ordinal] = true;
	for (int i = 0; i < res->snap->nnodes; i++)
		if (!seen[res->snap->nodes[i]->ordinal])
			out = lappend(out, res->snap->nodes[i]->name);
	return out;
}

/* Verdicts a and b go in one group: the same plugin, code and message */
static inline bool
same_group(const CycleResult *res, char **msgs, int a, int b)
{
	const NodeVerdict *w = &res->verdicts[a];
	const NodeVerdict *v = &res->verdicts[b];

	return w->rejected_by == v->rejected_by && w->status.code == v->status.code &&
		(msgs[a] == msgs[b] || strcmp(msgs[a], msgs[b]) == 0);
}

/* Group g (in the order first seen) for verdict i: remap[] of its raw group */
static inline int
ordered_group(int *remap, int *first, int *ngroups, const int *raw, int i)
{
	int			g = remap[raw[i]];

	if (g < 0)
	{
		g = remap[raw[i]] = (*ngroups)++;
		first[g] = i;
	}
	return g;
}

/* Into a key: the group of verdict i, its plugin, code, message and reasons */
static void
key_group(StringInfo key, const CycleResult *res, char **msgs, int i)
{
	const NodeVerdict *v = &res->verdicts[i];
	ListCell   *lc;
	int32		y[2] = {v->rejected_by, (int32) v->status.code};

	appendBinaryStringInfo(key, (char *) y, sizeof(y));
	appendBinaryStringInfo(key, msgs[i], strlen(msgs[i]) + 1);
	y[0] = list_length(v->status.reasons);
	appendBinaryStringInfo(key, (char *) y, sizeof(int32));
	foreach(lc, v->status.reasons)
		appendBinaryStringInfo(key, lfirst(lc), strlen(lfirst(lc)) + 1);
}

/*
 * The common case of group_verdicts, told in one light pass: every node of
 * the snapshot, each once, in its order from where the search began,
 * failed in one group (one plugin, code and message: a message is worked
 * out only where the reasons change, as group_verdicts does).  Writes the
 * key group_verdicts writes for it, and returns true; else false, and
 * writes nothing.
 */
static bool
one_group_key(const CycleResult *res, char **msgs, StringInfo key)
{
	int			n = res->nverdicts;
	int			npos = res->snap ? res->snap->nnodes : 0;
	const NodeVerdict *verdicts = res->verdicts;
	NodeInfo  **nodes = res->snap ? res->snap->nodes : NULL;
	const NodeVerdict *v0;
	const List *reasons;
	char	   *msg0 = NULL;
	int			p0;
	bool		alike;
	int			at0;
	int32		x[3] = {1, n, -1};

	if (n == 0 || n != npos)
		return false;
	v0 = &verdicts[0];
	reasons = v0->status.reasons;
	p0 = v0->node->position;
	alike = (p0 >= 0 && p0 < npos && nodes[p0] == v0->node);
	/*
	 * alike as the search found them: then in the snapshot's order too,
	 * as every node was a candidate (n == npos) and the search visits the
	 * candidates in that order from its start, each once
	 */
	for (int i = 0, p = p0; alike && !res->verdicts_alike && i < n; i++, p = (p + 1 == npos ? 0 : p + 1))
	{
		const NodeVerdict *v = &verdicts[i];

		alike = v->node == nodes[p] && v->rejected_by == v0->rejected_by &&
			v->status.code == v0->status.code;
		if (alike && v->status.reasons != reasons)
		{
			if (msg0 == NULL)
				msg0 = StatusMessage(&v0->status);
			alike = strcmp(StatusMessage(&v->status), msg0) == 0;
			reasons = v->status.reasons;
		}
	}
	if (!alike)
		return false;
	at0 = p0 == 0 ? 0 : npos - p0;	/* the verdict of position 0 */
	msgs[at0] = StatusMessage(&verdicts[at0].status);
	key_group(key, res, msgs, at0);
	appendBinaryStringInfo(key, (char *) x, sizeof(x));
	return true;
}

/*
 * The verdicts' groups (by plugin, code and message), in the order of the
 * nodes in the snapshot (NodeTree order), not the order this search
 * happened to start at: pods that failed alike get the same diagnosis,
 * byte for byte (schedule.c keeps such a diagnosis once).  first[g] is the
 * first verdict of group g; order[] (*norder of them) the verdicts in that
 * order, gidx[] each one's group; msgs[i] verdict i's message.  With key,
 * the groups are written there too (each node's position and group, then
 * each group's plugin, code, message and reasons, then how many groups
 * and nodes: read from its end, a key has one meaning), and *keyed is
 * false when a node has no position to write.  When every node of the
 * snapshot failed alike (one group, each node once, as the search visits
 * them: a pod that fits nowhere for one reason), the key is that group
 * alone, then 1, the number of nodes and -1 (no whole key ends so), and
 * nothing else is worked out (one_group_key): -1 is returned, and the
 * caller that needs the groups asks again without a key.
 *
 * Two passes, as this runs for every node of every unschedulable pod: the
 * verdicts as the search made them, each put in a raw group (a verdict
 * sharing its Status with the one before, as equivalence.c's do, goes
 * with it unexamined) and at its position; then the positions in order,
 * numbering the groups as they come.
 */
static int
group_verdicts(const CycleResult *res, char **msgs, int *first, int *order, int *norder, int *gidx,
			   StringInfo key, bool *keyed)
{
	int			n = res->nverdicts;
	int			npos = res->snap ? res->snap->nnodes : 0;
	int		   *bypos = palloc(sizeof(int) * Max(npos, 1));
	int		   *raw = palloc(sizeof(int) * Max(n, 1));
	int		   *raw_first = palloc(sizeof(int) * Max(n, 1));
	int		   *rest = palloc(sizeof(int) * Max(n, 1));
	int		   *remap;
	int			nraw = 0;
	int			nrest = 0;
	int			ngroups = 0;
	char	   *pairs = NULL;
	const NodeVerdict *verdicts = res->verdicts;
	NodeInfo  **nodes = res->snap ? res->snap->nodes : NULL;
	int			rg = -1;		/* the raw group of the run going on */
	char	   *msg = NULL;		/* and its message */

	*keyed = (key != NULL);
	*norder = 0;

	if (key != NULL && one_group_key(res, msgs, key))
		return -1;
	memset(bypos, -1, sizeof(int) * Max(npos, 1));
	/*
	 * (verdicts and nodes read from locals, not through res: to the
	 * compiler, each store below might change res)
	 */
	for (int i = 0; i < n; i++)
	{
		const NodeVerdict *v = &verdicts[i];
		const NodeInfo *node = v->node;
		int			p = node->position;

		if (i == 0 || v->status.reasons != v[-1].status.reasons ||
			v->rejected_by != v[-1].rejected_by || v->status.code != v[-1].status.code)
		{
			msg = StatusMessage(&v->status);
			msgs[i] = msg;		/* (same_group reads it) */
			for (rg = 0; rg < nraw; rg++)
				if (same_group(res, msgs, raw_first[rg], i))
					break;
			if (rg == nraw)
				raw_first[nraw++] = i;
		}
		msgs[i] = msg;
		raw[i] = rg;
		if (p >= 0 && p < npos && nodes[p] == node)
			bypos[p] = i;
		else
			rest[nrest++] = i;	/* not placed by position: after the others */
	}
	if (nrest > 0)
		*keyed = false;
	remap = palloc(sizeof(int) * Max(nraw, 1));
	memset(remap, -1, sizeof(int) * Max(nraw, 1));
	if (*keyed)
	{
		/* room for every node's (position, group), written in place below */
		enlargeStringInfo(key, (int) (sizeof(int32) * 2 * Max(n, 1)));
		pairs = key->data + key->len;
	}
	{
		int			k = 0;

		for (int p = 0; p < npos; p++)
		{
			int			i = bypos[p];
			int			og;

			if (i < 0)
				continue;
			og = ordered_group(remap, first, &ngroups, raw, i);
			order[k] = i;
			gidx[k] = og;
			if (pairs)
			{
				int32		x[2] = {p, og};

				memcpy(pairs + sizeof(x) * k, x, sizeof(x));
			}
			k++;
		}
		for (int j = 0; j < nrest; j++)
		{
			order[k] = rest[j];
			gidx[k] = ordered_group(remap, first, &ngroups, raw, rest[j]);
			k++;
		}
		*norder = k;
	}
	if (*keyed)
	{
		int32		x[2] = {ngroups, *norder};

		/* after the pairs: the groups, then how many groups and nodes */
		key->len += (int) (sizeof(x) * *norder);
		key->data[key->len] = '\0';
		for (int g = 0; g < ngroups; g++)
			key_group(key, res, msgs, first[g]);
		appendBinaryStringInfo(key, (char *) x, sizeof(x));
	}
	return ngroups;
}

/*
 * DiagnosisToJsonb
 *		Every node's rejection, grouped by plugin and message:
 *		[{"plugin": ..., "code": ..., "reason": ..., "nodes": [...]}, ...],
 *		with "reasons": [...] in a group whose status gave several.  The
 *		PreFilter rejection's group comes first (every node), the group of
 *		the nodes a PreFilterResult left out last (its plugin "A B", its
 *		reason "node(s) didn't satisfy plugin(s) [A B]"); diagnosis.c tells
 *		them apart so.
 */
Jsonb *
DiagnosisToJsonb(const CycleResult *res)
{
	return DiagnosisToJsonbReusing(res, NULL);
}

/*
 * DiagnosisToJsonbReusing
 *		The same, given the last one made (reuse: its groups' key and its
 *		document, in reuse->cxt; NULL: none kept): when this cycle's groups
 *		are the same, plugin, message, reasons and nodes alike, with no
 *		PreFilter rejection and no node left out, the kept document is the
 *		answer, not made again (schedule_pending()'s pods that fail alike
 *		on every node, a document listing each node).  A document kept is
 *		returned as reuse->doc, which lives in reuse->cxt and is never
 *		freed there: a caller whose results live as long may hold it.
 */
Jsonb *
DiagnosisToJsonbReusing(const CycleResult *res, DiagnosisReuse *reuse)
{
	int			n = res->nverdicts;
	char	  **msgs = palloc(sizeof(char *) * Max(n, 1));
	JsonbValue	top;
	JsonbValue *groups;
	int			ngroups = 0;
	int		   *first = palloc(sizeof(int) * Max(n, 1));
	int		   *order = palloc(sizeof(int) * Max(n, 1));
	int		   *gidx = palloc(sizeof(int) * Max(n, 1));
	int			norder;
	List	  **nodes;
	int			nverdict_groups;
	StringInfoData key;
	bool		keyed = false;
	Jsonb	   *doc;

	if (reuse)
		reuse->matched = false;
	if (reuse && (res->prefilter_plugin >= 0 || res->nabsent > 0))
		reuse = NULL;
	groups = palloc(sizeof(JsonbValue) * (n + 2));
	if (res->prefilter_plugin >= 0 && res->snap)
	{
		List	   *all = NIL;

		for (int i = 0; i < res->snap->nnodes; i++)
			all = lappend(all, res->snap->nodes[i]->name);
		make_group(&groups[ngroups++], res->profile->plugins[res->prefilter_plugin].plugin->name,
				   res->prefilter_status.code, StatusMessage(&res->prefilter_status), all, NIL);
	}
	if (reuse)
		initStringInfo(&key);
	nverdict_groups = group_verdicts(res, msgs, first, order, &norder, gidx, reuse ? &key : NULL, &keyed);
	if (keyed && reuse->doc && reuse->key.len == key.len && memcmp(reuse->key.data, key.data, key.len) == 0)
	{
		reuse->matched = true;
		return reuse->doc;
	}
	if (nverdict_groups < 0)
	{
		bool		unkeyed;

		/* the key was the one group's alone: now the groups themselves */
		nverdict_groups = group_verdicts(res, msgs, first, order, &norder, gidx, NULL, &unkeyed);
	}
	nodes = palloc0(sizeof(List *) * Max(nverdict_groups, 1));
	for (int j = 0; j < norder; j++)
		nodes[gidx[j]] = lappend(nodes[gidx[j]], res->verdicts[order[j]].node->name);
	for (int g = 0; g < nverdict_groups; g++)
	{
		const NodeVerdict *v = &res->verdicts[first[g]];

		make_group(&groups[ngroups++], res->profile->plugins[v->rejected_by].plugin->name, v->status.code,
				   msgs[first[g]], nodes[g], v->status.reasons);
	}
	if (res->nabsent > 0 && res->snap)
	{
		char	   *names = AbsentPluginsText(res);

		/* "[A B]" -> "A B" as the plugin column */
		make_group(&groups[ngroups++], pnstrdup(names + 1, strlen(names) - 2), CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
				   absent_reason(res), absent_nodes(res), NIL);
	}
	top.type = jbvArray;
	top.val.array.rawScalar = false;
	top.val.array.nElems = ngroups;
	top.val.array.elems = groups;
	doc = JsonbValueToJsonb(&top);
	if (keyed)
	{
		MemoryContext old = MemoryContextSwitchTo(reuse->cxt);

		if (reuse->key.data == NULL)
			initStringInfo(&reuse->key);
		resetStringInfo(&reuse->key);
		appendBinaryStringInfo(&reuse->key, key.data, key.len);
		reuse->doc = DatumGetJsonbPCopy(JsonbPGetDatum(doc));
		reuse->rejected = NULL;
		MemoryContextSwitchTo(old);
		return reuse->doc;		/* the caller may keep it as it is, in reuse->cxt */
	}
	return doc;
}

/* Keep nothing: reuse->cxt, where the kept key and document lived, is reset */
void
DiagnosisReuseForget(DiagnosisReuse *reuse)
{
	reuse->key.data = NULL;
	reuse->doc = NULL;
	reuse->matched = false;
	reuse->rejected = NULL;
}

/* The plugins that rejected the pod somewhere, sorted, as a jsonb array. */
Jsonb *
RejectingPlugins(const CycleResult *res)
{
	List	   *names = NIL;
	JsonbParseState *st = NULL;
	JsonbValue *out;
	ListCell   *lc;

	if (res->prefilter_plugin >= 0)
		names = list_append_unique_ptr(names, (void *) res->profile->plugins[res->prefilter_plugin].plugin->name);
	for (int i = 0; i < res->nverdicts; i++)
		if (i == 0 || res->verdicts[i].rejected_by != res->verdicts[i - 1].rejected_by)
			names = list_append_unique_ptr(names, (void *) res->profile->plugins[res->verdicts[i].rejected_by].plugin->name);
	if (res->nabsent > 0)
		foreach(lc, res->absent_plugins)
			names = list_append_unique_ptr(names, lfirst(lc));

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	{
		/* sorted: insertion into a small array */
		int			n = list_length(names);
		const char **arr = palloc(sizeof(char *) * Max(n, 1));
		int			k = 0;

		foreach(lc, names)
		{
			int			j = k++;

			while (j > 0 && strcmp(arr[j - 1], lfirst(lc)) > 0)
			{
				arr[j] = arr[j - 1];
				j--;
			}
			arr[j] = lfirst(lc);
		}
		for (int j = 0; j < k; j++)
			JPushString(&st, WJB_ELEM, arr[j]);
	}
	out = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(out);
}

/* ------------------------------------------------------------------------
 * scheduler.filter() and scheduler.score(): every stage for one pod, on the
 * current snapshot, with the profile of the pod's schedulerName.
 * ------------------------------------------------------------------------
 */
/*
 * ExplainSetup
 *		The pod of that namespace and name (ERROR when there is none), the
 *		snapshot refreshed, the profile of its schedulerName, and its
 *		PreFilters run.  Call inside SPI.
 */
void
ExplainSetup(Datum ns_text, Datum name_text, Explained *e)
{
	char	   *ns = TextDatumGetCString(ns_text);
	char	   *name = TextDatumGetCString(name_text);
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {ns_text, name_text};
	char	   *sched;

	if (SPI_execute_with_args(psprintf("SELECT %s, p.scheduler_name FROM scheduler.pods p"
									   " LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid"
									   " WHERE p.namespace = $1 AND p.name = $2", PodInfoColumns),
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pods");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pod %s/%s not found", ns, name),
				 errhint("Load it with scheduler.apply().")));
	PodInfoFromTuple(&e->pod, SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
	if (e->pod.invalid)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("pod %s/%s: its stored row cannot be read: %s", JShort(ns), JShort(name), e->pod.invalid),
				 errhint("Write the pod again with scheduler.apply().")));
	sched = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, SPI_tuptable->tupdesc->natts);
	SPI_freetuptable(SPI_tuptable);

	e->snap = SnapshotGet();
	e->profile = ProfileLoad(sched);
	e->ctx = NewCycleCtx(e->snap, e->profile);
	memset(&e->res, 0, sizeof(e->res));
	e->res.nnodes = e->snap->nnodes;
	e->res.snap = e->snap;
	e->res.profile = e->profile;
	e->prefilter_ok = RunPreFilters(e->ctx, &e->pod, &e->res, &e->names, &e->restricted);
}

/*
 * After a PreFilter rejection that ended the run (UnschedulableAndUnresolvable,
 * Error, an empty PreFilterResult), the PreFilters after the rejecting one
 * have not run: run them now, for their state and their Skip only, so that
 * scheduler.filter() can show every plugin's Filter verdict on every node as
 * kube-scheduler's plugin tests do (they call Filter after PreFilter, whatever
 * PreFilter said).  The cycle (ScheduleOne) never gets here: it stops at the
 * rejection.
 */
static void
prefilter_rest(Explained *e)
{
	const Profile *prof = e->profile;

	e->late = prof->nplugins;
	if (e->prefilter_ok || e->res.prefilter_status.code == CODE_UNSCHEDULABLE)
		return;					/* every PreFilter ran */
	e->late = e->res.prefilter_plugin + 1;
	for (int i = e->late; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status		st = {CODE_SUCCESS, NIL};
		List	   *names = NIL;

		e->ctx->skip_filter[i] = (pl->filter == NULL);
		if (pl->prefilter == NULL)
			continue;
		pl->prefilter(&e->ctx->calls[i], &e->pod, &st, &names);
		/*
		 * Skip: its Filter is not run.  Error: it left no state its Filter
		 * can read (kube-scheduler's Filter would fail to read it), so no
		 * verdict either.
		 */
		if (st.code == CODE_SKIP || st.code == CODE_ERROR)
			e->ctx->skip_filter[i] = true;
	}
	e->ctx->nfilters = -1;		/* skip_filter changed */
}

static char *
names_text(List *names)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? " " : "", (char *) lfirst(lc));
	return buf.data;
}

PG_FUNCTION_INFO_V1(scheduler_filter);
/*
 * scheduler.filter(namespace, name)
 *		RETURNS TABLE (node text, plugin text, code text, reason text)
 *
 * One row per plugin with a PreFilter (node NULL): its code, and its reason;
 * a PreFilterResult reads "restricts nodes to [a b]".  Then one row per node
 * and Filter plugin, every plugin on every node (not only up to the first
 * rejection), skipping plugins whose PreFilter said Skip.  A PreFilter
 * rejection keeps its row, and the Filters still run on every node, the
 * rejecting plugin's too, as kube-scheduler's plugin tests call Filter
 * after PreFilter whatever it returned.
 */
Datum
scheduler_filter(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Explained	e;
	const Profile *prof;
	AsOwner		as;

	AsOwnerBegin(&as, ROLE_READER, "explain the scheduler's decisions");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ExplainSetup(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &e);
	prefilter_rest(&e);
	prof = e.profile;

	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Datum		v[4];
		bool		nulls[4] = {true, false, false, false};
		const char *code;
		char	   *reason;

		if (pl->prefilter == NULL || i >= e.late)
			continue;			/* none, or not reached by the cycle */
		if (e.res.prefilter_plugin == i)
		{
			code = StatusCodeName(e.res.prefilter_status.code);
			reason = StatusMessage(&e.res.prefilter_status);
		}
		else if (e.ctx->skip_filter[i] && pl->filter != NULL)
		{
			code = "Skip";
			reason = "";
		}
		else if (e.res.prefilter_plugin >= 0 && i > e.res.prefilter_plugin)
			continue;			/* not reached */
		else
		{
			code = "Success";
			reason = "";
			if (e.ctx->calls[i].restricts_nodes)
				reason = psprintf("restricts nodes to [%s]", names_text(e.ctx->calls[i].node_names));
		}
		v[1] = CStringGetTextDatum(pl->name);
		v[2] = CStringGetTextDatum(code);
		v[3] = CStringGetTextDatum(reason);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}

	for (int k = 0; k < e.snap->nnodes; k++)
	{
		NodeInfo   *node = e.snap->nodes[k];
		/* pods nominated here count first, as in the cycle (RunFilters) */
		NodeInfo   *with = NodeWithNominatedPods(node, &e.pod);

		for (int i = 0; i < prof->nplugins; i++)
		{
			const Plugin *pl = prof->plugins[i].plugin;
			Status		st = {CODE_SUCCESS, NIL};
			Datum		v[4];
			bool		nulls[4] = {false, false, false, false};

			if (e.ctx->skip_filter[i] || pl->filter == NULL)
				continue;
			/* a PreFilter that failed left no state its Filter can read */
			if (e.res.prefilter_plugin == i && e.res.prefilter_status.code == CODE_ERROR)
				continue;
			if (with)
				pl->filter(&e.ctx->calls[i], &e.pod, with, &st);
			if (st.code == CODE_SUCCESS)
				pl->filter(&e.ctx->calls[i], &e.pod, node, &st);
			v[0] = CStringGetTextDatum(node->name);
			v[1] = CStringGetTextDatum(pl->name);
			v[2] = CStringGetTextDatum(StatusCodeName(st.code));
			v[3] = CStringGetTextDatum(StatusMessage(&st));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
		}
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(scheduler_score);
/*
 * scheduler.score(namespace, name, feasible_only boolean DEFAULT true)
 *		RETURNS TABLE (node text, plugin text, raw bigint, normalized bigint, weighted bigint)
 *
 * Every scoring plugin on every feasible node (all nodes, no sampling; every
 * node when feasible_only is false).  A plugin whose PreScore said Skip
 * gives one row with node and scores NULL.
 */
Datum
scheduler_score(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		feasible_only = PG_GETARG_BOOL(2);
	Explained	e;
	const Profile *prof;
	NodeInfo  **cand;
	int			ncand;
	int			nabsent;
	NodeInfo  **nodes;
	int			n = 0;
	int64	  **raw;
	int64	  **norm;
	int64	   *totals;
	AsOwner		as;

	AsOwnerBegin(&as, ROLE_READER, "explain the scheduler's decisions");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ExplainSetup(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &e);
	prof = e.profile;
	if (feasible_only && !e.prefilter_ok)
	{
		SPI_finish();
		AsOwnerEnd(&as);
		return (Datum) 0;
	}

	cand = feasible_only ? CandidateNodes(e.snap, e.names, e.restricted, &ncand, &nabsent) : e.snap->nodes;
	if (!feasible_only)
		ncand = e.snap->nnodes;
	nodes = palloc(sizeof(NodeInfo *) * Max(ncand, 1));
	for (int k = 0; k < ncand; k++)
	{
		Status		st = {CODE_SUCCESS, NIL};

		if (!feasible_only || RunFilters(e.ctx, &e.pod, cand[k], &st) < 0)
			nodes[n++] = cand[k];
	}
	raw = palloc0(sizeof(int64 *) * Max(prof->nplugins, 1));
	norm = palloc0(sizeof(int64 *) * Max(prof->nplugins, 1));
	totals = palloc0(sizeof(int64) * Max(n, 1));
	{
		char	   *err;

		if (!RunScores(e.ctx, &e.pod, nodes, NULL, n, raw, norm, totals, &err))
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("%s", err)));
	}

	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;

		if (pl->score == NULL || prof->plugins[i].weight == 0)
			continue;
		if (raw[i] == NULL)
		{
			Datum		v[5] = {0, CStringGetTextDatum(pl->name), 0, 0, 0};
			bool		nulls[5] = {true, false, true, true, true};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
			continue;
		}
		for (int k = 0; k < n; k++)
		{
			Datum		v[5];
			bool		nulls[5] = {false, false, false, false, false};

			v[0] = CStringGetTextDatum(nodes[k]->name);
			v[1] = CStringGetTextDatum(pl->name);
			v[2] = Int64GetDatum(raw[i][k]);
			v[3] = Int64GetDatum(norm[i][k]);
			v[4] = Int64GetDatum(norm[i][k] * prof->plugins[i].weight);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
		}
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}
