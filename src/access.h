/*
 * access.h
 *	  Who may do what (the scheduler_* roles), entry points run as the
 *	  extension's owner, and the locks no stranger can take (access.c).
 */
#ifndef SCHEDULER_ACCESS_H
#define SCHEDULER_ACCESS_H

#include "postgres.h"

/* The roles, as PostgreSQL's predefined roles: each has the one before */
#define ROLE_READER "scheduler_reader"
#define ROLE_WRITER "scheduler_writer"
#define ROLE_ADMIN	"scheduler_admin"

extern void RequireRole(const char *role, const char *action);

/*
 * An entry point checks its caller, then does its work as the extension's
 * owner (the tables and internal functions are the owner's, granted to
 * nobody), the way a SECURITY DEFINER function would, but with the caller
 * known.  AsOwnerEnd restores the caller; an error restores it too.
 */
typedef struct AsOwner
{
	Oid			userid;
	int			sec_context;
} AsOwner;

extern void AsOwnerBegin(AsOwner *s, const char *role, const char *action);
extern void AsOwnerEnd(AsOwner *s);

extern Oid	SchedulerRelid(const char *relname);
extern Oid	SchedulerExtensionOid(bool missing_ok);

/* Leadership of a background worker: one per database, held for its life */
typedef enum LeaderRole
{
	LEADER_WATCH = 2,
	LEADER_BIND = 3
} LeaderRole;

extern bool LeaderTryLock(LeaderRole role);

#endif
