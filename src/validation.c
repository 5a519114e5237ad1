/*
 * validation.c
 *	  What scheduler.apply() accepts, checked at the door as the API server
 *	  checks it (k8s.io/kubernetes pkg/apis/core/validation, apimachinery's
 *	  util/validation and meta/v1/validation, policy's validation).
 *
 * Everything the scheduler reads of an object (its plugins, the queue,
 * explain, the requests it sends) is checked against the Kubernetes API's
 * types and rules: JSON types, required fields, ranges, enums, selector
 * operators with their values rules, DNS-1123 names and namespaces, label
 * keys and values, ownerReferences, RFC 3339 times.  A violation is an
 * ERROR (22023) naming the object and the field, in the API server's words
 * ("spec.tolerations[0].effect: Unsupported value: \"Sometimes\": supported
 * values: ..."), its value cut short whatever its length.  The first
 * violation found is reported (the API server lists them all).
 *
 * Where the API server's rules depend on a feature gate or on defaults it
 * fills in (Gt and Lt tolerations, matchLabelKeys, a port's protocol), the
 * mirror accepts what a newer or differently configured API server may hold:
 * it must never refuse an object that a real cluster has.  Fields the
 * scheduler does not read (a container's name, its command, annotations)
 * are stored as given.  kube-scheduler's own tests feed it objects that an
 * API server would refuse (a port with no containerPort, "pods" among a
 * container's requests); the scheduler reads those fields the way kube-
 * scheduler does, so the rules for them are the ones the scheduler needs.
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/builtins.h"
#include "utils/datetime.h"

#include "jsonutil.h"
#include "labels.h"
#include "quantity.h"
#include "resources.h"
#include "validation.h"

/* ------------------------------------------------------------------------
 * Errors, as field.Error prints them: "<path>: <type>[: <value>][: <detail>]"
 * ------------------------------------------------------------------------
 */
static void
fail(const char *what, const char *path, const char *body)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s: %s", what, path, body)));
}

static char *
quoted(const char *s)
{
	return psprintf("\"%s\"", JCut(s, strlen(s), JCUT_MAX));
}

static void
required(const char *what, const char *path, const char *detail)
{
	fail(what, path, detail ? psprintf("Required value: %s", detail) : "Required value");
}

static void
invalid(const char *what, const char *path, const char *value, const char *detail)
{
	fail(what, path, psprintf("Invalid value: %s: %s", quoted(value), detail));
}

static void
invalid_int(const char *what, const char *path, int64 value, const char *detail)
{
	fail(what, path, psprintf("Invalid value: %lld: %s", (long long) value, detail));
}

static void
unsupported(const char *what, const char *path, const char *value, const char *supported)
{
	fail(what, path, psprintf("Unsupported value: %s: supported values: %s", quoted(value), supported));
}

static void
forbidden(const char *what, const char *path, const char *detail)
{
	fail(what, path, psprintf("Forbidden: %s", detail));
}

static void
duplicate(const char *what, const char *path, const char *value)
{
	fail(what, path, psprintf("Duplicate value: %s", quoted(value)));
}

#define child(path, name) JPathChild((path), (name))
#define index_of(path, i) JPathIndex((path), (i))

/* ------------------------------------------------------------------------
 * JSON types (the API server's decoder refuses a value of the wrong type)
 * ------------------------------------------------------------------------
 */
static const char *
type_name(JsonbValue *v)
{
	return JTypeName(v);
}

/* A decoding error: the JSON type is not the field's */
static void
wrong_type(const char *what, const char *path, JsonbValue *v, const char *want)
{
	fail(what, path, psprintf("expected %s, got %s", want, type_name(v)));
}

/* Member key of c: NULL when absent or JSON null (Go's decoder: unset) */
static JsonbValue *
get(JsonbContainer *c, const char *key)
{
	return JGet(c, key);
}

static JsonbContainer *
as_object(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		wrong_type(what, path, v, "an object");
	return v->val.binary.data;
}

static JsonbContainer *
as_array(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerIsScalar(v->val.binary.data))
		wrong_type(what, path, v, "an array");
	return v->val.binary.data;
}

