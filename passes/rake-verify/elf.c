/* elf.c: reading a relocatable ELF64 object, defensively: every offset and
 * size is checked against the file before it is used. */
#include "elf.h"

#include <stdlib.h>
#include <string.h>

static uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t u32(const uint8_t *p) { return (uint32_t)u16(p) | (uint32_t)u16(p + 2) << 16; }
static uint64_t u64(const uint8_t *p) { return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32; }

static bool in_file(size_t n, uint64_t off, uint64_t size)
{
    return off <= n && size <= n - off;
}

static const char *str_at(const ElfSection *strtab, uint32_t off)
{
    if (!strtab || !strtab->data || off >= strtab->size)
        return "";
    const char *s = (const char *)strtab->data + off;
    return memchr(s, 0, strtab->size - off) ? s : "";
}

/* qsort's comparators see only the indices: the object is here. */
static const ElfObject *sorting;

static int by_name(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(sorting->symbols[x].name, sorting->symbols[y].name);
    return c ? c : (x > y) - (x < y);
}

static int by_offset(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    uint64_t p = sorting->text_relocs[x].offset, q = sorting->text_relocs[y].offset;
    return p != q ? (p > q) - (p < q) : (x > y) - (x < y);
}

static int *identity(int n)
{
    int *v = malloc(sizeof(int) * ((size_t)n + 1));
    if (!v)
        abort();
    for (int i = 0; i < n; i++)
        v[i] = i;
    return v;
}

static void index_object(ElfObject *o)
{
    sorting = o;
    o->by_name = identity(o->nsymbols);
    qsort(o->by_name, (size_t)o->nsymbols, sizeof(int), by_name);
    o->by_offset = identity(o->nrelocs);
    qsort(o->by_offset, (size_t)o->nrelocs, sizeof(int), by_offset);
    sorting = NULL;
}

const int *elf_symbols_named(const ElfObject *o, const char *name, int *n)
{
    int lo = 0, hi = o->nsymbols; /* the first whose name is >= name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(o->symbols[o->by_name[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int end = lo;
    while (end < o->nsymbols && !strcmp(o->symbols[o->by_name[end]].name, name))
        end++;
    *n = end - lo;
    return o->by_name + lo;
}

const ElfReloc *elf_reloc_at(const ElfObject *o, uint64_t off)
{
    int lo = 0, hi = o->nrelocs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (o->text_relocs[o->by_offset[mid]].offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nrelocs && o->text_relocs[o->by_offset[lo]].offset == off
               ? &o->text_relocs[o->by_offset[lo]]
               : NULL;
}

ElfObject *elf_read(const uint8_t *b, size_t n, const char **why)
{
    *why = NULL;
    if (n < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1) {
        *why = "not a little-endian ELF64 file";
        return NULL;
    }
    if (u16(b + 16) != 1) {
        *why = "not a relocatable object";
        return NULL;
    }
    uint64_t shoff = u64(b + 40);
    uint16_t shentsize = u16(b + 58), shnum = u16(b + 60), shstrndx = u16(b + 62);
    if (shentsize != 64 || !in_file(n, shoff, (uint64_t)shnum * 64) || shstrndx >= shnum) {
        *why = "bad section header table";
        return NULL;
    }
    ElfObject *o = calloc(1, sizeof *o);
    o->machine = u16(b + 18);
    o->nsections = shnum;
    o->sections = calloc(shnum + 1u, sizeof *o->sections);
    o->text = o->rodata = -1;
    for (int i = 0; i < shnum; i++) {
        const uint8_t *h = b + shoff + (uint64_t)i * 64;
        ElfSection *s = &o->sections[i];
        s->type = u32(h + 4);
        uint64_t off = u64(h + 24);
        s->size = u64(h + 32);
        s->link = u32(h + 40);
        s->info = u32(h + 44);
        s->entsize = u64(h + 56);
        s->name = (const char *)(uintptr_t)u32(h); /* resolved below */
        if (s->type != 8 /* NOBITS */ && !in_file(n, off, s->size)) {
            *why = "a section lies outside the file";
            return NULL;
        }
        s->data = s->type == 8 ? NULL : b + off; /* NOBITS: its size is no bytes of the file */
    }
    ElfSection *names = &o->sections[shstrndx];
    for (int i = 0; i < shnum; i++) {
        ElfSection *s = &o->sections[i];
        s->name = str_at(names, (uint32_t)(uintptr_t)s->name);
        if (!strcmp(s->name, ".text"))
            o->text = i;
        if (!strcmp(s->name, ".rodata"))
            o->rodata = i;
    }
    if ((o->text >= 0 && !o->sections[o->text].data) ||
        (o->rodata >= 0 && !o->sections[o->rodata].data)) {
        *why = ".text or .rodata has no contents in the file (NOBITS)";
        return NULL;
    }
    for (int i = 0; i < shnum; i++) {
        ElfSection *s = &o->sections[i];
        if (s->type != 2 /* SYMTAB */)
            continue;
        if (s->entsize != 24 || s->link >= (uint32_t)shnum ||
            o->sections[s->link].type != 3 /* STRTAB */ || o->symbols) {
            *why = o->symbols ? "two symbol tables" : "bad symbol table";
            return NULL;
        }
        o->nsymbols = (int)(s->size / 24);
        o->symbols = calloc((size_t)o->nsymbols + 1, sizeof *o->symbols);
        if (!o->symbols) {
            *why = "no memory for the symbols";
            return NULL;
        }
        for (int k = 0; k < o->nsymbols; k++) {
            const uint8_t *e = s->data + (uint64_t)k * 24;
            ElfSymbol *y = &o->symbols[k];
            y->name = str_at(&o->sections[s->link], u32(e));
            y->type = e[4] & 0xf;
            y->bind = e[4] >> 4;
            y->visibility = e[5] & 3;
            y->shndx = u16(e + 6);
            y->value = u64(e + 8);
            y->size = u64(e + 16);
        }
    }
    for (int i = 0; i < shnum; i++) {
        ElfSection *s = &o->sections[i];
        if (s->type != 4 /* RELA */ || (int)s->info != o->text)
            continue;
        if (s->entsize != 24) {
            *why = "bad relocation table";
            return NULL;
        }
        int nr = (int)(s->size / 24);
        /* any number of tables may apply to .text: they add up */
        ElfReloc *grown = realloc(o->text_relocs, sizeof *grown * ((size_t)o->nrelocs + (size_t)nr + 1));
        if (!grown) {
            *why = "no memory for the relocations";
            return NULL;
        }
        o->text_relocs = grown;
        for (int k = 0; k < nr; k++) {
            const uint8_t *e = s->data + (uint64_t)k * 24;
            uint64_t info = u64(e + 8);
            uint32_t sym = (uint32_t)(info >> 32);
            if (sym >= (uint32_t)o->nsymbols) {
                *why = "a relocation names no symbol";
                return NULL;
            }
            o->text_relocs[o->nrelocs++] = (ElfReloc){u64(e), (uint32_t)info, &o->symbols[sym],
                                                      (int64_t)u64(e + 16)};
        }
    }
    index_object(o);
    return o;
}
