/* The counters are found by reading each loaded module's section headers
 * from its file (dl_iterate_phdr gives the file and the load address); the
 * section headers are not mapped at run time. */
#define _GNU_SOURCE
#include "child_cov.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { MAX_REGIONS = 64 };

typedef struct region {
    uint8_t *at;
    size_t len;
} region;

static region regions[MAX_REGIONS];
static size_t nregions, total;
static uint8_t *shared; /* MAP_SHARED: the child's writes reach the parent */
static int state;       /* 0 not tried, 1 ready, -1 nothing to do */

/* The address and size of section __sancov_cntrs in the ELF file at path
 * (relative to its load address); 0 when it has none. */
static int find_counters(const char *path, uint64_t *addr, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    int found = 0;
    if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
        goto out;
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) != 0 ||
        fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
        goto out;
    const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
    names = malloc(ns->sh_size + 1);
    if (!names || fseek(f, (long)ns->sh_offset, SEEK_SET) != 0 ||
        fread(names, 1, ns->sh_size, f) != ns->sh_size)
        goto out;
    names[ns->sh_size] = '\0';
    for (size_t i = 0; i < eh.e_shnum; i++)
        if (sh[i].sh_name < ns->sh_size && strcmp(names + sh[i].sh_name, "__sancov_cntrs") == 0 &&
            sh[i].sh_size) {
            *addr = sh[i].sh_addr;
            *size = sh[i].sh_size;
            found = 1;
            break;
        }
out:
    free(names);
    free(sh);
    fclose(f);
    return found;
}

static int each_module(struct dl_phdr_info *info, size_t sz, void *arg)
{
    (void)sz;
    (void)arg;
    const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
    uint64_t addr, size;
    if (nregions < MAX_REGIONS && find_counters(path, &addr, &size)) {
        regions[nregions++] = (region){ (uint8_t *)(uintptr_t)(info->dlpi_addr + addr), size };
        total += size;
    }
    return 0;
}

int pf_child_cov_init(void)
{
    if (state)
        return state > 0 ? 0 : -1;
    state = -1;
    dl_iterate_phdr(each_module, NULL);
    if (!total)
        return -1;
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    shared = p;
    state = 1;
    return 0;
}

void pf_child_cov_send(void)
{
    if (state <= 0)
        return;
    size_t off = 0;
    for (size_t i = 0; i < nregions; i++) {
        memcpy(shared + off, regions[i].at, regions[i].len);
        off += regions[i].len;
    }
}

void pf_child_cov_take(void)
{
    if (state <= 0)
        return;
    size_t off = 0;
    for (size_t i = 0; i < nregions; i++) {
        uint8_t *c = regions[i].at, *s = shared + off;
        for (size_t k = 0; k < regions[i].len; k++)
            if (s[k] > c[k])
                c[k] = s[k];
        off += regions[i].len;
    }
    memset(shared, 0, total);
}
