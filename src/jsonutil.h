/*
 * jsonutil.h
 *	  Reading Kubernetes objects out of jsonb, with errors that name the
 *	  object and the field ("pod default/web-1: spec.containers[0].name: ...").
 */
#ifndef SCHEDULER_JSONUTIL_H
#define SCHEDULER_JSONUTIL_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

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
extern char *JShortScalar(JsonbValue *v);
extern const char *JTypeName(JsonbValue *v);
extern void JPushString(JsonbParseState **st, JsonbIteratorToken tok, const char *s);
/* Stored in the same bytes (NULL only as NULL): read alike, whatever reads them */
extern bool JSameBytes(const Jsonb *a, const Jsonb *b);

/*
 * Reading numbers without throwing, for what is read back from stored rows
 * (which SQL may have written past scheduler.apply()): false when the value
 * is not a JSON number holding an integer in range.
 */
extern bool JNumericToInt64(Numeric n, int64 *out);
extern bool JValueInt64(JsonbValue *v, int64 *out);
extern bool JValueInt32(JsonbValue *v, int32 *out);
extern int64 JInt64(JsonbValue *v, const char *what, const char *path);

/*
 * s made short and safe for a message: printable ASCII as it is, any other
 * byte as \xNN, cut after about max bytes with the full length noted.
 */
extern char *JCut(const char *s, size_t len, size_t max);
extern void JCheckKnownFields(JsonbContainer *c, const char *const *known, const char *what, const char *path);
#define JCUT_MAX 64
#define JShort(s) JCut((s), strlen(s), JCUT_MAX)

extern char *JPathChild(const char *path, const char *name);
extern char *JPathIndex(const char *path, int i);
#define JPATH(parent, key) ((parent) ? psprintf("%s.%s", (parent), (key)) : (key))

/* a text[] of a List of C strings (for SPI arguments) */
extern Datum TextArrayFromList(List *items);

/* lenient readers: c.key of the type, else NULL (or the default) */
extern JsonbContainer *JAtObject(JsonbContainer *c, const char *key);
extern JsonbContainer *JAtArray(JsonbContainer *c, const char *key);
extern char *JAtString(JsonbContainer *c, const char *key);
extern bool JAtBool(JsonbContainer *c, const char *key, bool dflt);
extern int32 JAtInt32(JsonbContainer *c, const char *key, bool *has);

#endif
