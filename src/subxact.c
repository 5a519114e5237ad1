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
 *		on (ReThrowError).  fn runs in the subtransaction's memory context
 *		(BeginInternalSubTransaction's): what it allocates there goes with a
 *		rollback, so what must outlive a failure fn copies into a context of
 *		the caller's own (watch.c's resourceVersion of a failed line).
 */
ErrorData *
RunInSubxact(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
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
