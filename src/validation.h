/*
 * validation.h
 *	  What scheduler.apply() accepts, checked as the API server checks it
 *	  (validation.c).
 */
#ifndef SCHEDULER_VALIDATION_H
#define SCHEDULER_VALIDATION_H

#include "utils/jsonb.h"
#include "utils/timestamp.h"

extern void ValidateObjectMeta(const char *kind, JsonbContainer *meta, const char *what);
extern void ValidateObject(const char *kind, JsonbContainer *obj, const char *what);
extern TimestampTz ParseRFC3339(const char *s, const char *what, const char *path);

#endif
