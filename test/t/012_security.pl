# Safe beside someone else's data (issue #11): nobody gains anything
# through the scheduler's workers or triggers, and nobody without a
# scheduler role can hold scheduling up.
#
#   * The database's owner and a role with CREATE on public plant look-
#     alikes of built-ins the extension calls (better matches than
#     pg_catalog's, and operators), each of which would make its planter a
#     superuser if a superuser called it, and the owner sets the database's
#     search_path to name public first.  The workers (the bootstrap
#     superuser) then list, watch, schedule, bind, back off and relist, and
#     the triggers fire: no planted function is ever called, nobody becomes
#     a superuser.  (kube-scheduler has no such surface; PostgreSQL's own
#     advice for SECURITY DEFINER code is a pinned search_path.)
#   * A role without the scheduler's roles takes the advisory keys the
#     scheduler once used (1396852053/1, /2, /3), right after a restart too,
#     and holds them: pods are still bound at once.  It cannot take the
#     locks the scheduler uses now, nor call scheduler_internal.wakeup() (nor use that schema); a flood of
#     wake-ups from a writer does not keep the worker busy.
#   * Names go into request paths percent-encoded: a victim named like a
#     path to another resource is deleted at its own (escaped) path only;
#     a namespace ".." builds no request and fails that row for good.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $api = StandIn->new('apiserver_012');
sub kjson { $api->kjson(@_) }
kjson('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 3}}}');

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'scheduler'\n"
	  . "scheduler.database = 'inventory'\nscheduler.worker_interval = 200\n"
	  . "scheduler.pod_initial_backoff = 100\nscheduler.pod_max_backoff = 200\nscheduler.unschedulable_timeout = 300\n" . $api->conf);
$node->start;
# the test's own statements bind names in pg_catalog: the database's path names
# public first, and a planted operator must only ever meet the extension
sub sqlq { $node->safe_psql('inventory', "SET search_path = pg_catalog;\n$_[0]") }

# --- an inventory database with an owner, and a role that may create in public
$node->safe_psql('postgres', q{
CREATE ROLE regress_dbowner LOGIN;
CREATE ROLE regress_planter LOGIN;
CREATE ROLE regress_stranger LOGIN;
CREATE DATABASE inventory OWNER regress_dbowner;
});
$node->safe_psql('inventory', q{
SET ROLE regress_dbowner;
GRANT CREATE ON SCHEMA public TO regress_planter;
CREATE TABLE public.planted_calls (who text, fn text, at timestamptz DEFAULT pg_catalog.clock_timestamp());
GRANT INSERT, SELECT ON public.planted_calls TO PUBLIC;
-- what a planted function does when called: note it, and make its planter a
-- superuser if the caller can (a superuser worker could)
CREATE FUNCTION public.pwn(who text, fn text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.planted_calls (who, fn) VALUES (who, fn);
    BEGIN
        EXECUTE pg_catalog.format('ALTER ROLE %I SUPERUSER', who);
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
END $$;
ALTER DATABASE inventory SET search_path = public, pg_catalog;
});
my %planted = (
	regress_dbowner => q{
CREATE FUNCTION public.power(integer, integer) RETURNS double precision LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', 'power(int,int)'); RETURN 1; END $$;
CREATE FUNCTION public.power(double precision, double precision) RETURNS double precision LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', 'power(float8,float8)'); RETURN 1; END $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', 'now()'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', 'clock_timestamp()'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION public.cardinality(text[]) RETURNS integer LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', 'cardinality(text[])'); RETURN 0; END $$;
CREATE FUNCTION public.peq(text, text) RETURNS boolean LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_dbowner', '=(text,text)'); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.peq);
},
	regress_planter => q{
CREATE FUNCTION public.to_jsonb(text) RETURNS jsonb LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_planter', 'to_jsonb(text)'); RETURN '"x"'; END $$;
CREATE FUNCTION public.array_to_string(text[], text) RETURNS text LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_planter', 'array_to_string(text[],text)'); RETURN ''; END $$;
CREATE FUNCTION public.jsonb_build_object(text, text, text, text) RETURNS jsonb LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_planter', 'jsonb_build_object(text x4)'); RETURN '{}'; END $$;
CREATE FUNCTION public.pmul(bigint, interval) RETURNS interval LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_planter', '*(bigint,interval)'); RETURN $2; END $$;
CREATE OPERATOR public.* (LEFTARG = bigint, RIGHTARG = interval, FUNCTION = public.pmul);
CREATE FUNCTION public.pne(text, text) RETURNS boolean LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.pwn('regress_planter', '<>(text,text)'); RETURN $1 OPERATOR(pg_catalog.<>) $2; END $$;
CREATE OPERATOR public.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = public.pne);
});
for my $who (sort keys %planted)
{
	$node->safe_psql('inventory', "SET ROLE $who;\n$planted{$who}");
}

