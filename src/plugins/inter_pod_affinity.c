/*
 * inter_pod_affinity.c
 *	  InterPodAffinity: required pod affinity and anti-affinity filter nodes,
 *	  both the incoming pod's and (anti-affinity) the existing pods'; the
 *	  preferred terms of both, and the existing pods' required affinity
 *	  (hardPodAffinityWeight), score them.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/interpodaffinity.
 *	 - A term selects pods by label selector in its namespaces (the pod's
 *	   own when it names none and has no namespaceSelector) or in the
 *	   namespaces its namespaceSelector picks; the incoming pod's selectors
 *	   are resolved to namespace names first (mergeAffinityTermNamespaces).
 *	   matchLabelKeys and mismatchLabelKeys join the selector (labels.c).
 *	 - Required affinity: the node must have every term's topology key, and
 *	   for each term some pod matching all the terms must be in the node's
 *	   domain; unless no such pod exists anywhere and the pod matches its
 *	   own terms (the first of a group).  UnschedulableAndUnresolvable.
 *	 - Required anti-affinity: no pod matching a term in the node's domain.
 *	   Existing pods' required anti-affinity: no pod whose term matches the
 *	   incoming pod in the node's domain of that term.  Unschedulable.
 *	 - Score: per topology pair, + weight for pods matching the pod's
 *	   preferred affinity, - weight for preferred anti-affinity,
 *	   + hardPodAffinityWeight for pods whose required affinity the pod
 *	   matches, +/- weight for their preferred (anti-)affinity (unless
 *	   ignorePreferredTermsOfExistingPods); a node scores the sum over the
 *	   pairs it has, normalized to 0..100 between the lowest and highest.
 * The counts come from topology.c, kept current as pods come and go, in
 * place of kube-scheduler's walk over every pod in every cycle.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "jsonutil.h"
#include "plugin.h"
#include "topology.h"

#define ErrReasonAffinityRulesNotMatch "node(s) didn't match pod affinity rules"
#define ErrReasonAntiAffinityRulesNotMatch "node(s) didn't match pod anti-affinity rules"
#define ErrReasonExistingAntiAffinityRulesNotMatch "node(s) didn't satisfy existing pods anti-affinity rules"

typedef struct Args
{
	int32		hard_pod_affinity_weight;
	bool		ignore_preferred_terms_of_existing_pods;
} Args;

typedef struct FilterState
{
	PodAffinity *pa;
	TopologyCounts *affinity;	/* pods matching all required affinity terms */
	TopologyDomains *affinity_by;	/* its pairs, per term's key */
	TopologyDomains *anti;		/* per required anti-affinity term */
	bool		self_match;		/* the pod matches all its own affinity terms */
	TopologyDomains *existing_anti; /* existing anti-affinity terms against it */
	int			nexisting_anti;
	Jsonb	   *ns_labels;		/* the pod's namespace's labels, when read */
	bool		ns_read;
} FilterState;

/* A table of pairs the score adds, times factor */
typedef struct ScoreSource
{
	TopologyDomains pairs;
	int64		factor;
} ScoreSource;

/*
 * Per topology pair, the sum over the sources of factor * the pair's count
 * (each source counts pairs of its own term's key only); a node scores the
 * sum over the pairs it has.
 */
typedef struct ScoreState
{
	ScoreSource *sources;
	int			nsources;
	int			maxsources;
} ScoreState;

typedef struct CallState
{
	FilterState *filter;
	ScoreState *score;
} CallState;

