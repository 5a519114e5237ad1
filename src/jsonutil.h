/*
 * jsonutil.h
 *	  Reading Kubernetes objects out of jsonb, with errors that name the
 *	  object and the field ("pod default/web-1: spec.containers[0].name: ...").
 */
#ifndef SCHEDULER_JSONUTIL_H
#define SCHEDULER_JSONUTIL_H

#include "utils/jsonb.h"

extern JsonbValue *JGet(JsonbContainer *c, const char *key);
extern JsonbContainer *JObject(JsonbValue *v, const char *what, const char *path);
extern JsonbContainer *JArray(JsonbValue *v, const char *what, const char *path);
extern char *JString(JsonbValue *v, const char *what, const char *path);
extern bool JBool(JsonbValue *v, const char *what, const char *path);
extern int32 JInt32(JsonbValue *v, const char *what, const char *path);
extern char *JGetString(JsonbContainer *c, const char *key, const char *what, const char *path);
extern JsonbContainer *JGetObject(JsonbContainer *c, const char *key, const char *what, const char *path);
extern JsonbContainer *JGetArray(JsonbContainer *c, const char *key, const char *what, const char *path);
extern Jsonb *JToJsonb(JsonbValue *v);
extern char *JScalarText(JsonbValue *v);
extern const char *JTypeName(JsonbValue *v);
extern void JPushString(JsonbParseState **st, JsonbIteratorToken tok, const char *s);

#define JPATH(parent, key) ((parent) ? psprintf("%s.%s", (parent), (key)) : (key))

#endif
