#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An ACP registry served over https on 127.0.0.1 with a throwaway CA (ts-agent/make-cert.sh),
for the registry fetch and agent install tests of the C API, Python and Lua.

As a module: RegistryServer(directory) starts it; .url, .ca_file, .requests, .stop(); the
files a test puts into .archives are served at .archive_url + NAME.
As a program: registry_server.py -- COMMAND ARGS... runs COMMAND with ACP_TEST_REGISTRY_URL,
ACP_TEST_REGISTRY_HTTP_URL (the same path over plain http: must be refused), ACP_TEST_CA_FILE,
ACP_TEST_SCRATCH (a fresh directory), ACP_TEST_ARCHIVES (the folder served) and
ACP_TEST_ARCHIVE_URL (where it is served, ending in '/') set, and exits with its exit code.

The registry has one agent, "fetched-agent", an npx package "fetched-agent@2.0" run with
"--acp": a test that resolves it knows the registry came from this server.
"""
import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading

REGISTRY = json.dumps({"version": "1.0.0", "agents": [
    {"id": "fetched-agent", "name": "Fetched Agent", "version": "2.0", "description": "served on 127.0.0.1",
     "distribution": {"npx": {"package": "fetched-agent@2.0", "args": ["--acp"]}}}]}).encode()

MAKE_CERT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts-agent", "make-cert.sh")


class RegistryServer:
    """Serves body (default: REGISTRY) as /registry.json and the files of directory/archives
    as /archives/NAME over TLS on 127.0.0.1, with a test CA made in directory (ca_file);
    records the paths asked for (requests)."""

    def __init__(self, directory, body=None):
        body = REGISTRY if body is None else body
        certs = os.path.join(directory, "certs")
        subprocess.run(["sh", MAKE_CERT, certs], check=True)
        self.ca_file = os.path.join(certs, "ca.pem")
        self.archives = os.path.join(directory, "archives")
        os.makedirs(self.archives, exist_ok=True)
        self.requests = []
        requests, archives = self.requests, self.archives

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                requests.append(self.path)
                name = self.path[len("/archives/"):] if self.path.startswith("/archives/") else ""
                if self.path == "/registry.json":
                    data, kind = body, "application/json"
                elif name and "/" not in name and os.path.isfile(os.path.join(archives, name)):
                    with open(os.path.join(archives, name), "rb") as f:
                        data, kind = f.read(), "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(certs, "server.pem"), os.path.join(certs, "server.key"))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = "https://127.0.0.1:%d/registry.json" % self.server.server_address[1]
        self.archive_url = "https://127.0.0.1:%d/archives/" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        print("usage: registry_server.py -- COMMAND ARGS...", file=sys.stderr)
        return 2
    scratch = tempfile.mkdtemp(prefix="acp-registry-")
    server = RegistryServer(scratch)
    try:
        env = dict(os.environ, ACP_TEST_REGISTRY_URL=server.url, ACP_TEST_CA_FILE=server.ca_file,
                   ACP_TEST_REGISTRY_HTTP_URL=server.url.replace("https:", "http:"), ACP_TEST_SCRATCH=scratch,
                   ACP_TEST_ARCHIVES=server.archives, ACP_TEST_ARCHIVE_URL=server.archive_url)
        return subprocess.run(argv[2:], env=env, timeout=120).returncode
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
