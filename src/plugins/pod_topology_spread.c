/*
 * pod_topology_spread.c
 *	  PodTopologySpread: spec.topologySpreadConstraints.  DoNotSchedule
 *	  constraints filter nodes by skew; ScheduleAnyway constraints score
 *	  them, fewer matching pods scoring higher.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/podtopologyspread.
 *	 - A constraint counts the pods in the pod's namespace that its label
 *	   selector matches (matchLabelKeys add the pod's own values), leaving
 *	   out pods being deleted, per value of its topology key.
 *	 - Only nodes that have every constraint's topology key count, and of
 *	   those the ones that pass the node inclusion policies:
 *	   nodeAffinityPolicy Honor (the default: the pod's nodeSelector and
 *	   required node affinity) and nodeTaintsPolicy Honor (not the default:
 *	   NoSchedule and NoExecute taints the pod does not tolerate).  With the
 *	   NodeInclusionPolicyInPodTopologySpread gate off, node affinity always
 *	   applies and taints never do.
 *	 - Filter: a node without a constraint's key is
 *	   UnschedulableAndUnresolvable; one where (matching pods in its domain)
 *	   + (1 if the pod matches itself) - (the least over domains, 0 when
 *	   there are fewer domains than minDomains) exceeds maxSkew is
 *	   Unschedulable.
 *	 - Score: over the nodes that passed filtering, with every key (else
 *	   ignored, score 0), sum per constraint count * ln(domains + 2) +
 *	   maxSkew - 1 (a hostname constraint counts the node's own pods);
 *	   normalized so that fewer pods score higher.
 * Counts per node and per domain come from topology.c, kept current as pods
 * come and go, so a cycle does integer work per node instead of walking
 * every pod on it.
 *
 * Not yet: the system default constraints for pods that Services,
 * ReplicaSets, StatefulSets or ReplicationControllers select (kube-
 * scheduler's defaultingType System), which needs those objects mirrored.
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "jsonutil.h"
#include "node_labels.h"
#include "plugin.h"
#include "tolerations.h"
#include "topology.h"

#define ErrReasonConstraintsNotMatch "node(s) didn't match pod topology spread constraints"
#define ErrReasonNodeLabelNotMatch ErrReasonConstraintsNotMatch " (missing required label)"
#define LabelHostname "kubernetes.io/hostname"

typedef struct SpreadConstraint
{
	int32		max_skew;
	char	   *topology_key;
	LabelSelector *selector;
	int32		min_domains;
	bool		honor_affinity;
	bool		honor_taints;
	TopologyCounts *counts;		/* matching pods, per node */
	NodeLabelColumn *domains;	/* the topology key's values on the nodes */
	/* PreFilter: matching pods per domain number; -1 = not an eligible domain */
	int64	   *domain_count;
	int			ndomain_slots;	/* its length (the values then, and "") */
	int			ndomains_eligible;
	int64		min_count;
	int			self_match;		/* PreFilter: the pod counts itself (1) or not (0) */
} SpreadConstraint;

typedef struct Args
{
	bool		system_defaulted;	/* defaultingType System */
	Jsonb	   *default_constraints;	/* defaultingType List */
} Args;

typedef struct State
{
	int			nconstraints;
	SpreadConstraint *constraints;
	/* PreScore */
	bool	   *ignored;		/* by NodeInfo ordinal */
	int			nignored;
	double	   *weight;			/* per constraint */
	NodeInfo  **scored;			/* the nodes PreScore was given, in order */
	const PodInfo *pod;			/* PreFilter's pod, whose self_match it holds */
} State;

#define ARGS "PodTopologySpread args"

static void
args_error(const char *path, const char *body)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(ARGS ": %s: %s", path, body)));
}

/*
 * validateDefaultConstraints: each a constraint without a selector (it is
 * deduced for each pod), maxSkew above 0, a topologyKey that is a label
 * key, whenUnsatisfiable DoNotSchedule or ScheduleAnyway, no (key, action)
 * pair twice.
 */
static void
check_default_constraints(JsonbContainer *arr)
{
	static const char *const fields[] = {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector",
	"minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys", NULL};
	int			n = JsonContainerSize(arr);
	char	  **pairs = palloc(sizeof(char *) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		char	   *path = psprintf("defaultConstraints[%d]", i);
		JsonbContainer *c = JObject(getIthJsonbValueFromContainer(arr, i), ARGS, path);
		JsonbValue *skew = JGet(c, "maxSkew");
		char	   *tk = JGetString(c, "topologyKey", ARGS, path);
		char	   *when = JGetString(c, "whenUnsatisfiable", ARGS, path);
		int32		x;

		JCheckKnownFields(c, fields, ARGS, path);
		if (!JValueInt32(skew, &x) || x <= 0)
			args_error(psprintf("%s.maxSkew", path),
					   psprintf("Invalid value: %s: not in valid range (0, inf)", skew ? JShortScalar(skew) : "0"));
		if (tk == NULL || tk[0] == '\0')
			args_error(psprintf("%s.topologyKey", path), "Required value: can not be empty");
		if (!LabelValidKey(tk))
			args_error(psprintf("%s.topologyKey", path),
					   psprintf("Invalid value: \"%s\": must be a valid label key", JShort(tk)));
		if (when == NULL || (strcmp(when, "DoNotSchedule") != 0 && strcmp(when, "ScheduleAnyway") != 0))
			args_error(psprintf("%s.whenUnsatisfiable", path),
					   psprintf("Unsupported value: \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
								when ? JShort(when) : ""));
		if (JGet(c, "labelSelector"))
			args_error(psprintf("%s.labelSelector", path),
					   "Forbidden: constraint must not define a selector, as they deduced for each pod");
		pairs[i] = psprintf("%s\x01%s", tk, when);
		for (int j = 0; j < i; j++)
			if (strcmp(pairs[i], pairs[j]) == 0)
				args_error(psprintf("defaultConstraints[%d]", i),
						   psprintf("Duplicate value: \"{%s, %s}\"", JShort(tk), when));
	}
}

