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
 * profile to use instead"): a KubeSchedulerConfiguration object.
 * ------------------------------------------------------------------------
 */

/* Profile plugins as a list being built: the plugin, its weight (-1: default) */
typedef struct ConfPlugin
{
	const Plugin *plugin;
	int			weight;
	JsonbValue *args;			/* pluginConfig's, or NULL */
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

/* The plugin an item names ({"name": ...}); NULL for "*" */
static const Plugin *
conf_item(JsonbContainer *set, const char *list, int i, const char *path, int *weight)
{
	JsonbValue *v = getIthJsonbValueFromContainer(set, i);
	char	   *where = psprintf("%s.%s[%d]", path, list, i);
	JsonbContainer *item = v ? JObject(v, "KubeSchedulerConfiguration", where) : NULL;
	char	   *name = JGetString(item, "name", "KubeSchedulerConfiguration", where);
	JsonbValue *w = JGet(item, "weight");

	*weight = -1;
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("KubeSchedulerConfiguration: %s.name: Required value", where)));
	if (w && w->type != jbvNull)
	{
		*weight = JInt32(w, "KubeSchedulerConfiguration", psprintf("%s.weight", where));
		if (*weight < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("KubeSchedulerConfiguration: %s.weight: Invalid value: %d: must be non-negative",
							where, *weight)));
	}
	if (strcmp(name, "*") == 0)
		return NULL;
	if (FindPlugin(name) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("KubeSchedulerConfiguration: %s.name: Unsupported value: \"%s\": no such plugin", where, JShort(name)),
				 errhint("scheduler.plugins() lists the plugins.")));
	return FindPlugin(name);
}

/*
 * One extension point's set (multiPoint or score) onto the list:
 * disabled first ("*": every default), then enabled (a plugin already
 * there keeps its place and takes the weight given; a new one goes last).
 * At score, disabled means the plugin does not score (weight 0).
 */
static List *
conf_set(List *l, JsonbContainer *plugins, const char *point, const char *path)
{
	JsonbContainer *set = JAtObject(plugins, point);
	JsonbContainer *dis = JAtArray(set, "disabled");
	JsonbContainer *en = JAtArray(set, "enabled");
	bool		score = strcmp(point, "score") == 0;
	char	   *where = psprintf("%s.%s", path, point);

	for (int i = 0; dis && i < (int) JsonContainerSize(dis); i++)
	{
		int			w;
		const Plugin *pl = conf_item(dis, "disabled", i, where, &w);
		ListCell   *lc;

		foreach(lc, l)
		{
			ConfPlugin *c = lfirst(lc);

			if (pl == NULL || c->plugin == pl)
			{
				if (score)
					c->weight = 0;
				else
					l = foreach_delete_current(l, lc);
			}
		}
	}
	for (int i = 0; en && i < (int) JsonContainerSize(en); i++)
	{
		int			w;
		const Plugin *pl = conf_item(en, "enabled", i, where, &w);
		ConfPlugin *c;

		if (pl == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("KubeSchedulerConfiguration: %s.enabled[%d].name: \"*\" only disables", where, i)));
		if ((c = conf_find(l, pl)) == NULL)
		{
			c = palloc0(sizeof(ConfPlugin));
			c->plugin = pl;
			c->weight = -1;
			l = lappend(l, c);
		}
		if (w >= 0)
			c->weight = w;
	}
	return l;
}

/* The profile of the configuration that schedulerName names */
static JsonbContainer *
conf_profile(JsonbContainer *conf, const char *scheduler_name, int *index)
{
	JsonbContainer *profiles = JGetArray(conf, "profiles", "KubeSchedulerConfiguration", NULL);

	for (int i = 0; profiles && i < (int) JsonContainerSize(profiles); i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(profiles, i);
		JsonbContainer *p = JObject(v, "KubeSchedulerConfiguration", psprintf("profiles[%d]", i));
		char	   *name = JAtString(p, "schedulerName");

		if (strcmp(name ? name : "default-scheduler", scheduler_name) == 0)
		{
			*index = i;
			return p;
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("KubeSchedulerConfiguration: no profile has schedulerName \"%s\"", JShort(scheduler_name)),
			 errhint("Name the profile in profiles[].schedulerName, or call simulate() with its schedulerName.")));
	return NULL;
}

