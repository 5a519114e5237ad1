#!/usr/bin/env python3
"""A tiny HTTPS client for the stand-in API server (kube_apiserver.py), for
tests that cannot speak TLS themselves (Perl here has no IO::Socket::SSL).
Python 3 standard library only.

    kreq.py [options] SERVER_JSON METHOD PATH [BODY]

SERVER_JSON is the server.json the stand-in writes into its cert dir
({"url", "token", "ca", ...}): the URL, the bearer token and the CA that
signs the server's certificate come from it.  PATH is appended to the URL
("/api/v1/pods?limit=10", "/debug/state").  BODY is JSON text, or @FILE to
send a file's contents, or @- for standard input.

The response body goes to standard output (or -o FILE); the HTTP status goes
to standard error as "HTTP <code>".  The exit status is 0 for any HTTP
response, whatever its code, and 2 for a transport failure (refused
connection, TLS error, timeout) or a bad argument; with --fail a response of
400 or more exits 22, as curl -f does.

Against a real kube-apiserver (real_apiserver.py's server.json says
"real": true), the stand-in's test hooks /debug/... are answered here
instead (real_debug.py).

Options:
  -o FILE          write the body to FILE instead of standard output
  --fail           exit 22 when the status is 400 or more
  -H 'Name: value' an extra request header (repeatable); Content-Type
                   defaults to application/json, and for PATCH to
                   application/merge-patch+json
  --timeout S      seconds before giving up (default 300)
  --token T        use this bearer token instead of the one in SERVER_JSON
  --paths FILE     send the request once for each path in FILE (one a
                   line) instead of PATH, over one connection at a time;
                   prints "CODE PATH" per request instead of the bodies
                   (PATH is then left out of the arguments)
"""

import json
import os
import ssl
import sys
import urllib.error
import urllib.request


def usage(msg):
    sys.stderr.write("kreq.py: %s\nusage: kreq.py [-o FILE] [--fail] [-H HDR] [--timeout S] [--token T] "
                     "SERVER_JSON METHOD PATH [BODY|@FILE]\n" % msg)
    sys.exit(2)


def main(argv):
    out_path, fail, timeout, token, paths_file = None, False, 300.0, None, None
    headers = {}
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "-H", "--timeout", "--token", "--paths"):
            if i + 1 >= len(argv):
                usage("%s needs a value" % a)
            v = argv[i + 1]
            i += 2
            if a == "-o":
                out_path = v
            elif a == "-H":
                name, sep, value = v.partition(":")
                if not sep:
                    usage("bad header %r (want 'Name: value')" % v)
                headers[name.strip()] = value.strip()
            elif a == "--timeout":
                timeout = float(v)
            elif a == "--paths":
                paths_file = v
            else:
                token = v
            continue
        if a == "--fail":
            fail = True
        elif a == "--" and not args:
            args.extend(argv[i + 1:])
            break
        else:
            args.append(a)
        i += 1
    if paths_file is not None:
        args.insert(2, None)
    if len(args) not in (3, 4):
        usage("expected SERVER_JSON METHOD PATH [BODY]")
    server_json, method, path = args[0], args[1].upper(), args[2]
    body = None
    if len(args) == 4:
        b = args[3]
        if b == "@-":
            body = sys.stdin.buffer.read()
        elif b.startswith("@"):
            with open(b[1:], "rb") as f:
                body = f.read()
        else:
            body = b.encode()

    try:
        with open(server_json) as f:
            server = json.load(f)
    except (OSError, ValueError) as e:
        usage("cannot read %s: %s" % (server_json, e))
    base = server["url"].rstrip("/")
    ctx = None
    if base.startswith("https:"):
        ctx = ssl.create_default_context(cafile=server["ca"])
    hdrs = {"Accept": "application/json", "Authorization": "Bearer " + (token or server["token"])}
    if body is not None:
        hdrs["Content-Type"] = "application/merge-patch+json" if method == "PATCH" else "application/json"
    hdrs.update(headers)

    def request(p):
        url = base + (p if p.startswith("/") else "/" + p)
        req = urllib.request.Request(url, data=body, method=method, headers=hdrs)
        try:
            try:
                resp = urllib.request.urlopen(req, timeout=timeout, context=ctx)
            except urllib.error.HTTPError as e:
                resp = e  # an HTTP response all the same: 4xx/5xx
            status = resp.status if hasattr(resp, "status") else resp.code
            return status, resp.read()
        except (urllib.error.URLError, OSError, ssl.SSLError) as e:
            sys.stderr.write("kreq.py: %s %s: %s\n" % (method, url, getattr(e, "reason", e)))
            return None, None

    if paths_file is not None:
        with open(paths_file) as f:
            paths = [line.strip() for line in f if line.strip()]
        worst = 0
        lines = []
        for p in paths:
            status, _ = request(p)
            if status is None:
                return 2
            worst = max(worst, status)
            lines.append("%d %s\n" % (status, p))
        text = "".join(lines)
        if out_path:
            with open(out_path, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        sys.stderr.write("HTTP %d\n" % worst)
        return 22 if fail and worst >= 400 else 0

    if server.get("real") and path.startswith("/debug/"):
        # a real kube-apiserver has no test hooks: answered here (real_debug.py)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import real_debug
        status, obj = real_debug.answer(server, method, path, body)
        data = json.dumps(obj).encode()
    else:
        status, data = request(path)
    if status is None:
        return 2
    if out_path:
        with open(out_path, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        if data and not data.endswith(b"\n"):
            sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()
    sys.stderr.write("HTTP %d\n" % status)
    if fail and status >= 400:
        return 22
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
