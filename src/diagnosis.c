/*
 * diagnosis.c
 *	  (being written: issue 14)
 *
 * IDENTIFICATION
 *	  src/diagnosis.c
 */
#include "postgres.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(scheduler_diagnosis);
extern Datum scheduler_diagnosis(PG_FUNCTION_ARGS);
Datum
scheduler_diagnosis(PG_FUNCTION_ARGS)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("not yet")));
	PG_RETURN_NULL();
}