static char *
as_string(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		wrong_type(what, path, v, "a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

static bool
as_bool(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return false;
	if (v->type != jbvBool)
		wrong_type(what, path, v, "a boolean");
	return v->val.boolean;
}

/* An integer of [min, max] (Go's int32 or int64 fields) */
static int64
as_int(JsonbValue *v, int64 min, int64 max, const char *what, const char *path)
{
	int64		x;

	if (v == NULL)
		return 0;
	if (v->type != jbvNumeric)
		wrong_type(what, path, v, "an integer");
	if (!JNumericToInt64(v->val.numeric, &x) || x < min || x > max)
		fail(what, path, psprintf("expected a %s-bit integer, got %s", max > PG_INT32_MAX ? "64" : "32",
								  JShortScalar(v)));
	return x;
}

#define as_int32(v, what, path) ((int32) as_int((v), PG_INT32_MIN, PG_INT32_MAX, (what), (path)))

/*
 * A member of c, its type checked: jsonutil's, which builds the field's path
 * only for an error (a parent path of "" names the key alone, as child()).
 */
static char *
get_string(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	return JGetString(c, key, what, path && path[0] ? path : NULL);
}

static JsonbContainer *
get_object(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	return JGetObject(c, key, what, path && path[0] ? path : NULL);
}

static JsonbContainer *
get_array(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	return JGetArray(c, key, what, path && path[0] ? path : NULL);
}

static int
length(JsonbContainer *arr)
{
	return arr ? (int) JsonContainerSize(arr) : 0;
}

static JsonbValue *
element(JsonbContainer *arr, int i)
{
	return getIthJsonbValueFromContainer(arr, i);
}

/* ------------------------------------------------------------------------
 * Names (util/validation): DNS-1123 labels and subdomains, DNS-1035 labels,
 * label keys (qualified names) and values
 * ------------------------------------------------------------------------
 */
#define DNS1123_LABEL_MSG "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1123_SUBDOMAIN_MSG "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define DNS1035_LABEL_MSG "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define LABEL_KEY_NAME_MSG "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_KEY_MSG "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

static bool
lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool
alnum(char c)
{
	return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..len) */
static bool
dns_label_shape(const char *s, size_t len, bool first_alpha)
{
	if (len == 0 || !lower_alnum(s[0]) || !lower_alnum(s[len - 1]))
		return false;
	if (first_alpha && !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

static bool
dns_subdomain_shape(const char *s, size_t len)
{
	size_t		start = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i <= len; i++)
		if (i == len || s[i] == '.')
		{
			if (!dns_label_shape(s + start, i - start, false))
				return false;
			start = i + 1;
		}
	return true;
}

/* IsDNS1123Label: the first message, or NULL */
static const char *
dns1123_label_error(const char *s)
{
	size_t		len = strlen(s);

	if (len > 63)
		return "must be no more than 63 characters";
	if (!dns_label_shape(s, len, false))
		return dns_subdomain_shape(s, len) ? "must not contain dots" : DNS1123_LABEL_MSG;
	return NULL;
}

static const char *
dns1123_subdomain_error(const char *s, const char *unit)
{
	size_t		len = strlen(s);

	if (len > 253)
		return psprintf("must be no more than 253 %s", unit);
	if (!dns_subdomain_shape(s, len))
		return DNS1123_SUBDOMAIN_MSG;
	return NULL;
}

static const char *
dns1035_label_error(const char *s)
{
	size_t		len = strlen(s);

	if (len > 63)
		return "must be no more than 63 characters";
	if (!dns_label_shape(s, len, true))
		return DNS1035_LABEL_MSG;
	return NULL;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool
name_part_shape(const char *s, size_t len)
{
	if (len == 0 || !alnum(s[0]) || !alnum(s[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* IsQualifiedName (a label key): the first message, or NULL */
static const char *
label_key_error(const char *s)
{
	const char *slash = strchr(s, '/');
	const char *name = s;

	if (slash)
	{
		const char *prefix_err;

		if (strchr(slash + 1, '/'))
			return LABEL_KEY_MSG;
		if (slash == s)
			return "prefix part must be non-empty";
		prefix_err = dns1123_subdomain_error(pnstrdup(s, slash - s), "bytes");
		if (prefix_err)
			return psprintf("prefix part %s", prefix_err);
		name = slash + 1;
	}
	if (*name == '\0')
		return "name part must be non-empty";
	if (strlen(name) > 63)
		return "name part must be no more than 63 bytes";
	if (!name_part_shape(name, strlen(name)))
		return LABEL_KEY_NAME_MSG;
	return NULL;
}

static const char *
label_value_error(const char *s)
{
	size_t		len = strlen(s);

	if (len > 63)
		return "must be no more than 63 bytes";
	if (len > 0 && !name_part_shape(s, len))
		return LABEL_VALUE_MSG;
	return NULL;
}

static void
check_label_key(const char *key, const char *what, const char *path)
{
	const char *err = label_key_error(key);

	if (err)
		invalid(what, path, key, err);
}

/* A JSON string without NUL: jsonb keeps none, but say so if one came */
static void
check_name(const char *s, const char *(*rule) (const char *), const char *what, const char *path)
{
	const char *err = rule(s);

	if (err)
		invalid(what, path, s, err);
}

static const char *
subdomain_rule(const char *s)
{
	return dns1123_subdomain_error(s, "characters");
}

/* ValidateLabels: a map of label keys to label values */
static void
check_labels(JsonbValue *v, const char *what, const char *path)
{
	JsonbContainer *c = as_object(v, what, path);
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	if (c == NULL)
		return;
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *key;
		const char *err;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(k.val.string.val, k.val.string.len);
		(void) JsonbIteratorNext(&it, &val, true);
		check_label_key(key, what, path);
		if (val.type != jbvString)
			wrong_type(what, psprintf("%s[%s]", path, JShort(key)), &val, "a string");
		err = label_value_error(pnstrdup(val.val.string.val, val.val.string.len));
		if (err)
			invalid(what, path, pnstrdup(val.val.string.val, val.val.string.len), err);
	}
}

/* A map of strings to strings (a selector the API server does not check) */
static void
check_string_map(JsonbValue *v, const char *what, const char *path)
{
	JsonbContainer *c = as_object(v, what, path);
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	if (c == NULL)
		return;
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &val, true);
		if (val.type != jbvString)
			wrong_type(what, psprintf("%s[%s]", path, JShort(pnstrdup(k.val.string.val, k.val.string.len))),
					   &val, "a string");
	}
}

/* ------------------------------------------------------------------------
 * Duplicates, found by sorting (an object may carry many thousand entries)
 * ------------------------------------------------------------------------
 */
typedef struct Keyed
{
	char	   *key;
	int			index;
} Keyed;

static int
keyed_cmp(const void *a, const void *b)
{
	const Keyed *x = a;
	const Keyed *y = b;
	int			c = strcmp(x->key, y->key);

	return c != 0 ? c : x->index - y->index;
}

/*
 * The index of the first entry (in order) whose key an earlier one has, or
 * -1; *earlier is the first entry with that key, *key the key.
 */
static int
first_repeat(Keyed *keys, int n, int *earlier, const char **key)
{
	int			found = -1;

	qsort(keys, n, sizeof(Keyed), keyed_cmp);
	for (int i = 1; i < n; i++)
		if (strcmp(keys[i].key, keys[i - 1].key) == 0 && (found < 0 || keys[i].index < found))
		{
			found = keys[i].index;
			*key = keys[i].key;
			/* the first of its run */
			for (int j = i - 1; j >= 0 && strcmp(keys[j].key, keys[i].key) == 0; j--)
				*earlier = keys[j].index;
		}
	return found;
}

/* ------------------------------------------------------------------------
 * Times: RFC 3339, as Go's time.Parse(time.RFC3339, s) reads metav1.Time
 * ------------------------------------------------------------------------
 */
static bool
digits(const char *s, int n, int *out)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/*
 * ParseRFC3339
 *		"2006-01-02T15:04:05[.frac](Z|+hh:mm|-hh:mm)", with Go's ranges: no
 *		second 60, no hour 24, the day within its month.  Fractional seconds
 *		(after '.' or ','), kept to microseconds.  ERROR naming the field
 *		otherwise ("yesterday", "epoch", "infinity", a missing zone).
 */
TimestampTz
ParseRFC3339(const char *s, const char *what, const char *path)
{
	int			year,
				mon,
				mday,
				hour,
				min,
				sec;
	int64		usec = 0;
	int			tz = 0;
	const char *p = s;
	struct pg_tm tm;
	TimestampTz result;

	if (strlen(s) < 20 ||
		!digits(p, 4, &year) || p[4] != '-' || !digits(p + 5, 2, &mon) || p[7] != '-' ||
		!digits(p + 8, 2, &mday) || p[10] != 'T' || !digits(p + 11, 2, &hour) || p[13] != ':' ||
		!digits(p + 14, 2, &min) || p[16] != ':' || !digits(p + 17, 2, &sec))
		goto bad;
	p += 19;
	if (*p == '.' || *p == ',')
	{
		int			n = 0;
		int64		scale = 100000;

		for (p++; *p >= '0' && *p <= '9'; p++, n++)
		{
			usec += (*p - '0') * scale;
			scale /= 10;
		}
		if (n == 0)
			goto bad;
	}
	if (*p == 'Z')
		p++;
	else if (*p == '+' || *p == '-')
	{
		int			th,
					tmin;

		if (!digits(p + 1, 2, &th) || p[3] != ':' || !digits(p + 4, 2, &tmin) || th > 23 || tmin > 59)
			goto bad;
		/* PostgreSQL's zone: seconds west of Greenwich */
		tz = (th * 60 + tmin) * 60 * (*p == '+' ? -1 : 1);
		p += 6;
	}
	else
		goto bad;
	if (*p != '\0')
		goto bad;
	if (mon < 1 || mon > 12 || mday < 1 || mday > day_tab[isleap(year)][mon - 1] ||
		hour > 23 || min > 59 || sec > 59)
		goto bad;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year;
	tm.tm_mon = mon;
	tm.tm_mday = mday;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	/* tm2timestamp's zone is seconds west of Greenwich */
	if (tm2timestamp(&tm, (fsec_t) usec, &tz, &result) != 0)
		goto bad;
	return result;
bad:
	fail(what, path, psprintf("Invalid value: %s: must be an RFC 3339 time (e.g. 2024-01-02T03:04:05Z)",
							  quoted(s)));
	return 0;					/* keep compiler quiet */
}

static void
check_time(JsonbValue *v, const char *what, const char *path)
{
	char	   *s = as_string(v, what, path);

	if (s)
		(void) ParseRFC3339(s, what, path);
}

/* ------------------------------------------------------------------------
 * Object metadata (ValidateObjectMeta)
 * ------------------------------------------------------------------------
 */
/* The name rules of the kinds (kinds.c): why a name is refused, or NULL */
const char *
NameRuleDns1123Label(const char *name)
{
	return dns1123_label_error(name);
}

const char *
NameRuleDns1035Label(const char *name)
{
	return dns1035_label_error(name);
}

const char *
NameRuleDns1123Subdomain(const char *name)
{
	return dns1123_subdomain_error(name, "characters");
}

/* ReplicationController's message counts bytes */
const char *
NameRuleDns1123SubdomainBytes(const char *name)
{
	return dns1123_subdomain_error(name, "bytes");
}

/* policy validates no name; the generic pass: a path segment */
const char *
NameRulePathSegment(const char *name)
{
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return psprintf("may not be '%s'", name);
	if (strchr(name, '/'))
		return "may not contain '/'";
	if (strchr(name, '%'))
		return "may not contain '%'";
	return strlen(name) > 253 ? "must be no more than 253 characters" : NULL;
}

/* apiVersion and kind of an owner reference: "group/version" or "version" */
static void
check_owner_references(JsonbValue *v, const char *what)
{
	const char *path = "metadata.ownerReferences";
	JsonbContainer *arr = as_array(v, what, path);
	char	   *controller = NULL;

	for (int i = 0; i < length(arr); i++)
	{
		char	   *p = index_of(path, i);
		JsonbContainer *o = as_object(element(arr, i), what, p);
		char	   *api = get_string(o, "apiVersion", what, p);
		char	   *kind = get_string(o, "kind", what, p);
		char	   *name = get_string(o, "name", what, p);
		char	   *uid = get_string(o, "uid", what, p);
		const char *slash = api ? strchr(api, '/') : NULL;
		const char *version = slash ? slash + 1 : api;

		if (api == NULL || version[0] == '\0' || (slash && strchr(slash + 1, '/')))
			invalid(what, child(p, "apiVersion"), api ? api : "", "version must not be empty");
		if (kind == NULL || kind[0] == '\0')
			invalid(what, child(p, "kind"), "", "must not be empty");
		if (name == NULL || name[0] == '\0')
			invalid(what, child(p, "name"), "", "must not be empty");
		if (uid == NULL || uid[0] == '\0')
			invalid(what, child(p, "uid"), "", "must not be empty");
		if (strcmp(api, "v1") == 0 && strcmp(kind, "Event") == 0)
			invalid(what, p, "v1/Event", "/v1, Kind=Event is disallowed from being an owner");
		(void) as_bool(get(o, "blockOwnerDeletion"), what, child(p, "blockOwnerDeletion"));
		if (as_bool(get(o, "controller"), what, child(p, "controller")))
		{
			char	   *this = psprintf("%s/%s", kind, name);

			if (controller)
				fail(what, path,
					 psprintf("Invalid value: Only one reference can have Controller set to true. Found \"true\" in references for %s and %s",
							  JCut(controller, strlen(controller), JCUT_MAX), JCut(this, strlen(this), JCUT_MAX)));
			controller = this;
		}
	}
}

/*
 * ValidateObjectMeta
 *		The metadata of an object of kind k: its name by the kind's rule, its
 *		namespace, uid, labels, ownerReferences and times.
 */
void
ValidateObjectMeta(const MirrorKind *k, JsonbContainer *meta, const char *what)
{
	char	   *name = get_string(meta, "name", what, "metadata");
	char	   *ns = get_string(meta, "namespace", what, "metadata");
	char	   *uid = get_string(meta, "uid", what, "metadata");
	const char *err;

	if (name == NULL || name[0] == '\0')
		required(what, "metadata.name", "name or generateName is required");
	if (k->name_rule && (err = k->name_rule(name)) != NULL)
		invalid(what, "metadata.name", name, err);
	if (k->namespaced)
	{
		if (ns && ns[0] != '\0')
			check_name(ns, dns1123_label_error, what, "metadata.namespace");
	}
	else if (ns && ns[0] != '\0')
		forbidden(what, "metadata.namespace", "not allowed on this type");

	/*
	 * The API server gives every object a UUID; an object without one gets
	 * "<Kind>:<namespace>/<name>" here.  One that names its own keeps to
	 * what fits a name: the scheduler keys and traces pods by it.
	 */
	if (uid)
	{
		size_t		len = strlen(uid);

		if (len > 253)
			invalid(what, "metadata.uid", uid, "must be no more than 253 bytes");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char) uid[i] < 0x20 || uid[i] == 0x7f)
				invalid(what, "metadata.uid", uid, "must be printable");
	}
	(void) get_string(meta, "resourceVersion", what, "metadata");
	check_labels(get(meta, "labels"), what, "metadata.labels");
	(void) get_object(meta, "annotations", what, "metadata");
	check_owner_references(get(meta, "ownerReferences"), what);
	check_time(get(meta, "creationTimestamp"), what, "metadata.creationTimestamp");
	check_time(get(meta, "deletionTimestamp"), what, "metadata.deletionTimestamp");
}

/* ------------------------------------------------------------------------
 * Selectors
 * ------------------------------------------------------------------------
 */

/*
 * A selector requirement: ValidateLabelSelectorRequirement, or with gt_lt
 * ValidateNodeSelectorRequirement (which also takes Gt and Lt, one value).
 */
static void
check_requirement(JsonbContainer *e, bool allow_invalid_values, bool gt_lt, const char *what, const char *p)
{
	char	   *key = get_string(e, "key", what, p);
	char	   *op = get_string(e, "operator", what, p);
	JsonbContainer *values = get_array(e, "values", what, p);
	int			n = length(values);

	for (int j = 0; j < n; j++)
	{
		char	   *val = as_string(element(values, j), what, index_of(child(p, "values"), j));
		const char *err = label_value_error(val);

		if (err && !allow_invalid_values)
			invalid(what, index_of(child(p, "values"), j), val, err);
	}
	if (op == NULL)
		op = "";
	if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0)
	{
		if (n == 0)
			required(what, child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
	}
	else if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0)
	{
		if (n > 0)
			forbidden(what, child(p, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
	}
	else if (gt_lt && (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0))
	{
		if (n != 1)
			required(what, child(p, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'");
	}
	else
		invalid(what, child(p, "operator"), op, "not a valid selector operator");
	check_label_key(key ? key : "", what, child(p, "key"));
}

/*
 * ValidateLabelSelector.  allow_invalid_values: the values of expressions
 * are not held to label values (a pod admitted before that rule: kube-
 * scheduler then treats the requirement as not parsing).
 */
static void
check_label_selector(JsonbValue *v, bool allow_invalid_values, const char *what, const char *path)
{
	JsonbContainer *sel = as_object(v, what, path);
	JsonbContainer *exprs;

	if (sel == NULL)
		return;
	check_labels(get(sel, "matchLabels"), what, child(path, "matchLabels"));
	exprs = get_array(sel, "matchExpressions", what, path);
	for (int i = 0; i < length(exprs); i++)
	{
		char	   *p = index_of(child(path, "matchExpressions"), i);

		check_requirement(as_object(element(exprs, i), what, p), allow_invalid_values, false, what, p);
	}
}

/* ValidateNodeSelectorRequirement (matchExpressions of node affinity) */
static void
check_node_requirement(JsonbContainer *e, bool allow_invalid_values, const char *what, const char *p)
{
	check_requirement(e, allow_invalid_values, true, what, p);
}

/* ValidateNodeFieldSelectorRequirement: metadata.name In/NotIn one node name */
static void
check_node_field_requirement(JsonbContainer *e, const char *what, const char *p)
{
	char	   *key = get_string(e, "key", what, p);
	char	   *op = get_string(e, "operator", what, p);
	JsonbContainer *values = get_array(e, "values", what, p);
	int			n = length(values);

	if (op == NULL)
		op = "";
	if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0)
	{
		if (n != 1)
			required(what, child(p, "values"),
					 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
	}
	else
		invalid(what, child(p, "operator"), op, "not a valid selector operator");
	if (key == NULL || strcmp(key, "metadata.name") != 0)
		invalid(what, child(p, "key"), key ? key : "", "not a valid field selector key");
	for (int j = 0; j < n; j++)
		check_name(as_string(element(values, j), what, index_of(child(p, "values"), j)), subdomain_rule,
				   what, index_of(child(p, "values"), j));
}

static void
check_node_selector_term(JsonbContainer *t, bool allow_invalid_values, const char *what, const char *path)
{
	JsonbContainer *exprs = get_array(t, "matchExpressions", what, path);
	JsonbContainer *fields = get_array(t, "matchFields", what, path);

	for (int i = 0; i < length(exprs); i++)
	{
		char	   *p = index_of(child(path, "matchExpressions"), i);

		check_node_requirement(as_object(element(exprs, i), what, p), allow_invalid_values, what, p);
	}
	for (int i = 0; i < length(fields); i++)
	{
		char	   *p = index_of(child(path, "matchFields"), i);

		check_node_field_requirement(as_object(element(fields, i), what, p), what, p);
	}
}

static void
check_weight(JsonbContainer *c, const char *what, const char *path)
{
	JsonbValue *w = get(c, "weight");
	int32		weight = as_int32(w, what, child(path, "weight"));

	if (weight <= 0 || weight > 100)
		invalid_int(what, child(path, "weight"), weight, "must be in the range 1-100");
}

/*
 * ValidateNodeSelector (required node affinity).  Label values of its
 * expressions are let through: a pod admitted before that rule has them,
 * and kube-scheduler reads such a term as matching nothing.
 */
static void
check_node_affinity(JsonbContainer *na, const char *what, const char *path)
{
	char	   *rp = child(path, "requiredDuringSchedulingIgnoredDuringExecution");
	char	   *pp = child(path, "preferredDuringSchedulingIgnoredDuringExecution");
	JsonbContainer *req = get_object(na, "requiredDuringSchedulingIgnoredDuringExecution", what, path);
	JsonbContainer *pref = get_array(na, "preferredDuringSchedulingIgnoredDuringExecution", what, path);

	if (req)
	{
		JsonbContainer *terms = get_array(req, "nodeSelectorTerms", what, rp);

		if (length(terms) == 0)
			required(what, child(rp, "nodeSelectorTerms"), "must have at least one node selector term");
		for (int i = 0; i < length(terms); i++)
		{
			char	   *p = index_of(child(rp, "nodeSelectorTerms"), i);

			check_node_selector_term(as_object(element(terms, i), what, p), true, what, p);
		}
	}
	for (int i = 0; i < length(pref); i++)
	{
		char	   *p = index_of(pp, i);
		JsonbContainer *t = as_object(element(pref, i), what, p);
		JsonbContainer *preference = get_object(t, "preference", what, p);

		check_weight(t, what, p);
		if (preference)
			check_node_selector_term(preference, true, what, child(p, "preference"));
	}
}

/* matchLabelKeys and mismatchLabelKeys of a pod affinity term: label keys, in one list only */
static void
check_label_key_lists(JsonbContainer *term, const char *what, const char *path)
{
	JsonbContainer *match = get_array(term, "matchLabelKeys", what, path);
	JsonbContainer *mismatch = get_array(term, "mismatchLabelKeys", what, path);

	for (int i = 0; i < length(match); i++)
		check_label_key(as_string(element(match, i), what, index_of(child(path, "matchLabelKeys"), i)),
						what, index_of(child(path, "matchLabelKeys"), i));
	for (int i = 0; i < length(mismatch); i++)
	{
		char	   *p = index_of(child(path, "mismatchLabelKeys"), i);
		char	   *k = as_string(element(mismatch, i), what, p);

		check_label_key(k, what, p);
		for (int j = 0; j < length(match); j++)
		{
			JsonbValue *m = element(match, j);

			if ((int) strlen(k) == m->val.string.len && memcmp(k, m->val.string.val, strlen(k)) == 0)
				invalid(what, index_of(child(path, "matchLabelKeys"), j), k, "exists in both matchLabelKeys and mismatchLabelKeys");
		}
	}
}

/* validatePodAffinityTerm */
static void
check_pod_affinity_term(JsonbContainer *t, const char *what, const char *path)
{
	JsonbContainer *nss = get_array(t, "namespaces", what, path);
	char	   *tk = get_string(t, "topologyKey", what, path);

	check_label_selector(get(t, "labelSelector"), true, what, child(path, "labelSelector"));
	check_label_selector(get(t, "namespaceSelector"), true, what, child(path, "namespaceSelector"));
	for (int i = 0; i < length(nss); i++)
		check_name(as_string(element(nss, i), what, index_of(child(path, "namespaces"), i)),
				   dns1123_label_error, what, index_of(child(path, "namespaces"), i));
	check_label_key_lists(t, what, path);
	if (tk == NULL || tk[0] == '\0')
		required(what, child(path, "topologyKey"), "can not be empty");
	check_label_key(tk, what, child(path, "topologyKey"));
}

static void
check_pod_affinity(JsonbContainer *pa, const char *what, const char *path)
{
	char	   *rp = child(path, "requiredDuringSchedulingIgnoredDuringExecution");
	char	   *pp = child(path, "preferredDuringSchedulingIgnoredDuringExecution");
	JsonbContainer *req = get_array(pa, "requiredDuringSchedulingIgnoredDuringExecution", what, path);
	JsonbContainer *pref = get_array(pa, "preferredDuringSchedulingIgnoredDuringExecution", what, path);

	for (int i = 0; i < length(req); i++)
		check_pod_affinity_term(as_object(element(req, i), what, index_of(rp, i)), what, index_of(rp, i));
	for (int i = 0; i < length(pref); i++)
	{
		char	   *p = index_of(pp, i);
		JsonbContainer *t = as_object(element(pref, i), what, p);
		JsonbContainer *term = get_object(t, "podAffinityTerm", what, p);

		check_weight(t, what, p);
		if (term == NULL)
			required(what, child(p, "podAffinityTerm"), NULL);
		check_pod_affinity_term(term, what, child(p, "podAffinityTerm"));
	}
}

static void
check_affinity(JsonbValue *v, const char *what)
{
	JsonbContainer *a = as_object(v, what, "spec.affinity");
	JsonbContainer *na = get_object(a, "nodeAffinity", what, "spec.affinity");
	JsonbContainer *pa = get_object(a, "podAffinity", what, "spec.affinity");
	JsonbContainer *anti = get_object(a, "podAntiAffinity", what, "spec.affinity");

	if (na)
		check_node_affinity(na, what, "spec.affinity.nodeAffinity");
	if (pa)
		check_pod_affinity(pa, what, "spec.affinity.podAffinity");
	if (anti)
		check_pod_affinity(anti, what, "spec.affinity.podAntiAffinity");
}

/* ------------------------------------------------------------------------
 * Tolerations and taints
 * ------------------------------------------------------------------------
 */
#define EFFECTS "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""

static bool
valid_effect(const char *e)
{
	return strcmp(e, "NoSchedule") == 0 || strcmp(e, "PreferNoSchedule") == 0 || strcmp(e, "NoExecute") == 0;
}

/* content.IsDecimalInteger, and strconv.ParseInt's range */
static const char *
decimal_integer_error(const char *s)
{
	const char *p = s;
	size_t		ndigits;

	if (*s == '\0')
		return "must be non-empty";
	if (strcmp(s, "0") == 0)
		return NULL;
	if (*p == '-')
		p++;
	if (*p < '1' || *p > '9')
		return "must be a valid decimal integer in canonical form";
	for (const char *q = p + 1; *q; q++)
		if (*q < '0' || *q > '9')
			return "must be a valid decimal integer in canonical form";
	ndigits = strlen(p);
	if (ndigits > 19 ||
		(ndigits == 19 && strcmp(p, *s == '-' ? "9223372036854775808" : "9223372036854775807") > 0))
		return psprintf("strconv.ParseInt: parsing \"%s\": value out of range", JShort(s));
	return NULL;
}

/* ValidateTolerations (Gt and Lt accepted whatever the API server's gate) */
static void
check_tolerations(JsonbValue *v, const char *what)
{
	JsonbContainer *arr = as_array(v, what, "spec.tolerations");

	for (int i = 0; i < length(arr); i++)
	{
		char	   *p = index_of("spec.tolerations", i);
		JsonbContainer *t = as_object(element(arr, i), what, p);
		char	   *key = get_string(t, "key", what, p);
		char	   *op = get_string(t, "operator", what, p);
		char	   *value = get_string(t, "value", what, p);
		char	   *effect = get_string(t, "effect", what, p);
		JsonbValue *secs = get(t, "tolerationSeconds");
		const char *err;

		key = key ? key : "";
		op = op ? op : "";
		value = value ? value : "";
		effect = effect ? effect : "";
		(void) as_int(secs, PG_INT64_MIN, PG_INT64_MAX, what, child(p, "tolerationSeconds"));
		if (key[0] != '\0')
			check_label_key(key, what, child(p, "key"));
		if (key[0] == '\0' && strcmp(op, "Exists") != 0)
			invalid(what, child(p, "operator"), op,
					"operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
		if (secs && strcmp(effect, "NoExecute") != 0)
			invalid(what, child(p, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set");
		if (strcmp(op, "Equal") == 0 || op[0] == '\0')
		{
			if ((err = label_value_error(value)) != NULL)
				invalid(what, child(p, "operator"), value, err);
		}
		else if (strcmp(op, "Exists") == 0)
		{
			if (value[0] != '\0')
				invalid(what, child(p, "operator"), value, "value must be empty when `operator` is 'Exists'");
		}
		else if (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0)
		{
			if ((err = decimal_integer_error(value)) != NULL)
				invalid(what, child(p, "value"), value, err);
		}
		else
			unsupported(what, child(p, "operator"), op, "\"Equal\", \"Exists\", \"Lt\", \"Gt\"");
		if (effect[0] != '\0' && !valid_effect(effect))
			unsupported(what, child(p, "effect"), effect, EFFECTS);
	}
}

/* validateNodeTaints: unique by key and effect */
static void
check_taints(JsonbValue *v, const char *what)
{
	JsonbContainer *arr = as_array(v, what, "spec.taints");
	int			n = length(arr);
	Keyed	   *keys = palloc(sizeof(Keyed) * Max(n, 1));
	int			dup;
	int			earlier = 0;
	const char *dupkey;

	for (int i = 0; i < n; i++)
	{
		char	   *p = index_of("spec.taints", i);
		JsonbContainer *t = as_object(element(arr, i), what, p);
		char	   *key = get_string(t, "key", what, p);
		char	   *value = get_string(t, "value", what, p);
		char	   *effect = get_string(t, "effect", what, p);
		const char *err;

		check_label_key(key ? key : "", what, child(p, "key"));
		if (value && (err = label_value_error(value)) != NULL)
			invalid(what, child(p, "value"), value, err);
		if (effect == NULL || effect[0] == '\0')
			required(what, child(p, "effect"), NULL);
		if (!valid_effect(effect))
			unsupported(what, child(p, "effect"), effect, EFFECTS);
		check_time(get(t, "timeAdded"), what, child(p, "timeAdded"));
		keys[i].key = psprintf("%s%c%s", key, '\x01', effect);
		keys[i].index = i;
	}
	dup = first_repeat(keys, n, &earlier, &dupkey);
	if (dup >= 0)
		fail(what, index_of("spec.taints", dup),
			 psprintf("Duplicate value: the same key and effect as spec.taints[%d]: taints must be unique by key and effect pair",
					  earlier));
}

/* ------------------------------------------------------------------------
 * Topology spread constraints and scheduling gates
 * ------------------------------------------------------------------------
 */
static void
check_spread_constraints(JsonbValue *v, const char *what)
{
	const char *path = "spec.topologySpreadConstraints";
	JsonbContainer *arr = as_array(v, what, path);
	int			n = length(arr);
	Keyed	   *keys = palloc(sizeof(Keyed) * Max(n, 1));
	int			dup;
	int			earlier = 0;
	const char *dupkey = NULL;

	for (int i = 0; i < n; i++)
	{
		char	   *p = index_of(path, i);
		JsonbContainer *c = as_object(element(arr, i), what, p);
		JsonbValue *skew = get(c, "maxSkew");
		JsonbValue *mind = get(c, "minDomains");
		char	   *tk = get_string(c, "topologyKey", what, p);
		char	   *when = get_string(c, "whenUnsatisfiable", what, p);
		char	   *nap = get_string(c, "nodeAffinityPolicy", what, p);
		char	   *ntp = get_string(c, "nodeTaintsPolicy", what, p);
		JsonbContainer *mlk = get_array(c, "matchLabelKeys", what, p);
		int32		x;

		x = as_int32(skew, what, child(p, "maxSkew"));
		if (x <= 0)
			invalid_int(what, child(p, "maxSkew"), x, "must be greater than zero");
		if (tk == NULL || tk[0] == '\0')
			required(what, child(p, "topologyKey"), "can not be empty");
		if (when == NULL || (strcmp(when, "DoNotSchedule") != 0 && strcmp(when, "ScheduleAnyway") != 0))
			unsupported(what, child(p, "whenUnsatisfiable"), when ? when : "",
						"\"DoNotSchedule\", \"ScheduleAnyway\"");
		keys[i].key = psprintf("%s, %s", tk, when);
		keys[i].index = i;
		if (mind)
		{
			x = as_int32(mind, what, child(p, "minDomains"));
			if (x <= 0)
				invalid_int(what, child(p, "minDomains"), x, "must be greater than zero");
			if (strcmp(when, "DoNotSchedule") != 0)
				invalid_int(what, child(p, "minDomains"), x,
							psprintf("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not %s", when));
		}
		if (nap && strcmp(nap, "Honor") != 0 && strcmp(nap, "Ignore") != 0)
			unsupported(what, child(p, "nodeAffinityPolicy"), nap, "\"Honor\", \"Ignore\"");
		if (ntp && strcmp(ntp, "Honor") != 0 && strcmp(ntp, "Ignore") != 0)
			unsupported(what, child(p, "nodeTaintsPolicy"), ntp, "\"Honor\", \"Ignore\"");
		for (int j = 0; j < length(mlk); j++)
			check_label_key(as_string(element(mlk, j), what, index_of(child(p, "matchLabelKeys"), j)),
							what, index_of(child(p, "matchLabelKeys"), j));
		check_label_selector(get(c, "labelSelector"), true, what, child(p, "labelSelector"));
	}
	dup = first_repeat(keys, n, &earlier, &dupkey);
	if (dup >= 0)
		duplicate(what, child(index_of(path, earlier), "{topologyKey, whenUnsatisfiable}"),
				  psprintf("{%s}", dupkey));
}

static void
check_scheduling_gates(JsonbValue *v, const char *what)
{
	JsonbContainer *arr = as_array(v, what, "spec.schedulingGates");
	int			n = length(arr);
	Keyed	   *keys = palloc(sizeof(Keyed) * Max(n, 1));
	int			dup;
	int			earlier = 0;
	const char *dupkey;

	for (int i = 0; i < n; i++)
	{
		char	   *p = index_of("spec.schedulingGates", i);
		char	   *name = get_string(as_object(element(arr, i), what, p), "name", what, p);

		if (name == NULL || name[0] == '\0')
			required(what, child(p, "name"), NULL);
		check_label_key(name, what, p);
		keys[i].key = name;
		keys[i].index = i;
	}
	dup = first_repeat(keys, n, &earlier, &dupkey);
	if (dup >= 0)
		duplicate(what, index_of("spec.schedulingGates", dup), dupkey);
}

/* ------------------------------------------------------------------------
 * Containers: ports, resources, restart policy, image
 * ------------------------------------------------------------------------
 */

/*
 * IsIntegerResourceName: the count resources and extended resources hold
 * whole numbers.
 */
static bool
integer_resource(const char *name)
{
	static const char *const counts[] = {
		"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
		"persistentvolumeclaims", "services.nodeports", "services.loadbalancers"
	};

	for (int i = 0; i < (int) lengthof(counts); i++)
		if (strcmp(name, counts[i]) == 0)
			return true;
	return ResourceIsExtended(name);
}

/*
 * A ResourceList: names that are names, quantities that parse, are not
 * negative, fit (cpu in millicores, the rest in units) and are whole where
 * the resource counts things.  Each quantity into *out (by name).
 */
static void
check_resource_list(JsonbValue *v, bool names, const char *what, const char *path, ResourceVec *out)
{
	JsonbContainer *rl = as_object(v, what, path);
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	memset(out, 0, sizeof(*out));
	if (rl == NULL)
		return;
	it = JsonbIteratorInit(rl);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *text;
		int64		milli;
		int64		amount;
		QuantityResult r;
		const char *err;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		(void) JsonbIteratorNext(&it, &val, true);
		/*
		 * The field, written out only for a message: a container's list is
		 * keyed (requests[cpu]), a node's a child (status.allocatable.cpu)
		 */
#define FIELD psprintf(names ? "%s[%s]" : "%s.%s", path, JShort(name))
		if (names && (err = label_key_error(name)) != NULL)
			invalid(what, FIELD, name, err);
		if (val.type != jbvString && val.type != jbvNumeric)
			wrong_type(what, FIELD, &val, "a quantity");
		text = JScalarText(&val);
		r = QuantityParse(text, strlen(text), strcmp(name, "cpu") == 0 ? QUANTITY_SCALE_MILLI : QUANTITY_SCALE_UNIT,
						  &amount);
		if (r != QUANTITY_OK)
			QuantityReportError(r, JShort(text), psprintf("%s: %s", what, FIELD));
		if (amount < 0)
			invalid(what, FIELD, text, "must be greater than or equal to 0");
		/* (past int64 in millis, a quantity has no room for a fraction to tell) */
		if (integer_resource(name) && amount < PG_INT64_MAX / 1000 &&
			(QuantityParse(text, strlen(text), QUANTITY_SCALE_MILLI, &milli) != QUANTITY_OK || milli % 1000 != 0))
			invalid(what, FIELD, text, "must be an integer");
#undef FIELD
		*ResourceSlot(out, name, true) = amount;
	}
}

/* requests <= limits, resource by resource (validateResourceRequirements) */
static void
check_requests_within_limits(const ResourceVec *req, const ResourceVec *lim, JsonbValue *reqv,
							 const char *what, const char *path)
{
	JsonbContainer *rl = as_object(reqv, what, path);
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	if (rl == NULL)
		return;
	it = JsonbIteratorInit(rl);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		(void) JsonbIteratorNext(&it, &val, true);
		if (!ResourceHas(lim, name))
			continue;
		if (ResourceGet(req, name) > ResourceGet(lim, name))
			invalid(what, path, JScalarText(&val),
					psprintf("must be less than or equal to %s limit of %lld", JShort(name),
							 (long long) ResourceGet(lim, name)));
	}
}

static void
check_container_resources(JsonbContainer *c, const char *what, const char *path)
{
	char	   *rp = child(path, "resources");
	JsonbContainer *res = get_object(c, "resources", what, path);
	ResourceVec req;
	ResourceVec lim;

	if (res == NULL)
		return;
	check_resource_list(get(res, "limits"), true, what, child(rp, "limits"), &lim);
	check_resource_list(get(res, "requests"), true, what, child(rp, "requests"), &req);
	check_requests_within_limits(&req, &lim, get(res, "requests"), what, child(rp, "requests"));
}

/* validateContainerPorts, for the fields the scheduler reads */
static void
check_ports(JsonbContainer *c, const char *what, const char *path)
{
	JsonbContainer *ports = get_array(c, "ports", what, path);

	for (int j = 0; j < length(ports); j++)
	{
		char	   *p = index_of(child(path, "ports"), j);
		JsonbContainer *port = as_object(element(ports, j), what, p);
		JsonbValue *cp = get(port, "containerPort");
		int32		hp = as_int32(get(port, "hostPort"), what, child(p, "hostPort"));
		char	   *proto = get_string(port, "protocol", what, p);

		(void) get_string(port, "hostIP", what, p);
		(void) get_string(port, "name", what, p);
		if (cp)
		{
			int32		x = as_int32(cp, what, child(p, "containerPort"));

			if (x < 1 || x > 65535)
				invalid_int(what, child(p, "containerPort"), x, "must be between 1 and 65535, inclusive");
		}
		if (hp != 0 && (hp < 1 || hp > 65535))
			invalid_int(what, child(p, "hostPort"), hp, "must be between 1 and 65535, inclusive");
		if (proto && strcmp(proto, "TCP") != 0 && strcmp(proto, "UDP") != 0 && strcmp(proto, "SCTP") != 0)
			unsupported(what, child(p, "protocol"), proto, "\"SCTP\", \"TCP\", \"UDP\"");
	}
}

static void
check_containers(JsonbContainer *spec, const char *list, const char *what)
{
	char	   *path = child("spec", list);
	JsonbContainer *arr = get_array(spec, list, what, "spec");
	bool		init = strcmp(list, "initContainers") == 0;

	for (int i = 0; i < length(arr); i++)
	{
		char	   *p = index_of(path, i);
		JsonbContainer *c = as_object(element(arr, i), what, p);
		char	   *image = get_string(c, "image", what, p);
		char	   *policy = get_string(c, "restartPolicy", what, p);

		(void) get_string(c, "name", what, p);
		if (image && image[0] != '\0' &&
			(isspace((unsigned char) image[0]) || isspace((unsigned char) image[strlen(image) - 1])))
			invalid(what, child(p, "image"), image, "must not have leading or trailing whitespace");
		if (policy && strcmp(policy, "Always") != 0 &&
			(init || (strcmp(policy, "OnFailure") != 0 && strcmp(policy, "Never") != 0)))
			unsupported(what, child(p, "restartPolicy"), policy,
						init ? "\"Always\"" : "\"Always\", \"Never\", \"OnFailure\"");
		check_ports(c, what, p);
		check_container_resources(c, what, p);
	}
}

/* ------------------------------------------------------------------------
 * The kinds
 * ------------------------------------------------------------------------
 */
static void check_volumes(JsonbContainer *spec, const char *what);

void
ValidatePod(JsonbContainer *obj, const char *what)
{
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *status = get_object(obj, "status", what, NULL);
	char	   *node;
	char	   *policy;
	ResourceVec overhead;

	if (spec == NULL)
		return;
	node = get_string(spec, "nodeName", what, "spec");
	if (node && node[0] != '\0')
		check_name(node, subdomain_rule, what, "spec.nodeName");
	(void) get_string(spec, "schedulerName", what, "spec");
	(void) as_int32(get(spec, "priority"), what, "spec.priority");
	(void) get_string(spec, "priorityClassName", what, "spec");
	policy = get_string(spec, "preemptionPolicy", what, "spec");
	if (policy && strcmp(policy, "PreemptLowerPriority") != 0 && strcmp(policy, "Never") != 0)
	{
		if (policy[0] == '\0')
			required(what, "spec.preemptionPolicy", NULL);
		unsupported(what, "spec.preemptionPolicy", policy, "\"PreemptLowerPriority\", \"Never\"");
	}
	check_labels(get(spec, "nodeSelector"), what, "spec.nodeSelector");
	check_tolerations(get(spec, "tolerations"), what);
	check_affinity(get(spec, "affinity"), what);
	check_spread_constraints(get(spec, "topologySpreadConstraints"), what);
	check_scheduling_gates(get(spec, "schedulingGates"), what);
	check_volumes(spec, what);
	check_containers(spec, "initContainers", what);
	check_containers(spec, "containers", what);
	check_resource_list(get(spec, "overhead"), true, what, "spec.overhead", &overhead);
	(void) as_bool(get(spec, "hostNetwork"), what, "spec.hostNetwork");
	(void) get_string(status, "phase", what, "status");
	(void) get_string(status, "nominatedNodeName", what, "status");
}

void
ValidateNode(JsonbContainer *obj, const char *what)
{
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *status = get_object(obj, "status", what, NULL);
	JsonbContainer *images = get_array(status, "images", what, "status");
	ResourceVec r;

	check_taints(get(spec, "taints"), what);
	(void) as_bool(get(spec, "unschedulable"), what, "spec.unschedulable");
	/* the API server does not hold a node's resource names to a rule */
	check_resource_list(get(status, "capacity"), false, what, "status.capacity", &r);
	check_resource_list(get(status, "allocatable"), false, what, "status.allocatable", &r);
	for (int i = 0; i < length(images); i++)
	{
		char	   *p = index_of("status.images", i);
		JsonbContainer *img = as_object(element(images, i), what, p);
		JsonbContainer *names = get_array(img, "names", what, p);
		int64		size = as_int(get(img, "sizeBytes"), PG_INT64_MIN, PG_INT64_MAX, what, child(p, "sizeBytes"));

		if (size < 0)
			invalid_int(what, child(p, "sizeBytes"), size, "must be greater than or equal to 0");
		for (int j = 0; j < length(names); j++)
			(void) as_string(element(names, j), what, index_of(child(p, "names"), j));
	}
}

/* ValidatePositiveIntOrPercent and IsNotMoreThan100Percent */
static void
check_int_or_percent(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return;
	if (v->type == jbvString)
	{
		char	   *s = pnstrdup(v->val.string.val, v->val.string.len);
		size_t		len = strlen(s);
		bool		ok = len >= 2 && s[len - 1] == '%';

		for (size_t i = 0; ok && i + 1 < len; i++)
			ok = s[i] >= '0' && s[i] <= '9';
		if (!ok)
			invalid(what, path, s,
					"a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
		if (len > 4 || atoi(s) > 100)
			invalid(what, path, s, "must not be greater than 100%");
		return;
	}
	if (v->type == jbvNumeric)
	{
		int32		x = as_int32(v, what, path);

		if (x < 0)
			invalid_int(what, path, x, "must be greater than or equal to 0");
		return;
	}
	wrong_type(what, path, v, "an integer or percentage");
}

void
ValidatePdb(JsonbContainer *obj, const char *what)
{
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *status = get_object(obj, "status", what, NULL);
	JsonbContainer *disrupted = get_object(status, "disruptedPods", what, "status");
	JsonbValue *allowed = get(status, "disruptionsAllowed");

	if (get(spec, "minAvailable") && get(spec, "maxUnavailable"))
		fail(what, "spec", "Invalid value: minAvailable and maxUnavailable cannot be both set");
	check_int_or_percent(get(spec, "minAvailable"), what, "spec.minAvailable");
	check_int_or_percent(get(spec, "maxUnavailable"), what, "spec.maxUnavailable");
	check_label_selector(get(spec, "selector"), true, what, "spec.selector");
	if (allowed && as_int32(allowed, what, "status.disruptionsAllowed") < 0)
		invalid_int(what, "status.disruptionsAllowed", as_int32(allowed, what, ""), "must be greater than or equal to 0");
	if (disrupted)
	{
		JsonbIterator *it = JsonbIteratorInit(disrupted);
		JsonbValue	k,
					val;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		{
			char	   *p;

			if (tok != WJB_KEY)
				continue;
			p = psprintf("status.disruptedPods[%s]", JShort(pnstrdup(k.val.string.val, k.val.string.len)));
			(void) JsonbIteratorNext(&it, &val, true);
			check_time(&val, what, p);
		}
	}
}

/* A Service's spec.selector: a label map */
void
ValidateService(JsonbContainer *obj, const char *what)
{
	check_labels(get(get_object(obj, "spec", what, NULL), "selector"), what, "spec.selector");
}

/* A ReplicationController's spec.selector: a map of strings */
void
ValidateReplicationController(JsonbContainer *obj, const char *what)
{
	check_string_map(get(get_object(obj, "spec", what, NULL), "selector"), what, "spec.selector");
}

/* A ReplicaSet's or StatefulSet's spec.selector: a LabelSelector */
void
ValidateSelectorOwner(JsonbContainer *obj, const char *what)
{
	check_label_selector(get(get_object(obj, "spec", what, NULL), "selector"), true, what, "spec.selector");
}

/* The apiVersion the kind is served at (or its older one, read the same) */
static void
check_api_version(const MirrorKind *k, JsonbContainer *obj, const char *what)
{
	char	   *api = get_string(obj, "apiVersion", what, NULL);

	if (api == NULL)
		return;					/* a List's items, hand-written objects */
	if (strcmp(api, k->api_version) == 0 || (k->old_api_version && strcmp(api, k->old_api_version) == 0))
		return;
	unsupported(what, "apiVersion", api, quoted(k->api_version));
}

/*
 * ValidateObject
 *		An object of kind k, as apply() is about to store it; its metadata is
 *		checked already (ValidateObjectMeta).
 */
void
ValidateObject(const MirrorKind *k, JsonbContainer *obj, const char *what)
{
	check_api_version(k, obj, what);
	if (k->validate)
		k->validate(obj, what);
}

/* ------------------------------------------------------------------------
 * Volumes: a pod's spec.volumes and the storage kinds, as far as the volume
 * plugins read them (core/validation ValidateVolumes,
 * ValidatePersistentVolume(Claim), storage/validation)
 * ------------------------------------------------------------------------
 */
#define ACCESS_MODES "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""

static void
check_access_modes(JsonbContainer *spec, const char *what, const char *path)
{
	char	   *p = child(path, "accessModes");
	JsonbContainer *modes = get_array(spec, "accessModes", what, path);

	for (int i = 0; i < length(modes); i++)
	{
		char	   *m = as_string(element(modes, i), what, index_of(p, i));

		if (strcmp(m, "ReadWriteOnce") != 0 && strcmp(m, "ReadOnlyMany") != 0 &&
			strcmp(m, "ReadWriteMany") != 0 && strcmp(m, "ReadWriteOncePod") != 0)
			unsupported(what, index_of(p, i), m, ACCESS_MODES);
	}
}

static void
check_volume_mode(JsonbContainer *spec, const char *what, const char *path)
{
	char	   *mode = get_string(spec, "volumeMode", what, path);

	if (mode && strcmp(mode, "Filesystem") != 0 && strcmp(mode, "Block") != 0)
		unsupported(what, child(path, "volumeMode"), mode, "\"Block\", \"Filesystem\"");
}

/* a field of src that names the disk: required, non-empty */
static void
required_string(JsonbContainer *src, const char *key, const char *what, const char *path)
{
	char	   *s = get_string(src, key, what, path);

	if (s == NULL || s[0] == '\0')
		required(what, child(path, key), NULL);
}

/* The in-tree disks of a pod's volume or a PV's spec that the plugins read */
static void
check_disk_sources(JsonbContainer *c, const char *what, const char *path)
{
	JsonbContainer *gce = get_object(c, "gcePersistentDisk", what, path);
	JsonbContainer *aws = get_object(c, "awsElasticBlockStore", what, path);
	JsonbContainer *rbd = get_object(c, "rbd", what, path);
	JsonbContainer *iscsi = get_object(c, "iscsi", what, path);
	JsonbContainer *csi = get_object(c, "csi", what, path);

	if (gce)
	{
		char	   *p = child(path, "gcePersistentDisk");

		required_string(gce, "pdName", what, p);
		(void) as_int32(get(gce, "partition"), what, child(p, "partition"));
		(void) as_bool(get(gce, "readOnly"), what, child(p, "readOnly"));
	}
	if (aws)
	{
		char	   *p = child(path, "awsElasticBlockStore");

		required_string(aws, "volumeID", what, p);
		(void) as_int32(get(aws, "partition"), what, child(p, "partition"));
		(void) as_bool(get(aws, "readOnly"), what, child(p, "readOnly"));
	}
	if (rbd)
	{
		char	   *p = child(path, "rbd");
		JsonbContainer *mons = get_array(rbd, "monitors", what, p);

		if (length(mons) == 0)
			required(what, child(p, "monitors"), NULL);
		for (int i = 0; i < length(mons); i++)
			(void) as_string(element(mons, i), what, index_of(child(p, "monitors"), i));
		required_string(rbd, "image", what, p);
		(void) get_string(rbd, "pool", what, p);
		(void) as_bool(get(rbd, "readOnly"), what, child(p, "readOnly"));
	}
	if (iscsi)
	{
		char	   *p = child(path, "iscsi");

		required_string(iscsi, "targetPortal", what, p);
		required_string(iscsi, "iqn", what, p);
		(void) as_int32(get(iscsi, "lun"), what, child(p, "lun"));
		(void) as_bool(get(iscsi, "readOnly"), what, child(p, "readOnly"));
	}
	if (csi)
	{
		char	   *p = child(path, "csi");

		required_string(csi, "driver", what, p);
		(void) get_string(csi, "volumeHandle", what, p);
	}
}

/* A pod's spec.volumes: names, claims, the disks the plugins compare */
static void
check_volumes(JsonbContainer *spec, const char *what)
{
	JsonbContainer *vols = get_array(spec, "volumes", what, "spec");

	for (int i = 0; i < length(vols); i++)
	{
		char	   *p = index_of("spec.volumes", i);
		JsonbContainer *v = as_object(element(vols, i), what, p);
		JsonbContainer *pvc = get_object(v, "persistentVolumeClaim", what, p);
		JsonbContainer *eph = get_object(v, "ephemeral", what, p);

		(void) get_string(v, "name", what, p);
		/* (of the sources the plugins read; the API server counts them all) */
		if ((pvc != NULL) + (eph != NULL) + (get(v, "gcePersistentDisk") != NULL) +
			(get(v, "awsElasticBlockStore") != NULL) + (get(v, "rbd") != NULL) + (get(v, "iscsi") != NULL) > 1)
			forbidden(what, p, "may not specify more than 1 volume type");
		if (pvc)
		{
			required_string(pvc, "claimName", what, child(p, "persistentVolumeClaim"));
			(void) as_bool(get(pvc, "readOnly"), what, child(child(p, "persistentVolumeClaim"), "readOnly"));
		}
		if (eph)
			(void) get_object(eph, "volumeClaimTemplate", what, child(p, "ephemeral"));
		check_disk_sources(v, what, p);
	}
}

void
ValidatePersistentVolumeClaim(JsonbContainer *obj, const char *what)
{
	JsonbContainer *meta = get_object(obj, "metadata", what, NULL);
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *res = get_object(spec, "resources", what, "spec");
	JsonbContainer *status = get_object(obj, "status", what, NULL);
	ResourceVec r;

	check_string_map(get(meta, "annotations"), what, "metadata.annotations");
	(void) get_string(spec, "storageClassName", what, "spec");
	(void) get_string(spec, "volumeName", what, "spec");
	check_access_modes(spec, what, "spec");
	check_volume_mode(spec, what, "spec");
	check_resource_list(get(res, "requests"), false, what, "spec.resources.requests", &r);
	check_resource_list(get(res, "limits"), false, what, "spec.resources.limits", &r);
	check_label_selector(get(spec, "selector"), false, what, "spec.selector");
	(void) get_string(status, "phase", what, "status");
}

void
ValidatePersistentVolume(JsonbContainer *obj, const char *what)
{
	JsonbContainer *meta = get_object(obj, "metadata", what, NULL);
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *claim = get_object(spec, "claimRef", what, "spec");
	JsonbContainer *na = get_object(spec, "nodeAffinity", what, "spec");
	JsonbContainer *req = get_object(na, "required", what, "spec.nodeAffinity");
	JsonbContainer *status = get_object(obj, "status", what, NULL);
	ResourceVec r;

	check_string_map(get(meta, "annotations"), what, "metadata.annotations");
	check_resource_list(get(spec, "capacity"), false, what, "spec.capacity", &r);
	check_access_modes(spec, what, "spec");
	check_volume_mode(spec, what, "spec");
	(void) get_string(spec, "storageClassName", what, "spec");
	(void) get_string(claim, "namespace", what, "spec.claimRef");
	(void) get_string(claim, "name", what, "spec.claimRef");
	(void) get_string(claim, "uid", what, "spec.claimRef");
	if (req)
	{
		const char *rp = "spec.nodeAffinity.required";
		JsonbContainer *terms = get_array(req, "nodeSelectorTerms", what, rp);

		if (length(terms) == 0)
			required(what, child(rp, "nodeSelectorTerms"), "must have at least one node selector term");
		for (int i = 0; i < length(terms); i++)
		{
			char	   *p = index_of(child(rp, "nodeSelectorTerms"), i);

			check_node_selector_term(as_object(element(terms, i), what, p), false, what, p);
		}
	}
	check_disk_sources(spec, what, "spec");
	(void) get_string(status, "phase", what, "status");
}

void
ValidateStorageClass(JsonbContainer *obj, const char *what)
{
	char	   *mode = get_string(obj, "volumeBindingMode", what, "");
	JsonbContainer *topos = get_array(obj, "allowedTopologies", what, "");

	(void) get_string(obj, "provisioner", what, "");
	if (mode && strcmp(mode, "Immediate") != 0 && strcmp(mode, "WaitForFirstConsumer") != 0)
		unsupported(what, "volumeBindingMode", mode, "\"Immediate\", \"WaitForFirstConsumer\"");
	for (int i = 0; i < length(topos); i++)
	{
		char	   *p = index_of("allowedTopologies", i);
		JsonbContainer *t = as_object(element(topos, i), what, p);
		JsonbContainer *exprs = get_array(t, "matchLabelExpressions", what, p);

		for (int j = 0; j < length(exprs); j++)
		{
			char	   *ep = index_of(child(p, "matchLabelExpressions"), j);
			JsonbContainer *e = as_object(element(exprs, j), what, ep);
			JsonbContainer *values = get_array(e, "values", what, ep);
			char	   *key = get_string(e, "key", what, ep);

			if (key == NULL || key[0] == '\0')
				required(what, child(ep, "key"), NULL);
			check_label_key(key, what, child(ep, "key"));
			if (length(values) == 0)
				required(what, child(ep, "values"), "must specify as least one value");
			for (int k = 0; k < length(values); k++)
				(void) as_string(element(values, k), what, index_of(child(ep, "values"), k));
		}
	}
}

void
ValidateCSINode(JsonbContainer *obj, const char *what)
{
	JsonbContainer *meta = get_object(obj, "metadata", what, NULL);
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *drivers = get_array(spec, "drivers", what, "spec");

	check_string_map(get(meta, "annotations"), what, "metadata.annotations");
	for (int i = 0; i < length(drivers); i++)
	{
		char	   *p = index_of("spec.drivers", i);
		JsonbContainer *d = as_object(element(drivers, i), what, p);
		JsonbContainer *alloc = get_object(d, "allocatable", what, p);
		JsonbContainer *keys = get_array(d, "topologyKeys", what, p);
		JsonbValue *count = get(alloc, "count");

		required_string(d, "name", what, p);
		(void) get_string(d, "nodeID", what, p);
		if (count && as_int32(count, what, child(child(p, "allocatable"), "count")) < 0)
			invalid_int(what, child(child(p, "allocatable"), "count"), as_int32(count, what, p),
						"must be greater than or equal to 0");
		for (int j = 0; j < length(keys); j++)
			(void) as_string(element(keys, j), what, index_of(child(p, "topologyKeys"), j));
	}
}

void
ValidateCSIDriver(JsonbContainer *obj, const char *what)
{
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);

	(void) as_bool(get(spec, "attachRequired"), what, "spec.attachRequired");
	(void) as_bool(get(spec, "storageCapacity"), what, "spec.storageCapacity");
}

/* A quantity field (resource.Quantity), non-negative */
static void
check_quantity(JsonbValue *v, const char *what, const char *path)
{
	char	   *text;
	int64		amount;
	QuantityResult r;

	if (v == NULL)
		return;
	if (v->type != jbvString && v->type != jbvNumeric)
		wrong_type(what, path, v, "a quantity");
	text = JScalarText(v);
	r = QuantityParse(text, strlen(text), QUANTITY_SCALE_UNIT, &amount);
	if (r != QUANTITY_OK)
		QuantityReportError(r, JShort(text), psprintf("%s: %s", what, path));
	if (amount < 0)
		invalid(what, path, text, "must be greater than or equal to 0");
}

void
ValidateCSIStorageCapacity(JsonbContainer *obj, const char *what)
{
	char	   *sc = get_string(obj, "storageClassName", what, "");

	if (sc == NULL || sc[0] == '\0')
		required(what, "storageClassName", NULL);
	check_label_selector(get(obj, "nodeTopology"), false, what, "nodeTopology");
	check_quantity(get(obj, "capacity"), what, "capacity");
	check_quantity(get(obj, "maximumVolumeSize"), what, "maximumVolumeSize");
}

void
ValidateVolumeAttachment(JsonbContainer *obj, const char *what)
{
	JsonbContainer *spec = get_object(obj, "spec", what, NULL);
	JsonbContainer *source = get_object(spec, "source", what, "spec");

	(void) get_string(spec, "attacher", what, "spec");
	(void) get_string(spec, "nodeName", what, "spec");
	(void) get_string(source, "persistentVolumeName", what, "spec.source");
}