static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "hardPodAffinityWeight",
	"ignorePreferredTermsOfExistingPods", NULL};
	Args	   *a = palloc0(sizeof(Args));
	JsonbValue *w = JGet(&args->root, "hardPodAffinityWeight");
	JsonbValue *ig = JGet(&args->root, "ignorePreferredTermsOfExistingPods");

	JCheckKnownFields(&args->root, top, "InterPodAffinity args", NULL);

	a->hard_pod_affinity_weight = 1;
	if (w && w->type != jbvNull)
	{
		a->hard_pod_affinity_weight = JInt32(w, "InterPodAffinity args", "hardPodAffinityWeight");
		if (a->hard_pod_affinity_weight < 0 || a->hard_pod_affinity_weight > 100)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("InterPodAffinity args: hardPodAffinityWeight: Invalid value: %d: not in valid range [0-100]",
							a->hard_pod_affinity_weight)));
	}
	if (ig && ig->type != jbvNull)
		a->ignore_preferred_terms_of_existing_pods = JBool(ig, "InterPodAffinity args", "ignorePreferredTermsOfExistingPods");
	return a;
}

static CallState *
call_state(PluginCall *call)
{
	if (call->state == NULL)
		call->state = palloc0(sizeof(CallState));
	return call->state;
}

/* ------------------------------------------------------------------------
 * Namespaces
 * ------------------------------------------------------------------------
 */

/* The labels of namespace ns; NULL when it is not mirrored.  Call inside SPI. */
Jsonb *
NamespaceLabels(const char *ns)
{
	Datum		arg = CStringGetTextDatum(ns);
	Oid			type = TEXTOID;
	Jsonb	   *labels = NULL;

	if (SPI_execute_with_args("SELECT labels FROM scheduler.namespaces WHERE name = $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.namespaces");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			labels = DatumGetJsonbPCopy(d);
	}
	SPI_freetuptable(SPI_tuptable);
	return labels;
}

static bool
selector_is_real(const LabelSelector *s)
{
	return !s->nothing && !s->everything;
}

/*
 * mergeAffinityTermNamespacesIfNotEmpty: a term's namespaceSelector (one
 * with requirements) becomes the names of the namespaces it picks now.
 */
static void
merge_namespaces(AffinityTerm *terms, int n)
{
	SPITupleTable *tt = NULL;
	uint64		rows = 0;

	for (int i = 0; i < n; i++)
	{
		AffinityTerm *t = &terms[i];
		char	  **names;
		int			k = t->nnamespaces;

		if (!selector_is_real(t->ns_selector))
			continue;
		if (tt == NULL)
		{
			if (SPI_execute("SELECT name, labels FROM scheduler.namespaces ORDER BY name", false, 0) != SPI_OK_SELECT)
				elog(ERROR, "could not read scheduler.namespaces");
			tt = SPI_tuptable;
			rows = SPI_processed;
		}
		names = palloc(sizeof(char *) * (t->nnamespaces + rows + 1));
		if (t->nnamespaces > 0)
			memcpy(names, t->namespaces, sizeof(char *) * t->nnamespaces);
		for (uint64 r = 0; r < rows; r++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(tt->vals[r], tt->tupdesc, 2, &isnull);

			if (!isnull && LabelSelectorMatches(t->ns_selector, DatumGetJsonbP(d)))
				names[k++] = SPI_getvalue(tt->vals[r], tt->tupdesc, 1);
		}
		t->namespaces = names;
		t->nnamespaces = k;
		t->ns_selector = palloc0(sizeof(LabelSelector));
		t->ns_selector->nothing = true;
	}
}

/* podMatchesAllAffinityTerms: false for no terms */
static bool
matches_all(const AffinityTerm *terms, int n, const char *ns, Jsonb *labels)
{
	if (n == 0)
		return false;
	for (int i = 0; i < n; i++)
		if (!AffinityTermMatches(&terms[i], ns, labels, NULL))
			return false;
	return true;
}

static bool
matches_any(const AffinityTerm *terms, int n, const char *ns, Jsonb *labels)
{
	for (int i = 0; i < n; i++)
		if (AffinityTermMatches(&terms[i], ns, labels, NULL))
			return true;
	return false;
}

/* Does a term of an existing pod match the incoming pod?  Reads namespace labels when it must. */
static bool
owned_matches(const OwnedTerm *o, const PodInfo *pod, Jsonb **ns_labels, bool *ns_read)
{
	if (selector_is_real(o->term.ns_selector) && !*ns_read)
	{
		*ns_labels = NamespaceLabels(pod->namespace);
		*ns_read = true;
	}
	return AffinityTermMatches(&o->term, pod->namespace, pod->labels, *ns_labels);
}

