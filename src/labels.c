/*
 * labels.c
 *	  Kubernetes labels as apimachinery reads them: label keys and values,
 *	  and label selectors (metav1.LabelSelector), which pod affinity, pod
 *	  topology spread and disruption budgets use to pick pods.
 */
#include "postgres.h"

#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "jsonutil.h"
#include "labels.h"

/* ------------------------------------------------------------------------
 * Validation, as apimachinery's: qualified names and label values
 * ------------------------------------------------------------------------
 */
static bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most max chars; empty if allow_empty */
static bool
valid_name_part(const char *s, int len, int max, bool allow_empty)
{
	if (len == 0)
		return allow_empty;
	if (len > max || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (int i = 1; i < len - 1; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* DNS-1123 subdomain: lowercase, [a-z0-9]([-a-z0-9]*[a-z0-9])? parts joined by '.', <= 253 */
static bool
valid_dns_subdomain(const char *s, int len)
{
	if (len == 0 || len > 253)
		return false;
	for (int i = 0; i < len; i++)
	{
		char		c = s[i];
		bool		alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && c != '-' && c != '.')
			return false;
		if ((i == 0 || i == len - 1) && !alnum)
			return false;
		if (c == '.' && (s[i - 1] == '.' || s[i - 1] == '-' || s[i + 1] == '-'))
			return false;
	}
	return true;
}

bool
LabelValidKey(const char *s)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL)
		return valid_name_part(s, strlen(s), 63, false);
	if (strchr(slash + 1, '/') != NULL)
		return false;
	return valid_dns_subdomain(s, slash - s) && valid_name_part(slash + 1, strlen(slash + 1), 63, false);
}

bool
LabelValidValue(const char *s)
{
	return valid_name_part(s, strlen(s), 63, true);
}

/* The messages apimachinery's validation gives for a bad key or value */
#define QUALIFIED_NAME_FMT "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_FMT "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

static char *
key_error(const char *key)
{
	const char *slash = strchr(key, '/');
	const char *name = slash ? slash + 1 : key;

	if (LabelValidKey(key))
		return NULL;
	if (slash && (strchr(name, '/') || !valid_dns_subdomain(key, slash - key)))
		return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
	if (*name == '\0')
		return "name part must be non-empty";
	if (strlen(name) > 63)
		return "name part must be no more than 63 characters";
	return QUALIFIED_NAME_FMT;
}

/* ------------------------------------------------------------------------
 * Label selectors (metav1.LabelSelectorAsSelector, labels.Requirement)
 * ------------------------------------------------------------------------
 */

/* Look a label up; NULL when absent (or not a string). */
const char *
LabelGet(Jsonb *labels, const char *key, int keylen, int *len)
{
	JsonbValue	v;

	if (labels == NULL || !JB_ROOT_IS_OBJECT(labels))
		return NULL;
	if (!getKeyJsonValueFromContainer(&labels->root, key, keylen, &v) || v.type != jbvString)
		return NULL;
	*len = v.val.string.len;
	return v.val.string.val;
}

/*
 * labels.Set(map).AsSelector().Matches(labels): every key of map present
 * in labels with an equal value (a nodeSelector, a Service's selector).  A
 * map that is not an object matches everything.
 */
bool
LabelMapMatches(Jsonb *map, Jsonb *labels)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	if (map == NULL || !JB_ROOT_IS_OBJECT(map))
		return true;
	it = JsonbIteratorInit(&map->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		int			len;
		const char *have;

		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &v, true);
		have = LabelGet(labels, k.val.string.val, k.val.string.len, &len);
		if (have == NULL || v.type != jbvString || len != v.val.string.len ||
			memcmp(have, v.val.string.val, len) != 0)
			return false;
	}
	return true;
}

