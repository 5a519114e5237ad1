/*
 * node_affinity.c
 *	  NodeAffinity: spec.nodeSelector and required node affinity filter
 *	  nodes; preferred node affinity scores them.  The plugin arg
 *	  addedAffinity adds terms to every pod.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodeaffinity, matching as
 * component-helpers nodeaffinity and apimachinery labels.Requirement:
 *	 - terms are ORed; a term's matchExpressions and matchFields are ANDed;
 *	   a term with neither matches nothing, and so does an empty term list;
 *	 - a term that does not parse (bad key, bad value, wrong number of values,
 *	   unknown operator) matches nothing; the other terms still count;
 *	 - In, NotIn (a missing label is "not in"), Exists, DoesNotExist, Gt and
 *	   Lt (both sides integers, as strconv.ParseInt reads them);
 *	 - matchFields: In or NotIn with one value, on metadata.name only.
 * PreFilter restricts the nodes to the names every term's matchFields
 * metadata.name In requirements allow (union over terms, intersection within
 * one), when every term has one; "pod affinity terms conflict" when none can.
 *
 * In, NotIn, Exists and DoesNotExist compare numbers: a requirement's values
 * are looked up once per refresh of the snapshot in the label column of its
 * key (node_labels.c), and each node's value is its number there, so that a
 * node's labels are read only when the column did not number it.
 */
#include "postgres.h"

#include <errno.h>

#include "utils/builtins.h"

#include "jsonutil.h"
#include "labels.h"
#include "node_labels.h"
#include "plugin.h"

#define ErrReasonPod "node(s) didn't match Pod's node affinity/selector"
#define ErrReasonEnforced "node(s) didn't match scheduler-enforced node affinity"
#define ErrReasonConflict "pod affinity terms conflict"

typedef enum
{
	OP_IN, OP_NOT_IN, OP_EXISTS, OP_DOES_NOT_EXIST, OP_GT, OP_LT
} Op;

/*
 * A requirement's values as numbers in its key's label column, for one
 * refresh of one snapshot (values no node has are left out: no numbered
 * node can match them).
 */
typedef struct Resolved
{
	const ClusterSnapshot *snap;	/* NULL: not resolved yet */
	uint64		refresh;		/* snap->refreshes it was resolved at */
	const NodeLabelColumn *column;
	int			nids;
	int32	   *ids;
} Resolved;

typedef struct Requirement
{
	char	   *key;
	int			keylen;
	Op			op;
	int			nvalues;
	char	  **values;
	int		   *lens;			/* the values' lengths */
	int64		number;			/* Gt, Lt */
	Resolved   *resolved;		/* In, NotIn, Exists, DoesNotExist; made at parse time */
} Requirement;

typedef struct Term
{
	bool		valid;			/* parsed, and not empty */
	int			nexprs;
	Requirement *exprs;
	int			nfields;
	Requirement *fields;		/* metadata.name In/NotIn, one value */
	int64		weight;			/* preferred terms */
} Term;

typedef struct Selector
{
	int			nterms;
	Term	   *terms;
} Selector;

/* strconv.ParseInt(s, 10, 64): optional sign, digits, no overflow */
static bool
parse_int(const char *s, int64 *out)
{
	const char *p = s;
	char	   *end;

	if (*p == '+' || *p == '-')
		p++;
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno != ERANGE;
}

/* ------------------------------------------------------------------------
 * Parsing selectors from jsonb
 * ------------------------------------------------------------------------
 */

