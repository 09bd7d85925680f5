/* case.c: one case of a file: its packs, global tine, scratch and runs,
 * and `slow cN() -> i32`, which builds the stacks from array literals,
 * calls the runs and returns a checksum.
 *
 * A case has pack A and sometimes pack B, a stack of each (the same
 * count, 0 to 49 records: 0, 1, around and at multiples of the lanes, up
 * to three racks and one of 16 lanes), each column an array literal,
 * sometimes with a few records past the count (the stack is a slice of
 * it).  Each run's result is one of the stacks; it may read other
 * stacks: a copy of its result (same pack, same count even after a
 * compaction), or the case's other stack while the two counts are known
 * to be equal (neither has been compacted since).  Each run is called
 * once, twice (on its own result), or also on a copy of its stack, with
 * fresh uniform arguments each time.
 *
 * The checksum: rk_mix (h xor v, times an odd constant) over the count
 * and every element of every column of every stack the case changed:
 * the whole arrays (records past the count included: a run must not
 * touch them) of a stack never compacted, the count(s) records of a
 * compacted one or of a copy (the rest is unspecified after a
 * compaction).  Each step is a bijection of h, so a single differing
 * element always changes the result.  f32 columns that are not exact
 * hash any NaN as one value (rk_fbits); exact ones hash their bits. */
#include <stdint.h>
#include <string.h>

#include "gen-runs.h"

typedef struct Stk {
    char *name;
    Pack *pack;
    int cls;    /* count class: equal classes, equal counts */
    int arrays; /* columns are the arrays NAME_fI (never compacted) */
    int hash;
} Stk;

static int classes;

/* --- values ------------------------------------------------------------------ */

static const uint32_t F_SPECIAL[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000, 0xffc00001,
    0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x4b000000, 0xcb000001,
    0x4f000000, 0xcf000000, 0x4f800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff,
    0x3effffff, 0x3f000000, 0x4effffff, 0x5f800000,
};
static const char *F_NICE[] = {"0.0", "-0.0", "1.0", "-1.0", "0.5", "1.5", "2.5", "-2.5", "3.0",
                               "100.0", "0.1", "-7.25", "1e-3", "65536.0", "16777217.0"};
static const int64_t I_SPECIAL[] = {0, 1, -1, 2147483647, -2147483647 - 1, 2147483646, 255,
                                    65535, -65536, 16777216, -2};
static const int64_t U_SPECIAL[] = {0, 1, 4294967295, 2147483648, 2147483647, 255, 65535,
                                    16777215, 4294967294};

static void f32_lit(Buf *b)
{
    int r = rnd(100);
    if (r < 35) {
        bput(b, "%s", F_NICE[rnd(COUNT(F_NICE))]);
        return;
    }
    uint32_t x;
    if (r < 65)
        x = F_SPECIAL[rnd(COUNT(F_SPECIAL))];
    else if (r < 85) { /* small integers and halves, as bits */
        float f = (float)(rnd(61) - 30) * (chance(30) ? 0.5f : 1.0f);
        memcpy(&x, &f, 4);
    } else
        x = (uint32_t)next64();
    bput(b, "bitcast(f32, %d)", (int32_t)x);
}

static void value(Buf *b, int st)
{
    int r = rnd(100);
    switch (st) {
    case S_F32: f32_lit(b); return;
    case S_I32:
        if (r < 40)
            bput(b, "%lld", (long long)I_SPECIAL[rnd(COUNT(I_SPECIAL))]);
        else if (r < 75)
            bput(b, "%d", rnd(201) - 100);
        else
            bput(b, "%d", (int32_t)next64());
        return;
    case S_U32:
        if (r < 40)
            bput(b, "%lld", (long long)U_SPECIAL[rnd(COUNT(U_SPECIAL))]);
        else if (r < 75)
            bput(b, "%d", rnd(300));
        else
            bput(b, "%u", (uint32_t)next64());
        return;
    case S_U8: bput(b, "%d", r < 30 ? (int[]){0, 1, 127, 128, 255}[rnd(5)] : rnd(256)); return;
    case S_I8: bput(b, "%d", r < 30 ? (int[]){0, 1, -1, 127, -128}[rnd(5)] : rnd(256) - 128); return;
    case S_U16: bput(b, "%d", r < 30 ? (int[]){0, 1, 32767, 32768, 65535}[rnd(5)] : rnd(65536)); return;
    default:
        bput(b, "%d", r < 30 ? (int[]){0, 1, -1, 32767, -32768}[rnd(5)] : rnd(65536) - 32768);
        return;
    }
}