static void
add_requirement(LabelSelector *s, const char *key, int keylen, LabelOp op, int nvalues, char **values)
{
	LabelRequirement *r;

	if (s->nreqs == s->maxreqs)
	{
		s->maxreqs = Max(4, s->maxreqs * 2);
		s->reqs = s->reqs ? repalloc(s->reqs, sizeof(LabelRequirement) * s->maxreqs) :
			palloc(sizeof(LabelRequirement) * s->maxreqs);
	}
	r = &s->reqs[s->nreqs++];
	r->key = pnstrdup(key, keylen);
	r->keylen = keylen;
	r->op = op;
	r->nvalues = nvalues;
	r->values = values;
}

/* selector.Add(other.Requirements()...): other's requirements ANDed into s */
void
LabelSelectorAppend(LabelSelector *s, const LabelSelector *other)
{
	for (int i = 0; i < other->nreqs; i++)
		add_requirement(s, other->reqs[i].key, other->reqs[i].keylen, other->reqs[i].op,
						other->reqs[i].nvalues, other->reqs[i].values);
	if (other->nreqs > 0)
		s->everything = false;
}

void
LabelSelectorAdd(LabelSelector *s, const char *key, LabelOp op, const char *value)
{
	char	  **values = palloc(sizeof(char *));

	values[0] = pstrdup(value);
	add_requirement(s, key, strlen(key), op, 1, values);
	s->everything = false;
}

/*
 * labels.NewRequirement's checks: the key, the number of values for the
 * operator, each value.  NULL when the requirement is valid.
 */
static char *
requirement_error(const char *key, LabelOp op, int nvalues, char **values, const char *opname)
{
	char	   *why = key_error(key);

	if (why)
		return psprintf("key: Invalid value: \"%s\": %s", JShort(key), why);
	if ((op == LABEL_IN || op == LABEL_NOT_IN) && nvalues == 0)
		return psprintf("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
	if ((op == LABEL_EXISTS || op == LABEL_DOES_NOT_EXIST) && nvalues != 0)
		return psprintf("values: Invalid value: []string{...}: values set must be empty for exists and does not exist");
	for (int i = 0; i < nvalues; i++)
		if (!LabelValidValue(values[i]))
			return psprintf("values[%d][%s]: Invalid value: \"%s\": %s", i, JShort(key), JShort(values[i]),
							strlen(values[i]) > 63 ? "must be no more than 63 characters" : LABEL_VALUE_FMT);
	(void) opname;
	return NULL;
}

static char *
text_of(JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* matchLabels' pairs as In requirements; NULL or the error */
static char *
parse_match_labels(LabelSelector *s, JsonbValue *ml)
{
	JsonbIterator *it = JsonbIteratorInit(ml->val.binary.data);
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;
	char	   *err;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	  **values;
		char	   *key;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &val, true);
		if (val.type != jbvString)
			return psprintf("matchLabels: the value of \"%s\" must be a string", JShort(text_of(&k)));
		key = text_of(&k);
		values = palloc(sizeof(char *));
		values[0] = text_of(&val);
		if ((err = requirement_error(key, LABEL_IN, 1, values, "=")) != NULL)
			return err;
		add_requirement(s, key, strlen(key), LABEL_IN, 1, values);
	}
	return NULL;
}

