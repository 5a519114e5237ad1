/*
 * plans.h
 *	  Statements prepared once per backend and kept (SPI_keepplan).
 *
 * IDENTIFICATION
 *	  src/plans.h
 */
#ifndef SCHEDULER_PLANS_H
#define SCHEDULER_PLANS_H

#include "postgres.h"

#include "executor/spi.h"

extern SPIPlanPtr PlanKept(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types);
extern SPIPlanPtr PlanKeptBatch(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types);
extern SPIPlanPtr PlanKeptGeneric(SPIPlanPtr *cache, const char *sql, int nargs, Oid *types);
extern int	PlanByKeysBegin(void);
extern void PlanByKeysEnd(int level);

#endif							/* SCHEDULER_PLANS_H */
