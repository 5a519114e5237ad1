/*
 * explain.c
 *	  Why a pod is unschedulable: kube-scheduler's FailedScheduling message
 *	  and the per-node diagnosis that scheduler.why() reads.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "scheduler.h"

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

/*
 * FitErrorMessage
 *		FitError.Error(): "0/N nodes are available: " and, for each reason any
 *		node gave, "<count> <reason>", sorted as strings (Go's sort.Strings,
 *		so "10 X" sorts before "2 Y"), joined with ", ", then ".".
 *		With no nodes at all kube-scheduler reports ErrNoNodesAvailable.
 */
char *
FitErrorMessage(const CycleResult *res)
{
	ReasonCount *counts;
	int			ncounts = 0;
	int			cap = 16;
	StringInfoData buf;

	if (res->nnodes == 0)
		return pstrdup("no nodes available to schedule pods");

	counts = palloc(sizeof(ReasonCount) * cap);
	for (int i = 0; i < res->nnodes; i++)
	{
		ListCell   *lc;

		foreach(lc, res->statuses[i].reasons)
		{
			const char *r = lfirst(lc);
			int			j;

			for (j = 0; j < ncounts; j++)
				if (strcmp(counts[j].reason, r) == 0)
					break;
			if (j == ncounts)
			{
				if (ncounts == cap)
					counts = repalloc(counts, sizeof(ReasonCount) * (cap *= 2));
				counts[ncounts].reason = r;
				counts[ncounts++].count = 0;
			}
			counts[j].count++;
		}
	}
	for (int j = 0; j < ncounts; j++)
		counts[j].text = psprintf("%d %s", counts[j].count, counts[j].reason);
	qsort(counts, ncounts, sizeof(ReasonCount), cmp_text);

	initStringInfo(&buf);
	appendStringInfo(&buf, "0/%d nodes are available", res->nnodes);
	for (int j = 0; j < ncounts; j++)
		appendStringInfo(&buf, "%s%s", j == 0 ? ": " : ", ", counts[j].text);
	appendStringInfoChar(&buf, '.');
	return buf.data;
}

static void
push_kv(JsonbParseState **st, const char *k, const char *v)
{
	JsonbValue	key,
				val;

	key.type = jbvString;
	key.val.string.val = (char *) k;
	key.val.string.len = strlen(k);
	pushJsonbValue(st, WJB_KEY, &key);
	val.type = jbvString;
	val.val.string.val = (char *) v;
	val.val.string.len = strlen(v);
	pushJsonbValue(st, WJB_VALUE, &val);
}

/*
 * DiagnosisToJsonb
 *		The rejections, grouped by plugin and message:
 *		[{"plugin": ..., "code": ..., "reason": ..., "nodes": [...]}, ...]
 */
Jsonb *
DiagnosisToJsonb(const CycleResult *res)
{
	JsonbParseState *st = NULL;
	JsonbValue *out;
	char	  **msgs = palloc0(sizeof(char *) * Max(res->nnodes, 1));
	bool	   *done = palloc0(sizeof(bool) * Max(res->nnodes, 1));

	for (int i = 0; i < res->nnodes; i++)
		if (res->rejected_by[i])
			msgs[i] = StatusMessage(&res->statuses[i]);

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < res->nnodes; i++)
	{
		if (res->rejected_by[i] == NULL || done[i])
			continue;
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		push_kv(&st, "plugin", res->rejected_by[i]->name);
		push_kv(&st, "code", StatusCodeName(res->statuses[i].code));
		push_kv(&st, "reason", msgs[i]);
		{
			JsonbValue	key;

			key.type = jbvString;
			key.val.string.val = "nodes";
			key.val.string.len = 5;
			pushJsonbValue(&st, WJB_KEY, &key);
		}
		pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		for (int j = i; j < res->nnodes; j++)
		{
			if (res->rejected_by[j] != res->rejected_by[i] || done[j] ||
				res->statuses[j].code != res->statuses[i].code ||
				strcmp(msgs[j], msgs[i]) != 0)
				continue;
			{
				JsonbValue	v;

				v.type = jbvString;
				v.val.string.val = (char *) res->nodes[j].name;
				v.val.string.len = strlen(res->nodes[j].name);
				pushJsonbValue(&st, WJB_ELEM, &v);
			}
			done[j] = true;
		}
		pushJsonbValue(&st, WJB_END_ARRAY, NULL);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	out = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(out);
}

/* The names of the plugins that rejected the pod on some node, sorted, as a jsonb array. */
Jsonb *
RejectingPlugins(const CycleResult *res)
{
	const char *names[16];
	int			n = 0;
	JsonbParseState *st = NULL;
	JsonbValue *out;

	for (int i = 0; i < res->nnodes; i++)
	{
		const char *name;
		int			j;

		if (res->rejected_by[i] == NULL)
			continue;
		name = res->rejected_by[i]->name;
		for (j = 0; j < n; j++)
			if (strcmp(names[j], name) == 0)
				break;
		if (j == n && n < (int) lengthof(names))
		{
			/* insertion sort */
			int			k = n++;

			while (k > 0 && strcmp(names[k - 1], name) > 0)
			{
				names[k] = names[k - 1];
				k--;
			}
			names[k] = name;
		}
	}
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int j = 0; j < n; j++)
	{
		JsonbValue	v;

		v.type = jbvString;
		v.val.string.val = (char *) names[j];
		v.val.string.len = strlen(names[j]);
		pushJsonbValue(&st, WJB_ELEM, &v);
	}
	out = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(out);
}
