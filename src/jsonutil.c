/*
 * jsonutil.c
 *	  Typed access to jsonb objects for the mirror.
 *
 * Absent keys and JSON null read as "not set", as Go's decoder treats them.
 * A value of the wrong type is an ERROR naming the object and field.
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/builtins.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/numeric.h"

#include "jsonutil.h"

const char *
JTypeName(JsonbValue *v)
{
	if (v == NULL)
		return "nothing";
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "an array" : "an object";
		default:
			return "a value";
	}
}

static void
type_error(JsonbValue *v, const char *want, const char *what, const char *path)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s: expected %s, got %s", what, path, want, JTypeName(v))));
}

/* The value at key, or NULL when the key is absent or null. */
JsonbValue *
JGet(JsonbContainer *c, const char *key)
{
	JsonbValue *v;

	if (c == NULL || !JsonContainerIsObject(c))
		return NULL;
	v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);
	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

JsonbContainer *
JObject(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		type_error(v, "an object", what, path);
	return v->val.binary.data;
}

JsonbContainer *
JArray(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerIsScalar(v->val.binary.data))
		type_error(v, "an array", what, path);
	return v->val.binary.data;
}

char *
JString(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		type_error(v, "a string", what, path);
	return pnstrdup(v->val.string.val, v->val.string.len);
}

bool
JBool(JsonbValue *v, const char *what, const char *path)
{
	if (v == NULL)
		return false;
	if (v->type != jbvBool)
		type_error(v, "a boolean", what, path);
	return v->val.boolean;
}

/*
 * A numeric as an int64, without throwing: false for NaN, infinities,
 * fractions and values out of range.  Read from its text, so that no
 * conversion can raise an error (PostgreSQL 15 has no numeric_int8 that
 * reports instead of throwing).
 */
bool
JNumericToInt64(Numeric n, int64 *out)
{
	char	   *s;
	char	   *p;
	bool		neg;
	uint64		mag = 0;

	*out = 0;
	if (numeric_is_nan(n) || numeric_is_inf(n))
		return false;
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(n)));
	p = s;
	neg = (*p == '-');
	if (neg)
		p++;
	if (*p == '\0')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (mag > (PG_UINT64_MAX - 9) / 10)
			return false;
		mag = mag * 10 + (uint64) (*p - '0');
	}
	/* "12.000" is an integer; "12.5" is not */
	if (*p == '.')
		for (p++; *p == '0'; p++)
			;
	if (*p != '\0')
		return false;
	if (neg)
	{
		if (mag > (uint64) PG_INT64_MAX + 1)
			return false;
		*out = mag == (uint64) PG_INT64_MAX + 1 ? PG_INT64_MIN : -(int64) mag;
	}
	else
	{
		if (mag > (uint64) PG_INT64_MAX)
			return false;
		*out = (int64) mag;
	}
	return true;
}

bool
JValueInt64(JsonbValue *v, int64 *out)
{
	*out = 0;
	return v != NULL && v->type == jbvNumeric && JNumericToInt64(v->val.numeric, out);
}

bool
JValueInt32(JsonbValue *v, int32 *out)
{
	int64		x;

	*out = 0;
	if (!JValueInt64(v, &x) || x < PG_INT32_MIN || x > PG_INT32_MAX)
		return false;
	*out = (int32) x;
	return true;
}

/* An integer field: ERROR naming it unless a JSON integer in int64's range */
int64
JInt64(JsonbValue *v, const char *what, const char *path)
{
	int64		r;

	if (v == NULL)
		return 0;
	if (v->type != jbvNumeric)
		type_error(v, "an integer", what, path);
	if (!JNumericToInt64(v->val.numeric, &r))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s: expected a 64-bit integer, got %s", what, path, JShortScalar(v))));
	return r;
}