/*
 * PodTopologySpreadArgs: defaultingType System (the default; no
 * defaultConstraints then) or List.
 */
static void *
parse_args(Jsonb *args)
{
	static const char *const top[] = {"apiVersion", "kind", "defaultConstraints", "defaultingType", NULL};
	Args	   *a = palloc0(sizeof(Args));
	JsonbValue *type = JGet(&args->root, "defaultingType");
	JsonbValue *dc = JGet(&args->root, "defaultConstraints");
	char	   *t = (type && type->type != jbvNull) ? JString(type, ARGS, "defaultingType") : "System";

	JCheckKnownFields(&args->root, top, ARGS, NULL);
	if (strcmp(t, "System") == 0)
		a->system_defaulted = true;
	else if (strcmp(t, "List") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(ARGS ": defaultingType: Unsupported value: \"%s\": supported values: \"List\", \"System\"", JShort(t))));
	if (dc && dc->type != jbvNull)
	{
		check_default_constraints(JArray(dc, ARGS, "defaultConstraints"));
		if (a->system_defaulted && JsonContainerSize(dc->val.binary.data) > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg(ARGS ": defaultConstraints: Invalid value: must be empty for System defaulting type")));
		a->default_constraints = JsonbValueToJsonb(dc);
	}
	return a;
}

/* ------------------------------------------------------------------------
 * Constraints
 * ------------------------------------------------------------------------
 */
/*
 * maxSkew and minDomains: positive 32-bit integers, as the API server admits
 * them; dflt when unset.  A stored row may say otherwise: *err then.
 */
static int32
int_field(JsonbContainer *c, const char *key, int32 dflt, int i, char **err)
{
	JsonbValue *v = JGet(c, key);
	int32		x;

	if (v == NULL || v->type == jbvNull)
		return dflt;
	if (!JValueInt32(v, &x) || x < 1)
	{
		if (*err == NULL)
			*err = psprintf("topologySpreadConstraints[%d].%s: must be greater than zero", i, key);
		return dflt;
	}
	return x;
}

/* "Honor" or "Ignore"; dflt when unset */
static bool
policy_field(JsonbContainer *c, const char *key, bool dflt, int i, char **err)
{
	JsonbValue *v = JGet(c, key);

	if (v == NULL || v->type == jbvNull)
		return dflt;
	if (v->type == jbvString && v->val.string.len == 5 && memcmp(v->val.string.val, "Honor", 5) == 0)
		return true;
	if (v->type == jbvString && v->val.string.len == 6 && memcmp(v->val.string.val, "Ignore", 6) == 0)
		return false;
	*err = psprintf("topologySpreadConstraints[%d].%s: Unsupported value: must be \"Honor\" or \"Ignore\"", i, key);
	return dflt;
}

/*
 * filterTopologySpreadConstraints: the pod's constraints whose
 * whenUnsatisfiable is action, parsed; NULL with *err on a bad one.
 */
