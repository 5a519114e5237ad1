/*
 * topology.c
 *	  Per-topology-domain counts of pods, kept current as pods come and go,
 *	  so that inter-pod affinity and topology spreading cost a cycle what
 *	  the number of distinct terms costs, not what the number of pods does.
 *
 * Two kinds of count live beside the snapshot (snapshot.c calls
 * TopologyAccountPod whenever a pod joins or leaves a node, and
 * TopologyAccountNode around a node's labels changing):
 *
 *	 - Pods matching a term (TopologyCounts): for a set of affinity terms,
 *	   ANDed, the number of pods on the nodes that match them all, per
 *	   topology pair (key, value of that key on the pod's node) for each
 *	   term's topology key, and per node.  kube-scheduler's PreFilter counts
 *	   these afresh for every pod (topologyToMatchedTermCount, and topology
 *	   spreading's TpValueToMatchNum); here they are made the first time a
 *	   term set is asked for, by one pass over the pods, and kept.  The
 *	   TOPOLOGY_MAX_COUNTS most recently used sets are kept, and every set
 *	   the current cycle asked for (TopologyCycleBegin): a plugin holds
 *	   them, and views into them, from its PreFilter or PreScore to its
 *	   last Filter or Score, so none is forgotten under it, however many
 *	   terms the pod has.
 *
 *	 - Terms that pods on nodes carry (OwnedTerm): each distinct required
 *	   or preferred (anti-)affinity term of the pods on nodes, with the
 *	   number of its owners per topology pair.  kube-scheduler walks every
 *	   pod with affinity for these (existing pods' anti-affinity, and the
 *	   symmetric scores); here a cycle walks the distinct terms instead.
 *
 * Everything lives in the snapshot's memory and goes with it on a rebuild.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "labels.h"
#include "snapshot.h"
#include "topology.h"

#define PAIR_KEYSIZE 400
#define TOPOLOGY_MAX_COUNTS 64
/* changes a DomainArray holds for its next use; past that it is made afresh */
#define DOMAIN_MAX_PENDING 64

/* A change to a node's count, not yet in a DomainSums' sums */
struct NodeDelta
{
	NodeDelta  *next;
	const NodeInfo *node;
	int32		delta;
};

/* A change to a pair's count, by value, not yet in a DomainArray's counts */
struct DomainDelta
{
	DomainDelta *next;
	int64		delta;
	int			len;
	char		value[FLEXIBLE_ARRAY_MEMBER];
};

typedef struct PairEntry
{
	char		key[PAIR_KEYSIZE];	/* topology key, \x01, value */
	int64		count;
} PairEntry;

typedef struct OwnedBucket
{
	uint32		hash;
	List	   *terms;			/* OwnedTerm *, same hash */
} OwnedBucket;

struct TopologyState
{
	MemoryContext cxt;
	List	   *counts;			/* TopologyCounts *, most recently used first */
	HTAB	   *owned;			/* hash of key -> OwnedBucket */
	List	   *owned_list;		/* every OwnedTerm */
	uint64		clock;
	uint64		cycle_from;		/* the clock when the current cycle began: sets used since stay */
};

