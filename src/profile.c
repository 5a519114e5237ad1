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

/* ------------------------------------------------------------------------
 * A profile given as kube-scheduler's configuration (simulate()'s "a
 * profile to use instead"): a KubeSchedulerConfiguration object, decoded
 * strictly (an unknown field or a wrong type is an error naming it).
 * ------------------------------------------------------------------------
 */
#define KSC "KubeSchedulerConfiguration"

/* Profile plugins as a list being built: the plugin, its weight (-1: its default) */
typedef struct ConfPlugin
{
	const Plugin *plugin;
	int			weight;
} ConfPlugin;

static ConfPlugin *
conf_find(List *l, const Plugin *pl)
{
	ListCell   *lc;

	foreach(lc, l)
		if (((ConfPlugin *) lfirst(lc))->plugin == pl)
			return lfirst(lc);
	return NULL;
}

/* The object at set[i] (ERROR naming it otherwise) */
static JsonbContainer *
conf_object(JsonbContainer *set, int i, const char *where)
{
	return JObject(getIthJsonbValueFromContainer(set, i), KSC, where);
}

static const char *const enabled_fields[] = {"name", "weight", NULL};
static const char *const disabled_fields[] = {"name", NULL};
static const char *const config_fields[] = {"name", "args", NULL};

/*
 * The plugin an item names (its fields those known: an enabled set's
 * {"name", "weight"}, a disabled set's {"name"}, a pluginConfig's {"name",
 * "args"}); NULL for "*"; *weight -1 when none given
 */
static const Plugin *
conf_item(JsonbContainer *item, const char *where, const char *const *known, int *weight)
{
	char	   *name = JGetString(item, "name", KSC, where);
	JsonbValue *w = JGet(item, "weight");

	JCheckKnownFields(item, known, KSC, where);
	*weight = -1;
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s.name: Required value", KSC, where)));
	if (w && w->type != jbvNull)
	{
		*weight = JInt32(w, KSC, psprintf("%s.weight", where));
		if (*weight < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.weight: Invalid value: %d: must be non-negative", KSC, where, *weight)));
	}
	if (strcmp(name, "*") == 0)
		return NULL;
	if (FindPlugin(name) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s.name: Unsupported value: \"%s\": no such plugin", KSC, where, JShort(name)),
				 errhint("scheduler.plugins() lists the plugins.")));
	return FindPlugin(name);
}

/* The weight an enabled entry gives: kube-scheduler's, none or 0 meaning 1 (a zero weight is not permitted) */
static int
conf_weight(const Plugin *pl, int given)
{
	return pl->score == NULL ? 0 : given > 0 ? given : 1;
}

/*
 * plugins.multiPoint onto the default list: disabled first ("*": every
 * default), then enabled (a plugin already there keeps its place, a new
 * one goes last; either takes the weight given, 1 when none)
 */
static List *
conf_multipoint(List *l, JsonbContainer *set, const char *where)
{
	JsonbContainer *dis = JGetArray(set, "disabled", KSC, where);
	JsonbContainer *en = JGetArray(set, "enabled", KSC, where);

	for (int i = 0; dis && i < (int) JsonContainerSize(dis); i++)
	{
		char	   *at = psprintf("%s.disabled[%d]", where, i);
		int			w;
		const Plugin *pl = conf_item(conf_object(dis, i, at), at, disabled_fields, &w);
		ListCell   *lc;

		foreach(lc, l)
			if (pl == NULL || ((ConfPlugin *) lfirst(lc))->plugin == pl)
				l = foreach_delete_current(l, lc);
	}
	for (int i = 0; en && i < (int) JsonContainerSize(en); i++)
	{
		char	   *at = psprintf("%s.enabled[%d]", where, i);
		int			w;
		const Plugin *pl = conf_item(conf_object(en, i, at), at, enabled_fields, &w);
		ConfPlugin *c;

		if (pl == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.name: \"*\" only disables", KSC, at)));
		if ((c = conf_find(l, pl)) == NULL)
		{
			c = palloc0(sizeof(ConfPlugin));
			c->plugin = pl;
			l = lappend(l, c);
		}
		c->weight = conf_weight(pl, w);
	}
	return l;
}

/*
 * plugins.score: disabled, the plugin does not score ("*": none does);
 * enabled, it scores with the weight given (1 when none).  A plugin not in
 * the profile is refused: here a plugin runs at every point it has, so it
 * cannot be enabled at Score alone.
 */
