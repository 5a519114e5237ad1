# The ClusterRole of deploy/rbac.yaml against the requests the workers make.
#
# The workers run as deploy/statefulset.yaml runs them: its settings (the
# postgres -c arguments and SCHEDULER_DATABASE), and the in-cluster
# configuration (no scheduler.kube_* setting; KUBERNETES_SERVICE_HOST/PORT
# and the service account's token and ca.crt, as 009 mounts them).  Against
# the stand-in API server, one scenario makes every kind of request they can
# make (src/watch.c, src/bind.c):
#   * every kind scheduler.kinds() names listed, then watched;
#   * a preemption (011's setup: full nodes, a high-priority pod): the
#     victim's DELETE, a Preempted event, then the Binding (and the
#     PodScheduled condition with nominatedNodeName, unless the pod is bound
#     before it goes out);
#   * a pod that fits nowhere: its PodScheduled=False condition and a
#     FailedScheduling event (events.k8s.io/v1), and after a second failure
#     the Event's series (a patch);
#   * VolumeBinding's PreBind (015's cases 2 and 3): a volume's claimRef and a
#     claim's selected-node, each a merge patch, then the Bindings;
#   * a pod of another schedulerName (kube-scheduler's), which they leave
#     alone: no request names it.
# The stand-in's request log (GET /debug/requests: method, path with query,
# status, User-Agent) holds each request once it is answered; the workers'
# are those whose User-Agent is the extension's.  A watch is logged when it
# ends, so the test ends them (the close_watches fault) and the workers
# reopen them.
#
# Each request is mapped to what RBAC authorizes, as the API server's
# request-info resolver (k8s.io/apiserver/pkg/endpoints/request/
# requestinfo.go, NewRequestInfo) makes it: /api/v1 is the group "",
# /apis/G/V the group G; namespaces/NS/ is taken off; the parts are
# resource/name/subresource; GET of a name is get, of a collection list, or
# watch with the watch parameter (or a /watch/ prefix); POST create, PUT
# update, PATCH patch, DELETE delete (deletecollection without a name).
# Then RBAC's rule match (k8s.io/kubernetes/plugin/pkg/auth/authorizer/
# rbac/rbac.go, RuleAllows): the verb, the group and resource or
# resource/subresource each in the rule's list (or "*"), and the name in
# resourceNames when it has any.  Checked both ways:
#   * every request the workers made is allowed by the ClusterRole;
#   * every (verb, group, resource) the ClusterRole grants was used by some
#     request: nothing is granted beyond what the workers do (no wildcard,
#     no resourceNames, no nonResourceURLs either).
# And the check can fail: each rule taken out of a copy of the ClusterRole
# leaves requests denied, and a verb added to a copy is reported unused.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(usleep);

my $root = abs_path(dirname(__FILE__) . '/../..');
my $json = JSON::PP->new->canonical;

# ------------------------------------------------------------------------
# The manifests, read as YAML (Debian's python3-yaml)
# ------------------------------------------------------------------------
sub yaml_documents
{
	my ($file) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'python3', '-c',
		'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None], sys.stdout)',
		$file ], '>', \$out, '2>', \$err)
	  or die "cannot read $file as YAML: $err";
	return @{ decode_json($out) };
}
sub the_one
{
	my ($kind, @docs) = @_;
	my @found = grep { $_->{kind} eq $kind } @docs;
	die "expected one $kind, found " . scalar(@found) unless @found == 1;
	return $found[0];
}
my @rbac = yaml_documents("$root/deploy/rbac.yaml");
my $sa = the_one('ServiceAccount', @rbac);
my $role = the_one('ClusterRole', @rbac);
my $binding = the_one('ClusterRoleBinding', @rbac);
my @sts_docs = yaml_documents("$root/deploy/statefulset.yaml");
my $sts = the_one('StatefulSet', @sts_docs);
my $pod_spec = $sts->{spec}{template}{spec};

is($binding->{roleRef}{kind} . ' ' . $binding->{roleRef}{name}, "ClusterRole $role->{metadata}{name}",
	'the ClusterRoleBinding grants the ClusterRole');
