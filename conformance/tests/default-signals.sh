#!/bin/sh
# default-signals.sh PMI2_CONFORM DRIVER OUTDIR
# pmi2-conform client starts the program as a launcher would: SIGPIPE not
# ignored (pmi2-conform ignores its own), nothing blocked, so that a client
# that dies of SIGPIPE is seen to die (ERR-20).  This script is also the
# program: it records what it inherited, then becomes the driver.
set -u
if [ -n "${PCF_SIGCHECK_OUT:-}" ]; then
    grep -E '^Sig(Ign|Blk):' /proc/self/status >"$PCF_SIGCHECK_OUT/$$" # grep's: inherited
    exec "$2"
fi
out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
PCF_SIGCHECK_OUT=$out "$1" client --timeout 10 client/init/first -- sh "$0" "$1" "$2" "$3" \
    >"$out.report" 2>&1 || { cat "$out.report"; exit 1; }
n=0
for f in "$out"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' "$f")
    blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$f")
    # SIGPIPE is 13: bit 12
    [ $((0x$ign & 0x1000)) -eq 0 ] || { echo "default-signals: SIGPIPE ignored in the program (SigIgn $ign)"; exit 1; }
    [ $((0x$blk)) -eq 0 ] || { echo "default-signals: signals blocked in the program (SigBlk $blk)"; exit 1; }
done
[ "$n" -gt 0 ] || { echo "default-signals: the program never ran"; exit 1; }
echo "default-signals: $n ranks, SIGPIPE default, nothing blocked"
