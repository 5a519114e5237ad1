\echo Use "ALTER EXTENSION scheduler UPDATE TO '0.3'" to load this file. \quit

-- From 0.2 to 0.3: the volume kinds and plugins.  As the install script,
-- this runs as a superuser with the caller's search_path: every name is
-- resolved in pg_catalog alone, and every object is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