/* Parse one requirement; false (with *why) when it does not parse. */
static bool
parse_requirement(JsonbContainer *c, bool field, Requirement *r, char **why)
{
	JsonbValue *key = JGet(c, "key");
	JsonbValue *op = JGet(c, "operator");
	JsonbValue *vals = JGet(c, "values");
	char	   *ops;
	int			n = 0;

	*why = NULL;
	if (key == NULL || key->type != jbvString || op == NULL || op->type != jbvString)
	{
		*why = "key and operator are required";
		return false;
	}
	r->key = pnstrdup(key->val.string.val, key->val.string.len);
	r->keylen = key->val.string.len;
	ops = pnstrdup(op->val.string.val, op->val.string.len);
	if (vals && vals->type == jbvBinary && JsonContainerIsArray(vals->val.binary.data))
		n = JsonContainerSize(vals->val.binary.data);
	else if (vals)
	{
		*why = "values must be an array";
		return false;
	}
	r->nvalues = n;
	r->values = palloc(sizeof(char *) * Max(n, 1));
	r->lens = palloc(sizeof(int) * Max(n, 1));
	r->resolved = palloc0(sizeof(Resolved));
	r->resolved->ids = palloc(sizeof(int32) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(vals->val.binary.data, i);

		if (v->type != jbvString)
		{
			*why = "values must be strings";
			return false;
		}
		r->values[i] = pnstrdup(v->val.string.val, v->val.string.len);
		r->lens[i] = v->val.string.len;
	}

	if (field)
	{
		if (strcmp(ops, "In") == 0)
			r->op = OP_IN;
		else if (strcmp(ops, "NotIn") == 0)
			r->op = OP_NOT_IN;
		else
		{
			*why = psprintf("\"%s\" is not a valid field selector operator", JShort(ops));
			return false;
		}
		if (n != 1)
		{
			*why = "must have one element";
			return false;
		}
		return true;
	}

	if (!LabelValidKey(r->key))
	{
		*why = psprintf("invalid label key \"%s\"", JShort(r->key));
		return false;
	}
	for (int i = 0; i < n; i++)
		if (!LabelValidValue(r->values[i]))
		{
			*why = psprintf("invalid label value: \"%s\"", JShort(r->values[i]));
			return false;
		}
	if (strcmp(ops, "In") == 0 || strcmp(ops, "NotIn") == 0)
	{
		r->op = ops[0] == 'I' ? OP_IN : OP_NOT_IN;
		if (n == 0)
		{
			*why = "for 'in', 'notin' operators, values set can't be empty";
			return false;
		}
	}
	else if (strcmp(ops, "Exists") == 0 || strcmp(ops, "DoesNotExist") == 0)
	{
		r->op = ops[0] == 'E' ? OP_EXISTS : OP_DOES_NOT_EXIST;
		if (n != 0)
		{
			*why = "values set must be empty for exists and does not exist";
			return false;
		}
	}
	else if (strcmp(ops, "Gt") == 0 || strcmp(ops, "Lt") == 0)
	{
		r->op = ops[0] == 'G' ? OP_GT : OP_LT;
		if (n != 1 || !parse_int(r->values[0], &r->number))
		{
			*why = "for 'Gt', 'Lt' operators, exactly one integer value is required";
			return false;
		}
	}
	else
	{
		*why = psprintf("\"%s\" is not a valid label selector operator", JShort(ops));
		return false;
	}
	return true;
}

/* Parse a NodeSelectorTerm; a term that does not parse is kept as invalid. */
static void
parse_term(JsonbContainer *c, Term *t, char **why)
{
	static const char *const parts[] = {"matchExpressions", "matchFields"};

	memset(t, 0, sizeof(*t));
	*why = NULL;
	for (int f = 0; f < 2; f++)
	{
		JsonbValue *arr = JGet(c, parts[f]);
		int			n;
		Requirement *reqs;

		if (arr == NULL)
			continue;
		if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
		{
			*why = psprintf("%s must be an array", parts[f]);
			return;
		}
		n = JsonContainerSize(arr->val.binary.data);
		reqs = palloc0(sizeof(Requirement) * Max(n, 1));
		for (int i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(arr->val.binary.data, i);
			char	   *w;

			if (e->type != jbvBinary || !parse_requirement(e->val.binary.data, f == 1, &reqs[i], &w))
			{
				*why = psprintf("%s[%d]: %s", parts[f], i, e->type == jbvBinary ? w : "must be an object");
				return;
			}
		}
		if (f == 0)
			t->nexprs = n, t->exprs = reqs;
		else
			t->nfields = n, t->fields = reqs;
	}
	t->valid = (t->nexprs + t->nfields) > 0;
}

