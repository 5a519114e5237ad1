# One leader per database, and nothing acting on a standby.
# kube-scheduler runs with leader election so that one instance schedules
# and binds at a time; here the watch and bind workers each hold a session
# lock on the extension's own catalog entry while they act (objsubid 2 and
# 3: no SQL statement takes those, unlike an advisory lock any role can
# take); a superuser session can hold one with scheduler.hold_lead(), as a
# test does here.  Pinned here:
#   * while another session holds the watch lock, the watch worker neither
#     lists nor watches (the mirror stays empty); the moment it is free, the
#     worker takes it and mirrors the API;
#   * while another session holds the bind lock, nothing is bound; freed,
#     the pending binding goes out, once;
#   * with nothing to send, the bind worker sleeps;
#   * a streaming standby starts none of the scheduler's workers (they start
#     when recovery has finished), and makes no request to the API server.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $api = StandIn->new('apiserver_006');
sub kreq { $api->kjson(@_) }

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
});
$primary->append_conf('postgresql.conf', $api->conf);
$primary->start;
sub q1 { $primary->safe_psql('postgres', $_[0]) }

kreq('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 3}}}');

# --- the watch lock held elsewhere: no mirroring until it is released
my $holder = $primary->background_psql('postgres');
# in the transaction that creates the extension: the worker never sees it unled
$holder->query_safe(q{BEGIN; CREATE EXTENSION scheduler; SELECT scheduler.hold_lead('watch'); COMMIT;});
usleep(2_500_000);
is(q1('SELECT count(*) FROM scheduler.nodes'), '0',
	'while another session holds the watch lock, nothing is listed');
is(q1('SELECT count(*) FROM scheduler.watch_state'), '0', 'and no resourceVersion is stored');
$holder->query_safe(q{SELECT scheduler.release_lead('watch')});
ok($primary->poll_query_until('postgres', 'SELECT count(*) = 3 FROM scheduler.nodes'),
	'released: the watch worker takes the lead and mirrors the nodes');

# --- the bind lock held elsewhere: the binding waits, then goes out once.
# (The bind worker took its lock when the extension appeared.  End it: its
# lock goes with it and is ours at once; the postmaster starts the worker
# again 5 s later, to find the lock taken.)
my $bind_pid = q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler bind'});
q1("SELECT pg_terminate_backend($bind_pid)");
is($holder->query_safe(q{SELECT scheduler.hold_lead('bind')}), 't', 'the bind lead is ours while the worker is down');
ok($primary->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'scheduler bind' AND pid <> $bind_pid"),
	'the bind worker is started again');
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "solo-"}}}');
ok($primary->poll_query_until('postgres', q{SELECT count(*) = 1 FROM scheduler.outbox WHERE kind = 'binding'}),
	'the pod is scheduled: its binding is in the outbox');
usleep(2_000_000);
is(scalar(@{ kreq('GET', '/debug/bindings') }), 0,
	'while another session holds the bind lock, nothing is sent');
$holder->query_safe(q{SELECT scheduler.release_lead('bind')});
ok($primary->poll_query_until('postgres', q{SELECT node_name IS NOT NULL FROM scheduler.pods WHERE name = 'solo-0'}),
	'released: the binding goes out and the bound pod comes back through the watch');
is(scalar(@{ kreq('GET', '/debug/bindings') }), 1, 'exactly one binding request');
$holder->quit;

# --- idle when there is nothing to do: the bind worker sleeps until woken
# (it once polled every 10 ms).  Each time it reads the outbox it reports
# itself idle again, which moves state_change.
usleep(500_000);
my $before = q1(q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'scheduler bind'});
usleep(1_500_000);
is(q1(q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'scheduler bind'}), $before,
	'with an empty outbox the bind worker does not poll');

# --- a standby starts none of the workers
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);
usleep(2_000_000);
is($standby->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'scheduler%'}),
	'0', 'a standby runs no scheduler worker');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM scheduler.nodes'), '3',
	'(it has the mirror, replicated)');
# only the primary's watches are open: one per kind (scheduler.kinds()), as
# before the standby came (only the stand-in tells its watches)
SKIP:
{
	skip 'a real kube-apiserver does not list its watches', 1 if $api->real;
	is($api->watched_paths, $api->kinds_paths($primary),
		'the API server sees only the primary\'s watches, one per kind scheduler.kinds() lists');
}

$standby->stop;
$primary->stop;
done_testing();
