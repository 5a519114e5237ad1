/*
 * jsonutil.c
 *	  Typed access to jsonb objects for the mirror.
 *
 * Absent keys and JSON null read as "not set", as Go's decoder treats them.
 * A value of the wrong type is an ERROR naming the object and field.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/numeric.h"

#include "jsonutil.h"

const char *
JTypeName(JsonbValue *v)
{
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

int32
JInt32(JsonbValue *v, const char *what, const char *path)
{
	bool		have_error = false;
	int32		r;

	if (v == NULL)
		return 0;
	if (v->type != jbvNumeric)
		type_error(v, "an integer", what, path);
	r = numeric_int4_opt_error(v->val.numeric, &have_error);
	if (have_error ||
		!DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(v->val.numeric),
										  DirectFunctionCall1(int4_numeric, Int32GetDatum(r)))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s: expected a 32-bit integer, got %s", what, path, JScalarText(v))));
	return r;
}

char *
JGetString(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	return v ? JString(v, what, JPATH(path, key)) : NULL;
}

JsonbContainer *
JGetObject(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	return v ? JObject(v, what, JPATH(path, key)) : NULL;
}

JsonbContainer *
JGetArray(JsonbContainer *c, const char *key, const char *what, const char *path)
{
	JsonbValue *v = JGet(c, key);

	return v ? JArray(v, what, JPATH(path, key)) : NULL;
}

Jsonb *
JToJsonb(JsonbValue *v)
{
	return JsonbValueToJsonb(v);
}

/* A scalar's text: strings verbatim, numbers as numeric_out prints them. */
char *
JScalarText(JsonbValue *v)
{
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
