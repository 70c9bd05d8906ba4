#!/bin/bash
# TLS on the mock server's TCP port, end to end.
#   test_security_tls.sh PMI-MOCKSERVER TLS-CLIENT WORKDIR
# A throwaway CA and server certificate are made with the openssl tool;
# openssl s_client and the C client (test_security_tls) talk PMI-2 over
# TLS with verification on; a client from another CA fails verification;
# a plain client is disconnected with a logged reason while a half TLS
# record held by a third connection disturbs nobody.
set -u
SRV=$1 CLI=$2 W=$3
fail() { echo "FAIL: $*" >&2; [ -f "$W/srv.err" ] && sed 's/^/  log: /' "$W/srv.err" >&2; exit 1; }
command -v openssl >/dev/null || { echo "openssl tool not found: skipped"; exit 77; }
rm -rf "$W" && mkdir -p "$W" || exit 1
cd "$W" || exit 1

mkcert() { # name CN-of-CA
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1-ca.key" -out "$1-ca.pem" -days 2 \
        -subj "/CN=$2" 2>/dev/null || fail "cannot make CA $1"
}
mkcert good "pmi test CA"
mkcert other "some other CA"
openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 2>/dev/null &&
printf 'subjectAltName=IP:127.0.0.1\n' > ext.cnf &&
openssl x509 -req -in srv.csr -CA good-ca.pem -CAkey good-ca.key -CAcreateserial -out srv.pem \
    -days 2 -extfile ext.cnf 2>/dev/null || fail "cannot make the server certificate"

# TLS only where it means something
"$SRV" -n 1 --tls-cert srv.pem --tls-key srv.key -- true 2>/dev/null
[ $? -eq 2 ] || fail "TLS without a TCP port was not a usage error"
"$SRV" -n 1 --listen tcp --tls-cert srv.pem --tls-key other-ca.key 2>srv.err
[ $? -eq 125 ] && grep -q "TLS" srv.err || fail "a key that does not match was not reported"

"$SRV" -n 3 --listen tcp --tls-cert srv.pem --tls-key srv.key --tls-ca good-ca.pem --timeout 60 \
    > srv.out 2> srv.err &
spid=$!
i=0
while ! grep -q '^PMI_TLS_CA=' srv.out 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 100 ] && fail "server did not start"; sleep 0.1
done
PORT=$(sed -n 's/^PMI_PORT=//p' srv.out)
grep -q '^PMI_SOCKTYPE=OpenSSL$' srv.out || fail "PMI_SOCKTYPE not announced"
grep -q "^PMI_TLS_CA=$W/good-ca.pem\$" srv.out || fail "PMI_TLS_CA not announced"

# a connection that holds half a TLS record forever
exec 3<>"/dev/tcp/127.0.0.1/${PORT#*:}" || fail "cannot connect"
printf '\026\003\001\000' >&3

# a plain client: disconnected, reason logged
"$CLI" plain "$PORT" || fail "plain client"
# wrong CA: the client refuses the server
"$CLI" wrongca "$PORT" other-ca.pem > wrongca.out || fail "wrong CA accepted"
grep -q "certificate" wrongca.out || fail "wrong CA: unexpected reason: $(cat wrongca.out)"

# openssl s_client: rank 0 does fullinit and finalize
frame() { printf '%6d%s' ${#1} "$1"; }
{ frame 'cmd=fullinit;pmi-version=2;pmi-subversion=0;pmirank=0;'; sleep 0.5; frame 'cmd=finalize;'; sleep 1; } |
    openssl s_client -connect "$PORT" -CAfile good-ca.pem -verify_return_error -verify_ip 127.0.0.1 \
        -quiet > sclient.out 2> sclient.err
grep -q 'cmd=fullinit-response;' sclient.out || fail "s_client: no fullinit-response: $(cat sclient.out sclient.err)"
grep -q 'cmd=finalize-response;' sclient.out || fail "s_client: no finalize-response"

# ranks 1 and 2 with the C client, concurrently, while the half record is held
"$CLI" pmi2 "$PORT" good-ca.pem 1 & c1=$!
"$CLI" pmi2 "$PORT" good-ca.pem 2 & c2=$!
wait $c1 || fail "C client rank 1"
wait $c2 || fail "C client rank 2"
exec 3>&-
wait $spid; rc=$?
[ $rc -eq 0 ] || fail "server exit $rc"
grep -q "TLS handshake failed" srv.err || fail "the plain client's disconnect was not logged"

# launched ranks get PMI_SOCKTYPE and PMI_TLS_CA and connect over TLS
"$SRV" -n 2 --pmi-port --tls-cert srv.pem --tls-key srv.key --tls-ca good-ca.pem --timeout 60 \
    -- "$CLI" env 2> srv.err || fail "launched TLS ranks"
echo "ok"