static SpreadConstraint *
parse_constraints(ClusterSnapshot *snap, const PodInfo *pod, Jsonb *list, const LabelSelector *selector,
				  const char *action, int *n, char **err)
{
	int			count = list ? JB_ROOT_COUNT(list) : 0;
	SpreadConstraint *cs = palloc0(sizeof(SpreadConstraint) * Max(count, 1));

	*n = 0;
	*err = NULL;
	for (int i = 0; i < count; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&list->root, i);
		JsonbContainer *c;
		JsonbValue *when;
		JsonbValue *tk;
		SpreadConstraint *k = &cs[*n];
		AffinityTerm term;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		{
			*err = psprintf("topologySpreadConstraints[%d]: must be an object", i);
			return NULL;
		}
		c = e->val.binary.data;
		when = JGet(c, "whenUnsatisfiable");
		if (when == NULL || when->type != jbvString ||
			strlen(action) != (size_t) when->val.string.len ||
			memcmp(when->val.string.val, action, when->val.string.len) != 0)
			continue;
		tk = JGet(c, "topologyKey");
		if (tk == NULL || tk->type != jbvString)
		{
			*err = psprintf("topologySpreadConstraints[%d].topologyKey: Required value", i);
			return NULL;
		}
		k->topology_key = pnstrdup(tk->val.string.val, tk->val.string.len);
		if (JGet(c, "maxSkew") == NULL && *err == NULL)
			*err = psprintf("topologySpreadConstraints[%d].maxSkew: must be greater than zero", i);
		k->max_skew = int_field(c, "maxSkew", 1, i, err);
		k->min_domains = int_field(c, "minDomains", 1, i, err);
		if (scheduler_features.NodeInclusionPolicyInPodTopologySpread)
		{
			k->honor_affinity = policy_field(c, "nodeAffinityPolicy", true, i, err);
			k->honor_taints = policy_field(c, "nodeTaintsPolicy", false, i, err);
		}
		else
			k->honor_affinity = true;
		if (*err)
			return NULL;
		if (selector)
		{
			/* a default constraint: the selector is DefaultSelector's */
			k->selector = palloc(sizeof(LabelSelector));
			*k->selector = *selector;
		}
		else
			k->selector = LabelSelectorParse(JGet(c, "labelSelector"), err);
		if (k->selector == NULL)
			return NULL;
		if (scheduler_features.MatchLabelKeysInPodTopologySpread)
		{
			JsonbValue *keys = JGet(c, "matchLabelKeys");

			if (keys && keys->type == jbvBinary && JsonContainerIsArray(keys->val.binary.data))
				for (int j = 0; j < (int) JsonContainerSize(keys->val.binary.data); j++)
				{
					JsonbValue *key = getIthJsonbValueFromContainer(keys->val.binary.data, j);
					int			vlen;
					const char *v;

					if (key->type != jbvString)
						continue;
					v = LabelGet(pod->labels, key->val.string.val, key->val.string.len, &vlen);
					if (v == NULL)
						continue;
					/* mergeLabelSetWithSelector: even a nil selector then selects by these */
					if (k->selector->nothing)
					{
						k->selector->nothing = false;
						k->selector->nreqs = 0;
					}
					LabelSelectorAdd(k->selector, pnstrdup(key->val.string.val, key->val.string.len),
									 LABEL_IN, pnstrdup(v, vlen));
				}
		}
		(*n)++;
		if (snap == NULL)
			continue;			/* a QueueingHint: the selector is enough */
		/* the pods it counts: this namespace, this selector, not being deleted */
		memset(&term, 0, sizeof(term));
		term.selector = k->selector;
		term.topology_key = k->topology_key;
		term.nnamespaces = 1;
		term.namespaces = (char **) &pod->namespace;
		term.ns_selector = palloc0(sizeof(LabelSelector));
		term.ns_selector->nothing = true;
		k->counts = TopologyCountsFor(snap, &term, 1, true);
		k->domains = NodeLabelColumnFor(snap, k->topology_key, strlen(k->topology_key));
	}
	return cs;
}

/* ------------------------------------------------------------------------
 * Default constraints (buildDefaultConstraints, helper.DefaultSelector)
 * ------------------------------------------------------------------------
 */

/* The workloads that select pods, read once per refresh of the snapshot */
typedef struct Workload
{
	char	   *kind;
	char	   *namespace;
	char	   *name;
	Jsonb	   *selector;		/* NULL: none */
} Workload;

static Workload *workloads;
static int	nworkloads;
static PerCallCache workloads_cache;