/* matchExpressions[i] as a requirement; NULL or the error */
static char *
parse_match_expression(LabelSelector *s, JsonbValue *e, int i)
{
	JsonbValue *key,
			   *op,
			   *vals;
	char	   *ops;
	LabelOp		lop;
	int			nv = 0;
	char	  **values;
	char	   *err;

	if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		return psprintf("matchExpressions[%d] must be an object", i);
	key = JGet(e->val.binary.data, "key");
	op = JGet(e->val.binary.data, "operator");
	vals = JGet(e->val.binary.data, "values");
	if (key == NULL || key->type != jbvString || op == NULL || op->type != jbvString)
		return psprintf("matchExpressions[%d]: key and operator are required strings", i);
	ops = text_of(op);
	if (strcmp(ops, "In") == 0)
		lop = LABEL_IN;
	else if (strcmp(ops, "NotIn") == 0)
		lop = LABEL_NOT_IN;
	else if (strcmp(ops, "Exists") == 0)
		lop = LABEL_EXISTS;
	else if (strcmp(ops, "DoesNotExist") == 0)
		lop = LABEL_DOES_NOT_EXIST;
	else
		return psprintf("\"%s\" is not a valid label selector operator", JShort(ops));
	if (vals && vals->type == jbvBinary && JsonContainerIsArray(vals->val.binary.data))
		nv = JsonContainerSize(vals->val.binary.data);
	else if (vals && vals->type != jbvNull)
		return psprintf("matchExpressions[%d].values must be an array", i);
	values = palloc(sizeof(char *) * Max(nv, 1));
	for (int j = 0; j < nv; j++)
	{
		JsonbValue *x = getIthJsonbValueFromContainer(vals->val.binary.data, j);

		if (x->type != jbvString)
			return psprintf("matchExpressions[%d].values[%d] must be a string", i, j);
		values[j] = text_of(x);
	}
	if ((err = requirement_error(text_of(key), lop, nv, values, ops)) != NULL)
		return err;
	add_requirement(s, key->val.string.val, key->val.string.len, lop, nv, values);
	return NULL;
}

/*
 * LabelSelectorParse
 *		metav1.LabelSelectorAsSelector: NULL (absent or JSON null) selects
 *		nothing; {} selects everything; otherwise matchLabels and
 *		matchExpressions, ANDed.  Returns NULL with *err set when a
 *		requirement is invalid (the message apimachinery gives).
 */
LabelSelector *
LabelSelectorParse(JsonbValue *v, char **err)
{
	LabelSelector *s = palloc0(sizeof(LabelSelector));
	JsonbValue *ml;
	JsonbValue *me;

	*err = NULL;
	if (v == NULL || v->type == jbvNull)
	{
		s->nothing = true;
		return s;
	}
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
	{
		*err = "a label selector must be an object";
		return NULL;
	}
	ml = JGet(v->val.binary.data, "matchLabels");
	me = JGet(v->val.binary.data, "matchExpressions");
	s->everything = true;
	if (ml && ml->type == jbvBinary && JsonContainerIsObject(ml->val.binary.data))
	{
		if ((*err = parse_match_labels(s, ml)) != NULL)
			return NULL;
	}
	else if (ml && ml->type != jbvNull)
	{
		*err = "matchLabels must be an object";
		return NULL;
	}
	if (me && me->type == jbvBinary && JsonContainerIsArray(me->val.binary.data))
	{
		int			n = JsonContainerSize(me->val.binary.data);

		for (int i = 0; i < n; i++)
			if ((*err = parse_match_expression(s, getIthJsonbValueFromContainer(me->val.binary.data, i), i)) != NULL)
				return NULL;
	}
	else if (me && me->type != jbvNull)
	{
		*err = "matchExpressions must be an array";
		return NULL;
	}
	if (s->nreqs > 0)
		s->everything = false;
	return s;
}

/* LabelSelectorParse of a stored selector (NULL: none) */
LabelSelector *
LabelSelectorParseJsonb(Jsonb *jb, char **err)
{
	JsonbValue	v;

	if (jb == NULL)
		return LabelSelectorParse(NULL, err);
	v.type = jbvBinary;
	v.val.binary.data = &jb->root;
	v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	return LabelSelectorParse(&v, err);
}

static bool
requirement_matches(const LabelRequirement *r, Jsonb *labels)
{
	int			len = 0;
	const char *v = LabelGet(labels, r->key, r->keylen, &len);
	bool		in = false;

	switch (r->op)
	{
		case LABEL_EXISTS:
			return v != NULL;
		case LABEL_DOES_NOT_EXIST:
			return v == NULL;
		case LABEL_IN:
		case LABEL_NOT_IN:
			for (int i = 0; v && i < r->nvalues && !in; i++)
				in = ((int) strlen(r->values[i]) == len && memcmp(r->values[i], v, len) == 0);
			return r->op == LABEL_IN ? in : !in;
	}
	return false;
}

