/*
 * subxact.c
 *	  Run a function in a subtransaction, catching its ERROR: one bad pod
 *	  or object fails alone, never the whole call.
 *
 * IDENTIFICATION
 *	  src/subxact.c
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "subxact.h"

/*
 * RunInSubxact
 *		Run fn(arg) in an internal subtransaction: NULL when it returned,
 *		else the ERROR it threw, copied into the caller's memory context, the
 *		subtransaction rolled back.  The caller decides whether to throw it
 *		on (ReThrowError).  fn runs in the caller's memory context, as a
 *		PL/pgSQL exception block's statements do: what it allocates lives
 *		as long as the caller's context, whether fn returns or throws, and
 *		the caller frees it (a context reset per call).  Run in the
 *		subtransaction's own context instead, a committed subtransaction's
 *		allocations would stay until the top-level transaction ends: a call
 *		of thousands of cycles would keep every cycle's memory.
 */
ErrorData *
RunInSubxact(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return edata;
}

/*
 * ErrorEndsTheCall
 *		Is a caught ERROR one that no single pod or object causes, so that
 *		it ends the whole call rather than fail one item: a cancel, a
 *		statement or lock timeout, a shutdown (operator intervention, class
 *		57), out of memory or disk (53), a serialization failure or deadlock
 *		(40), a lock not available (55P03).
 */
bool
ErrorEndsTheCall(const ErrorData *e)
{
	int			class = ERRCODE_TO_CATEGORY(e->sqlerrcode);

	return class == ERRCODE_TO_CATEGORY(ERRCODE_TRANSACTION_ROLLBACK) ||
		class == ERRCODE_TO_CATEGORY(ERRCODE_OPERATOR_INTERVENTION) ||
		class == ERRCODE_TO_CATEGORY(ERRCODE_INSUFFICIENT_RESOURCES) ||
		e->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE;
}
