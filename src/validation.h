/*
 * validation.h
 *	  What scheduler.apply() accepts, checked as the API server checks it
 *	  (validation.c).
 */
#ifndef SCHEDULER_VALIDATION_H
#define SCHEDULER_VALIDATION_H

#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "kinds.h"

extern void ValidateObjectMeta(const MirrorKind *k, JsonbContainer *meta, const char *what);
extern void ValidateObject(const MirrorKind *k, JsonbContainer *obj, const char *what);
extern TimestampTz ParseRFC3339(const char *s, const char *what, const char *path);

/* The kinds' validation (kinds.c): an object past its metadata */
extern void ValidateNode(JsonbContainer *obj, const char *what);
extern void ValidatePod(JsonbContainer *obj, const char *what);
extern void ValidatePdb(JsonbContainer *obj, const char *what);
extern void ValidateService(JsonbContainer *obj, const char *what);
extern void ValidateReplicationController(JsonbContainer *obj, const char *what);
extern void ValidateSelectorOwner(JsonbContainer *obj, const char *what);

/* The kinds' name rules (kinds.c): why a name is refused, or NULL */
extern const char *NameRuleDns1123Label(const char *name);
extern const char *NameRuleDns1035Label(const char *name);
extern const char *NameRuleDns1123Subdomain(const char *name);
extern const char *NameRuleDns1123SubdomainBytes(const char *name);
extern const char *NameRulePathSegment(const char *name);

#endif
