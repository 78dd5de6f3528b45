#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes throwaway TLS material for server.mjs tests with the openssl CLI:
#   DIR/ca.pem         a self-signed test CA (give it to the client as its CA file)
#   DIR/server.pem     a server certificate for 127.0.0.1 and localhost, signed by that CA
#   DIR/server.key     its private key (server.mjs --tls-cert=DIR/server.pem --tls-key=DIR/server.key)
#   DIR/other-ca.pem   another CA that did not sign the server certificate (bad-cert tests)
# Keys are EC P-256, certificates valid for 2 days. DIR is created if missing; the CA
# keys and the signing request are deleted again. Usage: make-cert.sh DIR
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_ca() { # make_ca NAME OUT.pem
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 2 \
    -subj "/CN=$1" -keyout "$work/$1.key" -out "$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

make_ca libacp-test-ca "$dir/ca.pem"
make_ca libacp-other-ca "$dir/other-ca.pem"

openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
  -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$work/server.csr" 2>/dev/null
cat > "$work/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost
EXT
openssl x509 -req -in "$work/server.csr" -CA "$dir/ca.pem" -CAkey "$work/libacp-test-ca.key" -CAcreateserial \
  -CAserial "$work/ca.srl" -days 2 -sha256 -extfile "$work/server.ext" -out "$dir/server.pem" 2>/dev/null
chmod 600 "$dir/server.key"
openssl verify -CAfile "$dir/ca.pem" "$dir/server.pem" >/dev/null
