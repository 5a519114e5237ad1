#!/usr/bin/env python3
"""Start a real kube-apiserver and etcd for the TAP tests, as
controller-runtime's envtest does, when their binaries are given by path:

    KUBE_APISERVER_BIN=/path/kube-apiserver ETCD_BIN=/usr/bin/etcd \\
        python3 real_apiserver.py --cert-dir DIR [--port N]

It speaks the stand-in's start-up protocol (kube_apiserver.py), so the tests
and test/StandIn.pm need not know which one runs: it writes into DIR a test
CA, a server and a client certificate (made as the stand-in makes them), the
bearer token (DIR/token), a kubeconfig (DIR/kubeconfig) and DIR/server.json
({"url", "port", "token", "ca", "kubeconfig", "pid"}, plus "real": true and
"audit_log"), then prints one line "READY https://127.0.0.1:N" once
/readyz answers 200.  On SIGTERM it stops kube-apiserver, then etcd.

etcd keeps its data in DIR/../etcd: a start with --keep-data (StandIn's
start() after a stop, an outage, on the same --port) finds the objects
stored before, as a real restart does; any other start begins empty.

kube-apiserver runs with (see apiserver_args):
  * a bearer token (--token-auth-file) of a user in group system:masters,
    and the CA for client certificates (--client-ca-file);
  * --authorization-mode=RBAC (system:masters may do anything);
  * admission without ServiceAccount (no controller makes the default
    service account), Priority (the tests' pods set spec.priority with no
    PriorityClass, as the stand-in stores them), TaintNodesByCondition (its
    not-ready taint on every new node would stay: no node lifecycle
    controller takes it off) and StorageObjectInUseProtection (its
    finalizers would keep deleted claims and volumes: no controller removes
    them);
  * no reconciler of the kubernetes Service's endpoints (a loopback
    --advertise-address may not be written there);
  * an audit log of every binding request and its response code
    (DIR/audit.log), which kreq.py reads for the stand-in's /debug/bindings;
  * extra flags from KUBE_APISERVER_ARGS (split on white space), after ours,
    so a later one wins.
Neither kube-controller-manager nor a kubelet runs.  real_controllers.py
plays the two parts the tests need, as clients of the server: the
disruption controller (each budget's status) and a kubelet finishing
graceful deletions (a bound pod deleted is gone 2 s later).  Claims are
not bound nor provisioned (no PV controller, no provisioner).

Python 3 standard library only, and the openssl CLI.
"""

import argparse
import ctypes
import json
import os
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kube_apiserver  # noqa: E402  (certificates and kubeconfig, made as the stand-in makes them)
import real_controllers  # noqa: E402

AUDIT_POLICY = """\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Request
  verbs: ["create"]
  resources:
  - group: ""
    resources: ["pods/binding", "bindings"]
- level: None
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """A child that outlives a SIGKILLed launcher would hold its ports."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def binary(env):
    path = os.environ.get(env)
    if not path:
        raise SystemExit("real_apiserver.py: %s is not set" % env)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit("real_apiserver.py: %s=%s is not an executable file" % (env, path))
    return path


def wait_for(desc, deadline, proc, probe):
    last = None
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("real_apiserver.py: %s exited with %s before it was ready (%s)" %
                             (desc, proc.returncode, last))
        try:
            if probe():
                return
        except (OSError, ValueError, urllib.error.URLError, ssl.SSLError) as e:
            last = e
        time.sleep(0.2)
    raise SystemExit("real_apiserver.py: %s not ready in time (%s)" % (desc, last))


def start_etcd(work, log, keep):
    port, peer = free_port(), free_port()
    url, peer_url = "http://127.0.0.1:%d" % port, "http://127.0.0.1:%d" % peer
    data = os.path.join(work, "etcd")
    if not keep and os.path.isdir(data):
        shutil.rmtree(data)
    os.makedirs(data, mode=0o700, exist_ok=True)
    cmd = [binary("ETCD_BIN"), "--name", "default", "--data-dir", data,
           "--listen-client-urls", url, "--advertise-client-urls", url,
           "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
           "--initial-cluster", "default=" + peer_url]
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, preexec_fn=die_with_parent)

    def healthy():
        with urllib.request.urlopen(url + "/health", timeout=2) as r:
            return json.load(r).get("health") == "true"
    wait_for("etcd", time.time() + 60, proc, healthy)
    return proc, url


