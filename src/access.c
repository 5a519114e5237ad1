/*
 * access.c
 *	  Who may do what, and the locks no stranger can take.
 *
 * The extension lives in someone else's database, beside their data, so:
 *
 *	 - Three roles, as PostgreSQL's predefined roles (pg_monitor,
 *	   pg_read_all_stats) are used: scheduler_reader may explain
 *	   (why, filter, score) and read the tables and views;
 *	   scheduler_writer may also apply objects; scheduler_admin may also
 *	   change profiles and run schedule_pending().  A superuser has them all.
 *	 - The entry points are executable by everyone and check the caller's
 *	   role first, so that a role without it gets one error naming the role
 *	   to ask for.  Then they do their work as the extension's owner, who
 *	   owns the tables and internal functions and grants them to nobody: a
 *	   writer cannot plant rows past scheduler.apply()'s validation.  This
 *	   is SECURITY DEFINER, done in C, so that the check sees the real caller
 *	   (a SECURITY DEFINER function only sees its owner).
 *	 - A scheduling cycle and the writers of the mirror exclude each other
 *	   through a lock on the table scheduler.cycle_lock (writers SHARE, a
 *	   cycle EXCLUSIVE), which only its owner can take in a conflicting mode.
 *	 - The watch and bind workers each lead with a session lock on the
 *	   extension's own catalog entry (pg_locks: locktype object, classid
 *	   pg_extension, objsubid 2 for the watch, 3 for the bind worker), held
 *	   as advisory locks are held (released when the session ends, not when
 *	   a transaction aborts).  No SQL statement takes such a lock, unlike an
 *	   advisory lock, which any role can take.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "access.h"

/*
 * RequireRole
 *		ERROR unless the current user has the privileges of role (or is a
 *		superuser): one message naming the role to ask for.
 */
void
RequireRole(const char *role, const char *action)
{
	Oid			me = GetUserId();
	Oid			roleid;

	if (superuser_arg(me))
		return;
	roleid = get_role_oid(role, true);
	if (OidIsValid(roleid) && has_privs_of_role(me, roleid))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("must have the privileges of role \"%s\" to %s", role, action),
			 errhint("Ask for the role: GRANT %s TO %s;", role,
					 quote_identifier(GetUserNameFromId(me, false)))));
}

/* The extension's pg_extension row: its oid and owner */
static bool
extension_entry(Oid *oid, Oid *owner)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("scheduler"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	found = HeapTupleIsValid(tup);
	if (found)
	{
		Form_pg_extension ext = (Form_pg_extension) GETSTRUCT(tup);

		*oid = ext->oid;
		*owner = ext->extowner;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

Oid
SchedulerExtensionOid(bool missing_ok)
{
	Oid			oid = InvalidOid;
	Oid			owner;

	if (!extension_entry(&oid, &owner) && !missing_ok)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"scheduler\" is not installed in this database")));
	return oid;
}

void
AsOwnerBegin(AsOwner *s, const char *role, const char *action)
{
	Oid			oid;
	Oid			owner;

	RequireRole(role, action);
	if (!extension_entry(&oid, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"scheduler\" is not installed in this database")));
	GetUserIdAndSecContext(&s->userid, &s->sec_context);
	SetUserIdAndSecContext(owner, s->sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
}

void
AsOwnerEnd(AsOwner *s)
{
	SetUserIdAndSecContext(s->userid, s->sec_context);
}

/* A relation of schema scheduler, by name; ERROR when there is none */
Oid
SchedulerRelid(const char *relname)
{
	Oid			nsp = get_namespace_oid("scheduler", false);
	Oid			relid = get_relname_relid(relname, nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"scheduler.%s\" does not exist", relname),
				 errhint("Is the extension \"scheduler\" installed in this database?")));
	return relid;
}

/* ------------------------------------------------------------------------
 * Leadership
 * ------------------------------------------------------------------------
 */
/*
 * The tag of a leader lock: an object tag (the extension's catalog entry,
 * objsubid the role), in the user lock method.  The user lock method is
 * the advisory locks': a session lock there survives a transaction's abort
 * and is released when the session ends (the default lock method's session
 * locks do neither).  pg_advisory_lock() only makes advisory tags, so no
 * SQL statement can take this one.
 */
