/* Known defects of real PMI implementations, named by what the codec
 * reports for them, so that a survey can say "this is bug B1" instead of
 * "trailing-junk".  A defect matches a trace when every item was found and,
 * if `source` is set, the trace's @source mentions it (the same bytes from a
 * probe that imitates a bug are not that implementation's bug).
 * References are to the project's reference notes (mpich-wire.md, slurm-pmi2.md). */
#include "tool.h"

static const defect table[] = {
    { "B1", "MPICH 4.0.2 PMI-2 client: left-justified over-long length with trailing junk",
      "mpich-wire.md §11 B1", NULL,
      { { PMT_CLIENT, PMT_X_NOTE, "len-left" }, { PMT_CLIENT, PMT_X_NOTE, "trailing-junk" } } },
    { "M402-SEMI", "MPICH 4.0.2 PMI-2 client: ';' in a value escaped as ';;', which no hydra unescapes",
      "mpich-wire.md §6.3", "MPICH 4.0.2 simple PMI-2 client",
      { { PMT_CLIENT, PMT_X_NOTE, "escaped-semi" } } },
    { "H1", "MPICH HEAD client: empty value (value=;), a fatal parse error for hydra HEAD",
      "mpich-wire.md §11 H1", "MPICH HEAD 6a79bf6 libpmi client",
      { { PMT_CLIENT, PMT_X_NOTE, "empty-value" } } },
    { "H10", "hydra HEAD: v1 backslash escapes decoded on input but not written on output",
      "mpich-wire.md §11 H10", "hydra built from pmodels/mpich HEAD",
      { { PMT_SERVER, PMT_X_NOTE, "bare-key" } } },
    { "SLURM-LEN", "Slurm mpi/pmi2 server: left-justified length field (%-6d)",
      "slurm-pmi2.md §3.2", "slurm",
      { { PMT_SERVER, PMT_X_NOTE, "len-left" } } },
    { "LIBPMI2-SEMI", "Slurm libpmi2: ';' in a value escaped as ';;', which the server does not unescape",
      "slurm-pmi2.md §4", "libpmi2",
      { { PMT_CLIENT, PMT_X_NOTE, "escaped-semi" } } },
};

const defect *defects_all(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}