def apiserver_args(d, port, etcd_url, audit_log):
    p = lambda name: os.path.join(d, name)  # noqa: E731
    return [
        "--etcd-servers=" + etcd_url,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        "--secure-port=%d" % port,
        "--cert-dir=" + p("kube-apiserver"),
        "--tls-cert-file=" + p("server.crt"),
        "--tls-private-key-file=" + p("server.key"),
        "--client-ca-file=" + p("ca.crt"),
        "--token-auth-file=" + p("tokens.csv"),
        "--authorization-mode=RBAC",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--service-account-key-file=" + p("sa.pub"),
        "--service-account-signing-key-file=" + p("sa.key"),
        "--service-cluster-ip-range=10.0.0.0/24",
        "--allow-privileged=true",
        "--endpoint-reconciler-type=none",
        "--disable-admission-plugins=ServiceAccount,Priority,TaintNodesByCondition,StorageObjectInUseProtection",
        "--audit-policy-file=" + p("audit-policy.yaml"),
        "--audit-log-path=" + audit_log,
        "--audit-log-format=json",
        "--audit-log-mode=blocking",
        "--audit-log-maxsize=1000000",
    ] + shlex.split(os.environ.get("KUBE_APISERVER_ARGS", ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="kube-apiserver's port on 127.0.0.1 (0: a free one)")
    ap.add_argument("--cert-dir", required=True, help="where the CA, certificates, token and kubeconfig go")
    ap.add_argument("--keep-data", action="store_true", help="etcd keeps what it stored before (a restart)")
    a, _ = ap.parse_known_args(argv)  # the stand-in's other options mean nothing here

    d = os.path.abspath(a.cert_dir)
    work = os.path.dirname(d)
    os.makedirs(d, exist_ok=True)
    ca_crt, _, _ = kube_apiserver.ensure_certs(d)
    old = os.umask(0o077)
    try:
        if not os.path.exists(os.path.join(d, "sa.key")):
            kube_apiserver._run(["openssl", "genrsa", "-out", os.path.join(d, "sa.key"), "2048"])
            kube_apiserver._run(["openssl", "rsa", "-in", os.path.join(d, "sa.key"), "-pubout",
                                 "-out", os.path.join(d, "sa.pub")])
        token_path = os.path.join(d, "token")
        if os.path.exists(token_path):
            with open(token_path) as f:
                token = f.read().strip()
        else:
            token = os.urandom(24).hex()
            kube_apiserver._write(token_path, token + "\n", 0o600)
        kube_apiserver._write(os.path.join(d, "tokens.csv"),
                              '%s,scheduler-test,scheduler-test,"system:masters"\n' % token, 0o600)
        kube_apiserver._write(os.path.join(d, "audit-policy.yaml"), AUDIT_POLICY, 0o600)
    finally:
        os.umask(old)

    port = a.port or free_port()
    audit_log = os.path.join(work, "audit.log")
    elog = open(os.path.join(work, "etcd.log"), "ab")
    alog = open(os.path.join(work, "kube-apiserver.log"), "ab")
    procs = []

    def stop(signum=None, frame=None):
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if signum is not None:
            sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        etcd, etcd_url = start_etcd(work, elog, a.keep_data)
        procs.append(etcd)
        api = subprocess.Popen([binary("KUBE_APISERVER_BIN")] + apiserver_args(d, port, etcd_url, audit_log),
                               stdout=alog, stderr=alog, preexec_fn=die_with_parent)
        procs.append(api)
        url = "https://127.0.0.1:%d" % port
        ctx = ssl.create_default_context(cafile=ca_crt)

        def ready():
            req = urllib.request.Request(url + "/readyz", headers={"Authorization": "Bearer " + token})
            try:
                with urllib.request.urlopen(req, timeout=5, context=ctx) as r:
                    return r.status == 200
            except urllib.error.HTTPError:
                return False
        wait_for("kube-apiserver (its log: %s)" % alog.name, time.time() + 180, api, ready)

        def namespaces():
            # made by the server's own controllers, shortly after /readyz
            req = urllib.request.Request(url + "/api/v1/namespaces", headers={"Authorization": "Bearer " + token})
            with urllib.request.urlopen(req, timeout=5, context=ctx) as r:
                have = {i["metadata"]["name"] for i in json.load(r).get("items") or []}
            return set(kube_apiserver.INITIAL_NAMESPACES) <= have
        wait_for("kube-apiserver's initial namespaces", time.time() + 60, api, namespaces)
        real_controllers.Controllers(url, token, ca_crt).start()
        kc = kube_apiserver.write_kubeconfig(d, url, token, ca_crt)
        kube_apiserver._write(os.path.join(d, "server.json"), json.dumps({
            "url": url, "port": port, "token": token, "ca": ca_crt, "kubeconfig": kc, "pid": os.getpid(),
            "real": True, "audit_log": audit_log}, indent=1))
        print("READY %s" % url, flush=True)
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        gone = [p for p in procs if p.poll() is not None]
        sys.stderr.write("real_apiserver.py: %s exited with %s\n" % (gone[0].args[0], gone[0].returncode))
        return 1
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())
