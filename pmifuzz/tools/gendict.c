/* Writes a libFuzzer dictionary from the codec's schema table: every
 * command as it starts a message in its wire form, every key as it starts a
 * pair, the values the table's types take, and the framing tokens. */
#include <stdio.h>
#include <string.h>

#include "pmicodec/pmicodec.h"

/* Entries already written: keys repeat across commands. */
static char seen[2048][80];
static size_t nseen;

static bool fresh(const char *a, const char *b)
{
    char e[80];
    snprintf(e, sizeof e, "%s%s", a, b ? b : "");
    for (size_t i = 0; i < nseen; i++)
        if (strcmp(seen[i], e) == 0)
            return false;
    if (nseen < sizeof seen / sizeof *seen)
        memcpy(seen[nseen++], e, sizeof e);
    return true;
}

/* One dictionary entry, escaped as libFuzzer reads it. */
static void entry(FILE *f, const char *a, const char *b)
{
    if (!fresh(a, b))
        return;
    fputc('"', f);
    for (const char *s = a; *s; s++)
        fprintf(f, (*s == '"' || *s == '\\') ? "\\%c" : (*s < 0x20 ? "\\x%02x" : "%c"),
                (unsigned char)*s);
    for (const char *s = b; s && *s; s++)
        fprintf(f, (*s == '"' || *s == '\\') ? "\\%c" : (*s < 0x20 ? "\\x%02x" : "%c"),
                (unsigned char)*s);
    fputs("\"\n", f);
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fputs("# PMI dictionary generated from the pmicodec schema table (pmifuzz-gendict)\n", f);
    size_t n = 0;
    const pmc_cmdspec *all = pmc_schema_all(&n);
    for (size_t i = 0; i < n; i++) {
        const pmc_cmdspec *c = &all[i];
        if (c->id == PMC_V1_SPAWN)
            entry(f, "mcmd=", c->name);
        else
            entry(f, "cmd=", c->name);
        for (size_t k = 0; k < c->nkeys; k++) {
            char key[96];
            snprintf(key, sizeof key, "%s=", c->keys[k].name);
            entry(f, c->wire == PMC_WIRE_V2 ? ";" : " ", key);
        }
    }
    static const char *const extra[] = {
        "endcmd\n", ";;", "TRUE", "FALSE", "true", "false", "rc=0", "rc=-1", "cmd=concat;",
        "concat=", "concatid=", "thrid=", "\\ ", "\\\\", "\r\n", "    ", "000", "999999",
        "65536", "-1", "2147483648", "9223372036854775808",
    };
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        entry(f, extra[i], NULL);
    return f == stdout ? 0 : fclose(f) != 0;
}
