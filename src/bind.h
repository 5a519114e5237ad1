/*
 * bind.h
 *	  The bind worker: the outbox to the API server.
 *
 * IDENTIFICATION
 *	  src/bind.h
 */
#ifndef SCHEDULER_BIND_H
#define SCHEDULER_BIND_H

#include "postgres.h"

extern void BindInitGucs(void);

#endif							/* SCHEDULER_BIND_H */