static void
load_workloads(ClusterSnapshot *snap)
{
	MemoryContext cxt = SnapshotPerCall(snap, &workloads_cache, "scheduler workloads");
	MemoryContext old;

	if (cxt == NULL)
		return;
	nworkloads = 0;
	old = MemoryContextSwitchTo(cxt);
	if (SPI_execute("SELECT kind, namespace, name, selector FROM scheduler.workloads ORDER BY kind, namespace, name",
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.workloads");
	workloads = palloc(sizeof(Workload) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	d = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		sel = SPI_getbinval(t, d, 4, &isnull);

		workloads[i].kind = SPI_getvalue(t, d, 1);
		workloads[i].namespace = SPI_getvalue(t, d, 2);
		workloads[i].name = SPI_getvalue(t, d, 3);
		workloads[i].selector = isnull ? NULL : DatumGetJsonbPCopy(sel);
	}
	nworkloads = SPI_processed;
	SPI_freetuptable(SPI_tuptable);
	MemoryContextSwitchTo(old);
	SnapshotPerCallFilled(snap, &workloads_cache);
}

/* labels.Merge into set (a list of key, value pairs): a later value wins */
static List *
merge_label_map(List *set, Jsonb *map)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	if (map == NULL || !JB_ROOT_IS_OBJECT(map))
		return set;
	it = JsonbIteratorInit(&map->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *key;
		ListCell   *lc;
		bool		found = false;

		if (tok != WJB_KEY)
			continue;
		JsonbIteratorNext(&it, &v, true);
		if (v.type != jbvString)
			continue;
		key = pnstrdup(k.val.string.val, k.val.string.len);
		for (lc = list_head(set); lc != NULL; lc = lnext(set, lnext(set, lc)))
			if (strcmp(lfirst(lc), key) == 0)
			{
				lfirst(lnext(set, lc)) = pnstrdup(v.val.string.val, v.val.string.len);
				found = true;
				break;
			}
		if (!found)
		{
			set = lappend(set, key);
			set = lappend(set, pnstrdup(v.val.string.val, v.val.string.len));
		}
	}
	return set;
}

static LabelSelector *
set_selector(List *set)
{
	LabelSelector *sel = palloc0(sizeof(LabelSelector));
	ListCell   *lc;

	sel->everything = true;
	for (lc = list_head(set); lc != NULL; lc = lnext(set, lnext(set, lc)))
		LabelSelectorAdd(sel, lfirst(lc), LABEL_IN, lfirst(lnext(set, lc)));
	return sel;
}

/* A string member, or NULL when it is absent or not a string */
static char *
string_field(JsonbContainer *c, const char *key)
{
	JsonbValue *v = JGet(c, key);

	return (v && v->type == jbvString) ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

static const Workload *
find_workload(const char *kind, const char *ns, const char *name)
{
	for (int i = 0; i < nworkloads; i++)
		if (strcmp(workloads[i].kind, kind) == 0 && strcmp(workloads[i].namespace, ns) == 0 &&
			strcmp(workloads[i].name, name) == 0)
			return &workloads[i];
	return NULL;
}

/*
 * helper.DefaultSelector: the label maps of the pod's namespace's Services
 * that select it, merged; then its controller's selector: a
 * ReplicationController's map merged in, a ReplicaSet's or StatefulSet's
 * requirements added.  NULL when that selects nothing in particular
 * (no requirements): the pod then gets no default constraints.
 */
static LabelSelector *
default_selector(ClusterSnapshot *snap, const PodInfo *pod)
{
	List	   *set = NIL;
	LabelSelector *sel;

	load_workloads(snap);
	for (int i = 0; i < nworkloads; i++)
		if (strcmp(workloads[i].kind, "Service") == 0 && strcmp(workloads[i].namespace, pod->namespace) == 0 &&
			workloads[i].selector != NULL && LabelMapMatches(workloads[i].selector, pod->labels))
			set = merge_label_map(set, workloads[i].selector);
	sel = set_selector(set);

	/* metav1.GetControllerOfNoCopy: the first owner reference with controller true */
	if (pod->owner_refs && JB_ROOT_IS_ARRAY(pod->owner_refs) && !JB_ROOT_IS_SCALAR(pod->owner_refs))
		for (int i = 0; i < (int) JB_ROOT_COUNT(pod->owner_refs); i++)
		{
			JsonbValue *o = getIthJsonbValueFromContainer(&pod->owner_refs->root, i);
			JsonbValue *ctl;
			char	   *kind,
					   *api,
					   *name;
			const Workload *w;

			if (o->type != jbvBinary || !JsonContainerIsObject(o->val.binary.data))
				continue;
			ctl = JGet(o->val.binary.data, "controller");
			if (ctl == NULL || ctl->type != jbvBool || !ctl->val.boolean)
				continue;
			/* the API server requires all three; a stored row may lack them */
			kind = string_field(o->val.binary.data, "kind");
			api = string_field(o->val.binary.data, "apiVersion");
			name = string_field(o->val.binary.data, "name");
			if (kind == NULL || api == NULL || name == NULL)
				break;
			if (strcmp(kind, "ReplicationController") == 0 && strcmp(api, "v1") == 0 &&
				(w = find_workload(kind, pod->namespace, name)) != NULL)
				sel = set_selector(merge_label_map(set, w->selector));
			else if ((strcmp(kind, "ReplicaSet") == 0 || strcmp(kind, "StatefulSet") == 0) &&
					 strcmp(api, "apps/v1") == 0 && (w = find_workload(kind, pod->namespace, name)) != NULL)
			{
				char	   *err;
				LabelSelector *other = LabelSelectorParseJsonb(w->selector, &err);

				/* selector.Add(other.Requirements()...) */
				if (other && !other->nothing)
					LabelSelectorAppend(sel, other);
			}
			break;
		}
	return sel->nreqs > 0 ? sel : NULL;
}

/* kube-scheduler's systemDefaultConstraints */
static Jsonb *
system_defaults(void)
{
	static Jsonb *defaults = NULL;

	if (defaults == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		defaults = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(
			"[{\"topologyKey\": \"kubernetes.io/hostname\", \"whenUnsatisfiable\": \"ScheduleAnyway\", \"maxSkew\": 3},"
			" {\"topologyKey\": \"topology.kubernetes.io/zone\", \"whenUnsatisfiable\": \"ScheduleAnyway\", \"maxSkew\": 5}]")));
		MemoryContextSwitchTo(old);
	}
	return defaults;
}

/*
 * The pod's constraints whose whenUnsatisfiable is action: its own, or,
 * when it has none, the default constraints (the system's, or the args'
 * defaultConstraints) with DefaultSelector's selector; *defaulted says
 * which.  NULL with *err on a bad one.
 */