/* labels.Selector.Matches */
bool
LabelSelectorMatches(const LabelSelector *s, Jsonb *labels)
{
	if (s->nothing)
		return false;
	for (int i = 0; i < s->nreqs; i++)
		if (!requirement_matches(&s->reqs[i], labels))
			return false;
	return true;
}

static int
cmp_requirement_text(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * A canonical text for the selector: equal texts select the same pods.
 * Requirements are sorted, so the order they were written in does not count.
 */
void
LabelSelectorAppendKey(StringInfo buf, const LabelSelector *s)
{
	char	  **texts;

	if (s->nothing)
	{
		appendStringInfoString(buf, "<nothing>");
		return;
	}
	texts = palloc(sizeof(char *) * Max(s->nreqs, 1));
	for (int i = 0; i < s->nreqs; i++)
	{
		StringInfoData t;

		/* key, operator and values, \x01 between them (no format strings: once per term and pod) */
		initStringInfo(&t);
		appendStringInfoString(&t, s->reqs[i].key);
		appendStringInfoChar(&t, '\x01');
		appendStringInfoChar(&t, (char) ('0' + (int) s->reqs[i].op));
		for (int j = 0; j < s->reqs[i].nvalues; j++)
		{
			appendStringInfoChar(&t, '\x01');
			appendStringInfoString(&t, s->reqs[i].values[j]);
		}
		texts[i] = t.data;
	}
	qsort(texts, s->nreqs, sizeof(char *), cmp_requirement_text);
	appendStringInfoChar(buf, '{');
	for (int i = 0; i < s->nreqs; i++)
	{
		appendStringInfoString(buf, texts[i]);
		appendStringInfoChar(buf, '\x02');
	}
	appendStringInfoChar(buf, '}');
}

/* ------------------------------------------------------------------------
 * Pod affinity terms (kube-scheduler's framework.AffinityTerm)
 * ------------------------------------------------------------------------
 */

/*
 * matchLabelKeys and mismatchLabelKeys, as the API server merges them into
 * the label selector when it admits a pod: key In (or NotIn) the pod's own
 * value, for each key the pod has, and only when there is a selector.
 * A pod from the API server has them merged already; merging again adds
 * the same requirement twice, which selects the same pods.
 */
static char *
merge_label_keys(LabelSelector *s, JsonbContainer *term, Jsonb *pod_labels, const char *path)
{
	static const char *const parts[] = {"matchLabelKeys", "mismatchLabelKeys"};

	for (int p = 0; p < 2; p++)
	{
		JsonbValue *keys = JGet(term, parts[p]);

		if (keys == NULL || keys->type == jbvNull)
			continue;
		if (keys->type != jbvBinary || !JsonContainerIsArray(keys->val.binary.data))
			return psprintf("%s.%s must be an array", path, parts[p]);
		for (int i = 0; i < (int) JsonContainerSize(keys->val.binary.data); i++)
		{
			JsonbValue *k = getIthJsonbValueFromContainer(keys->val.binary.data, i);
			const char *v;
			int			len;

			if (k->type != jbvString)
				return psprintf("%s.%s[%d] must be a string", path, parts[p], i);
			if (s->nothing)
				continue;
			v = LabelGet(pod_labels, k->val.string.val, k->val.string.len, &len);
			if (v)
				LabelSelectorAdd(s, text_of(k), p == 0 ? LABEL_IN : LABEL_NOT_IN, pnstrdup(v, len));
		}
	}
	return NULL;
}

/* newAffinityTerm: NULL with *err when a selector does not parse */
static bool
parse_affinity_term(JsonbContainer *c, const char *ns, Jsonb *pod_labels, AffinityTerm *t,
					const char *path, char **err)
{
	JsonbValue *tk = JGet(c, "topologyKey");
	JsonbValue *nss = JGet(c, "namespaces");
	JsonbValue *nssel = JGet(c, "namespaceSelector");

	memset(t, 0, sizeof(*t));
	t->selector = LabelSelectorParse(JGet(c, "labelSelector"), err);
	if (t->selector == NULL)
		return false;
	if ((*err = merge_label_keys(t->selector, c, pod_labels, path)) != NULL)
		return false;
	t->topology_key = (tk && tk->type == jbvString) ? text_of(tk) : "";
	t->ns_selector = LabelSelectorParse(nssel, err);
	if (t->ns_selector == NULL)
		return false;
	if (nss && nss->type == jbvBinary && JsonContainerIsArray(nss->val.binary.data))
	{
		int			n = JsonContainerSize(nss->val.binary.data);

		t->namespaces = palloc(sizeof(char *) * Max(n, 1));
		for (int i = 0; i < n; i++)
		{
			JsonbValue *x = getIthJsonbValueFromContainer(nss->val.binary.data, i);

			if (x->type == jbvString)
				t->namespaces[t->nnamespaces++] = text_of(x);
		}
	}
	/* no namespaces and no namespaceSelector: the pod's own namespace */
	if (t->nnamespaces == 0 && (nssel == NULL || nssel->type == jbvNull))
	{
		t->namespaces = palloc(sizeof(char *));
		t->namespaces[t->nnamespaces++] = pstrdup(ns ? ns : "");
	}
	return true;
}

/* getAffinityTerms / getWeightedAffinityTerms over one list; *err on the first bad term */
static AffinityTerm *
parse_term_list(JsonbContainer *aff, const char *kind, const char *when, bool weighted,
				const char *ns, Jsonb *pod_labels, int *n, char **err)
{
	JsonbValue *k = JGet(aff, kind);
	JsonbValue *list;
	AffinityTerm *terms;
	int			count;

	*n = 0;
	*err = NULL;
	if (k == NULL || k->type != jbvBinary || !JsonContainerIsObject(k->val.binary.data))
		return NULL;
	list = JGet(k->val.binary.data, when);
	if (list == NULL || list->type != jbvBinary || !JsonContainerIsArray(list->val.binary.data))
		return NULL;
	count = JsonContainerSize(list->val.binary.data);
	terms = palloc0(sizeof(AffinityTerm) * Max(count, 1));
	for (int i = 0; i < count; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(list->val.binary.data, i);
		JsonbContainer *c;
		char	   *path = psprintf("%s.%s[%d]", kind, when, i);

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		{
			*err = psprintf("%s must be an object", path);
			return NULL;
		}
		c = e->val.binary.data;
		if (weighted)
		{
			JsonbValue *w = JGet(c, "weight");
			JsonbValue *pat = JGet(c, "podAffinityTerm");

			if (pat == NULL || pat->type != jbvBinary || !JsonContainerIsObject(pat->val.binary.data))
			{
				*err = psprintf("%s.podAffinityTerm must be an object", path);
				return NULL;
			}
			if (!parse_affinity_term(pat->val.binary.data, ns, pod_labels, &terms[i], path, err))
				return NULL;
			/* 1..100, as the API server admits it; a stored row may say otherwise */
			if (!JValueInt32(w, &terms[i].weight) || terms[i].weight < 1 || terms[i].weight > 100)
			{
				*err = psprintf("%s.weight: must be in the range 1-100", path);
				return NULL;
			}
		}
		else if (!parse_affinity_term(c, ns, pod_labels, &terms[i], path, err))
			return NULL;
	}
	*n = count;
	return terms;
}

static PodAffinity *
parse_pod_affinity(Jsonb *affinity, const char *ns, Jsonb *pod_labels, char **err)
{
	static const char *const names[] = {
		"requiredAffinityTerms", "requiredAntiAffinityTerms",
		"preferredAffinityTerms", "preferredAntiAffinityTerms"
	};
	PodAffinity *pa;
	List	   *errs = NIL;
	int		   *counts[4];
	AffinityTerm **lists[4];

	*err = NULL;
	pa = palloc0(sizeof(PodAffinity));
	counts[0] = &pa->nreq_aff;
	counts[1] = &pa->nreq_anti;
	counts[2] = &pa->npref_aff;
	counts[3] = &pa->npref_anti;
	lists[0] = &pa->req_aff;
	lists[1] = &pa->req_anti;
	lists[2] = &pa->pref_aff;
	lists[3] = &pa->pref_anti;
	for (int i = 0; i < 4; i++)
	{
		char	   *e;

		*lists[i] = parse_term_list(&affinity->root, (i % 2) ? "podAntiAffinity" : "podAffinity",
									i < 2 ? "requiredDuringSchedulingIgnoredDuringExecution" :
									"preferredDuringSchedulingIgnoredDuringExecution",
									i >= 2, ns, pod_labels, counts[i], &e);
		if (e)
		{
			char	   *msg = psprintf("%s: %s", names[i], e);
			ListCell   *lc;
			bool		seen = false;

			foreach(lc, errs)
				seen |= (strcmp(lfirst(lc), msg) == 0);
			if (!seen)
				errs = lappend(errs, msg);
		}
	}
	if (errs != NIL)
	{
		StringInfoData buf;
		ListCell   *lc;

		initStringInfo(&buf);
		foreach(lc, errs)
			appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "", (char *) lfirst(lc));
		*err = list_length(errs) == 1 ? buf.data : psprintf("[%s]", buf.data);
	}
	if (pa->nreq_aff + pa->nreq_anti + pa->npref_aff + pa->npref_anti == 0)
		return NULL;
	return pa;
}