/* A record count: 0, 1, about a multiple of the lanes, up to 49. */
static int pick_count(void)
{
    int L = P->lanes, r = rnd(100), c;
    if (r < 8)
        c = 0;
    else if (r < 14)
        c = 1;
    else if (r < 50)
        c = L * rnd(49 / L + 1) + (int[]){-1, 0, 0, 1}[rnd(4)];
    else if (r < 65)
        c = (int[]){4, 8, 16, 32, 48, 12, 24, 49, 47, 17, 33}[rnd(11)];
    else
        c = rnd(50);
    return c < 0 ? 0 : c > 49 ? 49 : c;
}

/* --- the slow side ------------------------------------------------------------- */

static void build_stack(Buf *b, Stk *s, int count, int pad)
{
    int len = count + pad;
    for (int i = 0; i < s->pack->nf; i++) {
        Field *f = &s->pack->f[i];
        bput(b, "  %s_%s: [%d]%s := [", s->name, f->name, len, stname[f->st]);
        if (len > 1 && chance(8)) { /* a repeated value */
            value(b, f->st);
            bput(b, "; %d]\n", len);
            continue;
        }
        for (int j = 0; j < len; j++) {
            if (j)
                bput(b, ", ");
            value(b, f->st);
        }
        bput(b, "]\n");
    }
    bput(b, "  %s := stack %s { ", s->name, s->pack->name);
    for (int i = 0; i < s->pack->nf; i++) {
        const char *fn = s->pack->f[i].name;
        if (pad)
            bput(b, "%s%s: slice(%s_%s, 0, %d)", i ? ", " : "", fn, s->name, fn, count);
        else
            bput(b, "%s%s: %s_%s", i ? ", " : "", fn, s->name, fn);
    }
    bput(b, " }\n");
}

static char *hash_elem(Field *f, const char *x)
{
    switch (f->st) {
    case S_F32: return f->exact ? xfmt("bitcast(u32, %s)", x) : xfmt("rk_fbits(%s)", x);
    case S_I32: return xfmt("bitcast(u32, %s)", x);
    case S_U32: return xfmt("%s", x);
    case S_U8: case S_U16: return xfmt("u32(%s)", x);
    default: return xfmt("wrap(u32, %s)", x);
    }
}

static void hash_stack(Buf *b, Stk *s, int len)
{
    bput(b, "  h <- rk_mix(h, u32(count(%s)))\n", s->name);
    if (s->arrays)
        bput(b, "  for i from 0 up to %d:\n", len);
    else
        bput(b, "  for i from 0 up to i32(count(%s)):\n", s->name);
    for (int i = 0; i < s->pack->nf; i++) {
        Field *f = &s->pack->f[i];
        char *x = s->arrays ? xfmt("%s_%s[i]", s->name, f->name)
                            : xfmt("%s.%s[i]", s->name, f->name);
        bput(b, "    h <- rk_mix(h, %s)\n", hash_elem(f, x));
    }
}

/* The uniform arguments of a call. */
static void uniform_args(Buf *b, Run *r)
{
    for (int i = 0; i < r->nu; i++) {
        int t = rk_of(r->uty[i]);
        bput(b, ", <%s>", lit_of(t));
    }
}

