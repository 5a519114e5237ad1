# The stand-in Kubernetes API server (test/apiserver/kube_apiserver.py) for
# the TAP tests: start one on a free port over HTTPS, and talk to it through
# test/apiserver/kreq.py (this Perl has no TLS).  With KUBE_APISERVER_BIN and
# ETCD_BIN set, a real kube-apiserver and etcd start instead (see real()).
#
#   my $api = StandIn->new('apiserver_006', '--bookmark-interval', '1');
#   $node->append_conf('postgresql.conf', $api->conf);   # the connection GUCs
#   my ($code, $body) = $api->kreq('GET', '/api/v1/pods');
#   my $state = $api->kjson('GET', '/debug/state');      # dies unless 2xx
#   $api->provision_fail(1);                             # the provisioner refuses
#   my $claim = $api->pvc('default', 'data');            # undef if missing
#   $api->stop; $api->start;                             # an outage
#
# Every server started is stopped at the end of the test.
package StandIn;

use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Utils;
use Time::HiRes qw(time usleep);

my $apidir = abs_path(dirname(__FILE__) . '/apiserver');
my @started;

# new(NAME, EXTRA_ARGS...): its files go in tmp_check/NAME
sub new
{
	my ($class, $name, @args) = @_;
	my $work = abs_path($PostgreSQL::Test::Utils::tmp_check) . "/$name";
	my $certdir = "$work/certs";
	make_path($certdir);
	my $script = StandIn->real ? 'real_apiserver.py' : 'kube_apiserver.py';
	my $h = IPC::Run::start(
		[ 'python3', "$apidir/$script", '--port', '0', '--cert-dir', $certdir, @args ],
		'>', "$work/stdout", '2>', "$work/stderr");
	push @started, $h;
	my $url;
	my $deadline = time + (StandIn->real ? 330 : 60);
	until ($url)
	{
		($url) = (-e "$work/stdout" ? slurp_file("$work/stdout") : '') =~ /^READY (\S+)/m;
		die "the stand-in API server did not start: " . slurp_file("$work/stderr")
		  if !$url && (time > $deadline || !$h->pumpable);
		usleep(50_000) unless $url;
	}
	my ($port) = $url =~ /:(\d+)$/;
	return bless {
		name => $name, work => $work, certdir => $certdir, url => $url, port => $port,
		server_json => "$certdir/server.json",
		server => decode_json(slurp_file("$certdir/server.json")),
		h => $h, args => \@args,
	}, $class;
}

# stop(): the server goes away (an outage); start(): it comes back on the
# same port, with the same CA and token, and nothing stored
sub stop
{
	my ($self) = @_;
	# (a real kube-apiserver and etcd take longer to stop than the stand-in)
	$self->{h}->kill_kill(grace => $self->real ? 25 : 5);
	return;
}

sub start
{
	my ($self) = @_;
	my $again = StandIn->new($self->{name}, @{ $self->{args} }, '--port', $self->{port},
		($self->real ? ('--keep-data') : ()));
	%$self = %$again;
	return;
}

# real(): a real kube-apiserver and etcd run instead of the stand-in, when
# KUBE_APISERVER_BIN and ETCD_BIN give their paths (real_apiserver.py).  The
# stand-in's test hooks that kreq.py cannot answer through the API (faults,
# the request log, the state of its watches) are not there: the tests skip
# what needs them.  Its kube-apiserver's log is work()/kube-apiserver.log.
sub real { return !!($ENV{KUBE_APISERVER_BIN} && $ENV{ETCD_BIN}) }

sub url { $_[0]{url} }
sub port { $_[0]{port} }
sub work { $_[0]{work} }
sub certdir { $_[0]{certdir} }
sub server_json { $_[0]{server_json} }
sub server { $_[0]{server} }	# {url, token, ca, kubeconfig, port, pid}
sub kreq_py { "$apidir/kreq.py" }	# for kreq.py's other options (--paths)
sub token_file { "$_[0]{certdir}/token" }
sub ca_file { "$_[0]{certdir}/ca.crt" }
sub client_cert_file { "$_[0]{certdir}/client.crt" }
sub client_key_file { "$_[0]{certdir}/client.key" }

# postgresql.conf lines that point the workers at this server
sub conf
{
	my ($self) = @_;
	return "scheduler.kube_api_url = '$self->{url}'\n"
	  . "scheduler.kube_token_file = '" . $self->token_file . "'\n"
	  . "scheduler.kube_ca_file = '" . $self->ca_file . "'\n";
}