/*
 * ProfileFromConfig
 *		The profile of a KubeSchedulerConfiguration (kubescheduler.config.
 *		k8s.io/v1) for scheduler_name: kube-scheduler's default plugins, then
 *		plugins.multiPoint and plugins.score (enabled, disabled, weights),
 *		pluginConfig's args (validated by each plugin) and
 *		percentageOfNodesToScore (the profile's, else the configuration's).
 *		Other extension points' sets are refused: a plugin here runs at all
 *		of its points.
 */
Profile *
ProfileFromConfig(Jsonb *config, const char *scheduler_name)
{
	static const char *const points[] = {"preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
	"preScore", "reserve", "permit", "preBind", "bind", "postBind"};
	JsonbContainer *conf = &config->root;
	int			index;
	JsonbContainer *prof = conf_profile(conf, scheduler_name, &index);
	char	   *path = psprintf("profiles[%d]", index);
	JsonbContainer *plugins = JGetObject(prof, "plugins", "KubeSchedulerConfiguration", path);
	JsonbContainer *pc = JGetArray(prof, "pluginConfig", "KubeSchedulerConfiguration", path);
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
	for (size_t k = 0; k < lengthof(points); k++)
	{
		JsonbContainer *set = JAtObject(plugins, points[k]);

		if ((JAtArray(set, "enabled") && JsonContainerSize(JAtArray(set, "enabled")) > 0) ||
			(JAtArray(set, "disabled") && JsonContainerSize(JAtArray(set, "disabled")) > 0))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("KubeSchedulerConfiguration: %s.plugins.%s: only multiPoint and score are supported",
							path, points[k]),
					 errdetail("A profile's plugin runs at every extension point it has.")));
	}
	l = conf_set(l, plugins, "multiPoint", psprintf("%s.plugins", path));
	l = conf_set(l, plugins, "score", psprintf("%s.plugins", path));
	for (int i = 0; pc && i < (int) JsonContainerSize(pc); i++)
	{
		int			w;
		const Plugin *pl = conf_item(pc, "pluginConfig", i, path, &w);
		ConfPlugin *c = pl ? conf_find(l, pl) : NULL;
		JsonbContainer *item = getIthJsonbValueFromContainer(pc, i)->val.binary.data;
		JsonbValue *args = JGet(item, "args");

		if (pl == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("KubeSchedulerConfiguration: %s.pluginConfig[%d].name: a plugin's name, not \"*\"", path, i)));
		if (args && args->type != jbvNull)
			(void) JObject(args, "KubeSchedulerConfiguration", psprintf("%s.pluginConfig[%d].args", path, i));
		if (c && args && args->type != jbvNull)
			c->args = args;
	}
	if (pct == NULL || pct->type == jbvNull)
		pct = JGet(conf, "percentageOfNodesToScore");
	out->percentage_of_nodes_to_score = -1;
	if (pct && pct->type != jbvNull)
	{
		out->percentage_of_nodes_to_score = JInt32(pct, "KubeSchedulerConfiguration", "percentageOfNodesToScore");
		if (out->percentage_of_nodes_to_score < 0 || out->percentage_of_nodes_to_score > 100)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("KubeSchedulerConfiguration: percentageOfNodesToScore: Invalid value: %d: not in valid range [0-100]",
							out->percentage_of_nodes_to_score)));
	}
	out->scheduler_name = pstrdup(scheduler_name);
	out->plugins = palloc0(sizeof(ProfilePlugin) * Max(list_length(l), 1));
	foreach(lc, l)
	{
		ConfPlugin *c = lfirst(lc);
		ProfilePlugin *pp = &out->plugins[out->nplugins++];
		Jsonb	   *args = c->args ? JToJsonb(c->args) :
			DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));

		pp->plugin = c->plugin;
		pp->args = parse_args(c->plugin, args);
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