static SpreadConstraint *
constraints_for(ClusterSnapshot *snap, const Args *args, const PodInfo *pod, const char *action, int *n,
				bool *defaulted, char **err)
{
	Jsonb	   *defaults;
	LabelSelector *sel;

	*defaulted = false;
	if (pod->spread && JB_ROOT_COUNT(pod->spread) > 0)
		return parse_constraints(snap, pod, pod->spread, NULL, action, n, err);
	*n = 0;
	*err = NULL;
	defaults = (args == NULL || args->system_defaulted) ? system_defaults() : args->default_constraints;
	if (defaults == NULL || JB_ROOT_COUNT(defaults) == 0)
		return NULL;
	/* filterTopologySpreadConstraints first: no selector needed when none is for this action */
	{
		bool		any = false;

		for (int i = 0; i < (int) JB_ROOT_COUNT(defaults) && !any; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(&defaults->root, i);
			JsonbValue *when = e->type == jbvBinary ? JGet(e->val.binary.data, "whenUnsatisfiable") : NULL;

			any = when && when->type == jbvString && (size_t) when->val.string.len == strlen(action) &&
				memcmp(when->val.string.val, action, when->val.string.len) == 0;
		}
		if (!any)
			return NULL;
	}
	sel = default_selector(snap, pod);
	if (sel == NULL)
		return NULL;
	*defaulted = true;
	return parse_constraints(snap, pod, defaults, sel, action, n, err);
}

/* Does the node count for constraint c (matchNodeInclusionPolicies)? */
static bool
node_included(const SpreadConstraint *c, ClusterSnapshot *snap, const PodInfo *pod, const void *req,
			  const NodeInfo *node)
{
	if (c->honor_affinity && !RequiredNodeAffinityMatches(req, snap, pod, node))
		return false;
	if (c->honor_taints)
		for (int i = 0; i < node->ntaints; i++)
		{
			const Taint *t = &node->taints[i];
			char	   *err;

			if (t->effect == NULL || (strcmp(t->effect, "NoSchedule") != 0 && strcmp(t->effect, "NoExecute") != 0))
				continue;
			if (!TolerationsTolerateTaint(pod->tolerations, pod->ntolerations, t, &err))
				return false;
		}
	return true;
}

/* Does the node have every constraint's key? */
static bool
has_all_keys(const SpreadConstraint *cs, int n, const NodeInfo *node)
{
	for (int i = 0; i < n; i++)
		if (NodeLabelNumber(cs[i].domains, node) < 0)
			return false;
	return true;
}

static bool
needs_node_check(const SpreadConstraint *c, const void *req, const PodInfo *pod)
{
	return (c->honor_affinity && (req != NULL || pod->node_selector != NULL)) || c->honor_taints;
}

/*
 * A node's domain for c: its number, or, when not every key is required
 * (system defaulting), the extra domain "" of the nodes without the key
 * (number ndomains); -1 when it has none.
 */
static int32
domain_of(const SpreadConstraint *c, const NodeInfo *node, bool require_all)
{
	int32		d = NodeLabelNumber(c->domains, node);

	return (d < 0 && !require_all) ? c->domains->nvalues : d;
}

/* count_domains' walk over the nodes, each checked for each constraint */
static void
count_domains_each(SpreadConstraint *cs, int n, ClusterSnapshot *snap, const PodInfo *pod, bool require_all)
{
	const void *req = RequiredNodeAffinity(pod);
	bool		gate = scheduler_features.NodeInclusionPolicyInPodTopologySpread;

	for (int i = 0; i < snap->nnodes; i++)
	{
		const NodeInfo *node = snap->nodes[i];

		if (!gate && (req != NULL || pod->node_selector != NULL) && !RequiredNodeAffinityMatches(req, snap, pod, node))
			continue;
		if (require_all && !has_all_keys(cs, n, node))
			continue;
		for (int k = 0; k < n; k++)
		{
			SpreadConstraint *c = &cs[k];
			int32		d = domain_of(c, node, require_all);

			if (d < 0 || c->domain_count[d] == -2)
				continue;
			if (gate && needs_node_check(c, req, pod) && !node_included(c, snap, pod, req, node))
				continue;
			if (c->domain_count[d] < 0)
				c->domain_count[d] = 0;
			c->domain_count[d] += TopologyNodeCount(c->counts, node);
		}
	}
}

/*
 * count_domains' walk for one constraint and no node that does not count:
 * a node counts in its domain when it has one (with one constraint, having
 * its key is having every key).  every_node: no candidates to keep to.
 */
static void
count_domains_one(SpreadConstraint *c, ClusterSnapshot *snap, bool require_all, bool every_node)
{
	const TopologyCounts *tc = c->counts;

	if (require_all && every_node)
	{
		/* every node with the key counts: every domain, with its sum */
		const int64 *sums = TopologyCountsByDomain(snap, c->counts, c->domains);

		for (int d = 0; d < c->domains->nvalues; d++)
			c->domain_count[d] = sums[d];
		return;
	}
	for (int i = 0; i < snap->nnodes; i++)
	{
		const NodeInfo *node = snap->nodes[i];
		int32		d = domain_of(c, node, require_all);

		if (d < 0 || c->domain_count[d] == -2)
			continue;
		if (c->domain_count[d] < 0)
			c->domain_count[d] = 0;
		if (node->ordinal < tc->nnode_counts)
			c->domain_count[d] += tc->node_counts[node->ordinal];
	}
}

