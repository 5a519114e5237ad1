# The API server's flow control (issue 15): API Priority and Fairness
# rejects with 429 and a Retry-After, and client-go waits that long before
# it sends the request again (rest.Request's checkWait), for every kind of
# request.  Pinned here:
#   * a list refused with 429, Retry-After: 3 is sent again after 3 s, not
#     after the watch worker's 200 ms backoff;
#   * a binding refused so is sent again after 3 s, not after the outbox's
#     1 s backoff, and the pod is bound exactly once;
#   * status writes (conditions, events) refused so wait 4 s, while
#     bindings go on meanwhile: status never delays a binding;
#   * a Retry-After holds its class: a binding that falls due meanwhile is
#     not sent before it;
#   * a condition the server is slow to answer (3 s: its flow queued) does
#     not hold the bindings that come after it;
#   * nor does a binding: kube-scheduler runs each pod's binding cycle in a
#     goroutine of its own (scheduleOne), so the next pods are bound while
#     one binding waits for its answer; here the bind worker claims the
#     next bindings beside the one still in flight, and that one is
#     recorded, once, when its answer comes.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $api = StandIn->new('apiserver_020');
sub kreq { $api->kjson(@_) }
sub faults { kreq('POST', '/debug/faults', encode_json($_[0])) }
sub requests { my $r = kreq('GET', '/debug/requests'); return @$r }

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.unschedulable_timeout = '1s'
scheduler.pod_initial_backoff = 0
scheduler.pod_max_backoff = 0
});
$node->append_conf('postgresql.conf', $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }

# --- a list: the first list of nodes is refused
kreq('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 2, "cpu": "1"}}}');
faults({ http_429_next => 1, retry_after => 3, match => '/api/v1/nodes', method => 'GET' });
q1('CREATE EXTENSION scheduler');
ok($node->poll_query_until('postgres', 'SELECT count(*) = 2 FROM scheduler.nodes'), 'the nodes are mirrored in the end');
my @lists = grep { $_->{method} eq 'GET' && $_->{path} =~ m{^/api/v1/nodes(\?(?!.*watch=)|$)} } requests();
is(scalar(@lists), 2, 'two lists of nodes: the refused one and the next');
is($lists[0]{code}, 429, 'the first was refused with 429');
my $gap = $lists[1]{time} - $lists[0]{time};
cmp_ok($gap, '>=', 2.9, sprintf('the next list came after the Retry-After of 3 s (%.2f s)', $gap));

# --- a binding
faults({ http_429_next => 1, retry_after => 3, match => '/binding', method => 'POST' });
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "a-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT node_name IS NOT NULL FROM scheduler.pods WHERE name = 'a-0'}),
	'the pod whose binding was refused is bound in the end');
my @binds = grep { $_->{path} =~ m{/pods/a-0/binding$} } requests();
is(join(',', map { $_->{code} } @binds), '429,201', 'refused with 429, then bound: once');
$gap = $binds[1]{time} - $binds[0]{time};
cmp_ok($gap, '>=', 2.9, sprintf('sent again after the Retry-After of 3 s, not the 1 s backoff (%.2f s)', $gap));
is(q1(q{SELECT attempts || ' ' || last_status FROM scheduler.outbox WHERE kind = 'binding' AND name = 'a-0'}),
	'2 201', 'the outbox row: two attempts, 201 last');

# --- status writes refused; bindings go on beside them
faults({ http_429_next => 100, retry_after => 4, match => '/status', method => 'PATCH' });
faults({ http_429_next => 100, retry_after => 4, match => '/events', method => 'POST' });
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "big-", "cpu": "8"}}}');
ok($node->poll_query_until('postgres',
		q{SELECT count(*) > 0 FROM scheduler.outbox WHERE kind IN ('condition', 'event') AND last_status = 429}),
	'the unschedulable pod\'s status writes are refused with 429');
my $t0 = time;
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 5, "prefix": "b-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 5 FROM scheduler.pods WHERE name LIKE 'b-%' AND node_name IS NOT NULL}),
	'pods created meanwhile are bound');