# --- the superuser installs the extension there, among the planted objects
$node->safe_psql('inventory', 'CREATE EXTENSION scheduler');	# on the database's path: public first
my $pod = sub {
	my ($name, $cpu, $extra) = @_;
	my $spec = { containers => [ { name => 'c', image => 'i', resources => { requests => { cpu => $cpu } } } ],
		%{ $extra // {} } };
	kjson('POST', '/api/v1/namespaces/default/pods',
		{ apiVersion => 'v1', kind => 'Pod', metadata => { name => $name }, spec => $spec });
};
$pod->("fits-$_", '100m') for 1 .. 5;
$pod->("never-$_", '64') for 1 .. 2;	# unschedulable: attempts, backoffs, conditions, events
ok($node->poll_query_until('inventory', q{SELECT count(*) = 5 FROM scheduler.pods WHERE node_name IS NOT NULL}),
	'the workers list, schedule and bind as ever');
ok($node->poll_query_until('inventory', q{SELECT min(attempts) >= 3 FROM scheduler.queue}),
	'the pods that do not fit are tried again and again (backoff computed)');
# the watch relists (a 410), and a node changes (QueueingHints)
kjson('POST', '/debug/faults', { compact => JSON::PP::true, close_watches => JSON::PP::true });
my $n0 = kjson('GET', '/api/v1/nodes')->{items}[0];
$n0->{metadata}{labels}{relabelled} = 'yes';
kjson('PUT', "/api/v1/nodes/$n0->{metadata}{name}", $n0);
ok($node->poll_query_until('inventory',
		q{SELECT count(*) = 1 FROM scheduler.nodes WHERE labels ? 'relabelled'}),
	'a node update reaches the mirror and its hints');

is(sqlq(q{SELECT count(*) FROM public.planted_calls}), '0', 'no planted function or operator was ever called');
is(sqlq(q{SELECT string_agg(rolname || '=' || rolsuper, ',' ORDER BY rolname) FROM pg_roles
	   WHERE rolname IN ('regress_dbowner', 'regress_planter')}),
	'regress_dbowner=false,regress_planter=false', 'neither planter is a superuser');
is(sqlq(q{SELECT count(*) FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
	   JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
	   WHERE NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)}), '0',
	'every function of the extension pins its search_path');
# the views, read by a superuser on the database's path (public first): their
# names were bound to pg_catalog's when the extension was made
$node->safe_psql('inventory', 'SELECT * FROM scheduler.pending_pods; SELECT * FROM scheduler.node_usage');
is(sqlq(q{SELECT count(*) FROM public.planted_calls}), '0', 'reading the views calls nothing planted either');

# --- a stranger: no scheduler role
my $stranger = $node->background_psql('inventory', on_error_stop => 0);
$stranger->query_safe('SET ROLE regress_stranger');
like($stranger->query('SELECT scheduler_internal.wakeup()'), qr/^$/, 'wakeup() gives the stranger nothing');
like($stranger->{stderr}, qr/permission denied for schema scheduler_internal/, 'it is not executable by PUBLIC: its schema is not even usable');
$stranger->query('BEGIN; LOCK scheduler.cycle_lock IN SHARE MODE; ROLLBACK;');
like($stranger->{stderr}, qr/permission denied for table cycle_lock/, 'the cycle lock is not the stranger\'s to take');
$stranger->{stderr} = '';		# the refusals above, seen
$stranger->query_safe(q{BEGIN; SELECT pg_advisory_lock(1396852053, 1), pg_advisory_lock(1396852053, 2),
	pg_advisory_lock(1396852053, 3)});
my $t0 = time;
$pod->("held-$_", '100m') for 1 .. 3;
ok($node->poll_query_until('inventory', q{SELECT count(*) = 3 FROM scheduler.pods WHERE name LIKE 'held-%' AND node_name IS NOT NULL}),
	'while a stranger holds the old advisory keys in an open transaction, pods are bound');
note(sprintf('bound in %.1f s', time - $t0));
$stranger->quit;

# right after a restart, the stranger takes the keys first: the workers lead anyway
$node->restart;
my $early = $node->background_psql('inventory', on_error_stop => 0);
$early->query_safe(q{SET ROLE regress_stranger; SELECT pg_advisory_lock(1396852053, 1), pg_advisory_lock(1396852053, 2),
	pg_advisory_lock(1396852053, 3)});
$pod->("after-$_", '100m') for 1 .. 3;
ok($node->poll_query_until('inventory', q{SELECT count(*) = 3 FROM scheduler.pods WHERE name LIKE 'after-%' AND node_name IS NOT NULL}),
	'after a restart with the old keys taken first, the workers still lead and bind');
is(sqlq(q{SELECT string_agg(l.objsubid::text, ',' ORDER BY l.objsubid) FROM pg_locks l
	   WHERE l.locktype = 'object' AND l.classid = 'pg_extension'::regclass AND l.granted}), '2,3',
	'the watch and bind workers hold their leads as object locks on the extension (no SQL takes those)');
$early->quit;

# --- a flood of wake-ups (a writer may cause them) does not keep the worker
# busy: with nothing to do, runs spread out to one every 100 ms (a run that
# finds work resets that at once: work is never held back)
kjson('DELETE', "/api/v1/namespaces/default/pods/never-$_") for 1 .. 2;
ok($node->poll_query_until('inventory', 'SELECT count(*) = 0 FROM scheduler.queue'), 'nothing left to schedule');
my $gen0 = sqlq('SELECT generation FROM scheduler.cycle_lock');
my $t1 = time;
sqlq(q{DO $$ BEGIN FOR i IN 1..100000000 LOOP PERFORM scheduler_internal.wakeup(); COMMIT;
	EXIT WHEN pg_catalog.clock_timestamp() > pg_catalog.statement_timestamp() + interval '3 seconds'; END LOOP; END $$});
my $runs = sqlq('SELECT generation FROM scheduler.cycle_lock') - $gen0;
my $secs = time - $t1;
note(sprintf('%d runs of schedule_pending() in %.1f s of wake-ups', $runs, $secs));
cmp_ok($runs / $secs, '<', 25, 'the worker runs at most about every 100 ms while wake-ups find nothing to do');

# --- names in request paths
$node->append_conf('postgresql.conf', "scheduler.status_qps = 1000\n");
$node->reload;
sqlq(q{INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body) VALUES
	('delete', 'u-victim', 'default', '../../../../../apis/apps/v1/namespaces/kube-system/deployments/coredns?propagationPolicy=Background#',
	 '{"apiVersion": "v1", "kind": "DeleteOptions"}'),
	('binding', 'u-dots', '..', 'x', '{}'),
	('binding', 'u-space', 'default', 'a b', '{}')});
