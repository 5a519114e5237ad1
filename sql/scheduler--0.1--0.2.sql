\echo Use "ALTER EXTENSION scheduler UPDATE TO '0.2'" to load this file. \quit

-- From 0.1 to 0.2.  As the install script, this runs as a superuser with
-- the caller's search_path: every name is resolved in pg_catalog alone, and
-- every object is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- The plugin registry as a table (src/plugins/plugins.def)
CREATE FUNCTION scheduler.plugins()
    RETURNS TABLE (plugin text, default_weight integer, default_position integer, extension_points text[])
    AS 'MODULE_PATHNAME', 'scheduler_plugins' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.plugins() IS 'The plugins this build knows (src/plugins/plugins.def): default score weight (NULL: does not score), position in the default profile (NULL: not in it), extension points';
ALTER FUNCTION scheduler.plugins() SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.plugins() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.plugins() TO PUBLIC;
