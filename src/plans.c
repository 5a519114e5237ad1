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

#include "plans.h"

/*
 * PlanKept
 *		*cache, prepared from sql on first use and kept for the life of the
 *		backend.  An ERROR names the statement when it cannot be prepared.
 */
SPIPlanPtr
PlanKept(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types)
{
	if (*cache == NULL)
	{
		SPIPlanPtr	p = SPI_prepare(sql, nargs, types);

		if (p == NULL)
			elog(ERROR, "SPI_prepare failed (%s): %s", SPI_result_code_string(SPI_result), sql);
		SPI_keepplan(p);
		*cache = p;
	}
	return *cache;
}