/* ------------------------------------------------------------------------
 * PreFilter and Filter
 * ------------------------------------------------------------------------
 */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	FilterState *fs = palloc0(sizeof(FilterState));
	char	   *err;
	Jsonb	   *ns_labels = NULL;
	bool		ns_read = false;
	ListCell   *lc;
	List	   *matching = NIL;
	PodAffinity *pa = PodAffinityParse(pod->affinity, pod->namespace, pod->labels, &err);

	if (err)
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, psprintf("parsing pod: %s", err));
		return;
	}
	if (pa == NULL)
		pa = palloc0(sizeof(PodAffinity));
	fs->pa = pa;
	merge_namespaces(pa->req_aff, pa->nreq_aff);
	merge_namespaces(pa->req_anti, pa->nreq_anti);

	/* existing pods' required anti-affinity terms that match this pod */
	foreach(lc, TopologyOwnedTerms(call->snap))
	{
		OwnedTerm  *o = lfirst(lc);

		if (o->kind == OWNED_REQ_ANTI && hash_get_num_entries(o->pairs) > 0 &&
			owned_matches(o, pod, &ns_labels, &ns_read))
			matching = lappend(matching, o);
	}
	if (matching == NIL && pa->nreq_aff == 0 && pa->nreq_anti == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	fs->ns_labels = ns_labels;
	fs->ns_read = ns_read;
	fs->nexisting_anti = list_length(matching);
	fs->existing_anti = palloc(sizeof(TopologyDomains) * Max(fs->nexisting_anti, 1));
	foreach(lc, matching)
		TopologyOwnedDomains(call->snap, lfirst(lc), &fs->existing_anti[foreach_current_index(lc)]);
	if (pa->nreq_aff > 0)
	{
		fs->affinity = TopologyCountsFor(call->snap, pa->req_aff, pa->nreq_aff, false);
		fs->affinity_by = palloc(sizeof(TopologyDomains) * pa->nreq_aff);
		for (int i = 0; i < pa->nreq_aff; i++)
			TopologyCountsDomains(call->snap, fs->affinity, i, &fs->affinity_by[i]);
		fs->self_match = matches_all(pa->req_aff, pa->nreq_aff, pod->namespace, pod->labels);
	}
	fs->anti = palloc(sizeof(TopologyDomains) * Max(pa->nreq_anti, 1));
	for (int i = 0; i < pa->nreq_anti; i++)
		TopologyCountsDomains(call->snap, TopologyCountsFor(call->snap, &pa->req_anti[i], 1, false), 0,
							  &fs->anti[i]);
	call_state(call)->filter = fs;
}

static bool
satisfies_affinity(const FilterState *fs, const PodInfo *pod, const NodeInfo *node)
{
	bool		pods_exist = true;

	for (int i = 0; i < fs->pa->nreq_aff; i++)
	{
		bool		has_key;
		int64		count = TopologyDomainsCount(&fs->affinity_by[i], node, &has_key);

		if (!has_key)
			return false;		/* every topology key must be on the node */
		if (count <= 0)
			pods_exist = false;
	}
	if (pods_exist)
		return true;

	/*
	 * a nominated pod counted on the node that matches every term counts
	 * on each of the node's pairs (AddPod): the pods exist there
	 */
	if (node->nominated_in)
	{
		ListCell   *lc;

		foreach(lc, node->nominated)
		{
			const PodRef *p = lfirst(lc);

			if (NominatedPodCounts(p, pod) &&
				matches_all(fs->pa->req_aff, fs->pa->nreq_aff, p->namespace, p->labels))
				return true;
		}
	}
	/* the first pod of a group that has affinity to itself */
	return hash_get_num_entries(fs->affinity->pairs) == 0 && fs->self_match;
}

/* Does the node have the term's topology key? */
static bool
node_has_key(const NodeInfo *node, const AffinityTerm *t)
{
	int			len;

	return t->topology_key != NULL &&
		LabelGet(node->labels, t->topology_key, strlen(t->topology_key), &len) != NULL;
}