/*
 * The matching pods per domain over the nodes that count, for each
 * constraint (calPreFilterState's TpValueToMatchNum); only_nodes, when not
 * NULL, marks by ordinal the nodes whose domains may be eligible.
 * require_all: only nodes with every constraint's key count
 * (nodeLabelsMatchSpreadConstraints); else a node without a key counts in
 * the domain "".
 */
static void
count_domains(SpreadConstraint *cs, int n, ClusterSnapshot *snap, const PodInfo *pod, const bool *only_nodes,
			  bool require_all)
{
	const void *req = RequiredNodeAffinity(pod);
	bool		gate = scheduler_features.NodeInclusionPolicyInPodTopologySpread;

	for (int k = 0; k < n; k++)
	{
		int			slots = cs[k].domains->nvalues + 1;

		cs[k].domain_count = palloc(sizeof(int64) * slots);
		cs[k].ndomain_slots = slots;
		for (int d = 0; d < slots; d++)
			cs[k].domain_count[d] = only_nodes ? -2 : -1;	/* -2: not among the candidates */
	}
	if (only_nodes)
		for (int i = 0; i < snap->nnodes; i++)
		{
			const NodeInfo *node = snap->nodes[i];

			if (!only_nodes[node->ordinal])
				continue;
			for (int k = 0; k < n; k++)
			{
				int32		d = domain_of(&cs[k], node, require_all);

				if (d >= 0)
					cs[k].domain_count[d] = -1;
			}
		}
	if (n == 1 && !(gate ? needs_node_check(&cs[0], req, pod) : (req != NULL || pod->node_selector != NULL)))
		count_domains_one(&cs[0], snap, require_all, only_nodes == NULL);
	else
		count_domains_each(cs, n, snap, pod, require_all);
	for (int k = 0; k < n; k++)
	{
		SpreadConstraint *c = &cs[k];

		c->ndomains_eligible = 0;
		c->min_count = PG_INT32_MAX;
		for (int d = 0; d <= c->domains->nvalues; d++)
			if (c->domain_count[d] >= 0)
			{
				c->ndomains_eligible++;
				if (c->domain_count[d] < c->min_count)
					c->min_count = c->domain_count[d];
			}
	}
}

static State *
state_of(PluginCall *call)
{
	if (call->state == NULL)
		call->state = palloc0(sizeof(State));
	return call->state;
}

/* ------------------------------------------------------------------------
 * PreFilter and Filter
 * ------------------------------------------------------------------------
 */
static void
prefilter(PluginCall *call, const PodInfo *pod, Status *st, List **node_names pg_attribute_unused())
{
	bool		defaulted;
	State	   *s = state_of(call);
	char	   *err;

	s->constraints = constraints_for(call->snap, call->args, pod, "DoNotSchedule", &s->nconstraints, &defaulted, &err);
	if (err)
	{
		StatusSet(st, CODE_ERROR, psprintf("get constraints from pod: %s", err));
		return;
	}
	if (s->nconstraints == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	count_domains(s->constraints, s->nconstraints, call->snap, pod, NULL, true);
	for (int k = 0; k < s->nconstraints; k++)
		s->constraints[k].self_match = LabelSelectorMatches(s->constraints[k].selector, pod->labels) ? 1 : 0;
	s->pod = pod;
}

/*
 * The pods nominated to the node that the Filter counts there
 * (RunFilterPluginsWithNominatedPods: on a copy of the node with them in,
 * nominated_in, those of the pod's priority or higher but the pod) and
 * that constraint c counts, as their AddPod (updateWithPod) adds them to
 * the node's domain: of the pod's namespace, matching c's selector, on a
 * node with every constraint's key that c's node inclusion policies take.
 */
static int64
nominated_matching(const State *s, const SpreadConstraint *c, ClusterSnapshot *snap, const PodInfo *pod,
				   const NodeInfo *node)
{
	int64		n = 0;
	ListCell   *lc;
	const void *req;

	foreach(lc, node->nominated)
	{
		const PodRef *p = lfirst(lc);

		if (!NominatedPodCounts(p, pod))
			continue;
		if (p->namespace != NULL && strcmp(p->namespace, pod->namespace ? pod->namespace : "") == 0 &&
			LabelSelectorMatches(c->selector, p->labels))
			n++;
	}
	if (n == 0 || !has_all_keys(s->constraints, s->nconstraints, node))
		return 0;
	/* the node counts as PreFilter counted nodes (count_domains_each) */
	req = RequiredNodeAffinity(pod);
	if (scheduler_features.NodeInclusionPolicyInPodTopologySpread)
		return needs_node_check(c, req, pod) && !node_included(c, snap, pod, req, node) ? 0 : n;
	return (req != NULL || pod->node_selector != NULL) && !RequiredNodeAffinityMatches(req, snap, pod, node) ? 0 : n;
}

static void
filter(PluginCall *call, const PodInfo *pod, const NodeInfo *node, Status *st)
{
	State	   *s = call->state;

	if (s == NULL)
		return;
	for (int k = 0; k < s->nconstraints; k++)
	{
		SpreadConstraint *c = &s->constraints[k];
		int32		d = NodeLabelNumber(c->domains, node);
		int64		count;
		int64		min_count = c->min_count;
		int			eligible = c->ndomains_eligible;
		int64		min;
		int64		match;

		if (d < 0)
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, ErrReasonNodeLabelNotMatch);
			return;
		}
		/* (a domain numbered since PreFilter counted none) */
		count = d < c->ndomain_slots ? c->domain_count[d] : -1;
		if (node->nominated_in)
		{
			int64		add = nominated_matching(s, c, call->snap, pod, node);

			if (add > 0)
			{
				/* the domain's count grows (a domain of its own if none), and the minimum with it */
				if (count < 0)
				{
					count = 0;
					eligible++;
				}
				count += add;
				min_count = count;
				for (int e = 0; e < c->ndomain_slots; e++)
					if (e != d && c->domain_count[e] >= 0 && c->domain_count[e] < min_count)
						min_count = c->domain_count[e];
			}
		}
		min = eligible < c->min_domains ? 0 : min_count;
		match = count > 0 ? count : 0;
		if (pod == s->pod ? c->self_match : LabelSelectorMatches(c->selector, pod->labels))
			match++;
		if (match - min > c->max_skew)
		{
			StatusSet(st, CODE_UNSCHEDULABLE, ErrReasonConstraintsNotMatch);
			return;
		}
	}
}