ok($node->poll_query_until('inventory', q{SELECT count(*) = 0 FROM scheduler.outbox WHERE state = 'pending'
	AND pod_uid IN ('u-victim', 'u-dots', 'u-space')}), 'the three rows are answered or failed');
my @paths = map { "$_->{method} $_->{path}" } @{ kjson('GET', '/debug/requests?limit=2000') };
is(join(',', grep { /^DELETE / && !m{^DELETE /api/v1/namespaces/default/pods/[^/?#]+$} } @paths), '',
	'no DELETE went anywhere but a pod\'s own path');
is(scalar(grep { m{^\S+ /apis/apps/v1/namespaces/kube-system/} } @paths), 0, 'no request reached another resource');
ok(scalar(grep { m{^DELETE /api/v1/namespaces/default/pods/\.\.%2F\.\.%2F.*%3FpropagationPolicy%3DBackground%23$} } @paths),
	'the victim was deleted at its own path, escaped');
is(sqlq(q{SELECT state || ' ' || last_status FROM scheduler.outbox WHERE pod_uid = 'u-dots'}), 'failed -1',
	'a namespace ".." builds no request: the row failed for good');
like(sqlq(q{SELECT state || ' ' || last_status FROM scheduler.outbox WHERE pod_uid = 'u-space'}), qr/^failed 4\d\d$/,
	'a name with a space is sent escaped, refused, and not retried forever');

# --- a response no jsonb can hold (nested 100000 deep) still counts: the
# binding is retried up to scheduler.outbox_max_attempts, then fails and the
# pod goes back to the queue (kube-scheduler's failed binding: forget, requeue),
# and is bound on its next cycle; never re-sent forever
$node->append_conf('postgresql.conf', "scheduler.outbox_max_attempts = 3\n");
$node->reload;
kjson('POST', '/debug/faults', { deep_500_next => 3, match => '/pods/deep/binding' });
$pod->('deep', '100m');
ok($node->poll_query_until('inventory', q{SELECT count(*) = 1 FROM scheduler.pods WHERE name = 'deep' AND node_name IS NOT NULL}),
	'the pod whose bindings got unreadable 500s is bound in the end');
is(sqlq(q{SELECT string_agg(state || ' ' || attempts || ' ' || coalesce(last_status::text, '') || ' ' || coalesce(last_error, ''), '; ' ORDER BY id)
	FROM scheduler.outbox WHERE kind = 'binding' AND name = 'deep'}),
	'failed 3 500 gave up after 3 attempts; done 1 201 ',
	'three 500s counted (the cap of 3), then failed; the next cycle\'s binding done');

$node->stop;
like(slurp_file($node->logfile), qr/scheduler bind: no request can be built for binding \.\.\/x/,
	'the row no request can be built for is logged');
like(slurp_file($node->logfile), qr/scheduler bind: the response to outbox request \d+ \(HTTP 500\) is no JSON object we can hold/,
	'the unreadable response is logged');
done_testing();