/*
 * A NodeSelector ({"nodeSelectorTerms": [...]}); with strict, a term that
 * does not parse is an ERROR naming path, else it just never matches.
 */
static Selector *
parse_selector(JsonbValue *v, bool strict, const char *path)
{
	Selector   *s = palloc0(sizeof(Selector));
	JsonbValue *terms;
	int			n;

	if (v == NULL || v->type != jbvBinary)
		return s;
	terms = JGet(v->val.binary.data, "nodeSelectorTerms");
	if (terms == NULL || terms->type != jbvBinary || !JsonContainerIsArray(terms->val.binary.data))
		return s;
	n = JsonContainerSize(terms->val.binary.data);
	s->terms = palloc0(sizeof(Term) * Max(n, 1));
	s->nterms = n;
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(terms->val.binary.data, i);
		char	   *why = "must be an object";

		if (e->type == jbvBinary)
			parse_term(e->val.binary.data, &s->terms[i], &why);
		if (strict && why)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("NodeAffinity args: parsing %s.nodeSelectorTerms[%d]: %s", path, i, why)));
	}
	return s;
}

/* Preferred terms [{"weight", "preference"}]; errors as parse_selector. */
static Selector *
parse_preferred(JsonbValue *v, bool *error, const char *path)
{
	Selector   *s = palloc0(sizeof(Selector));
	int			n;

	*error = false;
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return s;
	n = JsonContainerSize(v->val.binary.data);
	s->terms = palloc0(sizeof(Term) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);
		JsonbValue *w;
		JsonbValue *pref;
		Term		t;
		char	   *why = NULL;

		if (e->type != jbvBinary)
		{
			*error = true;
			continue;
		}
		w = JGet(e->val.binary.data, "weight");
		pref = JGet(e->val.binary.data, "preference");
		if (pref && pref->type == jbvBinary)
			parse_term(pref->val.binary.data, &t, &why);
		else
			memset(&t, 0, sizeof(t));
		if (why)
		{
			if (path)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("NodeAffinity args: parsing %s[%d]: %s", path, i, why)));
			*error = true;
			continue;
		}
		/*
		 * A weight of 0 drops the term (NewPreferredSchedulingTerms); the API
		 * server admits 1..100, and a stored row may say otherwise.
		 */
		if (w != NULL && (!JValueInt64(w, &t.weight) || t.weight < 0 || t.weight > 100))
		{
			if (path)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("NodeAffinity args: %s[%d].weight: Invalid value: %s: must be in the range 1-100",
								path, i, JShortScalar(w))));
			*error = true;
			continue;
		}
		if (w == NULL)
			t.weight = 0;
		if (t.weight == 0 || !t.valid)
			continue;			/* dropped */
		s->terms[s->nterms++] = t;
	}
	return s;
}

/* ------------------------------------------------------------------------
 * Matching
 * ------------------------------------------------------------------------
 */
/* The requirement's values looked up in the snapshot's column of its key */
static const Resolved *
resolve(const Requirement *r, ClusterSnapshot *snap)
{
	Resolved   *x = r->resolved;

	if (x->snap == snap && x->refresh == snap->refreshes)
		return x;
	x->column = NodeLabelColumnFor(snap, r->key, r->keylen);
	x->nids = 0;
	for (int i = 0; i < r->nvalues; i++)
	{
		int32		id = NodeLabelValueNumber(x->column, r->values[i], r->lens[i]);

		if (id >= 0)
			x->ids[x->nids++] = id;
	}
	x->snap = snap;
	x->refresh = snap->refreshes;
	return x;
}

/*
 * A requirement against the node's labels: by numbers when the snapshot's
 * column numbered the node, else read in place (LabelGet), a value
 * compared by length and bytes (jsonb strings hold no NUL, so this is
 * labels.Requirement.Matches' string equality).
 */