is(join(',', map { "$_->{kind} $_->{namespace}/$_->{name}" } @{ $binding->{subjects} }),
	"ServiceAccount $sa->{metadata}{namespace}/$sa->{metadata}{name}", 'to the ServiceAccount, alone');
is($pod_spec->{serviceAccountName} . ' ' . $sts->{metadata}{namespace}, "$sa->{metadata}{name} $sa->{metadata}{namespace}",
	'which the StatefulSet runs as, in its namespace');
is($pod_spec->{automountServiceAccountToken} ? 'mounted' : 'not mounted', 'mounted', 'with its token mounted');
is($sts->{spec}{replicas}, 1, 'one replica');

# the server's settings, from the container's arguments (postgres -c
# name=value) and environment
my ($container) = @{ $pod_spec->{containers} };
my %setting;
my @args = @{ $container->{args} // [] };
while (@args)
{
	my ($flag, $kv) = splice(@args, 0, 2);
	die "deploy/statefulset.yaml: an argument this test cannot read: $flag" unless $flag eq '-c' && $kv =~ /^([^=]+)=(.*)$/;
	$setting{$1} = $2;
}
my %env = map { $_->{name} => $_->{value} } grep { defined $_->{value} } @{ $container->{env} // [] };
my $database = $env{SCHEDULER_DATABASE} // die 'deploy/statefulset.yaml sets no SCHEDULER_DATABASE';
my $scheduler_name = $setting{'scheduler.scheduler_name'} // die 'deploy/statefulset.yaml sets no scheduler.scheduler_name';
like($setting{shared_preload_libraries} // '', qr/(^|,)\s*scheduler\s*(,|$)/, 'the library is preloaded');
is(join(',', grep { /^scheduler\.kube_/ } sort keys %setting), '', 'no connection setting: the in-cluster configuration');
isnt($scheduler_name, 'default-scheduler', "a second scheduler: $scheduler_name");

# ------------------------------------------------------------------------
# A request as RBAC sees it, and the ClusterRole's verdict
# ------------------------------------------------------------------------
sub unescape { my $s = shift // ''; $s =~ tr/+/ /; $s =~ s/%([0-9A-Fa-f]{2})/chr(hex($1))/ge; return $s; }

# request_info(METHOD, PATH?QUERY): {verb, group, resource (resource or
# resource/subresource), name, namespace}, or {verb, path} for a
# non-resource request
sub request_info
{
	my ($method, $target) = @_;
	my ($path, $query) = split /\?/, $target, 2;
	my %q;
	for (split /&/, $query // '')
	{
		my ($k, $v) = split /=/, $_, 2;
		$q{ unescape($k) } = unescape($v);
	}
	my @parts = grep { $_ ne '' } split m{/}, $path;
	my $nonresource = { verb => lc $method, path => $path };
	return $nonresource if @parts < 3 || ($parts[0] ne 'api' && $parts[0] ne 'apis');
	my $group = '';
	if (shift(@parts) eq 'apis')
	{
		return $nonresource if @parts < 3;
		$group = shift @parts;
	}
	shift @parts;	# the version
	my ($verb, $via_path);
	if ($parts[0] eq 'watch' || $parts[0] eq 'proxy')
	{
		return $nonresource if @parts < 2;
		$verb = shift @parts;
		$via_path = 1;
	}
	else
	{
		$verb = { GET => 'get', HEAD => 'get', POST => 'create', PUT => 'update', PATCH => 'patch',
			DELETE => 'delete' }->{$method} // '';
	}
	my $namespace = '';
	if ($parts[0] eq 'namespaces' && @parts > 1)
	{
		$namespace = $parts[1];
		splice(@parts, 0, 2) if @parts > 2 && $parts[2] ne 'status' && $parts[2] ne 'finalize';
	}
	my ($resource, $name, $sub) = ($parts[0], $parts[1] // '', $verb ne 'proxy' ? $parts[2] : undef);
	if ($name eq '' && $verb eq 'get')
	{
		my $w = $q{watch};
		$verb = defined $w && $w ne '0' && lc($w) ne 'false' ? 'watch' : 'list';
		$name = $1 if ($q{fieldSelector} // '') =~ /^metadata\.name==?([^,]+)$/;
	}
	$verb = 'deletecollection' if $name eq '' && $verb eq 'delete';
	return { verb => $verb, group => $group, resource => defined $sub ? "$resource/$sub" : $resource,
		name => $name, namespace => $namespace };
}
sub show_info
{
	my ($i) = @_;
	return "$i->{verb} $i->{path}" if exists $i->{path};
	return "$i->{verb} " . ($i->{group} eq '' ? '""' : $i->{group}) . " $i->{resource}";
}

# the resolver's answers for paths of each shape (requestinfo_test.go's forms)
for my $case (
	[ 'GET', '/api/v1/namespaces', 'list "" namespaces' ],
	[ 'GET', '/api/v1/namespaces/other', 'get "" namespaces' ],
	[ 'GET', '/api/v1/namespaces/other/pods', 'list "" pods' ],
	[ 'GET', '/api/v1/namespaces/other/pods/foo', 'get "" pods' ],
	[ 'GET', '/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded', 'list "" pods' ],
	[ 'GET', '/api/v1/pods?watch=1&resourceVersion=5', 'watch "" pods' ],
	[ 'GET', '/api/v1/pods?watch=false', 'list "" pods' ],
	[ 'GET', '/api/v1/watch/namespaces/other/pods', 'watch "" pods' ],
	[ 'POST', '/api/v1/namespaces/other/pods', 'create "" pods' ],
	[ 'POST', '/api/v1/namespaces/other/pods/foo/binding', 'create "" pods/binding' ],
	[ 'PATCH', '/api/v1/namespaces/other/pods/foo/status', 'patch "" pods/status' ],
	[ 'PUT', '/api/v1/namespaces/other/pods/foo/status', 'update "" pods/status' ],
	[ 'DELETE', '/api/v1/namespaces/other/pods/foo', 'delete "" pods' ],
	[ 'DELETE', '/api/v1/namespaces/other/pods', 'deletecollection "" pods' ],
	[ 'PUT', '/api/v1/namespaces/other/finalize', 'update "" namespaces/finalize' ],
	[ 'GET', '/apis/apps/v1/namespaces/other/replicasets?watch=true', 'watch apps replicasets' ],
	[ 'PATCH', '/apis/storage.k8s.io/v1/csinodes/n1', 'patch storage.k8s.io csinodes' ],
	[ 'GET', '/version', 'get /version' ],
	[ 'GET', '/apis/apps/v1', 'get /apis/apps/v1' ])
{
	my ($method, $path, $want) = @$case;
	is(show_info(request_info($method, $path)), $want, "resolver: $method $path is $want");
}

sub in_list
{
	my ($list, $x) = @_;
	return scalar grep { $_ eq '*' || $_ eq $x } @{ $list // [] };
}
# allows(ROLE, INFO): whether a rule of the ClusterRole grants the request
sub allows
{
	my ($r, $i) = @_;
	for my $rule (@{ $r->{rules} // [] })
	{
		next unless in_list($rule->{verbs}, $i->{verb});
		if (exists $i->{path})
		{
			return 1 if grep { $_ eq $i->{path} || ($_ =~ m{^(.*)\*$} && index($i->{path}, $1) == 0) }
			  @{ $rule->{nonResourceURLs} // [] };
			next;
		}
		next unless in_list($rule->{apiGroups}, $i->{group});
		my ($res, $sub) = split m{/}, $i->{resource}, 2;
		next unless in_list($rule->{resources}, $i->{resource})
		  || (defined $sub && grep { $_ eq "*/$sub" } @{ $rule->{resources} // [] });
		next if @{ $rule->{resourceNames} // [] } && !grep { $_ eq $i->{name} } @{ $rule->{resourceNames} };
		return 1;
	}
	return 0;
}
# check(ROLE, REQUESTS): (the requests it denies, the grants no request
# used), each a sorted list of strings
sub check
{
	my ($r, @requests) = @_;
	my (@denied, %used);
	for my $q (@requests)
	{
		my $i = request_info($q->{method}, $q->{path});
		push @denied, "$q->{method} $q->{path} (" . show_info($i) . ')' unless allows($r, $i);
		$used{ show_info($i) } = 1;
	}
	my %unused;
	for my $rule (@{ $r->{rules} // [] })
	{
		for my $v (@{ $rule->{verbs} // [] })
		{
			for my $u (@{ $rule->{nonResourceURLs} // [] })
			{
				$unused{"$v $u (a non-resource URL)"} = 1;
			}
			for my $g (@{ $rule->{apiGroups} // [] })
			{
				for my $res (@{ $rule->{resources} // [] })
				{
					my $grant = show_info({ verb => $v, group => $g, resource => $res });
					$unused{$grant} = 1 unless $used{$grant} && !grep { $_ eq '*' } ($v, $g, $res);
				}
			}
		}
		$unused{ 'resourceNames ' . join(',', @{ $rule->{resourceNames} }) } = 1 if @{ $rule->{resourceNames} // [] };
	}
	return ([ sort @denied ], [ sort keys %unused ], [ sort keys %used ]);
}

# ------------------------------------------------------------------------
# The cluster: 011's full nodes, 015's volumes, a pod of kube-scheduler's
# ------------------------------------------------------------------------
my $api = StandIn->new('apiserver_018');
sub k { $api->kjson(@_) }

for my $n (['node-a', 'a'], ['node-b', 'b'])
{
	my ($name, $zone) = @$n;
	k('POST', '/api/v1/nodes', { kind => 'Node', apiVersion => 'v1',
		metadata => { name => $name, labels => { 'kubernetes.io/hostname' => $name,
			'topology.kubernetes.io/zone' => $zone } },
		status => { capacity => { cpu => '2', memory => '8Gi', pods => '110' } } });
}
sub pod
{
	my ($name, %o) = @_;
	my $spec = { containers => [ { name => 'c', image => 'pause',
		($o{cpu} ? (resources => { requests => { cpu => $o{cpu} } }) : ()) } ] };
	$spec->{schedulerName} = $o{scheduler} if $o{scheduler};
	$spec->{nodeName} = $o{node} if $o{node};
	$spec->{priority} = $o{priority} if defined $o{priority};
	$spec->{volumes} = [ { name => 'v0', persistentVolumeClaim => { claimName => $o{claim} } } ] if $o{claim};
	my $p = k('POST', '/api/v1/namespaces/default/pods', { kind => 'Pod', apiVersion => 'v1',
		metadata => { name => $name }, spec => $spec });
	k('PATCH', "/api/v1/namespaces/default/pods/$name/status", { status => { phase => 'Running' } }) if $o{node};
	return $p;
}
# both nodes full of pods of priority 0
pod($_->[0], node => $_->[1], cpu => '1', priority => 0)
  for (['low-a1', 'node-a'], ['low-a2', 'node-a'], ['low-b1', 'node-b'], ['low-b2', 'node-b']);
for my $c (['static', 'kubernetes.io/no-provisioner'], ['fast', 'disk.example.com'])
{
	k('POST', '/apis/storage.k8s.io/v1/storageclasses', { kind => 'StorageClass', apiVersion => 'storage.k8s.io/v1',
		metadata => { name => $c->[0] }, provisioner => $c->[1], volumeBindingMode => 'WaitForFirstConsumer' });
}
k('POST', '/api/v1/persistentvolumes', { kind => 'PersistentVolume', apiVersion => 'v1',
	metadata => { name => 'pv-static', labels => { 'topology.kubernetes.io/zone' => 'a' } },
	spec => { storageClassName => 'static', accessModes => ['ReadWriteOnce'], capacity => { storage => '10Gi' },
		hostPath => { path => '/data/pv-static' },
		nodeAffinity => { required => { nodeSelectorTerms => [ { matchExpressions => [
			{ key => 'topology.kubernetes.io/zone', operator => 'In', values => ['a'] } ] } ] } } } });
for my $c (['static', 'static'], ['dyn', 'fast'])
{
	k('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { kind => 'PersistentVolumeClaim',
		apiVersion => 'v1', metadata => { name => $c->[0] },
		spec => { storageClassName => $c->[1], accessModes => ['ReadWriteOnce'],
			resources => { requests => { storage => '5Gi' } } } });
}

# ------------------------------------------------------------------------
# PostgreSQL as the StatefulSet runs it (deploy/entrypoint.sh: the database
# and the extension made on a server without the library, then the server
# with the StatefulSet's settings)
# ------------------------------------------------------------------------
my $sadir = $api->work . '/serviceaccount';
make_path($sadir);
copy($api->token_file, "$sadir/token") or die "copy token: $!";
copy($api->ca_file, "$sadir/ca.crt") or die "copy ca.crt: $!";

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->start;
$node->safe_psql('postgres', qq{CREATE DATABASE "$database"});
$node->safe_psql($database, 'CREATE EXTENSION scheduler');
$node->stop;
$node->append_conf('postgresql.conf', join('', map { "$_ = '$setting{$_}'\n" }
	  grep { $_ eq 'shared_preload_libraries' || /^scheduler\./ } sort keys %setting)
	  . "scheduler.database = '$database'\n"
	  # test pace only: a failed pod is tried again soon
	  . "scheduler.pod_initial_backoff = '100ms'\nscheduler.pod_max_backoff = '1s'\n");
{
	local $ENV{KUBERNETES_SERVICE_HOST} = '127.0.0.1';
	local $ENV{KUBERNETES_SERVICE_PORT} = $api->port;
	local $ENV{SCHEDULER_SERVICEACCOUNT_DIR} = $sadir;
	$node->start;
}
sub q1 { $node->safe_psql($database, $_[0]) }
is(q1(q{SELECT count(*) FILTER (WHERE setting <> '') FROM pg_settings WHERE name LIKE 'scheduler.kube%'}), '0',
	'no connection setting is set');
ok($node->poll_query_until($database,
	q{SELECT (SELECT count(*) FROM scheduler.pods) = 4 AND (SELECT count(*) FROM scheduler.nodes) = 2
	   AND (SELECT count(*) FROM scheduler.persistent_volume_claims) = 2
	   AND (SELECT count(*) FROM scheduler.storage_classes) = 2}),
	'in-cluster: the nodes, pods, claims and classes are mirrored');

# ------------------------------------------------------------------------
# The scenario
# ------------------------------------------------------------------------
pod('vip', scheduler => $scheduler_name, cpu => '1', priority => 1000);
pod('huge', scheduler => $scheduler_name, cpu => '100');
pod('p-static', scheduler => $scheduler_name, claim => 'static');
pod('p-dyn', scheduler => $scheduler_name, claim => 'dyn');
pod('theirs', cpu => '100');	# kube-scheduler's (default-scheduler)

sub node_of { k('GET', "/api/v1/namespaces/default/pods/$_[0]")->{spec}{nodeName} // '' }
sub wait_bound
{
	my ($name) = @_;
	for (1 .. 600)
	{
		my $n = node_of($name);
		return $n if $n ne '';
		usleep(100_000);
	}
	return '';
}
ok(wait_bound('vip') ne '', 'the high-priority pod is bound, a victim preempted');
is(wait_bound('p-static'), 'node-a', 'the pod of the static claim is bound where its volume is');
ok(wait_bound('p-dyn') ne '', 'the pod of the claim to provision is bound');
ok($node->poll_query_until($database,
	q{SELECT bool_and(EXISTS (SELECT FROM scheduler.outbox o WHERE o.state = 'done' AND o.kind = w.kind
	    AND (o.name LIKE w.what OR o.object LIKE w.what OR o.body->>'reason' = w.what)))
	  FROM (VALUES ('delete', 'low-%'), ('event', 'Preempted'), ('condition', 'huge'), ('event', 'FailedScheduling'),
	    ('volume', 'pv-static'), ('claim', 'dyn')) w(kind, what)}),
	'sent: a victim\'s deletion and its Preempted event, the PodScheduled condition and FailedScheduling event of the pod that fits nowhere, the two PreBind patches');
# the pod that fits nowhere fails again, with the same message: its Event's
# series is patched (events.k8s.io/v1, as client-go's broadcaster does)
q1(q{UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = (SELECT uid FROM scheduler.pods WHERE name = 'huge')});
ok($node->poll_query_until($database,
	q{SELECT EXISTS (SELECT FROM scheduler.outbox WHERE kind = 'event' AND name = 'huge' AND body ? 'series' AND state = 'done')}),
	'sent: the series of the FailedScheduling event, after a second failure');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'theirs'}), 0, 'nothing for kube-scheduler\'s pod');

# the watches end, are logged, and are opened again
my $kinds = join(',', sort split /\n/, q1('SELECT path FROM scheduler.kinds()'));
k('POST', '/debug/faults', { close_watches => JSON::PP::true });
my @requests;
my $watched = '';
for (1 .. 300)
{
	@requests = grep { ($_->{userAgent} // '') =~ m{^scheduler/} } @{ k('GET', '/debug/requests') };
	my %w = map { (split /\?/, $_->{path})[0] => 1 } grep { request_info($_->{method}, $_->{path})->{verb} eq 'watch' } @requests;
	$watched = join(',', sort keys %w);
	last if $watched eq $kinds;
	usleep(100_000);
}
is($watched, $kinds, 'each kind scheduler.kinds() lists was watched (and the watch logged)');
my %listed = map { (split /\?/, $_->{path})[0] => 1 } grep { request_info($_->{method}, $_->{path})->{verb} eq 'list' } @requests;
is(join(',', sort keys %listed), $kinds, 'and listed');
is(join("\n", map { "$_->{method} $_->{path}" } grep { $_->{path} =~ m{/pods/theirs\b} } @requests), '',
	'no request names kube-scheduler\'s pod');

# ------------------------------------------------------------------------
# The ClusterRole, both ways
# ------------------------------------------------------------------------
my ($denied, $unused, $used) = check($role, @requests);
diag(scalar(@requests) . ' requests of the workers, as RBAC sees them: ' . join('; ', @$used));
note(join("\n", map { "$_->{method} $_->{path} $_->{code}" } @requests));
is(join("\n", @$denied), '', 'every request the workers made is allowed by the ClusterRole');
is(join("\n", @$unused), '', 'everything the ClusterRole grants was used by some request');

# the check can fail: each rule taken out denies requests; a verb or a
# wildcard put in is reported unused
sub copy_of { $json->decode($json->encode($_[0])) }
for my $n (0 .. $#{ $role->{rules} })
{
	my $copy = copy_of($role);
	my ($rule) = splice(@{ $copy->{rules} }, $n, 1);
	my ($d) = check($copy, @requests);
	my %what = map { /\((.*)\)$/ ? ($1 => 1) : () } @$d;
	ok(@$d > @$denied, 'without the rule for ' . join(',', @{ $rule->{verbs} }) . ' ' . join(',', @{ $rule->{resources} })
		  . ': ' . (@$d - @$denied) . ' requests denied (' . join('; ', sort keys %what) . ')');
}
my $wider = copy_of($role);
push @{ $wider->{rules} }, { apiGroups => [''], resources => ['nodes'], verbs => ['get'] };
my (undef, $u) = check($wider, @requests);
is(join("\n", @$u), 'get "" nodes', 'with a rule for get of nodes added: get "" nodes (and only it) reported unused');
my $star = copy_of($role);
$star->{rules}[0]{resources} = ['*'];
(undef, $u) = check($star, @requests);
ok(scalar(grep { /\*/ } @$u), 'a wildcard is reported as wider than what was used');

$node->stop;
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|TRAP:|PANIC/, 'no crash in the server log');
done_testing();