/*
 * AffinityTerm.Matches: the pod is in one of the term's namespaces, or its
 * namespace's labels match the namespaceSelector, and its labels match.
 */
bool
AffinityTermMatches(const AffinityTerm *t, const char *ns, Jsonb *labels, Jsonb *ns_labels)
{
	bool		in = false;

	for (int i = 0; i < t->nnamespaces && !in; i++)
		in = strcmp(t->namespaces[i], ns) == 0;
	if (!in && !LabelSelectorMatches(t->ns_selector, ns_labels))
		return false;
	return LabelSelectorMatches(t->selector, labels);
}

static LabelSelector *
selector_copy(const LabelSelector *s)
{
	LabelSelector *c = palloc(sizeof(LabelSelector));

	*c = *s;
	c->maxreqs = s->nreqs;
	c->reqs = palloc(sizeof(LabelRequirement) * Max(s->nreqs, 1));
	for (int i = 0; i < s->nreqs; i++)
	{
		c->reqs[i] = s->reqs[i];
		c->reqs[i].key = pstrdup(s->reqs[i].key);
		c->reqs[i].values = palloc(sizeof(char *) * Max(s->reqs[i].nvalues, 1));
		for (int j = 0; j < s->reqs[i].nvalues; j++)
			c->reqs[i].values[j] = pstrdup(s->reqs[i].values[j]);
	}
	return c;
}