static bool
requirement_matches(const Requirement *r, ClusterSnapshot *snap, const NodeInfo *node)
{
	int			len = 0;
	const char *v;
	int64		num;

	if (snap != NULL && r->op != OP_GT && r->op != OP_LT)
	{
		const Resolved *x = resolve(r, snap);
		int32		id = NodeLabelOf(x->column, node);

		if (id != NODE_LABEL_UNKNOWN)
		{
			bool		in = false;

			switch (r->op)
			{
				case OP_IN:
				case OP_NOT_IN:
					for (int i = 0; id >= 0 && i < x->nids && !in; i++)
						in = x->ids[i] == id;
					return r->op == OP_IN ? in : !in;
				case OP_EXISTS:
					return id >= 0;
				default:
					return id < 0;
			}
		}
	}
	v = LabelGet(node->labels, r->key, r->keylen, &len);

	switch (r->op)
	{
		case OP_IN:
		case OP_NOT_IN:
			{
				bool		in = false;

				for (int i = 0; v && i < r->nvalues && !in; i++)
					in = r->lens[i] == len && memcmp(v, r->values[i], len) == 0;
				return r->op == OP_IN ? in : !in;
			}
		case OP_EXISTS:
			return v != NULL;
		case OP_DOES_NOT_EXIST:
			return v == NULL;
		case OP_GT:
		case OP_LT:
			if (v == NULL || !parse_int(pnstrdup(v, len), &num))
				return false;
			return r->op == OP_GT ? num > r->number : num < r->number;
	}
	return false;
}

static bool
term_matches(const Term *t, ClusterSnapshot *snap, const NodeInfo *node)
{
	if (!t->valid)
		return false;
	for (int i = 0; i < t->nexprs; i++)
		if (!requirement_matches(&t->exprs[i], snap, node))
			return false;
	/* fields: metadata.name only; a node without a name skips them */
	if (node->name[0] != '\0')
		for (int i = 0; i < t->nfields; i++)
		{
			const Requirement *f = &t->fields[i];
			const char *value = strcmp(f->key, "metadata.name") == 0 ? node->name : "";
			bool		eq = strcmp(value, f->values[0]) == 0;

			if (f->op == OP_IN ? !eq : eq)
				return false;
		}
	return true;
}

static bool
selector_matches(const Selector *s, ClusterSnapshot *snap, const NodeInfo *node)
{
	for (int i = 0; i < s->nterms; i++)
		if (term_matches(&s->terms[i], snap, node))
			return true;
	return false;
}

/* spec.nodeSelector: every key present with an equal value */
static bool
node_selector_matches(Jsonb *sel, const NodeInfo *node)
{
	return sel == NULL || LabelMapMatches(sel, node->labels);
}

/* ------------------------------------------------------------------------
 * The plugin
 * ------------------------------------------------------------------------
 */
typedef struct Args
{
	Selector   *added_required; /* NULL when none */
	Selector   *added_preferred;
	bool		scores_added;	/* addedAffinity's preferred terms are a list of at least one
								 * (addedPrefSchedTerms is not nil: PreScore does not skip) */
} Args;

typedef struct State
{
	Selector   *required;		/* NULL when the pod has none */
	Selector   *preferred;
} State;

static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "addedAffinity", NULL};
	static const char *const added_fields[] = {"requiredDuringSchedulingIgnoredDuringExecution",
	"preferredDuringSchedulingIgnoredDuringExecution", NULL};
	Args	   *a = palloc0(sizeof(Args));
	JsonbValue *added = JGet(&args->root, "addedAffinity");
	bool		err;

	JCheckKnownFields(&args->root, top, "NodeAffinity args", NULL);
	if (added == NULL)
		return a;
	if (added->type != jbvBinary || !JsonContainerIsObject(added->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("NodeAffinity args: addedAffinity: must be an object")));
	JCheckKnownFields(added->val.binary.data, added_fields, "NodeAffinity args", "addedAffinity");
	{
		JsonbValue *req = JGet(added->val.binary.data, "requiredDuringSchedulingIgnoredDuringExecution");

		if (req)
			a->added_required = parse_selector(req, true, "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution");
	}
	{
		JsonbValue *pref = JGet(added->val.binary.data, "preferredDuringSchedulingIgnoredDuringExecution");

		a->added_preferred = parse_preferred(pref, &err, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution");
		a->scores_added = pref != NULL && pref->type == jbvBinary && JsonContainerIsArray(pref->val.binary.data) &&
			JsonContainerSize(pref->val.binary.data) > 0;
	}
	return a;
}

