/*
 * test/fuzz/asan_landing.h
 *	  Forced into every file of the sanitized build (make SANITIZE=1).
 *
 *	  An ERROR longjmps over the frames between ereport() and the PG_TRY
 *	  that catches it.  AddressSanitizer poisons each instrumented frame's
 *	  redzones and unpoisons them as the function returns; frames left by a
 *	  longjmp keep theirs, and the next frames built there would be reported
 *	  as overflows.  ASan clears them when it intercepts longjmp, which it
 *	  cannot do in a stock postgres (its runtime comes with our library,
 *	  after libc).  So the stack below the landing point is cleared where an
 *	  ERROR lands: in our PG_CATCH and PG_FINALLY (redefined here), and when
 *	  a (sub)transaction aborts, for the ERRORs PostgreSQL itself catches
 *	  (asan_landing.c).
 */
#ifndef SCHEDULER_ASAN_LANDING_H
#define SCHEDULER_ASAN_LANDING_H

#include "postgres.h"

extern void SchedulerAsanLanded(void);

#undef PG_CATCH
#define PG_CATCH()	\
		} \
		else \
		{ \
			PG_exception_stack = _save_exception_stack; \
			error_context_stack = _save_context_stack; \
			SchedulerAsanLanded()

#undef PG_FINALLY
#define PG_FINALLY() \
		} \
		else \
			_do_rethrow = true; \
		{ \
			PG_exception_stack = _save_exception_stack; \
			error_context_stack = _save_context_stack; \
			SchedulerAsanLanded()

#endif
