#!/bin/sh
# The secret reaches ranks as a file (PMI_AUTH_SECRET_FILE), never in
# their environment or on any command line.
#   test_security_secret.sh PMI-MOCKSERVER
set -u
SRV=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
printf 'file-secret-42\n' > "$d/secret"; chmod 600 "$d/secret"

# --secret-env: the variable is gone from the ranks, a private file holds the value
MYSECRET=env-secret-17 "$SRV" -n 2 --secret-env MYSECRET -- sh -c '
    test -z "${MYSECRET:-}" || { echo "secret variable leaked"; exit 1; }
    test -z "${PMI_AUTH_SECRET:-}" || { echo "PMI_AUTH_SECRET set"; exit 1; }
    test "$(cat "$PMI_AUTH_SECRET_FILE")" = env-secret-17 || { echo "bad secret file"; exit 1; }
    test "$(stat -c %a "$PMI_AUTH_SECRET_FILE")" = 600 || { echo "secret file mode"; exit 1; }
    if env | grep -q env-secret-17; then echo "secret value in the environment"; exit 1; fi
    echo "$PMI_AUTH_SECRET_FILE" > '"$d"'/where.$PMI_RANK' || fail "--secret-env"
where=$(cat "$d/where.0")
[ ! -e "$where" ] || fail "the temporary secret file outlived the job: $where"

# --secret-file: the ranks get its absolute path
cd "$d" && "$SRV" -n 1 --secret-file secret -- sh -c '
    test "$PMI_AUTH_SECRET_FILE" = "'"$d"'/secret" || { echo "path $PMI_AUTH_SECRET_FILE"; exit 1; }' ||
    fail "--secret-file"

# no option takes the secret itself; missing or empty secrets are usage errors
"$SRV" -n 1 --secret x -- true 2>/dev/null; [ $? -eq 2 ] || fail "--secret accepted"
: > "$d/empty"
"$SRV" -n 1 --secret-file "$d/empty" -- true 2>/dev/null; [ $? -eq 2 ] || fail "empty secret"
env -u NOPE "$SRV" -n 1 --secret-env NOPE -- true 2>/dev/null; [ $? -eq 2 ] || fail "unset variable"
"$SRV" -n 1 --require-auth -- true 2>/dev/null; [ $? -eq 2 ] || fail "--require-auth without secret"
echo ok
