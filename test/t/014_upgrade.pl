# ALTER EXTENSION scheduler UPDATE from 0.1 with data in the tables, as a
# user upgrades: 0.1 as released (its library and its install script,
# built from the git history beside the checkout by test/run: build_at
# $SCHEDULER_0_1_COMMIT, in $SCHEDULER_0_1_INSTALL) runs a server whose
# database "old" is loaded with a cluster and scheduled; the server then
# restarts on the current build, and "old" is updated.  Database "fresh"
# gets the same from a fresh install of the current version.  After the
# update the two must hold the same objects (every function, table, column,
# index, trigger, view, comment and grant the extension owns), the old
# database must have kept its rows, and both must go on to schedule the same
# pods onto the same nodes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old_install = $ENV{SCHEDULER_0_1_INSTALL};
ok(defined $old_install && -x "$old_install/bin/postgres",
	'0.1 as released is built beside the checkout (test/run: build_at)')
  or BAIL_OUT('no 0.1 build: run through test/run, or set SCHEDULER_0_1_INSTALL');

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
# the library path the current build is loaded from (the sanitized run's
# dynamic_library_path comes from its configuration)
$node->start;
my $library_path = $node->safe_psql('postgres', 'SHOW dynamic_library_path');
my $current = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'scheduler'});
$node->stop;
isnt($current, '0.1', "the current version ($current) is not 0.1");

# 0.1's server: its own library only
$node->{_install_path} = $old_install;
$node->append_conf('postgresql.conf', "dynamic_library_path = '\$libdir'");
$node->start;
is($node->safe_psql('postgres', q{SELECT default_version FROM pg_available_extensions WHERE name = 'scheduler'}),
	'0.1', 'the old server offers 0.1');
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', q{CREATE EXTENSION scheduler});
is($node->safe_psql('old', q{SELECT extversion FROM pg_extension WHERE extname = 'scheduler'}),
	'0.1', 'old is installed at 0.1');

# A small cluster: three nodes, one tainted; pods bound, pending, gated and
# unschedulable; a namespace, a PDB, a Service; a profile of our own.
sub node_json
{
	my ($name, $cpu, $extra) = @_;
	$extra //= '';
	return qq{{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "$name", "uid": "uid-$name",
		"labels": {"kubernetes.io/hostname": "$name", "topology.kubernetes.io/zone": "z-$name"}},
		"spec": {$extra}, "status": {"allocatable": {"cpu": "$cpu", "memory": "8Gi", "pods": "110"}}}};
}

sub pod_json
{
	my ($name, $cpu, $extra) = @_;
	$extra //= '';
	return qq{{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "$name", "namespace": "default",
		"uid": "uid-$name", "labels": {"app": "web"}},
		"spec": {$extra "containers": [{"name": "c", "resources": {"requests": {"cpu": "$cpu"}}}]}}};
}

