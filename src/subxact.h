/*
 * subxact.h
 *	  Run a function in a subtransaction, catching its ERROR.
 *
 * IDENTIFICATION
 *	  src/subxact.h
 */
#ifndef SCHEDULER_SUBXACT_H
#define SCHEDULER_SUBXACT_H

#include "postgres.h"

/* an ERROR caught in a subtransaction (scheduler.c) */
extern ErrorData *RunInSubxact(void (*fn) (void *arg), void *arg);
extern bool ErrorEndsTheCall(const ErrorData *e);

#endif							/* SCHEDULER_SUBXACT_H */
