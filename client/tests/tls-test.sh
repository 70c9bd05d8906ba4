#!/bin/sh
# PMI_SOCKTYPE=OpenSSL against pmi-mockserver's TLS listener: a job over
# TLS with PMI-2, PMI-1 and threads; then a rank that trusts another CA and
# must fail initialisation rather than fall back to plain TCP (ENV-11).
#   tls-test.sh OPENSSL MOCKSERVER PMI2_BASIC PMI1_BASIC PMI2_THREADS WORKDIR
set -eu
openssl=$1 mock=$2 pmi2=$3 pmi1=$4 threads=$5 work=$6
rm -rf "$work"
mkdir -p "$work"
cd "$work"

cert() { # name
    "$openssl" req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        -keyout "$1.key" -out "$1.crt" >/dev/null 2>&1
}
cert server
cert other

if ! "$mock" --help | grep -q -- '--tls-cert'; then
    echo "pmi-mockserver has no TLS listener"
    exit 77
fi
tls="--pmi-port=tcp --tls-cert server.crt --tls-key server.key"
echo "== PMI-2 over TLS"
# shellcheck disable=SC2086
"$mock" -n 4 $tls --timeout 60 -- "$pmi2" 4
echo "== PMI-1 over TLS"
# shellcheck disable=SC2086
"$mock" -n 4 $tls --timeout 60 -- "$pmi1" 4
echo "== threads over TLS"
# shellcheck disable=SC2086
"$mock" -n 2 $tls --timeout 60 -- "$threads"
echo "== a rank that does not trust the server's certificate"
# shellcheck disable=SC2086
rc=0
"$mock" -n 2 $tls --timeout 60 -- env PMI_TLS_CA="$work/other.crt" "$pmi2" --expect-init-fail || rc=$?
[ "$rc" -eq 42 ] || { echo "exit status $rc, expected 42 (init failed as it should)"; exit 1; }
echo "tls test passed"