/* A deep copy, in the current memory context */
AffinityTerm
AffinityTermCopy(const AffinityTerm *t)
{
	AffinityTerm c = *t;

	c.selector = selector_copy(t->selector);
	c.ns_selector = selector_copy(t->ns_selector);
	c.topology_key = pstrdup(t->topology_key);
	c.namespaces = palloc(sizeof(char *) * Max(t->nnamespaces, 1));
	for (int i = 0; i < t->nnamespaces; i++)
		c.namespaces[i] = pstrdup(t->namespaces[i]);
	c.owned = NULL;
	return c;
}

/* ------------------------------------------------------------------------
 * The last terms parsed, kept to be copied
 *
 * One pod's terms are read by InterPodAffinity's PreFilter and PreScore and
 * by its assume, in that order, and the pods of one template (a Deployment's,
 * a Job's) have the same affinity, labels and namespace: the last parse is
 * kept, and a call with the same three gets a copy of it (a copy, as the
 * caller may change it: PreFilter merges a term's namespaceSelector into its
 * namespaces, and the snapshot hangs its counts on a term).
 * ------------------------------------------------------------------------
 */
static struct
{
	MemoryContext cxt;
	bool		valid;
	Jsonb	   *affinity;
	Jsonb	   *labels;
	char	   *ns;
	PodAffinity *pa;
	char	   *err;
}			memo;