/*
 * The pods nominated to the node that the Filter counts there
 * (RunFilterPluginsWithNominatedPods: on a copy of the node with them in,
 * nominated_in, those of the pod's priority or higher but the pod), as
 * their AddPod (updateWithPod) would count them on the node's own
 * topology pairs: one the pod's required anti-affinity term matches
 * (anti), or whose own required anti-affinity term matches the pod
 * (existing), on a node with the term's key.  (Their affinity counts:
 * satisfies_affinity.)
 */
static bool
nominated_anti(FilterState *fs, const PodInfo *pod, const NodeInfo *node, bool existing)
{
	ListCell   *lc;

	foreach(lc, node->nominated)
	{
		const PodRef *p = lfirst(lc);

		if (!NominatedPodCounts(p, pod))
			continue;
		if (!existing)
		{
			for (int i = 0; i < fs->pa->nreq_anti; i++)
				if (node_has_key(node, &fs->pa->req_anti[i]) &&
					AffinityTermMatches(&fs->pa->req_anti[i], p->namespace, p->labels, NULL))
					return true;
			continue;
		}
		for (int i = 0; p->affinity && i < p->affinity->nreq_anti; i++)
		{
			const AffinityTerm *t = &p->affinity->req_anti[i];

			if (!node_has_key(node, t))
				continue;
			if (selector_is_real(t->ns_selector) && !fs->ns_read)
			{
				fs->ns_labels = NamespaceLabels(pod->namespace);
				fs->ns_read = true;
			}
			if (AffinityTermMatches(t, pod->namespace, pod->labels, fs->ns_labels))
				return true;
		}
	}
	return false;
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	FilterState *fs = call->state ? ((CallState *) call->state)->filter : NULL;
	bool		has_key;

	if (fs == NULL)
	{
		/* no PreFilter state: run as for a pod without terms */
		return;
	}
	if (fs->pa->nreq_aff > 0 && !satisfies_affinity(fs, pod, node))
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonAffinityRulesNotMatch);
		return;
	}
	for (int i = 0; i < fs->pa->nreq_anti; i++)
		if (TopologyDomainsCount(&fs->anti[i], node, &has_key) > 0)
		{
			StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonAntiAffinityRulesNotMatch);
			return;
		}
	if (node->nominated_in && nominated_anti(fs, pod, node, false))
	{
		StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonAntiAffinityRulesNotMatch);
		return;
	}
	for (int i = 0; i < fs->nexisting_anti; i++)
		if (TopologyDomainsCount(&fs->existing_anti[i], node, &has_key) > 0)
		{
			StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonExistingAntiAffinityRulesNotMatch);
			return;
		}
	if (node->nominated_in && nominated_anti(fs, pod, node, true))
		StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonExistingAntiAffinityRulesNotMatch);
}

/* ------------------------------------------------------------------------
 * PreScore, Score, NormalizeScore
 * ------------------------------------------------------------------------
 */
/* Add the view of a table (one with pairs: else it adds nothing) as a source, times factor */
static void
add_source(ScoreState *ss, const TopologyDomains *td, int64 factor)
{
	if (ss->nsources == ss->maxsources)
	{
		ss->maxsources = Max(4, ss->maxsources * 2);
		ss->sources = ss->sources ? repalloc(ss->sources, sizeof(ScoreSource) * ss->maxsources) :
			palloc(sizeof(ScoreSource) * ss->maxsources);
	}
	ss->sources[ss->nsources].pairs = *td;
	ss->sources[ss->nsources].factor = factor;
	ss->nsources++;
}

/* The source of a term's matching pods, when any pod matches */
static void
add_counts(PluginCall *call, ScoreState *ss, const AffinityTerm *term, int64 factor)
{
	TopologyCounts *tc = TopologyCountsFor(call->snap, term, 1, false);
	TopologyDomains td;

	if (hash_get_num_entries(tc->pairs) == 0)
		return;
	TopologyCountsDomains(call->snap, tc, 0, &td);
	add_source(ss, &td, factor);
}

