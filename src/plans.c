/*
 * plans.c
 *	  Statements prepared once per backend and kept (SPI_keepplan), for the
 *	  files that run the same statements on every call: the mirror, the
 *	  queue, the outbox.
 *
 * IDENTIFICATION
 *	  src/plans.c
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/guc.h"

#include "plans.h"

/* A plan prepared once with these cursor options, kept for the session */
static SPIPlanPtr
kept_with(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types, int options)
{
	if (*cache == NULL)
	{
		SPIPlanPtr	p = SPI_prepare_cursor(sql, nargs, types, options);

		if (p == NULL)
			elog(ERROR, "SPI_prepare failed (%s): %s", SPI_result_code_string(SPI_result), sql);
		SPI_keepplan(p);
		*cache = p;
	}
	return *cache;
}

/*
 * PlanKept
 *		*cache, prepared from sql on first use and kept for the life of the
 *		backend.  An ERROR names the statement when it cannot be prepared.
 */
SPIPlanPtr
PlanKept(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types)
{
	return kept_with(cache, sql, nargs, types, 0);
}

/*
 * PlanKeptBatch
 *		As PlanKept, for a statement over arrays of rows (a batch): it is
 *		planned again at each call (a custom plan), for the arrays' sizes and
 *		the tables' sizes of that moment.  A plan kept generic is made once,
 *		against the tables as they were then: made on an empty table (the
 *		first list), it scans the whole table for each batch that follows.
 *		Planning once per batch costs little beside the batch.
 */
SPIPlanPtr
PlanKeptBatch(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types)
{
	return kept_with(cache, sql, nargs, types, CURSOR_OPT_CUSTOM_PLAN);
}

/*
 * PlanKeptGeneric
 *		As PlanKept, for a statement whose plan is the same whatever its
 *		arguments (keys looked up in a small table): one generic plan, made
 *		on first use.  Left to choose, the plan cache may keep planning it
 *		at every call, as a custom plan of an INSERT ... ON CONFLICT over
 *		unnest() of arrays looks no dearer than the generic one.
 */
SPIPlanPtr
PlanKeptGeneric(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types)
{
	return kept_with(cache, sql, nargs, types, CURSOR_OPT_GENERIC_PLAN);
}

/*
 * PlanByKeysBegin, PlanByKeysEnd
 *		Between them, statements are planned without sequential scans where
 *		an index can serve (enable_seqscan off, set as a function's SET
 *		clause sets it, and undone by PlanByKeysEnd or by the error that
 *		ends the transaction).  For the statements that write a chunk of
 *		rows named by key (write-back, and the triggers those writes fire):
 *		costed against a table that is mostly cached, a thousand keys looked
 *		up one by one look dearer than one pass over the table, and a pass
 *		per chunk makes a call's writing grow with the square of its pods.
 *		(Only sequential scans are ruled out: on a table a few chunks big,
 *		up to a few thousand pods, the planner may still hash the whole of
 *		it, read through its primary key, for each chunk; past that it looks
 *		the keys up.  Forcing nested loops too would be worse where no index
 *		serves, as for the outbox's pending conditions by pod.)  User
 *		triggers on the extension's tables, which only their owner can make,
 *		run under it too.
 */
int
PlanByKeysBegin(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("enable_seqscan", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return level;
}

void
PlanByKeysEnd(int level)
{
	AtEOXact_GUC(true, level);
}
