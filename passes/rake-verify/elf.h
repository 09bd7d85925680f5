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
} ElfObject;

/* NULL and *why set when the bytes aren't a relocatable ELF64 object. */
ElfObject *elf_read(const uint8_t *bytes, size_t n, const char **why);

#endif
