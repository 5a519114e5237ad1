/*
 * fit_hints.c
 *	  (being written: issue 14)
 *
 * IDENTIFICATION
 *	  src/fit_hints.c
 */
#include "postgres.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(scheduler_fit_hints);
extern Datum scheduler_fit_hints(PG_FUNCTION_ARGS);
Datum
scheduler_fit_hints(PG_FUNCTION_ARGS)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("not yet")));
	PG_RETURN_NULL();
}

