#!/usr/bin/env python3
"""The stand-in API server behind kube-apiserver's command line: the test of
real_apiserver.py's own plumbing (etcd started and healthy, certificates,
the token file, the audit log, readiness, stop), for machines with no
kube-apiserver binary.  test/run gives it as KUBE_APISERVER_BIN, with
Debian's etcd as ETCD_BIN, to run some worker tests the way a real server
would run them.

It accepts only the flags real_apiserver.py passes, in kube-apiserver's
--name=value spelling, and refuses any other (so a flag added there must be
added here, after checking kube-apiserver takes it), fails unless etcd
answers healthy at --etcd-servers, then serves the stand-in
(kube_apiserver.py) on --secure-port with --tls-cert-file, the token of
--token-auth-file, and the binding requests in --audit-log-path; a bound
pod deleted with a grace period stays Terminating, as no kubelet finishes
it.  It does not use etcd beyond that check: what it stores is lost when it
stops.
"""

import json
import os
import shutil
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kube_apiserver  # noqa: E402

FLAGS = {"etcd-servers", "bind-address", "advertise-address", "secure-port", "cert-dir", "tls-cert-file",
         "tls-private-key-file", "client-ca-file", "token-auth-file", "authorization-mode",
         "service-account-issuer", "service-account-key-file", "service-account-signing-key-file",
         "service-cluster-ip-range", "allow-privileged", "endpoint-reconciler-type", "disable-admission-plugins",
         "audit-policy-file",
         "audit-log-path", "audit-log-format", "audit-log-mode", "audit-log-maxsize"}
REQUIRED = {"etcd-servers", "secure-port", "tls-cert-file", "tls-private-key-file", "token-auth-file",
            "service-account-issuer", "service-account-key-file", "service-account-signing-key-file"}


def main(argv):
    f = {}
    for a in argv:
        name, eq, value = a[2:].partition("=")
        if not a.startswith("--") or not eq or name not in FLAGS:
            sys.exit("kube_apiserver_shim.py: unknown flag: %s" % a)
        f[name] = value
    missing = REQUIRED - set(f)
    if missing:
        sys.exit("kube_apiserver_shim.py: missing %s" % ", ".join(sorted(missing)))
    for name in ("tls-cert-file", "tls-private-key-file", "client-ca-file", "token-auth-file",
                 "service-account-key-file", "service-account-signing-key-file", "audit-policy-file"):
        if name in f and not os.path.isfile(f[name]):
            sys.exit("kube_apiserver_shim.py: --%s: no file %s" % (name, f[name]))
    with urllib.request.urlopen(f["etcd-servers"].split(",")[0] + "/health", timeout=5) as r:
        if json.load(r).get("health") != "true":
            sys.exit("kube_apiserver_shim.py: etcd is not healthy")
    with open(f["token-auth-file"]) as t:
        token = t.readline().split(",")[0]
    # the stand-in's certificate files, where it looks for them
    src = os.path.dirname(f["tls-cert-file"])
    d = os.path.join(f.get("cert-dir") or src, "stand-in")
    os.makedirs(d, exist_ok=True)
    for name in ("ca.key", "ca.crt", "server.key", "server.crt", "client.key", "client.crt"):
        shutil.copy(os.path.join(src, name), os.path.join(d, name))
    # a bound pod deleted with a grace period stays Terminating, as where no
    # kubelet runs (for an hour: real_controllers.py finishes it)
    args = ["--port", f["secure-port"], "--cert-dir", d, "--token", token, "--graceful-delete-seconds", "3600"]
    if "audit-log-path" in f:
        args += ["--audit-log-path", f["audit-log-path"]]
    kube_apiserver.main(args)


if __name__ == "__main__":
    main(sys.argv[1:])
