/*
 * profile.c
 *	  The plugin registry and scheduling profiles (scheduler.profiles,
 *	  scheduler.profile_plugins): which plugins a schedulerName runs, in which
 *	  order, with which weights and args.
 *
 * A schedulerName without a profile runs the rows of 'default-scheduler',
 * kube-scheduler's default profile as installed.  Args are validated by the
 * plugin when a row is written (scheduler.check_plugin) and again when the
 * profile is loaded, so a bad profile is an ERROR naming the field.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "access.h"
#include "jsonutil.h"
#include "profile.h"

/*
 * The registry: every plugin, with its place in kube-scheduler's default
 * profile, made from plugins/plugins.def (registry.go and default_plugins.go
 * in one list).
 */
typedef struct RegistryEntry
{
	const Plugin *plugin;
	int			weight;			/* score weight when a row leaves it NULL */
	int			position;		/* in the default profile; 0 = not in it */
} RegistryEntry;

static const RegistryEntry registry[] = {
#define PLUGIN(name, weight, position) {&name##Plugin, weight, position},
#include "plugins/plugins.def"
};

const Plugin *
FindPlugin(const char *name)
{
	for (size_t i = 0; i < lengthof(registry); i++)
		if (strcmp(registry[i].plugin->name, name) == 0)
			return registry[i].plugin;
	return NULL;
}

/* The score weight of a profile row that leaves weight NULL */
static int
default_weight(const Plugin *pl)
{
	for (size_t i = 0; i < lengthof(registry); i++)
		if (registry[i].plugin == pl)
			return registry[i].weight;
	return 0;
}

/* isEventOfInterest: does some plugin register for the event? */
bool
EventOfInterest(const ClusterEvent *ev)
{
	for (size_t i = 0; i < lengthof(registry); i++)
		for (const EventRegistration *r = registry[i].plugin->events; r->resource != 0; r++)
			if (r->resource == ev->resource && (r->actions & ev->action) != 0)
				return true;
	return false;
}

static const Plugin *
plugin_or_error(const char *name)
{
	const Plugin *pl = FindPlugin(name);

	if (pl == NULL)
	{
		StringInfoData known;

		initStringInfo(&known);
		for (size_t i = 0; i < lengthof(registry); i++)
			appendStringInfo(&known, "%s%s", i ? ", " : "", registry[i].plugin->name);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown plugin \"%s\"", JShort(name)),
				 errhint("Known plugins: %s.", known.data)));
	}
	return pl;
}

static void *
parse_args(const Plugin *pl, Jsonb *args)
{
	if (!JB_ROOT_IS_OBJECT(args))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("plugin %s: args must be a JSON object", pl->name)));
	if (pl->parse_args)
		return pl->parse_args(args);
	if (JB_ROOT_COUNT(args) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("plugin %s takes no args", pl->name)));
	return NULL;
}

/*
 * ProfileLoad
 *		The profile for scheduler_name.  Call inside SPI.
 */
Profile *
ProfileLoad(const char *scheduler_name)
{
	Profile    *prof = palloc0(sizeof(Profile));
	Oid			argtype = TEXTOID;
	Datum		arg = CStringGetTextDatum(scheduler_name);
	SPITupleTable *tt;

	if (SPI_execute_with_args(
							  "WITH chosen AS ("
							  "  SELECT coalesce((SELECT scheduler_name FROM scheduler.profiles WHERE scheduler_name = $1),"
							  "                  'default-scheduler') AS name)"
							  " SELECT pp.plugin, pp.weight, pp.args, p.percentage_of_nodes_to_score"
							  " FROM chosen c JOIN scheduler.profiles p ON p.scheduler_name = c.name"
							  " LEFT JOIN scheduler.profile_plugins pp ON pp.scheduler_name = c.name AND pp.enabled"
							  " ORDER BY pp.position",
							  1, &argtype, &arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.profiles");
	tt = SPI_tuptable;
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("no profile for schedulerName \"%s\" and no \"default-scheduler\" profile", scheduler_name),
				 errhint("Insert a row into scheduler.profiles and its plugins into scheduler.profile_plugins.")));

	prof->scheduler_name = pstrdup(scheduler_name);
	prof->plugins = palloc0(sizeof(ProfilePlugin) * SPI_processed);
	prof->percentage_of_nodes_to_score = -1;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = tt->vals[i];
		bool		isnull;
		char	   *name = SPI_getvalue(tup, tt->tupdesc, 1);
		Datum		pct = SPI_getbinval(tup, tt->tupdesc, 4, &isnull);
		ProfilePlugin *pp;
		Datum		w;

		if (!isnull)
			prof->percentage_of_nodes_to_score = DatumGetInt32(pct);
		if (name == NULL)
			continue;			/* a profile with no plugins enabled */
		pp = &prof->plugins[prof->nplugins++];
		pp->plugin = plugin_or_error(name);
		pp->args = parse_args(pp->plugin, DatumGetJsonbP(SPI_getbinval(tup, tt->tupdesc, 3, &isnull)));
		w = SPI_getbinval(tup, tt->tupdesc, 2, &isnull);
		pp->weight = isnull ? default_weight(pp->plugin) : DatumGetInt32(w);
		if (pp->plugin->score == NULL)
			pp->weight = 0;
	}
	SPI_freetuptable(tt);
	return prof;
}

PG_FUNCTION_INFO_V1(scheduler_check_plugin);
/* scheduler.check_plugin(plugin text, args jsonb): ERROR unless valid */
Datum
scheduler_check_plugin(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));

	RequireRole(ROLE_ADMIN, "change the scheduler's profiles");
	(void) parse_args(plugin_or_error(name), PG_GETARG_JSONB_P(1));
	PG_RETURN_VOID();
}

/* The extension points a plugin implements, in kube-scheduler's names */
static Datum
extension_points(const Plugin *pl)
{
	Datum		points[6];
	int			n = 0;

	if (pl->prefilter)
		points[n++] = CStringGetTextDatum("PreFilter");
	if (pl->filter)
		points[n++] = CStringGetTextDatum("Filter");
	if (pl->postfilter)
		points[n++] = CStringGetTextDatum("PostFilter");
	if (pl->prescore)
		points[n++] = CStringGetTextDatum("PreScore");
	if (pl->score)
		points[n++] = CStringGetTextDatum("Score");
	if (pl->normalize)
		points[n++] = CStringGetTextDatum("NormalizeScore");
	return PointerGetDatum(construct_array(points, n, TEXTOID, -1, false, TYPALIGN_INT));
}

PG_FUNCTION_INFO_V1(scheduler_plugins);
/*
 * scheduler.plugins(): the registry, one row per plugin in plugins.def's
 * order: its name, its default score weight (NULL: it does not score), its
 * position in the default profile (NULL: not in it) and its extension
 * points.  The install script makes 'default-scheduler''s rows from it.
 */
Datum
scheduler_plugins(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (size_t i = 0; i < lengthof(registry); i++)
	{
		const RegistryEntry *e = &registry[i];
		Datum		v[4];
		bool		nulls[4] = {false, e->weight == 0, e->position == 0, false};

		v[0] = CStringGetTextDatum(e->plugin->name);
		v[1] = Int32GetDatum(e->weight);
		v[2] = Int32GetDatum(e->position);
		v[3] = extension_points(e->plugin);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	return (Datum) 0;
}
