/* elf.h: just enough of ELF64 for rake-verify: sections, function
 * symbols and .text relocations of a relocatable x86-64 or AArch64 object. */
#ifndef RAKE_VERIFY_ELF_H
#define RAKE_VERIFY_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ElfSection {
    const char *name;
    uint32_t type;
    const uint8_t *data;
    uint64_t size;
    uint32_t link, info;
    uint64_t entsize;
} ElfSection;

typedef struct ElfSymbol {
    const char *name;
    uint64_t value, size;
    uint8_t type, bind, visibility;
    uint16_t shndx;
} ElfSymbol;

typedef struct ElfReloc {
    uint64_t offset;
    uint32_t type;
    ElfSymbol *sym;
    int64_t addend;
} ElfReloc;

typedef struct ElfObject {
    uint16_t machine;
    ElfSection *sections;
    int nsections;
    ElfSymbol *symbols;
    int nsymbols;
    ElfReloc *text_relocs;
    int nrelocs;
    int text;    /* section index of .text, -1 if none */
    int rodata;  /* section index of .rodata, -1 if none */
    int *by_name;   /* symbol indices by name, then index (elf_symbols_named) */
    int *by_offset; /* relocation indices by offset, then index (elf_reloc_at) */
} ElfObject;

/* NULL and *why set when the bytes aren't a relocatable ELF64 object. */
ElfObject *elf_read(const uint8_t *bytes, size_t n, const char **why);

/* The symbols called name: *n of them, their indices in symbol-table
 * order (a run of by_name).  A lookup is a binary search: a whole
 * program's object has a symbol per check site and trampoline. */
const int *elf_symbols_named(const ElfObject *o, const char *name, int *n);

/* The first .text relocation at offset off, or NULL. */
const ElfReloc *elf_reloc_at(const ElfObject *o, uint64_t off);

#endif
