/*
 * simulate.h
 *	  What-ifs: scheduling cycles on the snapshot changed in memory by
 *	  hypothetical objects (simulate.c).
 *
 * IDENTIFICATION
 *	  src/simulate.h
 */
#ifndef SCHEDULER_SIMULATE_H
#define SCHEDULER_SIMULATE_H

#include "postgres.h"
#include "fmgr.h"

extern Datum scheduler_simulate(PG_FUNCTION_ARGS);

#endif							/* SCHEDULER_SIMULATE_H */