static AffinityTerm *
copy_terms(const AffinityTerm *terms, int n)
{
	AffinityTerm *c;

	if (n == 0)
		return NULL;
	c = palloc(sizeof(AffinityTerm) * n);
	for (int i = 0; i < n; i++)
		c[i] = AffinityTermCopy(&terms[i]);
	return c;
}

/* A deep copy, in the current memory context */
static PodAffinity *
copy_pod_affinity(const PodAffinity *pa)
{
	PodAffinity *c;

	if (pa == NULL)
		return NULL;
	c = palloc(sizeof(PodAffinity));
	*c = *pa;
	c->req_aff = copy_terms(pa->req_aff, pa->nreq_aff);
	c->req_anti = copy_terms(pa->req_anti, pa->nreq_anti);
	c->pref_aff = copy_terms(pa->pref_aff, pa->npref_aff);
	c->pref_anti = copy_terms(pa->pref_anti, pa->npref_anti);
	return c;
}

/*
 * PodAffinityParse
 *		The pod affinity terms of spec.affinity, as framework.NewPodInfo reads
 *		them.  A list with a bad term is left empty and its error is kept in
 *		*err ("requiredAffinityTerms: ...", several joined as an aggregate
 *		error is printed); the other lists still parse.  Returns NULL when
 *		the pod has no terms at all.  What it returns is the caller's own,
 *		in the current memory context.
 */
PodAffinity *
PodAffinityParse(Jsonb *affinity, const char *ns, Jsonb *pod_labels, char **err)
{
	PodAffinity *pa;
	MemoryContext old;

	*err = NULL;
	if (affinity == NULL || !JB_ROOT_IS_OBJECT(affinity) ||
		(JGet(&affinity->root, "podAffinity") == NULL && JGet(&affinity->root, "podAntiAffinity") == NULL))
		return NULL;
	if (ns == NULL)
		ns = "";
	if (memo.valid && strcmp(memo.ns, ns) == 0 && JSameBytes(memo.affinity, affinity) &&
		JSameBytes(memo.labels, pod_labels))
	{
		*err = memo.err ? pstrdup(memo.err) : NULL;
		return copy_pod_affinity(memo.pa);
	}
	pa = parse_pod_affinity(affinity, ns, pod_labels, err);
	if (memo.cxt == NULL)
		memo.cxt = AllocSetContextCreate(TopMemoryContext, "scheduler pod affinity terms",
										 ALLOCSET_SMALL_SIZES);
	/* invalid until whole: a copy that fails (out of memory) leaves no half */
	memo.valid = false;
	MemoryContextReset(memo.cxt);
	old = MemoryContextSwitchTo(memo.cxt);
	memo.affinity = DatumGetJsonbPCopy(JsonbPGetDatum(affinity));
	memo.labels = pod_labels ? DatumGetJsonbPCopy(JsonbPGetDatum(pod_labels)) : NULL;
	memo.ns = pstrdup(ns);
	memo.pa = copy_pod_affinity(pa);
	memo.err = *err ? pstrdup(*err) : NULL;
	MemoryContextSwitchTo(old);
	memo.valid = true;
	return pa;
}