static HTAB *
pair_table(MemoryContext cxt)
{
	HASHCTL		hctl;

	memset(&hctl, 0, sizeof(hctl));
	hctl.keysize = PAIR_KEYSIZE;
	hctl.entrysize = sizeof(PairEntry);
	hctl.hcxt = cxt;
	return hash_create("scheduler topology pairs", 64, &hctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
}

/* "key\x01value" into buf; false when it does not fit (such a pair is never counted) */
static bool
pair_key(char *buf, const char *key, int keylen, const char *value, int valuelen)
{
	if (keylen + valuelen + 2 > PAIR_KEYSIZE)
		return false;
	memcpy(buf, key, keylen);
	buf[keylen] = '\x01';
	memcpy(buf + keylen + 1, value, valuelen);
	buf[keylen + 1 + valuelen] = '\0';
	return true;
}

/* Add delta to a pair's count; a count come to 0 goes */
static void
pair_delta(HTAB *pairs, const char *key, int keylen, const char *value, int valuelen, int64 delta)
{
	char		buf[PAIR_KEYSIZE];
	PairEntry  *e;
	bool		found;

	if (!pair_key(buf, key, keylen, value, valuelen))
		return;
	e = hash_search(pairs, buf, HASH_ENTER, &found);
	if (!found)
		e->count = 0;
	e->count += delta;
	if (e->count == 0)
		hash_search(pairs, buf, HASH_REMOVE, NULL);
}

int64
TopologyPairCount(HTAB *pairs, const char *key, const char *value, int valuelen)
{
	char		buf[PAIR_KEYSIZE];
	PairEntry  *e;

	if (!pair_key(buf, key, strlen(key), value, valuelen))
		return 0;
	e = hash_search(pairs, buf, HASH_FIND, NULL);
	return e ? e->count : 0;
}

/* ------------------------------------------------------------------------
 * Pair counts by the number of their value in the nodes' label column
 * ------------------------------------------------------------------------
 */
static void
domain_forget_pending(DomainArray *da)
{
	while (da->pending)
	{
		DomainDelta *d = da->pending;

		da->pending = d->next;
		pfree(d);
	}
	da->npending = 0;
}

/*
 * The pair (a key of keylen bytes, value) of da's table moved by delta:
 * kept for da's next use.  A pair too long for the table is never counted
 * there (pair_key), nor here.
 */
static void
domain_note(DomainArray *da, int keylen, const char *value, int valuelen, int64 delta)
{
	DomainDelta *d;

	da->changes++;
	if (da->counts == NULL || keylen + valuelen + 2 > PAIR_KEYSIZE)
		return;
	if (da->npending >= DOMAIN_MAX_PENDING)
	{
		/* made afresh from the table at the next use */
		domain_forget_pending(da);
		pfree(da->counts);
		da->counts = NULL;
		return;
	}
	d = MemoryContextAlloc(da->cxt, offsetof(DomainDelta, value) + valuelen);
	memcpy(d->value, value, valuelen);
	d->len = valuelen;
	d->delta = delta;
	d->next = da->pending;
	da->pending = d;
	da->npending++;
}

/* Bring da up to date with its table for the column of key, and view it in td */
static void
domains_make(ClusterSnapshot *snap, HTAB *pairs, DomainArray *da, const char *key, TopologyDomains *td)
{
	int			keylen = strlen(key);
	NodeLabelColumn *col = NodeLabelColumnFor(snap, key, keylen);

	if (da->counts == NULL || da->serial != col->serial || da->ncounts != col->nvalues)
	{
		HASH_SEQ_STATUS seq;
		PairEntry  *e;

		domain_forget_pending(da);
		if (da->counts)
			pfree(da->counts);
		da->counts = MemoryContextAllocZero(da->cxt, sizeof(int64) * Max(col->nvalues, 1));
		da->ncounts = col->nvalues;
		da->serial = col->serial;
		hash_seq_init(&seq, pairs);
		while ((e = hash_seq_search(&seq)) != NULL)
		{
			char	   *sep = strchr(e->key, '\x01');
			int32		v;

			if (sep - e->key != keylen || memcmp(e->key, key, keylen) != 0)
				continue;
			v = NodeLabelValueNumber(col, sep + 1, strlen(sep + 1));
			if (v >= 0)
				da->counts[v] += e->count;
		}
	}
	else
	{
		for (DomainDelta *d = da->pending; d; d = d->next)
		{
			int32		v = NodeLabelValueNumber(col, d->value, d->len);

			if (v >= 0)
				da->counts[v] += d->delta;
		}
		domain_forget_pending(da);
	}
	td->pairs = pairs;
	td->key = key;
	td->col = col;
	td->col_serial = col->serial;
	td->da = da;
	td->changes = da->changes;
}

/* TopologyDomainsCount when the array cannot answer: the node's label and the table */
int64
TopologyDomainsCountSlow(const TopologyDomains *td, const NodeInfo *node, bool *has_key)
{
	int			vlen;
	const char *v = LabelGet(node->labels, td->key, strlen(td->key), &vlen);

	*has_key = (v != NULL);
	return v ? TopologyPairCount(td->pairs, td->key, v, vlen) : 0;
}

/* ------------------------------------------------------------------------
 * Canonical texts: equal texts, same pods selected
 * ------------------------------------------------------------------------
 */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
append_term_key(StringInfo buf, const AffinityTerm *t)
{
	char	  **ns = palloc(sizeof(char *) * Max(t->nnamespaces, 1));

	if (t->nnamespaces > 0)
		memcpy(ns, t->namespaces, sizeof(char *) * t->nnamespaces);
	qsort(ns, t->nnamespaces, sizeof(char *), cmp_str);
	appendStringInfoString(buf, "ns[");
	for (int i = 0; i < t->nnamespaces; i++)
	{
		appendStringInfoString(buf, ns[i]);
		appendStringInfoChar(buf, '\x02');
	}
	appendStringInfoString(buf, "]nssel");
	LabelSelectorAppendKey(buf, t->ns_selector);
	appendStringInfoString(buf, "sel");
	LabelSelectorAppendKey(buf, t->selector);
	appendStringInfoString(buf, "tk[");
	appendStringInfoString(buf, t->topology_key);
	appendStringInfoChar(buf, ']');
}

/* ------------------------------------------------------------------------
 * Pods matching a term set
 * ------------------------------------------------------------------------
 */
static TopologyState *
state_of(ClusterSnapshot *snap)
{
	if (snap->topology == NULL)
	{
		MemoryContext cxt = AllocSetContextCreate(snap->cxt, "scheduler topology counts", ALLOCSET_DEFAULT_SIZES);
		TopologyState *ts = MemoryContextAllocZero(cxt, sizeof(TopologyState));
		HASHCTL		hctl;

		ts->cxt = cxt;
		memset(&hctl, 0, sizeof(hctl));
		hctl.keysize = sizeof(uint32);
		hctl.entrysize = sizeof(OwnedBucket);
		hctl.hcxt = cxt;
		ts->owned = hash_create("scheduler owned terms", 64, &hctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		snap->topology = ts;
	}
	return snap->topology;
}

static bool
counts_match(const TopologyCounts *tc, const PodRef *p)
{
	if (tc->skip_terminating && p->terminating)
		return false;
	for (int i = 0; i < tc->nterms; i++)
		if (!AffinityTermMatches(&tc->terms[i], p->namespace, p->labels, NULL))
			return false;
	return true;
}

static void
sums_forget(DomainSums *ds)
{
	while (ds->pending)
	{
		NodeDelta  *d = ds->pending;

		ds->pending = d->next;
		pfree(d);
	}
	ds->npending = 0;
	if (ds->sums)
		pfree(ds->sums);
	ds->sums = NULL;
}

/* Node n's count moved by delta: kept for the sums' next use */
static void
sums_note(TopologyCounts *tc, const NodeInfo *n, int delta)
{
	DomainSums *ds = &tc->sums;
	NodeDelta  *d;

	if (ds->sums == NULL)
		return;
	if (ds->npending >= DOMAIN_MAX_PENDING)
	{
		sums_forget(ds);		/* made afresh at the next use */
		return;
	}
	d = MemoryContextAlloc(tc->cxt, sizeof(NodeDelta));
	d->node = n;
	d->delta = delta;
	d->next = ds->pending;
	ds->pending = d;
	ds->npending++;
}

/* Apply the changes noted since; false when one is for a node col did not number */
static bool
sums_catch_up(DomainSums *ds, const NodeLabelColumn *col)
{
	bool		ok = true;

	for (NodeDelta *d = ds->pending; d && ok; d = d->next)
	{
		int32		v = NodeLabelOf(col, d->node);

		if (v >= 0)
			ds->sums[v] += d->delta;
		else if (v != NODE_LABEL_NONE)
			ok = false;
	}
	while (ds->pending)
	{
		NodeDelta  *d = ds->pending;

		ds->pending = d->next;
		pfree(d);
	}
	ds->npending = 0;
	return ok;
}

/*
 * TopologyCountsByDomain
 *		tc's per-node counts summed by the number in col (the column of its
 *		first term's key, current) of each of the snapshot's nodes that has
 *		the key, as a walk over snap->nodes adding TopologyNodeCount by
 *		NodeLabelNumber would sum them; col->nvalues of them.  Good until
 *		tc next changes.
 */
const int64 *
TopologyCountsByDomain(ClusterSnapshot *snap, TopologyCounts *tc, const NodeLabelColumn *col)
{
	DomainSums *ds = &tc->sums;

	if (ds->sums != NULL && ds->serial == col->serial && ds->nsums == col->nvalues &&
		sums_catch_up(ds, col))
		return ds->sums;
	sums_forget(ds);
	ds->sums = MemoryContextAllocZero(tc->cxt, sizeof(int64) * Max(col->nvalues, 1));
	ds->nsums = col->nvalues;
	ds->serial = col->serial;
	for (int i = 0; i < snap->nnodes; i++)
	{
		const NodeInfo *node = snap->nodes[i];
		int32		d = NodeLabelNumber(col, node);

		if (d >= 0)
			ds->sums[d] += TopologyNodeCount(tc, node);
	}
	return ds->sums;
}

/*
 * A pod counted in (sign 1) or out (-1).  The per-node array is made in the
 * set's own context (repalloc keeps it there), whatever context the caller
 * is in: node_load and node_clear (snapshot.c) call this in their caller's
 * SPI context, which ends with the call, while the set lives as long as the
 * snapshot.
 */
static void
counts_add(TopologyCounts *tc, const PodRef *p, const NodeInfo *n, int sign)
{
	if (!counts_match(tc, p))
		return;
	if (n->ordinal >= tc->nnode_counts)
	{
		int			size = Max(n->ordinal + 1, tc->nnode_counts * 2);

		tc->node_counts = tc->node_counts ?
			repalloc(tc->node_counts, sizeof(int32) * size) :
			MemoryContextAlloc(tc->cxt, sizeof(int32) * size);
		memset(tc->node_counts + tc->nnode_counts, 0, sizeof(int32) * (size - tc->nnode_counts));
		tc->nnode_counts = size;
	}
	tc->node_counts[n->ordinal] += sign;
	tc->total += sign;
	sums_note(tc, n, sign);
	for (int i = 0; i < tc->nterms; i++)
	{
		const char *key = tc->terms[i].topology_key;
		int			keylen = strlen(key);
		int			vlen;
		const char *v = LabelGet(n->labels, key, keylen, &vlen);

		if (v == NULL)
			continue;
		pair_delta(tc->pairs, key, keylen, v, vlen, sign);
		/* every term of this key sees the pair move */
		for (int j = 0; j < tc->nterms; j++)
			if (strcmp(tc->terms[j].topology_key, key) == 0)
				domain_note(&tc->domains[j], keylen, v, vlen, sign);
	}
}

/*
 * TopologyCycleBegin
 *		A cycle begins (framework.c's NewCycleCtx): the term sets it asks
 *		for from now on stay until the next one begins.
 */
void
TopologyCycleBegin(ClusterSnapshot *snap)
{
	if (snap->topology)
		snap->topology->cycle_from = snap->topology->clock + 1;
}

/*
 * TopologyCountsFor
 *		The counts of pods (on nodes) matching every one of terms, made on the
 *		first call for an equal term set and kept current after.  The terms'
 *		namespace selectors are matched without namespace labels, as the
 *		incoming pod's terms are once their selectors are resolved to names.
 *		skip_terminating leaves out pods being deleted (topology spreading).
 */
TopologyCounts *
TopologyCountsFor(ClusterSnapshot *snap, const AffinityTerm *terms, int nterms, bool skip_terminating)
{
	TopologyState *ts = state_of(snap);
	StringInfoData key;
	ListCell   *lc;
	TopologyCounts *tc;
	MemoryContext old;
	HASH_SEQ_STATUS seq;
	PodRef	   *p;

	initStringInfo(&key);
	appendStringInfo(&key, "%d:", (int) skip_terminating);
	for (int i = 0; i < nterms; i++)
		append_term_key(&key, &terms[i]);
	ts->clock++;
	foreach(lc, ts->counts)
	{
		tc = lfirst(lc);
		if (strcmp(tc->key, key.data) == 0)
		{
			tc->last_used = ts->clock;
			return tc;
		}
	}

	/* forget the least recently used set, unless the current cycle uses it */
	if (list_length(ts->counts) >= TOPOLOGY_MAX_COUNTS)
	{
		TopologyCounts *oldest = NULL;

		foreach(lc, ts->counts)
		{
			TopologyCounts *c = lfirst(lc);

			if (c->last_used < ts->cycle_from && (oldest == NULL || c->last_used < oldest->last_used))
				oldest = c;
		}
		if (oldest)
		{
			ts->counts = list_delete_ptr(ts->counts, oldest);
			MemoryContextDelete(oldest->cxt);
		}
	}

	{
		MemoryContext cxt = AllocSetContextCreate(ts->cxt, "scheduler term counts", ALLOCSET_SMALL_SIZES);

		old = MemoryContextSwitchTo(cxt);
		tc = palloc0(sizeof(TopologyCounts));
		tc->cxt = cxt;
	}
	tc->key = pstrdup(key.data);
	tc->skip_terminating = skip_terminating;
	tc->nterms = nterms;
	tc->terms = palloc(sizeof(AffinityTerm) * Max(nterms, 1));
	for (int i = 0; i < nterms; i++)
		tc->terms[i] = AffinityTermCopy(&terms[i]);
	tc->pairs = pair_table(tc->cxt);
	tc->domains = palloc0(sizeof(DomainArray) * Max(nterms, 1));
	for (int i = 0; i < nterms; i++)
		tc->domains[i].cxt = tc->cxt;
	tc->last_used = ts->clock;

	hash_seq_init(&seq, snap->pods);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		NodeInfo   *n = p->node && !p->taken_out ? SnapshotNode(snap, p->node) : NULL;

		if (n)
			counts_add(tc, p, n, 1);
	}
	MemoryContextSwitchTo(ts->cxt);
	ts->counts = lappend(ts->counts, tc);
	MemoryContextSwitchTo(old);
	return tc;
}

/* The view of tc's pairs for its term'th term's topology key */
void
TopologyCountsDomains(ClusterSnapshot *snap, TopologyCounts *tc, int term, TopologyDomains *td)
{
	domains_make(snap, tc->pairs, &tc->domains[term], tc->terms[term].topology_key, td);
}

int32
TopologyNodeCount(const TopologyCounts *tc, const NodeInfo *node)
{
	return node->ordinal < tc->nnode_counts ? tc->node_counts[node->ordinal] : 0;
}

/* ------------------------------------------------------------------------
 * Terms that pods on nodes carry
 * ------------------------------------------------------------------------
 */
static OwnedTerm *
owned_term(TopologyState *ts, int kind, const AffinityTerm *t)
{
	StringInfoData key;
	uint32		h;
	OwnedBucket *b;
	bool		found;
	ListCell   *lc;
	OwnedTerm  *o;

	initStringInfo(&key);
	appendStringInfo(&key, "%d:%d:", kind, (int) t->weight);
	append_term_key(&key, t);
	h = hash_bytes((const unsigned char *) key.data, key.len);
	b = hash_search(ts->owned, &h, HASH_ENTER, &found);
	if (!found)
		b->terms = NIL;
	foreach(lc, b->terms)
	{
		o = lfirst(lc);
		if (strcmp(o->key, key.data) == 0)
		{
			pfree(key.data);
			return o;
		}
	}
	o = palloc0(sizeof(OwnedTerm));
	o->key = key.data;
	o->kind = kind;
	o->term = AffinityTermCopy(t);
	o->pairs = pair_table(ts->cxt);
	o->domains.cxt = ts->cxt;
	b->terms = lappend(b->terms, o);
	ts->owned_list = lappend(ts->owned_list, o);
	return o;
}

/* An owner of o joins (sign 1) or leaves (-1) node n */
static void
owned_pair_add(OwnedTerm *o, const NodeInfo *n, int sign)
{
	const char *key = o->term.topology_key;
	int			keylen = strlen(key);
	int			vlen;
	const char *v = LabelGet(n->labels, key, keylen, &vlen);

	if (v == NULL)
		return;
	pair_delta(o->pairs, key, keylen, v, vlen, sign);
	domain_note(&o->domains, keylen, v, vlen, sign);
}

static void
owned_add(TopologyState *ts, const PodRef *p, const NodeInfo *n, int sign)
{
	const PodAffinity *pa = p->affinity;
	const AffinityTerm *lists[4];
	int			counts[4];

	lists[OWNED_REQ_AFFINITY] = pa->req_aff;
	counts[OWNED_REQ_AFFINITY] = pa->nreq_aff;
	lists[OWNED_REQ_ANTI] = pa->req_anti;
	counts[OWNED_REQ_ANTI] = pa->nreq_anti;
	lists[OWNED_PREF_AFFINITY] = pa->pref_aff;
	counts[OWNED_PREF_AFFINITY] = pa->npref_aff;
	lists[OWNED_PREF_ANTI] = pa->pref_anti;
	counts[OWNED_PREF_ANTI] = pa->npref_anti;
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < counts[k]; i++)
		{
			AffinityTerm *t = (AffinityTerm *) &lists[k][i];
			OwnedTerm  *o = t->owned;

			/* a term remembers its entry; entries outlive their owners */
			if (o == NULL)
				t->owned = o = owned_term(ts, k, t);
			o->owners += sign;
			owned_pair_add(o, n, sign);
		}
}

