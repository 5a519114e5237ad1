# The first lists before the first cycle.  kube-scheduler does not schedule
# until its informers have synced (WaitForCacheSync): a pod listed before
# the nodes is never judged against no nodes.  Here the pods' list is small
# and the nodes' large (it arrives later): the worker waits for both, and the
# pods are placed on their first attempt, with no FailedScheduling told.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;

my $api = StandIn->new('apiserver_010');
$api->kjson('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 3000}, "pods": {"count": 5}}}');

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'scheduler'\nscheduler.database = 'postgres'\n" . $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');

ok($node->poll_query_until('postgres', q{SELECT count(*) = 5 FROM scheduler.pods WHERE node_name IS NOT NULL}),
	'the five pods are bound');
is(q1(q{SELECT string_agg(DISTINCT result, ',') || ' ' || count(*) FROM scheduler.attempt_history}), 'scheduled 5',
	'each placed on its first attempt: none tried before the nodes were listed');
is(scalar(grep { $_->{reason} eq 'FailedScheduling' } @{ $api->kjson('GET', '/api/v1/events')->{items} }), 0,
	'no FailedScheduling event reached the API server');

$node->stop;
done_testing();