my $took = time - $t0;
cmp_ok($took, '<', 3.5, sprintf('within the status writes\' Retry-After of 4 s (%.2f s): they do not hold bindings', $took));
my @status = grep { $_->{path} =~ m{/pods/big-0/status$} } requests();
is($status[0]{code}, 429, 'the condition was refused first');
faults({ clear => JSON::PP::true });
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM scheduler.outbox WHERE kind IN ('condition', 'event') AND state = 'pending'}),
	'the status writes are sent in the end');
@status = grep { $_->{path} =~ m{/pods/big-0/status$} } requests();
is($status[-1]{code}, 200, 'the condition was patched');
$gap = $status[1]{time} - $status[0]{time};
cmp_ok($gap, '>=', 3.9, sprintf('not before its Retry-After of 4 s (%.2f s)', $gap));

# --- a Retry-After holds its class: a binding due meanwhile waits for it
faults({ http_429_next => 1, retry_after => 3, match => '/pods/c-0/binding', method => 'POST' });
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "c-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT last_status = 429 FROM scheduler.outbox WHERE kind = 'binding' AND name = 'c-0'}),
	'c-0\'s binding refused with Retry-After: 3');
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "d-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM scheduler.pods WHERE name IN ('c-0', 'd-0') AND node_name IS NOT NULL}),
	'c-0 and d-0 are bound in the end');
my ($c429) = grep { $_->{path} =~ m{/pods/c-0/binding$} } requests();
my ($d) = grep { $_->{path} =~ m{/pods/d-0/binding$} } requests();
$gap = $d->{time} - $c429->{time};
cmp_ok($gap, '>=', 2.9, sprintf('d-0\'s binding, due meanwhile, was not sent before the Retry-After (%.2f s after the 429)', $gap));

# --- a status write the server is slow to answer does not hold the next bindings
faults({ latency_ms => 3000, match => '/status', method => 'PATCH' });
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "slow-", "cpu": "8"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM scheduler.outbox WHERE kind = 'condition' AND name = 'slow-0'}),
	'the unschedulable pod\'s condition is in the outbox');
usleep(300_000);	# sent, and held 3 s by the server
$t0 = time;
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 5, "prefix": "e-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 5 FROM scheduler.pods WHERE name LIKE 'e-%' AND node_name IS NOT NULL}),
	'pods created while the condition is held are bound');
$took = time - $t0;
cmp_ok($took, '<', 2, sprintf('within 2 s (%.2f s), while the condition takes 3 s', $took));
faults({ clear => JSON::PP::true });
ok($node->poll_query_until('postgres', q{SELECT state = 'done' FROM scheduler.outbox WHERE kind = 'condition' AND name = 'slow-0'}),
	'the slow condition is recorded in the end');

# --- nor does a binding the server is slow to answer
faults({ latency_ms => 5000, match => '/pods/f-0/binding', method => 'POST' });
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 1, "prefix": "f-", "cpu": "10m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM scheduler.outbox WHERE kind = 'binding' AND name = 'f-0'}),
	'f-0\'s binding is in the outbox');
usleep(1_000_000);	# sent, and held 5 s by the server
$t0 = time;
kreq('POST', '/debug/bulk', '{"generate": {"pods": {"count": 5, "prefix": "g-", "cpu": "10m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 5 FROM scheduler.pods WHERE name LIKE 'g-%' AND node_name IS NOT NULL}),
	'pods created while f-0\'s binding is held are bound');
$took = time - $t0;
cmp_ok($took, '<', 2.5, sprintf('within 2.5 s (%.2f s), while f-0\'s binding takes 5 s', $took));
is(q1(q{SELECT count(*) FROM scheduler.pods WHERE name = 'f-0' AND node_name IS NOT NULL}), '0',
	'f-0 was not bound yet then');
ok($node->poll_query_until('postgres', q{SELECT state = 'done' AND last_status = 201 FROM scheduler.outbox WHERE kind = 'binding' AND name = 'f-0'}),
	'f-0\'s binding is recorded when its answer comes: 201');
faults({ clear => JSON::PP::true });
my @f = grep { $_->{path} =~ m{/pods/f-0/binding$} } requests();
is(join(',', map { $_->{code} } @f), '201', 'f-0\'s binding was sent once');
is(q1(q{SELECT attempts FROM scheduler.outbox WHERE kind = 'binding' AND name = 'f-0'}), '1', 'in one attempt');

$node->stop;
done_testing();