/* The view of o's pairs */
void
TopologyOwnedDomains(ClusterSnapshot *snap, OwnedTerm *o, TopologyDomains *td)
{
	domains_make(snap, o->pairs, &o->domains, o->term.topology_key, td);
}

/* The distinct terms of pods on nodes (OwnedTerm *; owners may be 0) */
List *
TopologyOwnedTerms(ClusterSnapshot *snap)
{
	return state_of(snap)->owned_list;
}

/* ------------------------------------------------------------------------
 * Keeping them current (snapshot.c)
 * ------------------------------------------------------------------------
 */

/*
 * A pod joins (sign 1) or leaves (-1) node n.  In any context: what is kept
 * goes to the counts' own contexts.
 */
void
TopologyAccountPod(ClusterSnapshot *snap, const PodRef *p, const NodeInfo *n, int sign)
{
	TopologyState *ts = snap->topology;
	ListCell   *lc;

	if (!n->exists)
		return;					/* counted when the node comes (node_load) */
	if (ts == NULL)
	{
		if (p->affinity == NULL)
			return;
		ts = state_of(snap);
	}
	foreach(lc, ts->counts)
		counts_add(lfirst(lc), p, n, sign);
	if (p->affinity)
	{
		MemoryContext old = MemoryContextSwitchTo(ts->cxt);

		owned_add(ts, p, n, sign);
		MemoryContextSwitchTo(old);
	}
}

/* Every pod of node n leaves (-1) or rejoins (1), around a change of its labels. */
void
TopologyAccountNode(ClusterSnapshot *snap, const NodeInfo *n, int sign)
{
	ListCell   *lc;

	if (snap->topology == NULL)
		return;
	foreach(lc, n->pods)
		TopologyAccountPod(snap, lfirst(lc), n, sign);
}

/* the snapshot's listener: these counts follow every pod and node it counts */
const SnapshotListener TopologyListener = {
	.account_pod = TopologyAccountPod,
	.account_node = TopologyAccountNode,
};