static void
conf_score(List *l, JsonbContainer *set, const char *where)
{
	JsonbContainer *dis = JGetArray(set, "disabled", KSC, where);
	JsonbContainer *en = JGetArray(set, "enabled", KSC, where);
	ListCell   *lc;

	for (int i = 0; dis && i < (int) JsonContainerSize(dis); i++)
	{
		char	   *at = psprintf("%s.disabled[%d]", where, i);
		int			w;
		const Plugin *pl = conf_item(conf_object(dis, i, at), at, disabled_fields, &w);

		foreach(lc, l)
			if (pl == NULL || ((ConfPlugin *) lfirst(lc))->plugin == pl)
				((ConfPlugin *) lfirst(lc))->weight = 0;
	}
	for (int i = 0; en && i < (int) JsonContainerSize(en); i++)
	{
		char	   *at = psprintf("%s.enabled[%d]", where, i);
		int			w;
		const Plugin *pl = conf_item(conf_object(en, i, at), at, enabled_fields, &w);
		ConfPlugin *c = pl ? conf_find(l, pl) : NULL;

		if (pl == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.name: \"*\" only disables", KSC, at)));
		if (pl->score == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.name: plugin %s has no Score extension point", KSC, at, pl->name)));
		if (c == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: %s.name: %s is not in the profile: enable it in plugins.multiPoint", KSC, at, pl->name),
					 errdetail("A profile's plugin runs at every extension point it has.")));
		c->weight = conf_weight(pl, w);
	}
}

/* The plugins object: multiPoint and score; any other point's set refused */
static List *
conf_plugins(List *l, JsonbContainer *plugins, const char *path)
{
	static const char *const known[] = {"multiPoint", "score", "preEnqueue", "queueSort", "preFilter",
	"filter", "postFilter", "preScore", "reserve", "permit", "preBind", "bind", "postBind", NULL};
	static const char *const set_fields[] = {"enabled", "disabled", NULL};
	char	   *where = psprintf("%s.plugins", path);

	JCheckKnownFields(plugins, known, KSC, where);
	for (int k = 0; known[k]; k++)
	{
		char	   *at = psprintf("%s.%s", where, known[k]);
		JsonbContainer *set = JGetObject(plugins, known[k], KSC, where);
		JsonbContainer *en = JGetArray(set, "enabled", KSC, at);
		JsonbContainer *dis = JGetArray(set, "disabled", KSC, at);

		JCheckKnownFields(set, set_fields, KSC, at);
		if (k >= 2 && ((en && JsonContainerSize(en) > 0) || (dis && JsonContainerSize(dis) > 0)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: %s: only multiPoint and score are supported", KSC, at),
					 errdetail("A profile's plugin runs at every extension point it has.")));
	}
	l = conf_multipoint(l, JGetObject(plugins, "multiPoint", KSC, where), psprintf("%s.multiPoint", where));
	conf_score(l, JGetObject(plugins, "score", KSC, where), psprintf("%s.score", where));
	return l;
}

/* The profile of the configuration that schedulerName names */
static JsonbContainer *
conf_profile(JsonbContainer *conf, const char *scheduler_name, int *index)
{
	static const char *const top[] = {"apiVersion", "kind", "profiles", "percentageOfNodesToScore", "parallelism",
		"leaderElection", "clientConnection", "healthzBindAddress", "metricsBindAddress", "enableProfiling",
		"enableContentionProfiling", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "extenders",
	"delayCacheUntilActive", NULL};
	static const char *const fields[] = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", NULL};
	JsonbContainer *profiles = JGetArray(conf, "profiles", KSC, NULL);
	JsonbContainer *found = NULL;

	JCheckKnownFields(conf, top, KSC, NULL);
	for (int i = 0; profiles && i < (int) JsonContainerSize(profiles); i++)
	{
		char	   *at = psprintf("profiles[%d]", i);
		JsonbContainer *p = conf_object(profiles, i, at);
		char	   *name = JGetString(p, "schedulerName", KSC, at);

		JCheckKnownFields(p, fields, KSC, at);
		if (strcmp(name ? name : "default-scheduler", scheduler_name) == 0 && found == NULL)
		{
			*index = i;
			found = p;
		}
	}
	if (found == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("%s: no profile has schedulerName \"%s\"", KSC, JShort(scheduler_name)),
				 errhint("Name the profile in profiles[].schedulerName, or call simulate() with its schedulerName.")));
	return found;
}