my @load = (
	node_json('n1', '4'),
	node_json('n2', '2'),
	node_json('n3', '8', q{"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}),
	q{{"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "default", "uid": "uid-ns-default", "labels": {"team": "a"}}}},
	q{{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "pdb", "namespace": "default", "uid": "uid-pdb"},
	   "spec": {"selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 1}}},
	q{{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "svc", "namespace": "default", "uid": "uid-svc"},
	   "spec": {"selector": {"app": "web"}}}},
	pod_json('bound', '1', q{"nodeName": "n1",}),
	pod_json('small', '500m', q{"nodeSelector": {"kubernetes.io/hostname": "n2"},}),
	# unschedulable until n4 comes (NodeAffinity; and too big for the others):
	# an assigned pod's going does not move it, however long it waited
	pod_json('huge', '64', q{"nodeSelector": {"kubernetes.io/hostname": "n4"},}),
	pod_json('gated', '1', q{"schedulingGates": [{"name": "wait"}],}),
	node_json('gone', '4'),
	pod_json('pinned', '1', q{"nodeSelector": {"kubernetes.io/hostname": "gone"},}),
	# what 0.1 and 0.2 did not read of a pod's request, and the update
	# computes again: pod-level requests (a node counts 200m and the pod
	# level's 1Gi; NodeResourcesFit's scorer the containers', with the
	# defaults of the second: 300m and 400Mi), and a running pod resized in
	# place (2 cpu allocated where its spec says 1)
	q{{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "pod-level", "namespace": "default", "uid": "uid-pod-level"},
	   "spec": {"nodeSelector": {"kubernetes.io/hostname": "n1"}, "resources": {"requests": {"memory": "1Gi"}},
	   "containers": [{"name": "a", "resources": {"requests": {"cpu": "200m"}}}, {"name": "b"}]}}},
	q{{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "resized", "namespace": "default", "uid": "uid-resized"},
	   "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
	   "status": {"phase": "Running", "containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "2"},
	   "resources": {"requests": {"cpu": "2"}}}]}}},
);

sub load
{
	my ($db) = @_;
	for my $doc (@load)
	{
		$node->safe_psql($db, "SELECT scheduler.apply(\$j\$$doc\$j\$)");
	}
	$node->safe_psql($db, q{
		INSERT INTO scheduler.profiles (scheduler_name) VALUES ('tight');
		INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, weight, args)
		SELECT 'tight', plugin, position, weight, args FROM scheduler.profile_plugins
		WHERE scheduler_name = 'default-scheduler';
	});
	my $first = $node->safe_psql($db, q{
		SELECT string_agg(name || ' ' || coalesce(node, '-') || ' ' || result, E'\n' ORDER BY name)
		FROM public.schedule_pending()});
	# the small pod, assumed, starts being deleted before it is bound (a
	# finalizer holds it): 0.1 and 0.2 keep it assumed, the current version
	# forgets it (kube-scheduler's handleAssumedPodDeletion), and so must
	# the update
	$node->safe_psql($db, q{SELECT scheduler.apply(object || jsonb_build_object('metadata', object->'metadata'
		|| '{"deletionTimestamp": "2024-01-01T00:10:00Z", "finalizers": ["example.com/hold"]}'))
		FROM scheduler.pods WHERE name = 'small'});
	# the node the pinned pod was assumed on goes: 0.1 leaves the pod
	# assumed there, 0.2 forgets it (and so must the update)
	$node->safe_psql($db, "SELECT scheduler.apply(\$j\$" . '{"type": "DELETED", "object": ' . node_json('gone', '4') . "}\$j\$)");
	return $first;
}

my $first_old = load('old');

# the rows 0.1 wrote
my $rows_query = q{
	SELECT string_agg(t, E'\n' ORDER BY t) FROM (
		SELECT 'node ' || name AS t FROM scheduler.nodes
		UNION ALL SELECT 'pod ' || name || ' ' || coalesce(node_name, assumed_node, '-') FROM scheduler.pods
		UNION ALL SELECT 'attempt ' || pod_uid || ' ' || result || ' ' || coalesce(node, '-') FROM scheduler.pod_attempts
		UNION ALL SELECT 'queue ' || pod_uid || ' ' || state FROM scheduler.queue
		UNION ALL SELECT 'profile ' || scheduler_name || ' ' || count(*) FROM scheduler.profile_plugins GROUP BY scheduler_name
		UNION ALL SELECT 'namespace ' || name FROM scheduler.namespaces
		UNION ALL SELECT 'pdb ' || name FROM scheduler.pdbs
		UNION ALL SELECT 'workload ' || name FROM scheduler.workloads
		UNION ALL SELECT 'history ' || count(*) FROM scheduler.attempt_history) s};
my $before = $node->safe_psql('old', $rows_query);
# each pod's resource columns (those a version has)
my $requests_query = q{
	SELECT string_agg(p.name || ' ' || p.requests::text || ' ' || p.nonzero_cpu || ' ' || p.nonzero_memory
		|| coalesce(' ' || (to_jsonb(p)->>'pending_nonzero_cpu') || ' ' || (to_jsonb(p)->>'pending_nonzero_memory'), ''),
		E'\n' ORDER BY p.name)
	FROM scheduler.pods p};