static JsonbValue *
node_affinity_part(const PodInfo *pod, const char *part)
{
	JsonbValue *na;

	if (pod->affinity == NULL || !JB_ROOT_IS_OBJECT(pod->affinity))
		return NULL;
	na = JGet(&pod->affinity->root, "nodeAffinity");
	if (na == NULL || na->type != jbvBinary)
		return NULL;
	return JGet(na->val.binary.data, part);
}

static State *
pod_state(PluginCall *call, const PodInfo *pod)
{
	State	   *s = call->state;

	if (s == NULL)
	{
		JsonbValue *req = node_affinity_part(pod, "requiredDuringSchedulingIgnoredDuringExecution");

		s = palloc0(sizeof(State));
		s->required = req ? parse_selector(req, false, NULL) : NULL;
		call->state = s;
	}
	return s;
}

static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names)
{
	const Args *a = call->args;
	State	   *s;
	List	   *names = NIL;
	bool		restrict_all = true;

	if (node_affinity_part(pod, "requiredDuringSchedulingIgnoredDuringExecution") == NULL &&
		(a == NULL || a->added_required == NULL) && pod->node_selector == NULL)
	{
		st->code = CODE_SKIP;
		return;
	}
	s = pod_state(call, pod);
	if (s->required == NULL || s->required->nterms == 0)
		return;

	for (int i = 0; i < s->required->nterms && restrict_all; i++)
	{
		const Term *t = &s->required->terms[i];
		List	   *these = NIL;
		bool		any = false;

		for (int f = 0; f < t->nfields; f++)
		{
			const Requirement *r = &t->fields[f];
			List	   *vals = NIL;

			if (strcmp(r->key, "metadata.name") != 0 || r->op != OP_IN)
				continue;
			for (int v = 0; v < r->nvalues; v++)
				vals = list_append_unique_ptr(vals, r->values[v]);
			if (!any)
				these = vals;
			else
			{
				List	   *keep = NIL;
				ListCell   *x;

				foreach(x, these)
					for (int v = 0; v < r->nvalues; v++)
						if (strcmp(lfirst(x), r->values[v]) == 0)
						{
							keep = lappend(keep, lfirst(x));
							break;
						}
				these = keep;
			}
			any = true;
		}
		if (!any)
		{
			restrict_all = false;	/* this term allows any node name */
			break;
		}
		{
			ListCell   *x;

			foreach(x, these)
			{
				bool		dup = false;
				ListCell   *y;

				foreach(y, names)
					dup |= (strcmp(lfirst(x), lfirst(y)) == 0);
				if (!dup)
					names = lappend(names, lfirst(x));
			}
		}
	}
	if (!restrict_all)
		return;
	if (names == NIL)
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonConflict);
		return;
	}
	*node_names = names;
	call->restricts_nodes = true;
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	const Args *a = call->args;
	State	   *s = pod_state(call, pod);

	if (a && a->added_required && !selector_matches(a->added_required, call->snap, node))
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonEnforced);
		return;
	}
	if (!node_selector_matches(pod->node_selector, node) ||
		(s->required && !selector_matches(s->required, call->snap, node)))
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonPod);
}

static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes pg_attribute_unused(), int n pg_attribute_unused(), Status *st)
{
	const Args *a = call->args;
	State	   *s = pod_state(call, pod);
	JsonbValue *pref = node_affinity_part(pod, "preferredDuringSchedulingIgnoredDuringExecution");
	bool		err;

	/*
	 * no preferred terms, neither the pod's (the field absent or null) nor
	 * the args' (none listed): every node scores 0.  PreScore succeeds, as in
	 * the release the conformance cases follow (node_affinity_test.go at
	 * 022462cc, TestNodeAffinityPriority's "all nodes are same priority as
	 * NodeAffinity is nil"); later releases skip.  Either way the nodes'
	 * totals are the same, and the cycle does no more work: it scores
	 * none of them.
	 */
	if ((pref == NULL || pref->type == jbvNull) && (a == NULL || !a->scores_added))
	{
		call->scores_zero = true;
		return;
	}
	s->preferred = parse_preferred(pref, &err, NULL);
	if (err)
	{
		s->preferred = NULL;
		StatusSet(st, CODE_ERROR, "parsing preferredDuringSchedulingIgnoredDuringExecution: invalid term");
	}
}

