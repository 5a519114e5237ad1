/*
 * watch.h
 *	  The watch worker: list, watch, batches into the tables, relist on 410.
 *
 * IDENTIFICATION
 *	  src/watch.h
 */
#ifndef SCHEDULER_WATCH_H
#define SCHEDULER_WATCH_H

#include "postgres.h"
#include "utils/jsonb.h"

extern void WatchInitGucs(void);
typedef enum WatchLine
{
	WATCH_LINE_MALFORMED,		/* not a JSON object */
	WATCH_LINE_EXPIRED,			/* ERROR event, 410 Gone: relist */
	WATCH_LINE_ERROR,			/* another ERROR event: watch again */
	WATCH_LINE_BOOKMARK,
	WATCH_LINE_EVENT			/* to apply */
} WatchLine;
extern WatchLine WatchReadLine(const char *resource, const char *kind, const char *line, size_t len, Jsonb **event, char **rv);

#endif							/* SCHEDULER_WATCH_H */