my $requests_before = $node->safe_psql('old', $requests_query);
# Database "odd": a status 0.1 stored without reading it, and the current
# version refuses (a quantity that is none), beside a pod-level request:
# the update computes the pods one by one (old's update computes them in
# one statement), leaves the odd pod's row as it was and names it in a
# WARNING
$node->safe_psql('postgres', 'CREATE DATABASE odd');
$node->safe_psql('odd', q{CREATE EXTENSION scheduler});
$node->safe_psql('odd', "SELECT scheduler.apply(\$j\$$_\$j\$)") for ($load[-2], q{{"kind": "Pod", "apiVersion": "v1",
	"metadata": {"name": "odd", "namespace": "default", "uid": "uid-odd"},
	"spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]},
	"status": {"phase": "Running", "containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "lots"}}]}}});
my $odd_before = $node->safe_psql('odd', q{SELECT requests::text || ' ' || nonzero_cpu FROM scheduler.pods WHERE name = 'odd'});
$node->stop;

# the current build's server, on the same data
$node->{_install_path} = undef;
$node->append_conf('postgresql.conf', "dynamic_library_path = '$library_path'");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', q{CREATE EXTENSION scheduler});
is($node->safe_psql('fresh', q{SELECT extversion FROM pg_extension WHERE extname = 'scheduler'}),
	$current, "fresh is installed at $current");
my $first_fresh = load('fresh');
is($first_old, $first_fresh, '0.1 and the current build schedule the first pods alike');
like($first_old, qr/^huge - unschedulable$/m, 'the huge pod is unschedulable');
like($first_old, qr/^pinned gone scheduled$/m, 'the pinned pod is assumed on its node, which then goes');
like($before, qr/^pod small n2$/m, '0.1 keeps the small pod assumed while its deletion starts');
is($node->safe_psql('fresh', q{SELECT coalesce(assumed_node, '-') FROM scheduler.pods WHERE name = 'small'}),
	'-', 'the current version forgets it');
is($node->safe_psql('fresh', q{SELECT coalesce(assumed_node, '-') || ' ' || q.state FROM scheduler.pods p JOIN scheduler.queue q ON q.pod_uid = p.uid WHERE name = 'pinned'}),
	'- backoff', 'the current version forgets it and queues it again, in backoff (its binding failed)');


# a DBA's grants on the views keep through the update (0.3 changes the
# collation of the uid columns two of them read: each view is kept, its
# definition replaced twice, not dropped)
$node->safe_psql('old', q{CREATE ROLE dba_reader; GRANT SELECT ON scheduler.pending_pods, scheduler.metrics_pending_pods TO dba_reader});
my ($update_out, $update_err);
$node->psql('old', q{ALTER EXTENSION scheduler UPDATE}, stdout => \$update_out, stderr => \$update_err, on_error_die => 1);
unlike($update_err, qr/computing each pod's requests alone|WARNING/, 'old: the pods\' requests computed in one statement')
  or diag($update_err);
$node->psql('odd', q{ALTER EXTENSION scheduler UPDATE}, stdout => \$update_out, stderr => \$update_err, on_error_die => 1);
like($update_err, qr/WARNING:  scheduler: computing each pod's requests alone: .*allocatedResources\.cpu/,
	'odd: the pods computed one by one, as one object cannot be read');
like($update_err, qr/WARNING:  scheduler: pod default\/odd keeps the requests it had: .*allocatedResources\.cpu: invalid quantity "lots"/,
	'the update names the pod whose stored object it cannot read');
is($node->safe_psql('odd', q{SELECT requests::text || ' ' || nonzero_cpu FROM scheduler.pods WHERE name = 'odd'}),
	$odd_before, 'and leaves its row as it was');
is($node->safe_psql('odd', q{SELECT requests::text || ' ' || nonzero_cpu || ' ' || pending_nonzero_cpu || ' ' || pending_nonzero_memory
	FROM scheduler.pods WHERE name = 'pod-level'}),
	'{"cpu": 200, "memory": 1073741824} 200 300 419430400', 'and computes the others');
is($node->safe_psql('old', q{SELECT extversion FROM pg_extension WHERE extname = 'scheduler'}),
	$current, "old is updated to $current");
is($node->safe_psql('old', q{SELECT has_table_privilege('dba_reader', 'scheduler.pending_pods', 'SELECT')
	AND has_table_privilege('dba_reader', 'scheduler.metrics_pending_pods', 'SELECT')}),
	't', "the DBA's grants on pending_pods and metrics_pending_pods are kept");
$node->safe_psql('old', q{REVOKE SELECT ON scheduler.pending_pods, scheduler.metrics_pending_pods FROM dba_reader});
# every row kept, but those of the pods assumed on the deleted node (the
# pinned pod, and any other the scores put there): forgotten, queued again
# in backoff (as kube-scheduler hands back a pod whose binding failed); and
# the small pod's, assumed on n2 while its deletion started: forgotten, not
# queued (it is being deleted)
# The default profile gains the plugins of the versions updated through
# (0.3: the volume plugins), as a fresh install has them; a profile of the
# user's own ('tight', a copy of 0.1's default) is kept as it was.
my ($fresh_default) = $node->safe_psql('fresh', $rows_query) =~ /^(profile default-scheduler \d+)$/m;
my @expected;
my @unschedulable;
for my $row (split(/\n/, $before))
{
	if ($row =~ /^pod small \S+$/)
	{
		push @expected, "pod small -";	# forgotten, not queued: it is being deleted
	}
	elsif ($row =~ /^pod (\S+) gone$/)
	{
		push @expected, "pod $1 -", "queue uid-$1 backoff";
	}
	elsif ($row =~ /^profile default-scheduler /)
	{
		push @expected, $fresh_default;
	}
	else
	{
		push @unschedulable, $1 if $row =~ /^queue (\S+) unschedulable$/;
		push @expected, $row;
	}
}
my $expected = join("\n", sort @expected);

# An update script runs with the new library over the old tables, so the
# QueueingHints cannot read the rows it changes: every unschedulable pod is
# moved on (to backoff, or active once its backoff is over), as for a change
# no hint can judge.  Read as unschedulable again, to compare.
sub moved_back
{
	my ($rows) = @_;
	$rows =~ s/^queue \Q$_\E (?:backoff|active)$/queue $_ unschedulable/m for @unschedulable;
	return $rows;
}
# what only the user's own profile makes differ from a fresh install
sub without_own_profile
{
	my ($rows) = @_;
	$rows =~ s/^profile tight \d+\n//m;
	return $rows;
}
is(moved_back($node->safe_psql('old', $rows_query)), $expected,
	'the new library and the update kept every row, but forgot the pod assumed on a deleted node and the one being deleted');
is(without_own_profile(moved_back($node->safe_psql('old', $rows_query))),
	without_own_profile($node->safe_psql('fresh', $rows_query)),
	'the updated and the fresh database hold the same rows');
isnt($requests_before, $node->safe_psql('fresh', $requests_query),
	'0.1 computed other requests than the current version for some pods');
like($node->safe_psql('fresh', $requests_query), qr/^pod-level \{"cpu": 200, "memory": 1073741824\} 200 1073741824 300 419430400$/m,
	'the current version reads the pod-level requests, and NodeResourcesFit\'s scorer the containers\' (the defaults of the second)');
like($node->safe_psql('fresh', $requests_query), qr/^resized \{"cpu": 2000\} 2000 209715200$/m,
	'and the resized pod\'s allocated 2 cpu');
is($node->safe_psql('old', $requests_query), $node->safe_psql('fresh', $requests_query),
	'the update computed every pod\'s requests again, as the current version does');
my $queued = $node->safe_psql('old', q{SELECT count(*) FROM scheduler.queue});
ok($queued > 0, 'pods are queued after the update');
is($node->safe_psql('old', q{SELECT count(*) FILTER (WHERE q.scheduler_name IS DISTINCT FROM p.scheduler_name) || ' of ' || count(*)
	FROM scheduler.queue q LEFT JOIN scheduler.pods p ON p.uid = q.pod_uid}),
	"0 of $queued", 'the update gave every queued pod its schedulerName');

# Every object the extension owns, described by what defines it.
my $objects_query = q{
	WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'scheduler'),
	m AS (SELECT classid, objid FROM pg_depend, ext
		WHERE refclassid = 'pg_extension'::regclass AND refobjid = ext.oid AND deptype = 'e'),
	d AS (
		SELECT pg_describe_object(classid, objid, 0) AS what,
			CASE classid
			WHEN 'pg_proc'::regclass THEN
				(SELECT concat_ws(' | ', pg_get_functiondef(p.oid), p.proacl::text, p.proconfig::text,
					obj_description(p.oid, 'pg_proc')) FROM pg_proc p WHERE p.oid = objid AND p.prokind <> 'a')
			WHEN 'pg_class'::regclass THEN
				(SELECT concat_ws(' | ', c.relkind, c.relacl::text, c.reloptions::text, obj_description(c.oid, 'pg_class'),
					CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END,
					(SELECT string_agg(pg_get_indexdef(i.indexrelid), '; ' ORDER BY pg_get_indexdef(i.indexrelid))
					 FROM pg_index i WHERE i.indrelid = c.oid),
					(SELECT string_agg(pg_get_constraintdef(k.oid) || ' ' || k.conname, '; ' ORDER BY k.conname)
					 FROM pg_constraint k WHERE k.conrelid = c.oid),
					(SELECT string_agg(pg_get_triggerdef(t.oid), '; ' ORDER BY t.tgname)
					 FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal),
					(SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod),
							CASE WHEN a.attcollation <> 0 THEN 'collate ' || a.attcollation::regcollation END, a.attnotnull, a.attgenerated,
							'storage ' || a.attstorage::text, nullif('compression ' || a.attcompression::text, 'compression '), pg_get_expr(ad.adbin, ad.adrelid),
							a.attacl::text, col_description(c.oid, a.attnum)), ', ' ORDER BY a.attnum)
					 FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
					 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
				 FROM pg_class c WHERE c.oid = objid)
			WHEN 'pg_namespace'::regclass THEN
				(SELECT concat_ws(' | ', n.nspacl::text, obj_description(n.oid, 'pg_namespace'))
				 FROM pg_namespace n WHERE n.oid = objid)
			END AS def
		FROM m)
	SELECT string_agg(what || E'\n    ' || coalesce(def, ''), E'\n' ORDER BY what) FROM d};
my $old_objects = $node->safe_psql('old', $objects_query);
my $fresh_objects = $node->safe_psql('fresh', $objects_query);
ok(length($fresh_objects) > 1000, 'the catalog description is not empty');
is($old_objects, $fresh_objects, 'the updated database holds the same objects as a fresh install');
if ($old_objects ne $fresh_objects)
{
	# a readable diff in the log
	my ($a, $b) = ("${PostgreSQL::Test::Utils::tmp_check}/objects_old", "${PostgreSQL::Test::Utils::tmp_check}/objects_fresh");
	PostgreSQL::Test::Utils::append_to_file($a, $old_objects . "\n");
	PostgreSQL::Test::Utils::append_to_file($b, $fresh_objects . "\n");
	diag(`diff -u $a $b | head -80`);
}

# both go on: a new node lets the huge pod fit, new pods arrive
for my $db ('old', 'fresh')
{
	$node->safe_psql($db, "SELECT scheduler.apply(\$j\$" . node_json('n4', '96') . "\$j\$)");
	$node->safe_psql($db, "SELECT scheduler.apply(\$j\$" . pod_json('late', '2') . "\$j\$)");
	$node->safe_psql($db, "SELECT scheduler.apply(\$j\$" . pod_json('tight-one', '1', q{"schedulerName": "tight",}) . "\$j\$)");
	# the unschedulable pod's backoff and the timeout are the queue's: move it on now
	$node->safe_psql($db, q{UPDATE scheduler.queue SET state = 'active', backoff_until = NULL WHERE state IN ('backoff', 'unschedulable')});
}
# the default scheduler's pods, then (as a second kube-scheduler would)
# those of the profile 'tight'
my $then = q{SELECT string_agg(name || ' ' || coalesce(node, '-') || ' ' || result, E'\n' ORDER BY name)
	FROM public.schedule_pending();
	SET scheduler.scheduler_name = 'tight';
	SELECT string_agg(name || ' ' || coalesce(node, '-') || ' ' || result, E'\n' ORDER BY name)
	FROM public.schedule_pending()};
my $then_old = $node->safe_psql('old', $then);
my $then_fresh = $node->safe_psql('fresh', $then);
is($then_old, $then_fresh, 'after the update both schedule the next pods alike');
# the running totals of the metrics start at the update: they count the
# attempts made since, one per row the calls returned
is($node->safe_psql('old', q{SELECT sum(attempts) FROM scheduler.attempt_totals}),
	scalar(split(/\n/, $then_old)), 'the updated database counts the attempts made since the update');
like($then_old, qr/^huge n4 scheduled$/m, 'the huge pod lands on the new node');
like($then_old, qr/^tight-one n\d scheduled$/m, 'the profile kept across the update schedules its pod');
is(without_own_profile($node->safe_psql('old', $rows_query)), without_own_profile($node->safe_psql('fresh', $rows_query)),
	'and end with the same rows');
is($node->safe_psql('old', q{SELECT string_agg(namespace || '/' || name || ' ' || queue, ',' ORDER BY name) FROM scheduler.pending_pods}),
	$node->safe_psql('fresh', q{SELECT string_agg(namespace || '/' || name || ' ' || queue, ',' ORDER BY name) FROM scheduler.pending_pods}),
	'pending_pods reads alike');

$node->stop;
done_testing();
