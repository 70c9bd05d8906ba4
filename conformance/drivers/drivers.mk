# Build the pmi2-conform drivers against another PMI client library.
#
#   make -f drivers.mk                  # Slurm's libpmi2 when /usr/include/slurm/pmi2.h is
#                                       # installed, else an installed libpmiclient (pkg-config)
#   make -f drivers.mk SLURM_INCDIR=/opt/slurm/include/slurm PMI2_LIBS='-L/opt/slurm/lib -lpmi2'
#   make -f drivers.mk PMI2_CFLAGS=-I/opt/mpich/include PMI2_LIBS='-L/opt/mpich/lib -lpmi'
#   make -f drivers.mk pmi1-driver PMI1_CFLAGS=-I/opt/mpich/include PMI1_LIBS=-lpmi
#
# Then grade the library:
#   pmi2-conform client -- ./pmi2-driver
#   pmi2-conform client -- ./pmi1-driver
#
# The drivers build unchanged against this project's pmi2.h / pmi.h,
# MPICH's and Slurm's (whose spawn and name-service calls take struct
# MPID_Info): the differences are told from the header itself, pmi2.h's ABI
# by compiling a probe against it (PMI2_ABI below: 1 when it has no
# PMI2_keyval_t), never from a known library's macros.  A call the
# library lacks is a weak reference, reported "pcf <call> absent" at run
# time and graded UNSUPPORTED, not a link error.
#
# PMI-1: Slurm's pmi.h (libpmi) when installed, else libpmiclient; `all`
# leaves pmi1-driver out when neither is found and PMI1_CFLAGS/PMI1_LIBS
# are not given.

CC ?= cc
CFLAGS ?= -O2 -g -Wall
SLURM_INCDIR ?= /usr/include/slurm
SRCDIR ?= $(dir $(lastword $(MAKEFILE_LIST)))

pc_cflags := $(shell pkg-config --cflags pmiclient 2>/dev/null)
pc_libs := $(shell pkg-config --libs pmiclient 2>/dev/null)

ifneq ($(wildcard $(SLURM_INCDIR)/pmi2.h),)
PMI2_CFLAGS ?= -I$(SLURM_INCDIR)
PMI2_LIBS ?= -lpmi2
else
PMI2_CFLAGS ?= $(pc_cflags)
PMI2_LIBS ?= $(or $(pc_libs),-lpmi2)
endif

pmi1_given := $(filter-out undefined,$(origin PMI1_CFLAGS) $(origin PMI1_LIBS))
ifneq ($(wildcard $(SLURM_INCDIR)/pmi.h),)
PMI1_CFLAGS ?= -I$(SLURM_INCDIR)
PMI1_LIBS ?= -lpmi
pmi1_found := slurm
else ifneq ($(pc_libs),)
PMI1_CFLAGS ?= $(pc_cflags)
PMI1_LIBS ?= $(pc_libs)
pmi1_found := pmiclient
else
PMI1_CFLAGS ?=
PMI1_LIBS ?= -lpmi
endif

# pmi2.h's ABI, asked of the header: 0 when "PMI2_keyval_t x;" compiles
# (the draft's, MPICH's, libpmiclient's), 1 when not (struct MPID_Info: Slurm's)
PMI2_ABI ?= $(shell printf '\043include <pmi2.h>\nPMI2_keyval_t pcf_probe;\n' | \
	$(CC) $(PMI2_CFLAGS) -fsyntax-only -x c - >/dev/null 2>&1 && echo 0 || echo 1)

all: pmi2-driver $(if $(pmi1_given)$(pmi1_found),pmi1-driver,no-pmi1)

pmi2-driver: $(SRCDIR)pmi2-driver.c
	$(CC) $(CFLAGS) $(PMI2_CFLAGS) -DPCF_PMI2_MPID_INFO=$(PMI2_ABI) -o $@ $< $(PMI2_LIBS) -lpthread

pmi1-driver: $(SRCDIR)pmi1-driver.c
	$(CC) $(CFLAGS) $(PMI1_CFLAGS) -o $@ $< $(PMI1_LIBS)

no-pmi1:
	@echo "drivers.mk: no pmi.h found (Slurm's libpmi, libpmiclient): pmi1-driver not built; set PMI1_CFLAGS/PMI1_LIBS"

clean:
	rm -f pmi2-driver pmi1-driver

.PHONY: all clean no-pmi1