static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes pg_attribute_unused(), int n, Status *st)
{
	const Args *args = call->args;
	ScoreState *ss;
	char	   *err;
	PodAffinity *pa;
	Jsonb	   *ns_labels = NULL;
	bool		ns_read = false;
	ListCell   *lc;
	bool		has_constraints;

	if (n == 0)
	{
		st->code = CODE_SKIP;	/* no nodes to score */
		return;
	}
	pa = PodAffinityParse(pod->affinity, pod->namespace, pod->labels, &err);
	if (err)
	{
		StatusSet(st, CODE_ERROR, psprintf("failed to parse pod: %s", err));
		return;
	}
	if (pa == NULL)
		pa = palloc0(sizeof(PodAffinity));
	has_constraints = pa->npref_aff > 0 || pa->npref_anti > 0;
	if (args->ignore_preferred_terms_of_existing_pods && !has_constraints)
	{
		st->code = CODE_SKIP;
		return;
	}
	merge_namespaces(pa->pref_aff, pa->npref_aff);
	merge_namespaces(pa->pref_anti, pa->npref_anti);

	ss = palloc0(sizeof(ScoreState));
	/* the pod's preferred terms, over the pods that match them */
	for (int i = 0; i < pa->npref_aff; i++)
		add_counts(call, ss, &pa->pref_aff[i], pa->pref_aff[i].weight);
	for (int i = 0; i < pa->npref_anti; i++)
		add_counts(call, ss, &pa->pref_anti[i], -(int64) pa->pref_anti[i].weight);
	/* the existing pods' terms that this pod matches */
	foreach(lc, TopologyOwnedTerms(call->snap))
	{
		OwnedTerm  *o = lfirst(lc);
		int64		factor;

		if (hash_get_num_entries(o->pairs) == 0)
			continue;
		if (o->kind == OWNED_REQ_AFFINITY && args->hard_pod_affinity_weight > 0)
			factor = args->hard_pod_affinity_weight;
		else if (o->kind == OWNED_PREF_AFFINITY && !args->ignore_preferred_terms_of_existing_pods)
			factor = o->term.weight;
		else if (o->kind == OWNED_PREF_ANTI && !args->ignore_preferred_terms_of_existing_pods)
			factor = -(int64) o->term.weight;
		else
			continue;
		if (owned_matches(o, pod, &ns_labels, &ns_read))
		{
			TopologyDomains td;

			TopologyOwnedDomains(call->snap, o, &td);
			add_source(ss, &td, factor);
		}
	}
	if (ss->nsources == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	call_state(call)->score = ss;
}

static int64
score(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, Status *st pg_attribute_unused())
{
	ScoreState *ss = ((CallState *) call->state)->score;
	int64		sum = 0;
	bool		has_key;

	for (int i = 0; i < ss->nsources; i++)
		(void) AddSaturating(&sum, ss->sources[i].factor * TopologyDomainsCount(&ss->sources[i].pairs, node, &has_key));
	return sum;
}

static void
normalize(PluginCall *call pg_attribute_unused(), const PodInfo *pod pg_attribute_unused(), int64 *scores, int n,
		  Status *st pg_attribute_unused())
{
	int64		min = PG_INT64_MAX;
	int64		max = PG_INT64_MIN;

	for (int i = 0; i < n; i++)
	{
		if (scores[i] > max)
			max = scores[i];
		if (scores[i] < min)
			min = scores[i];
	}
	/* differences taken in double: no int64 difference can overflow */
	for (int i = 0; i < n; i++)
		scores[i] = max > min ? (int64) (100.0 * (((double) scores[i] - (double) min) / ((double) max - (double) min))) : 0;
}

/* ------------------------------------------------------------------------
 * QueueingHints
 * ------------------------------------------------------------------------
 */

/*
 * isSchedulableAfterPodChange: an assigned pod added that matches all the
 * pod's affinity terms; a label change that makes it match them all, or no
 * longer match an anti-affinity term; a pod deleted that matched an
 * anti-affinity term.  A deleted pod that has required anti-affinity of
 * its own also queues: its terms may have kept this pod out.
 */
static QueueingHint
pod_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	char	   *err;
	PodAffinity *pa = PodAffinityParse(pod->affinity, pod->namespace, pod->labels, &err);
	const PodRef *o = ev->old_pod;
	const PodRef *n = ev->new_pod;

	if (err)
		return HINT_QUEUE;
	if (pa == NULL)
		pa = palloc0(sizeof(PodAffinity));
	if (o && n)
	{
		if (!matches_all(pa->req_aff, pa->nreq_aff, o->namespace, o->labels) &&
			matches_all(pa->req_aff, pa->nreq_aff, n->namespace, n->labels))
			return HINT_QUEUE;
		if (matches_any(pa->req_anti, pa->nreq_anti, o->namespace, o->labels) &&
			!matches_any(pa->req_anti, pa->nreq_anti, n->namespace, n->labels))
			return HINT_QUEUE;
		return HINT_SKIP;
	}
	if (n)
		return matches_all(pa->req_aff, pa->nreq_aff, n->namespace, n->labels) ? HINT_QUEUE : HINT_SKIP;
	if (o && matches_any(pa->req_anti, pa->nreq_anti, o->namespace, o->labels))
		return HINT_QUEUE;
	if (o && o->affinity && o->affinity->nreq_anti > 0)
		return HINT_QUEUE;
	return HINT_SKIP;
}