/* ------------------------------------------------------------------------
 * PreScore, Score, NormalizeScore
 * ------------------------------------------------------------------------
 */
static void
prescore(PluginCall *call, const PodInfo *pod, NodeInfo **nodes, int n, Status *st)
{
	const Args *args = call->args;
	bool		defaulted;
	bool		require_all;
	State	   *s = state_of(call);
	char	   *err;
	bool	   *candidate;
	SpreadConstraint *cs;
	int			ncs;

	if (call->snap->nnodes == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	cs = constraints_for(call->snap, args, pod, "ScheduleAnyway", &ncs, &defaulted, &err);
	if (err)
	{
		StatusSet(st, CODE_ERROR,
				  psprintf("calculating preScoreState: obtaining pod's soft topology spread constraints: %s", err));
		return;
	}
	if (ncs == 0)
	{
		st->code = CODE_SKIP;
		return;
	}
	s->constraints = cs;
	s->nconstraints = ncs;
	s->scored = nodes;
	s->ignored = palloc0(sizeof(bool) * Max(call->snap->nordinals, 1));
	candidate = palloc0(sizeof(bool) * Max(call->snap->nordinals, 1));
	s->nignored = 0;
	/*
	 * Only with the system defaults may a node lack a topology key and
	 * still be scored (so that nodes without a zone still spread by host).
	 */
	require_all = !defaulted || !args->system_defaulted;
	for (int i = 0; i < n; i++)
	{
		if (require_all && !has_all_keys(cs, ncs, nodes[i]))
		{
			s->ignored[nodes[i]->ordinal] = true;
			s->nignored++;
		}
		else
			candidate[nodes[i]->ordinal] = true;
	}
	/* domains among the candidates; their counts over every node that counts */
	count_domains(cs, ncs, call->snap, pod, candidate, require_all);
	s->weight = palloc(sizeof(double) * ncs);
	for (int k = 0; k < ncs; k++)
	{
		int			size = 0;

		if (strcmp(cs[k].topology_key, LabelHostname) == 0)
			size = n - s->nignored;
		else
			for (int d = 0; d <= cs[k].domains->nvalues; d++)
				size += (cs[k].domain_count[d] != -2);
		s->weight[k] = log((double) size + 2);
	}
}

static int64
score(PluginCall *call, const PodInfo *pod pg_attribute_unused(), const NodeInfo *node, Status *st pg_attribute_unused())
{
	State	   *s = call->state;
	double		total = 0;

	if (s->ignored[node->ordinal])
		return 0;
	for (int k = 0; k < s->nconstraints; k++)
	{
		SpreadConstraint *c = &s->constraints[k];
		int32		d = NodeLabelNumber(c->domains, node);
		int64		count;

		if (d < 0)
			continue;
		if (strcmp(c->topology_key, LabelHostname) == 0)
			count = TopologyNodeCount(c->counts, node);
		else
			count = c->domain_count[d] > 0 ? c->domain_count[d] : 0;
		total += (double) count * s->weight[k] + (double) (c->max_skew - 1);
	}
	/* a double beyond int64 cannot be cast (counts and skews are bounded; be sure) */
	total = round(total);
	return total >= 9.2e18 ? (int64) 9200000000000000000 : (int64) total;
}

static void
normalize(PluginCall *call, const PodInfo *pod pg_attribute_unused(), int64 *scores, int n, Status *st pg_attribute_unused())
{
	/* RunScores passes the scores in the order of the nodes it scored */
	State	   *s = call->state;
	int64		min = PG_INT64_MAX;
	int64		max = 0;
	NodeInfo  **nodes = s->scored;

	for (int i = 0; i < n; i++)
	{
		if (s->ignored[nodes[i]->ordinal])
			continue;
		if (scores[i] < min)
			min = scores[i];
		if (scores[i] > max)
			max = scores[i];
	}
	for (int i = 0; i < n; i++)
	{
		if (s->ignored[nodes[i]->ordinal])
			scores[i] = 0;
		else if (max == 0)
			scores[i] = 100;
		else					/* 100 * (max + min - score) / max, without overflow */
			scores[i] = MulDiv(100, (max - scores[i]) + min, max);
	}
}

/* ------------------------------------------------------------------------
 * QueueingHints
 * ------------------------------------------------------------------------
 */
static bool
node_has_keys(const SpreadConstraint *cs, int n, const NodeInfo *node)
{
	for (int i = 0; i < n; i++)
	{
		int			len;

		if (LabelGet(node->labels, cs[i].topology_key, strlen(cs[i].topology_key), &len) == NULL)
			return false;
	}
	return true;
}

/*
 * isSchedulableAfterPodChange: an assigned pod of the same namespace added
 * or deleted that a DoNotSchedule constraint's selector matches, or
 * relabelled so that some selector's verdict on it changes.
 */
static QueueingHint
pod_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	bool		defaulted;
	const PodRef *o = ev->old_pod;
	const PodRef *n = ev->new_pod;
	char	   *err;
	int			ncs;
	SpreadConstraint *cs;

	if ((n && strcmp(n->namespace, pod->namespace) != 0) || (o && strcmp(o->namespace, pod->namespace) != 0))
		return HINT_SKIP;
	cs = constraints_for(NULL, NULL, pod, "DoNotSchedule", &ncs, &defaulted, &err);
	if (err)
		return HINT_QUEUE;
	for (int i = 0; i < ncs; i++)
	{
		if (o && n)
		{
			if (LabelSelectorMatches(cs[i].selector, o->labels) != LabelSelectorMatches(cs[i].selector, n->labels))
				return HINT_QUEUE;
		}
		else if (LabelSelectorMatches(cs[i].selector, n ? n->labels : o->labels))
			return HINT_QUEUE;
	}
	return HINT_SKIP;
}

