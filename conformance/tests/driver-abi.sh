#!/bin/sh
# driver-abi.sh DIR DRIVERS_MK CC THIRD_INCDIR OURS_INCDIR
# drivers.mk must learn pmi2.h's ABI from the header: the third header
# (Slurm's ABI, none of Slurm's macros) gives PCF_PMI2_MPID_INFO=1, ours 0,
# and pmi2-driver.c compiles unchanged against both.
set -u
dir=$1 mk=$2 cc=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
check() { # INCDIR WANT
    rm -f pmi2-driver
    cmd=$(make -s -f "$mk" -n pmi2-driver CC="$cc" PMI2_CFLAGS="-I$1" PMI2_LIBS= SLURM_INCDIR=/nonexistent)
    case $cmd in
    *"-DPCF_PMI2_MPID_INFO=$2 "*) ;;
    *) echo "driver-abi: $1: expected PCF_PMI2_MPID_INFO=$2 in: $cmd"; return 1 ;;
    esac
    # compiled only (no library needed): -c writes the object as pmi2-driver
    make -s -f "$mk" pmi2-driver CC="$cc" CFLAGS="-c -Wall" PMI2_CFLAGS="-I$1" PMI2_LIBS= \
        SLURM_INCDIR=/nonexistent >build.log 2>&1 || { echo "driver-abi: $1: build failed"; cat build.log; return 1; }
    echo "driver-abi: $1: PCF_PMI2_MPID_INFO=$2, compiled"
}
check "$4" 1 && check "$5" 0