/*
 * isSchedulableAfterNodeChange: a node added or relabelled that gains (or
 * changes) an affinity term's topology key, or that loses (or changes) an
 * anti-affinity term's; any new node, for anti-affinity.  A pod without
 * terms of its own (kept out by existing pods' anti-affinity) queues on
 * any added or relabelled node.
 */
static QueueingHint
node_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	char	   *err;
	PodAffinity *pa = PodAffinityParse(pod->affinity, pod->namespace, pod->labels, &err);
	const NodeInfo *o = ev->old_node;
	const NodeInfo *n = ev->new_node;

	if (err || pa == NULL || pa->nreq_aff + pa->nreq_anti == 0)
		return HINT_QUEUE;
	if (n == NULL)
		return HINT_SKIP;
	for (int k = 0; k < 2; k++)
	{
		AffinityTerm *terms = k == 0 ? pa->req_aff : pa->req_anti;
		int			nterms = k == 0 ? pa->nreq_aff : pa->nreq_anti;

		for (int i = 0; i < nterms; i++)
		{
			const char *key = terms[i].topology_key;
			int			olen = 0,
						nlen = 0;
			const char *ov = o ? LabelGet(o->labels, key, strlen(key), &olen) : NULL;
			const char *nv = LabelGet(n->labels, key, strlen(key), &nlen);

			if (o == NULL && (k == 1 || nv != NULL))
				return HINT_QUEUE;
			if (o == NULL)
				continue;
			if (k == 0 && ov == NULL && nv != NULL)
				return HINT_QUEUE;
			if (k == 1 && ov != NULL && nv == NULL)
				return HINT_QUEUE;
			if (ov && nv && (olen != nlen || memcmp(ov, nv, olen) != 0))
				return HINT_QUEUE;
		}
	}
	return HINT_SKIP;
}

/* SignPod: PreFilter and Filter read the namespace, the labels (existing pods' anti-affinity) and the pod affinity terms */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(namespace) | POD_FIELD(labels) | POD_FIELD(affinity));
}

const Plugin InterPodAffinityPlugin = {
	.sign = sign,
	.name = "InterPodAffinity",
	.reads_pods = true,
	.parse_args = parse_args,
	.prefilter = prefilter,
	.filter = filter,
	.prescore = prescore,
	.score = score,
	.normalize = normalize,
	.events = {
		{RES_ASSIGNED_POD, ACT_ADD | ACT_UPDATE_POD_LABEL | ACT_DELETE, pod_hint},
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_LABEL, node_hint},
	},
};