# kreq(METHOD, PATH [, BODY [, OUTFILE]]): (code, body) in list context, the
# body in scalar context.  The body goes on standard input (a 2 MB one is too
# long for an argument).  Dies on a transport failure.
sub kreq
{
	my ($self, $method, $path, $body, $outfile) = @_;
	my ($out, $err) = ('', '');
	my @cmd = ('python3', "$apidir/kreq.py", (defined $outfile ? ('-o', $outfile) : ()),
		$self->{server_json}, $method, $path, (defined $body ? ('@-') : ()));
	IPC::Run::run(\@cmd, '<', \($body // ''), '>', \$out, '2>', \$err)
	  or die "kreq $method $path failed: $err";
	my ($code) = $err =~ /HTTP (\d+)/;
	return wantarray ? ($code, $out) : $out;
}

# kjson(METHOD, PATH [, BODY]): the decoded response; dies unless 2xx.  BODY
# may be a reference, sent as JSON.
sub kjson
{
	my ($self, $method, $path, $body) = @_;
	$body = JSON::PP->new->canonical->encode($body) if ref $body;
	my ($code, $out) = $self->kreq($method, $path, $body);
	die "kreq $method $path: HTTP $code: " . substr($out, 0, 500) unless $code && $code =~ /^2/;
	return decode_json($out);
}

# faults(HASHREF): POST /debug/faults (see Faults.apply in kube_apiserver.py);
# returns the faults now set.  Dies unless 2xx.
sub faults
{
	my ($self, $f) = @_;
	die "faults: only the stand-in has them (a real kube-apiserver runs)" if $self->real;
	return $self->kjson('POST', '/debug/faults', $f);
}

# provision_fail(ON [, MATCH]): the stand-in's external provisioner refuses
# (ON true) or no longer refuses (ON false) the claims whose path
# (/api/v1/namespaces/NS/persistentvolumeclaims/NAME) contains MATCH (every
# claim without it): a claim the scheduler annotates
# volume.kubernetes.io/selected-node loses the annotation again (a
# ProvisioningFailed event is recorded), and no volume is made -- what
# external-provisioner does to have the pod rescheduled.  Turning it off lets
# waiting Immediate claims be provisioned.
#
#   $api->provision_fail(1, '/namespaces/default/persistentvolumeclaims/data');
sub provision_fail
{
	my ($self, $on, $match) = @_;
	return $self->faults({ provision_fail => ($on ? JSON::PP::true : JSON::PP::false),
		(defined $match ? (match => $match) : ()) });
}

# provision_fail_next(N [, MATCH]): only the next N selected-node claims
# (matching) are refused, then the provisioner works again.
sub provision_fail_next
{
	my ($self, $n, $match) = @_;
	return $self->faults({ provision_fail_next => $n, (defined $match ? (match => $match) : ()) });
}

# provision_hold(ON [, MATCH]): the provisioner has not got to the matching
# claims yet (ON true): they wait annotated and unbound, until it is turned
# off and they are provisioned.
sub provision_hold
{
	my ($self, $on, $match) = @_;
	return $self->faults({ provision_hold => ($on ? JSON::PP::true : JSON::PP::false),
		(defined $match ? (match => $match) : ()) });
}

# pvc(NAMESPACE, NAME), pv(NAME), storage_class(NAME): the object now, decoded,
# or undef when it does not exist (404); dies on other errors.
sub pvc { $_[0]->_get_or_undef("/api/v1/namespaces/$_[1]/persistentvolumeclaims/$_[2]") }
sub pv { $_[0]->_get_or_undef("/api/v1/persistentvolumes/$_[1]") }
sub storage_class { $_[0]->_get_or_undef("/apis/storage.k8s.io/v1/storageclasses/$_[1]") }

sub _get_or_undef
{
	my ($self, $path) = @_;
	my ($code, $out) = $self->kreq('GET', $path);
	return undef if $code && $code == 404;
	die "kreq GET $path: HTTP " . ($code // '?') . ": " . substr($out, 0, 500) unless $code && $code =~ /^2/;
	return decode_json($out);
}

# pod_counts(): (pods, unbound pods) in the API: the stand-in's own count;
# against a real kube-apiserver, from a list of one (remainingItemCount) and
# a list of the pods with no spec.nodeName (at most 500: then at least that)
sub pod_counts
{
	my ($self) = @_;
	if (!$self->real)
	{
		my $s = $self->kjson('GET', '/debug/state');
		return ($s->{counts}{pods}, $s->{pods}{unbound});
	}
	my $all = $self->kjson('GET', '/api/v1/pods?limit=1');
	my $unbound = $self->kjson('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3D&limit=500');
	return (scalar(@{ $all->{items} }) + ($all->{metadata}{remainingItemCount} // 0),
		scalar(@{ $unbound->{items} }));
}

# watched_paths(): the collection paths of the watches open now, sorted (one
# per kind scheduler.kinds() lists, when a scheduler's watch worker runs)
sub watched_paths
{
	my ($self) = @_;
	return join(',', sort map { (split /\?/, $_->{target})[0] } @{ $self->kjson('GET', '/debug/state')->{watches} });
}

# kinds_paths(NODE): the paths scheduler.kinds() says the watch worker
# watches, sorted as watched_paths() sorts them
sub kinds_paths
{
	my ($self, $node) = @_;
	return join(',', sort split /\n/, $node->safe_psql('postgres', 'SELECT path FROM scheduler.kinds()'));
}

END
{
	for my $h (@started)
	{
		next unless $h;
		$h->signal('TERM') if $h->pumpable;
		eval { $h->finish; };
		$h->kill_kill if $h->pumpable;
	}
}

1;
