/*
 * plan_capacity.c
 *	  (being written: issue 14)
 *
 * IDENTIFICATION
 *	  src/plan_capacity.c
 */
#include "postgres.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(scheduler_plan_capacity);
extern Datum scheduler_plan_capacity(PG_FUNCTION_ARGS);
Datum
scheduler_plan_capacity(PG_FUNCTION_ARGS)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("not yet")));
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(scheduler_plan_capacity_pods);
extern Datum scheduler_plan_capacity_pods(PG_FUNCTION_ARGS);
Datum
scheduler_plan_capacity_pods(PG_FUNCTION_ARGS)
{
	ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("not yet")));
	PG_RETURN_NULL();
}