int32
JInt32(JsonbValue *v, const char *what, const char *path)
{
	int64		r;

	if (v == NULL)
		return 0;
	if (v->type != jbvNumeric)
		type_error(v, "an integer", what, path);
	if (!JNumericToInt64(v->val.numeric, &r) || r < PG_INT32_MIN || r > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s: expected a 32-bit integer, got %s", what, path, JShortScalar(v))));
	return (int32) r;
}

/*
 * A member, its type checked.  The path (parent.key) is built only to name
 * the field in an error: these run for every field the mirror reads.
 */
char *
JGetString(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	if (v != NULL && v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	return v ? JString(v, what, JPATH(path, key)) : NULL;
}

JsonbContainer *
JGetObject(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	if (v != NULL && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
		return v->val.binary.data;
	return v ? JObject(v, what, JPATH(path, key)) : NULL;
}

JsonbContainer *
JGetArray(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	if (v != NULL && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
		!JsonContainerIsScalar(v->val.binary.data))
		return v->val.binary.data;
	return v ? JArray(v, what, JPATH(path, key)) : NULL;
}

bool
JSameBytes(const Jsonb *a, const Jsonb *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return VARSIZE_ANY(a) == VARSIZE_ANY(b) && memcmp(a, b, VARSIZE_ANY(a)) == 0;
}

Jsonb *
JToJsonb(JsonbValue *v)
{
	return JsonbValueToJsonb(v);
}

/* A scalar's text: strings verbatim, numbers as numeric_out prints them; NULL for NULL. */
char *
JScalarText(JsonbValue *v)
{
	if (v == NULL)
		return NULL;
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return pstrdup(JTypeName(v));
	}
}

/* A scalar's text, cut short for a message */
char *
JShortScalar(JsonbValue *v)
{
	char	   *t = JScalarText(v);

	return JCut(t, strlen(t), JCUT_MAX);
}

char *
JCut(const char *s, size_t len, size_t max)
{
	StringInfoData buf;
	size_t		i;

	/* the common case, a short printable string: as it is */
	if (len <= max)
	{
		for (i = 0; i < len; i++)
			if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] >= 0x7f)
				break;
		if (i == len)
			return pnstrdup(s, len);
	}
	initStringInfo(&buf);
	for (i = 0; i < len && (size_t) buf.len < max; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x20 && c < 0x7f)
			appendStringInfoChar(&buf, (char) c);
		else
			appendStringInfo(&buf, "\\x%02x", c);
	}
	if (i < len)
		appendStringInfo(&buf, "... (%zu bytes)", len);
	return buf.data;
}

/*
 * A field's path: path.name (name alone at the top, path NULL or ""), and
 * path[i].  Written out for every field on the way, so without printf.
 */
char *
JPathChild(const char *path, const char *name)
{
	size_t		pl = path ? strlen(path) : 0;
	size_t		nl = strlen(name);
	char	   *out;

	if (pl == 0)
		return pnstrdup(name, nl);
	out = palloc(pl + nl + 2);
	memcpy(out, path, pl);
	out[pl] = '.';
	memcpy(out + pl + 1, name, nl + 1);
	return out;
}

char *
JPathIndex(const char *path, int i)
{
	size_t		pl = strlen(path);
	char	   *out = palloc(pl + 14);

	memcpy(out, path, pl);
	out[pl] = '[';
	pl += 1 + pg_ltoa(i, out + pl + 1);
	out[pl] = ']';
	out[pl + 1] = '\0';
	return out;
}

/*
 * Strict decoding, as kube-scheduler decodes its configuration: ERROR on a
 * member of the object c whose key is not in known (NULL-terminated);
 * path (NULL at the top) prefixes the field in the message.
 */
void
JCheckKnownFields(JsonbContainer *c, const char *const *known, const char *what, const char *path)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	if (c == NULL || !JsonContainerIsObject(c))
		return;
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		bool		ok = false;

		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &v, true);
		for (const char *const *f = known; *f && !ok; f++)
			ok = (int) strlen(*f) == k.val.string.len && memcmp(*f, k.val.string.val, k.val.string.len) == 0;
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: strict decoding error: unknown field \"%s%s%s\"", what,
							path ? path : "", path ? "." : "", JCut(k.val.string.val, k.val.string.len, JCUT_MAX))));
	}
}

/* Push a string as a key, value or array element. */
void
JPushString(JsonbParseState **st, JsonbIteratorToken tok, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = strlen(s);
	pushJsonbValue(st, tok, &v);
}

/* A text[] of a List of C strings (for SPI arguments) */
Datum
TextArrayFromList(List *items)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(list_length(items), 1));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, items)
		d[i++] = CStringGetTextDatum((char *) lfirst(lc));
	return PointerGetDatum(construct_array(d, i, TEXTOID, -1, false, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * Lenient readers, for rows that may hold anything (a row planted past
 * validation): a member of another type reads as unset (NULL, the default)
 * ------------------------------------------------------------------------
 */
/* c.key as an object, or NULL */
JsonbContainer *
JAtObject(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data))
		return v->val.binary.data;
	return NULL;
}

/* c.key as an array, or NULL */
JsonbContainer *
JAtArray(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
		return v->val.binary.data;
	return NULL;
}

/* c.key as a string, or NULL (unset, or not a string) */
char *
JAtString(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	return NULL;
}

bool
JAtBool(JsonbContainer *c, const char *key, bool dflt)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;

	if (v && v->type == jbvBool)
		return v->val.boolean;
	return dflt;
}

int32
JAtInt32(JsonbContainer *c, const char *key, bool *has)
{
	JsonbValue *v = c ? JGet(c, key) : NULL;
	int32		n = 0;

	*has = v && v->type == jbvNumeric && JValueInt32(v, &n);
	return *has ? n : 0;
}