/* pluginConfig: each plugin's args, validated (whether the profile runs it or not), once each */
static List *
conf_args(JsonbContainer *pc, const char *path)
{
	List	   *seen = NIL;
	List	   *out = NIL;			/* pairs: Plugin *, void * */

	for (int i = 0; pc && i < (int) JsonContainerSize(pc); i++)
	{
		char	   *at = psprintf("%s.pluginConfig[%d]", path, i);
		JsonbContainer *item = conf_object(pc, i, at);
		JsonbValue *args = JGet(item, "args");
		int			w;
		const Plugin *pl;

		pl = conf_item(item, at, config_fields, &w);
		if (pl == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s.name: a plugin's name, not \"*\"", KSC, at)));
		if (list_member_ptr(seen, pl))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s: Duplicate value: \"%s\": repeated config for plugin", KSC, at, pl->name)));
		seen = lappend(seen, (void *) pl);
		if (args && args->type != jbvNull)
			(void) JObject(args, KSC, psprintf("%s.args", at));
		out = lappend(lappend(out, (void *) pl),
					  parse_args(pl, args && args->type != jbvNull ? JToJsonb(args) :
								 DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")))));
	}
	return out;
}

/*
 * ProfileFromConfig
 *		The profile of a KubeSchedulerConfiguration (kubescheduler.config.
 *		k8s.io/v1) for scheduler_name, built as kube-scheduler builds it:
 *		the default plugins with their weights, then plugins.multiPoint
 *		(disabled, "*" for every default, then enabled), plugins.score
 *		(disabled: does not score; enabled: its weight), pluginConfig's
 *		args (validated by each plugin, defaults for the others) and
 *		percentageOfNodesToScore (the profile's, else the configuration's).
 *		Other extension points' sets are refused: a plugin here runs at all
 *		of its points.
 */
Profile *
ProfileFromConfig(Jsonb *config, const char *scheduler_name)
{
	JsonbContainer *conf = &config->root;
	int			index = 0;
	JsonbContainer *prof = conf_profile(conf, scheduler_name, &index);
	char	   *path = psprintf("profiles[%d]", index);
	JsonbContainer *plugins = JGetObject(prof, "plugins", KSC, path);
	List	   *args = conf_args(JGetArray(prof, "pluginConfig", KSC, path), path);
	JsonbValue *pct = JGet(prof, "percentageOfNodesToScore");
	List	   *l = NIL;
	Profile    *out = palloc0(sizeof(Profile));
	ListCell   *lc;

	for (int pos = 1; pos <= (int) lengthof(registry); pos++)
		for (size_t i = 0; i < lengthof(registry); i++)
			if (registry[i].position == pos)
			{
				ConfPlugin *c = palloc0(sizeof(ConfPlugin));

				c->plugin = registry[i].plugin;
				c->weight = -1;
				l = lappend(l, c);
			}
	if (plugins)
		l = conf_plugins(l, plugins, path);
	if (pct == NULL || pct->type == jbvNull)
		pct = JGet(conf, "percentageOfNodesToScore");
	out->percentage_of_nodes_to_score = -1;
	if (pct && pct->type != jbvNull)
	{
		out->percentage_of_nodes_to_score = JInt32(pct, KSC, "percentageOfNodesToScore");
		if (out->percentage_of_nodes_to_score < 0 || out->percentage_of_nodes_to_score > 100)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: percentageOfNodesToScore: Invalid value: %d: not in valid range [0-100]",
							KSC, out->percentage_of_nodes_to_score)));
	}
	out->scheduler_name = pstrdup(scheduler_name);
	out->plugins = palloc0(sizeof(ProfilePlugin) * Max(list_length(l), 1));
	foreach(lc, l)
	{
		ConfPlugin *c = lfirst(lc);
		ProfilePlugin *pp = &out->plugins[out->nplugins++];
		ListCell   *ac;

		pp->plugin = c->plugin;
		pp->args = NULL;
		for (ac = list_head(args); ac; ac = lnext(args, lnext(args, ac)))
			if (lfirst(ac) == c->plugin)
				pp->args = lfirst(lnext(args, ac));
		if (pp->args == NULL)
			pp->args = parse_args(c->plugin, DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))));
		pp->weight = c->plugin->score == NULL ? 0 : c->weight >= 0 ? c->weight : default_weight(c->plugin);
	}
	return out;
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
