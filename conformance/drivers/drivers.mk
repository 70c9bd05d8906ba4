# Build the pmi2-conform drivers against another PMI client library.
#
#   make -f drivers.mk                                   # Slurm's libpmi2 (pkg-config-less)
#   make -f drivers.mk PMI2_CFLAGS=-I/opt/slurm/include/slurm PMI2_LIBS='-L/opt/slurm/lib -lpmi2'
#   make -f drivers.mk pmi1-driver PMI1_CFLAGS=-I/usr/include/mpich PMI1_LIBS=-lpmi
#
# Then grade the library:
#   pmi2-conform client -- ./pmi2-driver
#   pmi2-conform client -- ./pmi1-driver
#
# The drivers use only pmi2.h / pmi.h (MPICH's signatures, which Slurm's
# libpmi2 and MPICH's libpmi share), so any implementation of those headers
# links.  Defaults build against an installed libpmiclient (pkg-config).

CC ?= cc
CFLAGS ?= -O2 -g -Wall
PMI2_CFLAGS ?= $(shell pkg-config --cflags pmiclient 2>/dev/null)
PMI2_LIBS ?= $(shell pkg-config --libs pmiclient 2>/dev/null || echo -lpmi2)
PMI1_CFLAGS ?= $(PMI2_CFLAGS)
PMI1_LIBS ?= $(shell pkg-config --libs pmiclient 2>/dev/null || echo -lpmi)
SRCDIR ?= $(dir $(lastword $(MAKEFILE_LIST)))

all: pmi2-driver pmi1-driver

pmi2-driver: $(SRCDIR)pmi2-driver.c
	$(CC) $(CFLAGS) $(PMI2_CFLAGS) -o $@ $< $(PMI2_LIBS) -lpthread

pmi1-driver: $(SRCDIR)pmi1-driver.c
	$(CC) $(CFLAGS) $(PMI1_CFLAGS) -o $@ $< $(PMI1_LIBS)

clean:
	rm -f pmi2-driver pmi1-driver

.PHONY: all clean