/*
 * isSchedulableAfterNodeChange: a node added or deleted that has every
 * constraint's key; a node updated that has them, and did not have them
 * all or had other values for them, or whose taints changed.
 */
static QueueingHint
node_hint(const PodInfo *pod, const ClusterEvent *ev)
{
	const NodeInfo *o = ev->old_node;
	const NodeInfo *n = ev->new_node;
	char	   *err;
	int			ncs;
	bool		defaulted;
	SpreadConstraint *cs = constraints_for(NULL, NULL, pod, "DoNotSchedule", &ncs, &defaulted, &err);

	if (err)
		return HINT_QUEUE;
	if (n == NULL)
		return node_has_keys(cs, ncs, o) ? HINT_QUEUE : HINT_SKIP;
	if (!node_has_keys(cs, ncs, n))
		return HINT_SKIP;
	if (o == NULL || !node_has_keys(cs, ncs, o) || ev->action == ACT_UPDATE_NODE_TAINT)
		return HINT_QUEUE;
	for (int i = 0; i < ncs; i++)
	{
		const char *key = cs[i].topology_key;
		int			olen,
					nlen;
		const char *ov = LabelGet(o->labels, key, strlen(key), &olen);
		const char *nv = LabelGet(n->labels, key, strlen(key), &nlen);

		if (olen != nlen || memcmp(ov, nv, olen) != 0)
			return HINT_QUEUE;
	}
	return HINT_SKIP;
}

/* SignPod: PreFilter reads the constraints (or the defaults, from the owners), the labels and namespace they select, and the node inclusion policies (node affinity, tolerations) */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(spread) | POD_FIELD(labels) | POD_FIELD(namespace) |
			   POD_FIELD(node_selector) | POD_FIELD(affinity) | POD_FIELD(tolerations) | POD_FIELD(owner_refs));
}

const Plugin PodTopologySpreadPlugin = {
	.sign = sign,
	.name = "PodTopologySpread",
	.reads_pods = true,
	.parse_args = parse_args,
	.prefilter = prefilter,
	.filter = filter,
	.prescore = prescore,
	.score = score,
	.normalize = normalize,
	.events = {
		{RES_ASSIGNED_POD, ACT_ADD | ACT_UPDATE_POD_LABEL | ACT_DELETE, pod_hint},
		{RES_NODE, ACT_ADD | ACT_DELETE | ACT_UPDATE_NODE_LABEL | ACT_UPDATE_NODE_TAINT, node_hint},
	},
};