/* `X <- run(args)`, the other stacks first bound (copies) where needed. */
static void call(Buf *b, Run *r, int *argstk, Stk *st, int x, int ncopies_base)
{
    char *args[MAXSP];
    for (int i = 0; i < r->nsp; i++) {
        if (i == r->result)
            args[i] = st[x].name;
        else if (argstk[i] >= 0)
            args[i] = st[argstk[i]].name;
        else {
            args[i] = xfmt("o%d_%d", ncopies_base, i);
            bput(b, "  %s := copy(%s)\n", args[i], st[x].name);
        }
    }
    bput(b, "  %s <- %s(", st[x].name, r->name);
    for (int i = 0; i < r->nsp; i++)
        bput(b, "%s%s", i ? ", " : "", args[i]);
    uniform_args(b, r);
    bput(b, ")\n");
}

void gen_case(Buf *out, int id)
{
    char *pre = xfmt("c%d", id);
    Buf slow = {0};
    bput(out, "~~ begin case %d\n", id);
    static Pack packs[2];
    int np = chance(55) ? 2 : 1;
    for (int i = 0; i < np; i++)
        gen_pack(out, &packs[i], xfmt("C%d%c", id, 'A' + i));
    gt = NULL;
    scr = NULL;
    if (chance(45))
        gen_gtine(out, pre);
    if (chance(50))
        gen_scratch(out, pre);

    int count = pick_count(), pad = count == 0 ? 1 + rnd(2) : chance(35) ? 1 + rnd(3) : 0;
    Stk st[8];
    int nst = 0;
    for (int i = 0; i < np; i++) {
        st[nst] = (Stk){xfmt("s%c", 'a' + i), &packs[i], 0, 1, 1};
        build_stack(&slow, &st[nst], count, pad);
        nst++;
    }
    classes = 1;
    int nr = 1 + rnd(3), ncall = 0;
    for (int j = 0; j < nr; j++) {
        Run r = {0};
        r.name = xfmt("%s_r%d", pre, j);
        int x = rnd(np);
        int argstk[MAXSP];
        r.nsp = 1 + (chance(45) ? 1 + rnd(2) : 0);
        r.result = rnd(r.nsp);
        int uses_other = 0;
        for (int i = 0; i < r.nsp; i++) {
            r.spname[i] = i == r.result ? xfmt("s") : xfmt("o%d", i);
            argstk[i] = -1;
            r.sppack[i] = st[x].pack;
            if (i == r.result)
                continue;
            int y = 1 - x; /* the other array stack, if its count is the same */
            if (np == 2 && st[y].cls == st[x].cls && chance(60)) {
                argstk[i] = y;
                r.sppack[i] = st[y].pack;
                uses_other = 1;
            }
        }
        r.nu = rnd(3);
        for (int i = 0; i < r.nu; i++)
            r.uty[i] = (int[]){T_SF, T_SF, T_SI, T_SU}[rnd(4)];
        r.form = rnd(4);
        gen_run(out, &r);
        int mode = rnd(10); /* 0-5 once, 6-7 twice, 8-9 also on a copy */
        if (mode >= 6 && mode < 8 && run_compacts(&r) && uses_other)
            mode = 0;
        if (mode >= 8) {
            Stk k = {xfmt("k%d", j), st[x].pack, st[x].cls, 0, 1};
            bput(&slow, "  %s := copy(%s)\n", k.name, st[x].name);
            st[nst] = k;
            call(&slow, &r, argstk, st, nst, ncall++);
            if (run_compacts(&r))
                st[nst].cls = classes++;
            nst++;
        }
        call(&slow, &r, argstk, st, x, ncall++);
        if (run_compacts(&r)) {
            st[x].cls = classes++;
            st[x].arrays = 0;
        }
        if (mode >= 6 && mode < 8) {
            call(&slow, &r, argstk, st, x, ncall++);
            if (run_compacts(&r))
                st[x].cls = classes++;
        }
    }
    bput(out, "slow %s() -> i32:\n%s", pre, slow.s);
    bput(out, "  h: u32 := %u\n", (uint32_t)(2166136261u + (uint32_t)id));
    for (int i = 0; i < nst; i++)
        hash_stack(out, &st[i], count + pad);
    bput(out, "  return bitcast(i32, h)\n");
    bput(out, "~~ end case %d\n\n", id);
}
