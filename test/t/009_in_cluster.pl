# In-cluster defaults, as client-go's rest.InClusterConfig: with none of the
# scheduler.kube_* settings set, KUBERNETES_SERVICE_HOST and _PORT in the
# environment and the service account's token and ca.crt mounted, the
# workers talk to https://HOST:PORT with that token, verified by that CA.
# (The mount is /var/run/secrets/kubernetes.io/serviceaccount; the test
# points SCHEDULER_SERVICEACCOUNT_DIR at a folder of its own instead.)
# Also: SIGTERM stops a worker at once, even in the middle of a watch that
# would stay open for minutes (the latch is in the same WaitEventSet as
# curl's sockets).
use strict;
use warnings;
use File::Copy qw(copy);
use File::Path qw(make_path);
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $api = StandIn->new('apiserver_009');
my $api_url = $api->url;
my $certdir = $api->certdir;
sub kreq { $api->kjson(@_) }
my $port = $api->port;
my $sadir = $api->work . '/serviceaccount';
make_path($sadir);
copy($api->token_file, "$sadir/token") or die "copy token: $!";
copy($api->ca_file, "$sadir/ca.crt") or die "copy ca.crt: $!";

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
});
{
	local $ENV{KUBERNETES_SERVICE_HOST} = '127.0.0.1';
	local $ENV{KUBERNETES_SERVICE_PORT} = $port;
	local $ENV{SCHEDULER_SERVICEACCOUNT_DIR} = $sadir;
	$node->start;
}
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');
is(q1(q{SELECT count(*) || ' settings, ' || count(*) FILTER (WHERE setting <> '') || ' set' FROM pg_settings WHERE name LIKE 'scheduler.kube%'}),
	'7 settings, 0 set', 'no connection setting is set (kube_api_url, the four files, kubeconfig, kube_context)');

kreq('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 2}, "pods": {"count": 3}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 3 FROM scheduler.pods WHERE node_name IS NOT NULL}),
	'in-cluster: the nodes and pods are mirrored, and the pods bound through the API');
is(scalar(grep { $_->{code} == 201 } @{ kreq('GET', '/debug/bindings') }), 3,
	'three bindings, as the API server recorded them');
is(q1(q{SELECT string_agg(name, ',' ORDER BY name) FROM scheduler.namespaces}),
	'default,kube-node-lease,kube-public,kube-system', 'the namespaces are mirrored too');
kreq('POST', '/api/v1/namespaces', '{"metadata": {"name": "team-a", "labels": {"team": "a"}}}');
ok($node->poll_query_until('postgres', q{SELECT labels = '{"team": "a", "kubernetes.io/metadata.name": "team-a"}'
	FROM scheduler.namespaces WHERE name = 'team-a'}),
	'a namespace created in the API arrives through the watch, with its labels (the API server adds kubernetes.io/metadata.name)');

# --- SIGTERM in the middle of a watch: gone at once
my $pid = q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler watch'});
SKIP:
{
	# (only the stand-in tells its watches)
	skip 'a real kube-apiserver does not list its watches', 1 if $api->real;
	my $kinds = $api->kinds_paths($node);
	my $open = '';
	for (1 .. 50)
	{
		$open = $api->watched_paths;
		last if $open eq $kinds;
		usleep(100_000);
	}
	is($open, $kinds, 'a watch per kind scheduler.kinds() lists is open (they last minutes)');
}
my $t0 = time;
q1("SELECT pg_terminate_backend($pid)");
ok($node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid", 't'),
	'SIGTERM ends the watch worker');
my $took = time - $t0;
cmp_ok($took, '<', 2, sprintf('within 2 s (%.2f s)', $took));

$node->stop;
done_testing();