static void
leader_tag(LOCKTAG *tag, Oid extoid, LeaderRole role)
{
	SET_LOCKTAG_OBJECT(*tag, MyDatabaseId, ExtensionRelationId, extoid, (uint16) role);
	tag->locktag_lockmethodid = USER_LOCKMETHOD;
}

/*
 * Take the lead for role, for the life of this session, if the extension is
 * installed: at once when nobody holds it (wait false), or once the holder
 * lets go (wait true).  Call in a transaction.
 */
static bool
leader_lock(LeaderRole role, bool wait)
{
	Oid			extoid = SchedulerExtensionOid(true);
	LOCKTAG		tag;

	if (!OidIsValid(extoid))
		return false;
	leader_tag(&tag, extoid, role);
	return LockAcquire(&tag, ExclusiveLock, true, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

bool
LeaderTryLock(LeaderRole role)
{
	return leader_lock(role, false);
}

static LeaderRole
leader_role(text *worker)
{
	char	   *w = text_to_cstring(worker);

	if (strcmp(w, "watch") == 0)
		return LEADER_WATCH;
	if (strcmp(w, "bind") == 0)
		return LEADER_BIND;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("worker: unsupported value \"%s\": supported values: \"bind\", \"watch\"", w)));
	return LEADER_WATCH;		/* keep compiler quiet */
}

PG_FUNCTION_INFO_V1(scheduler_hold_lead);
/*
 * scheduler.hold_lead(worker text) RETURNS boolean
 *		Take the watch or bind worker's lead in this session, waiting for the
 *		worker that holds it to let go (it does when it exits), so that the
 *		worker stands by until this session ends or releases it: for
 *		maintenance and tests.  Superusers only (granted to nobody).
 */
Datum
scheduler_hold_lead(PG_FUNCTION_ARGS)
{
	LeaderRole	role = leader_role(PG_GETARG_TEXT_PP(0));

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to hold a scheduler worker's lead"),
				 errdetail("Only superusers may.")));
	PG_RETURN_BOOL(leader_lock(role, true));
}

PG_FUNCTION_INFO_V1(scheduler_release_lead);
/* scheduler.release_lead(worker text) RETURNS boolean: give back what hold_lead took */
Datum
scheduler_release_lead(PG_FUNCTION_ARGS)
{
	LeaderRole	role = leader_role(PG_GETARG_TEXT_PP(0));
	LOCKTAG		tag;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to release a scheduler worker's lead"),
				 errdetail("Only superusers may.")));
	leader_tag(&tag, SchedulerExtensionOid(false), role);
	PG_RETURN_BOOL(LockRelease(&tag, ExclusiveLock, true));
}

/* ------------------------------------------------------------------------
 * SQL: the role check for views and plpgsql, and the writers' lock
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(scheduler_require_role);
/*
 * scheduler.require_role(role text) RETURNS boolean
 *		true, or the ERROR naming the role to ask for.  The views read
 *		through it, so that a role without scheduler_reader is told so.
 */
Datum
scheduler_require_role(PG_FUNCTION_ARGS)
{
	char	   *role = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (strcmp(role, ROLE_READER) != 0 && strcmp(role, ROLE_WRITER) != 0 && strcmp(role, ROLE_ADMIN) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("role: unsupported value \"%s\": supported values: \"%s\", \"%s\", \"%s\"",
						role, ROLE_ADMIN, ROLE_READER, ROLE_WRITER)));
	RequireRole(role, strcmp(role, ROLE_READER) == 0 ? "read the scheduler's state" :
				strcmp(role, ROLE_WRITER) == 0 ? "write to the scheduler's mirror" :
				"administer the scheduler");
	PG_RETURN_BOOL(true);
}

PG_FUNCTION_INFO_V1(scheduler_writer_lock);
/*
 * The statement trigger on the mirror tables: writers hold scheduler.cycle_lock
 * in SHARE mode from their first change, schedule_pending() holds it
 * EXCLUSIVE, so a change either commits before a cycle reads the cluster or
 * waits for the cycle to commit and then sees its unschedulable pods (for
 * its QueueingHints).  Taken here in C, whoever writes: no privilege on the
 * lock table is granted to anybody.
 */
Datum
scheduler_writer_lock(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.writer_lock() is a trigger function")));
	LockRelationOid(SchedulerRelid("cycle_lock"), ShareLock);
	return PointerGetDatum(NULL);
}