static int64
score(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st pg_attribute_unused())
{
	const Args *a = call->args;
	State	   *s = pod_state(call, pod);
	int64		total = 0;

	if (a && a->added_preferred)
		for (int i = 0; i < a->added_preferred->nterms; i++)
			if (term_matches(&a->added_preferred->terms[i], call->snap, node))
				total += a->added_preferred->terms[i].weight;
	if (s->preferred)
		for (int i = 0; i < s->preferred->nterms; i++)
			if (term_matches(&s->preferred->terms[i], call->snap, node))
				total += s->preferred->terms[i].weight;
	return total;
}

static void
normalize(PluginCall *call pg_attribute_unused(), const PodInfo *pod pg_attribute_unused(), int64 *scores, int n, Status *st pg_attribute_unused())
{
	DefaultNormalizeScore(100, false, scores, n);
}

/*
 * The pod's nodeSelector and required node affinity, as
 * nodeaffinity.GetRequiredNodeAffinity reads them (terms that do not parse
 * match nothing), for PodTopologySpread's node inclusion.
 */
const void *
RequiredNodeAffinity(const PodInfo *pod)
{
	JsonbValue *req = node_affinity_part(pod, "requiredDuringSchedulingIgnoredDuringExecution");

	return req ? parse_selector(req, false, NULL) : NULL;
}

bool
RequiredNodeAffinityMatches(const void *req, ClusterSnapshot *snap, const PodInfo *pod, const NodeInfo *node)
{
	return node_selector_matches(pod->node_selector, node) &&
		(req == NULL || selector_matches(req, snap, node));
}

/*
 * A NodeSelector stored as jsonb ({"nodeSelectorTerms": [...]}; a
 * PersistentVolume's spec.nodeAffinity.required), parsed as
 * nodeaffinity.NewLazyErrorNodeSelector does: a term that does not parse
 * matches nothing, and neither does a selector with no terms.  NULL when
 * required is NULL.
 */
const void *
NodeSelectorParse(Jsonb *required)
{
	JsonbValue	v;

	if (required == NULL)
		return NULL;
	v.type = jbvBinary;
	v.val.binary.data = &required->root;
	v.val.binary.len = VARSIZE(required) - VARHDRSZ;
	return parse_selector(&v, false, NULL);
}

/*
 * Does the node match the selector (terms ORed)?  matchFields are read
 * against node->name, and skipped when the name is "" (a v1.Node with only
 * labels, as volume.CheckNodeAffinity builds).  A NULL selector matches.
 */
bool
NodeSelectorMatches(const void *sel, ClusterSnapshot *snap, const NodeInfo *node)
{
	return sel == NULL || selector_matches(sel, snap, node);
}

/* Hint: a node added or relabelled that matches now, and did not before. */
static QueueingHint
hint(const PodInfo *pod, const ClusterEvent *ev)
{
	return NodeNowPasses(filter, pod, ev);
}

/* SignPod: PreFilter and Filter read the node selector and the node affinity, PreScore and Score the affinity */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(node_selector) | POD_FIELD(affinity));
}

const Plugin NodeAffinityPlugin = {
	.sign = sign,
	.name = "NodeAffinity",
	.parse_args = parse_args,
	.prefilter = prefilter,
	.filter = filter,
	.prescore = prescore,
	.score = score,
	.score_node_local = true,
	.normalize = normalize,
	.events = {
		{RES_NODE, ACT_ADD | ACT_UPDATE_NODE_LABEL, hint},
		/* kube-scheduler adds this to every plugin that registers Node/Add */
		{RES_NODE, ACT_UPDATE_NODE_TAINT, NULL},
	},
};
