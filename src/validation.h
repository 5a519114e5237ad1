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

/* The kinds' name rules (kinds.c): why a name is refused, or NULL */

#endif
