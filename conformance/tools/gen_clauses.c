/* gen_clauses: build the conformance suite's clause table from SPEC.md, so
 * that the requirement a case quotes is the text of SPEC.md and cannot drift.
 *
 *   gen_clauses SPEC.md out.c
 *
 * Clause text: a paragraph that starts "**[ID]** *Title.*" and runs to the
 * next blank line.  Level and role: the rows of Appendix C.  A clause marked
 * "*(graded NON-STRICT)*" is flagged (SPEC.md section 1.3).  Any clause that
 * is in one place and not the other is an error: the build stops. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct clause {
    char id[32];
    char title[128];
    char *text;
    char level[16];
    char role[32];
    char summary[128];
    int nonstrict;
    int has_text, has_index;
} clause;

static clause *cl;
static size_t ncl, capcl;

static clause *find_or_add(const char *id)
{
    for (size_t i = 0; i < ncl; i++)
        if (strcmp(cl[i].id, id) == 0)
            return &cl[i];
    if (ncl == capcl) {
        capcl = capcl ? capcl * 2 : 512;
        clause *n = realloc(cl, capcl * sizeof *n);
        if (!n) {
            fprintf(stderr, "gen_clauses: out of memory\n");
            exit(1);
        }
        cl = n;
    }
    clause *c = &cl[ncl++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    return c;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

static int is_clause_id(const char *s, size_t n)
{
    /* AREA-NUMBER: capitals/digits, a hyphen, digits */
    size_t i = 0;
    while (i < n && (isupper((unsigned char)s[i]) || isdigit((unsigned char)s[i])))
        i++;
    if (i == 0 || i >= n || s[i] != '-')
        return 0;
    size_t j = i + 1;
    while (j < n && isdigit((unsigned char)s[j]))
        j++;
    return j == n && j > i + 1;
}

/* Remove markdown emphasis markers and code backticks from the quote. */
static void plain(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '`')
            continue;
        if (*r == '*' && (r[1] == '*' || r == s || r[-1] == ' ' || r[1] == ' ' || r[1] == 0 ||
                          r[1] == '(' || r[-1] == ')' || r[-1] == '.'))
            continue;
        *w++ = *r;
    }
    *w = 0;
}

static void emit_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\%03o", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_clauses SPEC.md OUT.c\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    char line[8192];
    clause *cur = NULL; /* clause paragraph being collected */
    size_t curlen = 0;
    int in_index = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        if (strncmp(line, "## Appendix C", 13) == 0) {
            in_index = 1;
            cur = NULL;
            continue;
        }
        if (in_index) {
            if (strncmp(line, "## ", 3) == 0)
                in_index = 0;
            if (line[0] != '|')
                continue;
            char *cells[5];
            int nc = 0;
            char *p = line + 1;
            while (nc < 5) {
                char *bar = strchr(p, '|');
                if (!bar)
                    break;
                *bar = 0;
                cells[nc++] = trim(p);
                p = bar + 1;
            }
            if (nc < 4 || !is_clause_id(cells[0], strlen(cells[0])))
                continue; /* header and separator rows */
            clause *c = find_or_add(cells[0]);
            if (c->has_index) {
                fprintf(stderr, "%s:%u: clause %s listed twice in Appendix C\n", argv[1], lineno,
                        c->id);
                return 1;
            }
            c->has_index = 1;
            snprintf(c->level, sizeof c->level, "%s", cells[1]);
            snprintf(c->role, sizeof c->role, "%s", cells[2]);
            snprintf(c->summary, sizeof c->summary, "%s", cells[3]);
            continue;
        }
        char *t = line;
        if (strncmp(t, "**[", 3) == 0) {
            char *close = strstr(t, "]**");
            if (!close || !is_clause_id(t + 3, (size_t)(close - t - 3))) {
                cur = NULL;
                continue;
            }
            char id[32];
            size_t il = (size_t)(close - t - 3);
            if (il >= sizeof id)
                il = sizeof id - 1;
            memcpy(id, t + 3, il);
            id[il] = 0;
            cur = find_or_add(id);
            if (cur->has_text) {
                fprintf(stderr, "%s:%u: clause %s defined twice\n", argv[1], lineno, id);
                return 1;
            }
            cur->has_text = 1;
            char *rest = close + 3;
            while (*rest == ' ')
                rest++;
            if (*rest == '*') { /* *Title.* */
                char *end = strchr(rest + 1, '*');
                if (end) {
                    size_t tl = (size_t)(end - rest - 1);
                    if (tl >= sizeof cur->title)
                        tl = sizeof cur->title - 1;
                    memcpy(cur->title, rest + 1, tl);
                    cur->title[tl] = 0;
                    size_t n = strlen(cur->title);
                    if (n && cur->title[n - 1] == '.')
                        cur->title[n - 1] = 0;
                    rest = end + 1;
                }
            }
            rest = trim(rest);
            cur->text = strdup(rest);
            curlen = strlen(rest);
            continue;
        }
        if (cur) {
            char *s = trim(t);
            if (!*s) {
                cur = NULL;
                continue;
            }
            size_t sl = strlen(s);
            char *n = realloc(cur->text, curlen + sl + 2);
            if (!n) {
                fprintf(stderr, "gen_clauses: out of memory\n");
                return 1;
            }
            cur->text = n;
            cur->text[curlen++] = ' ';
            memcpy(cur->text + curlen, s, sl + 1);
            curlen += sl;
        }
    }
    fclose(in);

    int bad = 0;
    for (size_t i = 0; i < ncl; i++) {
        clause *c = &cl[i];
        if (!c->has_text) {
            fprintf(stderr, "%s: clause %s is in Appendix C but has no text\n", argv[1], c->id);
            bad = 1;
        }
        if (!c->has_index) {
            fprintf(stderr, "%s: clause %s has no row in Appendix C\n", argv[1], c->id);
            bad = 1;
        }
        if (c->text) {
            char *m = strstr(c->text, "*(graded NON-STRICT)*");
            if (m) {
                c->nonstrict = 1;
                memmove(m, m + 21, strlen(m + 21) + 1);
            }
            plain(c->text);
            char *e = c->text + strlen(c->text);
            while (e > c->text && e[-1] == ' ')
                *--e = 0;
        }
    }
    if (bad || ncl == 0)
        return 1;

    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, "/* Generated from SPEC.md by gen_clauses: do not edit. */\n"
                 "#include \"clauses.h\"\n\n"
                 "const pcf_clause pcf_clauses[] = {\n");
    for (size_t i = 0; i < ncl; i++) {
        clause *c = &cl[i];
        const char *lv = strncmp(c->level, "MUST", 4) == 0     ? "PCF_L_MUST"
                         : strncmp(c->level, "SHOULD", 6) == 0 ? "PCF_L_SHOULD"
                         : strncmp(c->level, "MAY", 3) == 0    ? "PCF_L_MAY"
                                                               : NULL;
        if (!lv) {
            fprintf(stderr, "%s: clause %s: unknown level '%s'\n", argv[1], c->id, c->level);
            fclose(out);
            remove(argv[2]);
            return 1;
        }
        fprintf(out, "    { ");
        emit_str(out, c->id);
        fprintf(out, ", %s, ", lv);
        emit_str(out, c->level);
        fprintf(out, ", ");
        emit_str(out, c->role);
        fprintf(out, ", ");
        emit_str(out, c->title[0] ? c->title : c->summary);
        fprintf(out, ",\n      ");
        emit_str(out, c->text);
        fprintf(out, ", %d },\n", c->nonstrict);
    }
    fprintf(out, "};\nconst size_t pcf_nclauses = %zu;\n", ncl);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
