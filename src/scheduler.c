/*
 * scheduler.c
 *	  Module entry point and settings (GUCs).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "scheduler.h"

PG_MODULE_MAGIC;

char	   *scheduler_scheduler_name = NULL;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomStringVariable("scheduler.scheduler_name",
							   "The spec.schedulerName whose pods this scheduler schedules.",
							   NULL,
							   &scheduler_scheduler_name,
							   "default-scheduler",
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("scheduler");
}
