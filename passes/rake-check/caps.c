/* caps.c: asking the profile table, and printing it.
 *
 * The checker rejects a construct where the source uses it when the
 * selected profile can't compile it, naming the profile and the table's
 * reason.  `rakec --print-capabilities` prints the same table. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "target.h"
#include "ir.h"

bool require_cap(RkFeature f, RkLoc at, const char *what)
{
    RkCap c = rk_profile_cap(C->profile, f);
    if (c.status == RK_CAP_YES || c.status == RK_CAP_PARTIAL)
        return true;
    ERROR(at, "%s can't compile %s%s: %s", C->profile->name, what,
          c.status == RK_CAP_WIP ? " yet" : "", c.reason);
    return false;
}

void print_targets(void)
{
    for (int i = 0; i < rk_profile_count(); i++) {
        const RkProfile *p = rk_profile_at(i);
        printf("%-22s %2d f32 lanes  %s%s\n", p->name, p->lanes, p->isa,
               p->usable ? "" : " [rejected]");
    }
    printf("%-22s picks the strongest profile of this machine (now %s)\n", "native",
           rk_profile_native()->name);
}

/* The vector register facts of a profile's target table: how many the
 * allocator may use, the name prefix, and the reserved ones (null for a
 * profile without a native target). */
static void add_registers(json_t *o, const RkTarget *t)
{
    const RkRegFile *f = t ? &t->regs[RK_RC_VEC] : NULL;
    json_object_set_new(o, "vector_registers",
                        json_integer(t ? rk_target_allocatable(t, RK_RC_VEC) : 0));
    if (!t) {
        json_object_set_new(o, "register", json_null());
        json_object_set_new(o, "reserved", json_null());
        return;
    }
    const char *name = rk_target_reg_name(t, RK_RC_VEC, 0, 0);
    json_object_set_new(o, "register", json_stringn(name, strcspn(name, "0123456789")));
    json_t *r = json_array();
    for (int g = 0; g < f->count; g++)
        if (f->reserved >> g & 1u)
            json_array_append_new(r, json_string(rk_target_reg_name(t, RK_RC_VEC, g, 0)));
    json_object_set_new(o, "reserved", r);
}

static void print_json(void)
{
    json_t *root = json_object();
    json_t *profiles = json_array();
    for (int i = 0; i < rk_profile_count(); i++) {
        const RkProfile *p = rk_profile_at(i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "lanes", json_integer(p->lanes));
        json_object_set_new(o, "vector_bits", json_integer(p->vector_bits));
        add_registers(o, rk_target_find(p->name));
        json_object_set_new(o, "fma", json_boolean(p->fma));
        json_object_set_new(o, "contracts", json_boolean(p->contracts));
        json_object_set_new(o, "fp_exceptions", json_boolean(p->fp_exceptions));
        json_object_set_new(o, "usable", json_boolean(p->usable));
        json_object_set_new(o, "description", json_string(p->isa));
        json_array_append_new(profiles, o);
    }
    json_object_set_new(root, "profiles", profiles);
    json_t *features = json_array();
    for (int f = 0; f < RK_FEATURE_COUNT; f++) {
        json_t *o = json_object();
        json_object_set_new(o, "feature", json_string(rk_feature_name((RkFeature)f)));
        json_object_set_new(o, "summary", json_string(rk_feature_summary((RkFeature)f)));
        json_t *st = json_object();
        for (int i = 0; i < rk_profile_count(); i++) {
            const RkProfile *p = rk_profile_at(i);
            RkCap c = rk_profile_cap(p, (RkFeature)f);
            json_t *cell = json_object();
            json_object_set_new(cell, "status", json_string(rk_cap_status_name(c.status)));
            if (c.reason)
                json_object_set_new(cell, "reason", json_string(c.reason));
            json_object_set_new(st, p->name, cell);
        }
        json_object_set_new(o, "status", st);
        json_array_append_new(features, o);
    }
    json_object_set_new(root, "features", features);
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
}

static const char *short_name(const char *n)
{
    if (!strcmp(n, "wasm-simd128"))
        return "wasm";
    if (!strcmp(n, "wasm-simd128-relaxed"))
        return "relaxed";
    const char *dash = strchr(n, '-');
    return dash ? dash + 1 : n;
}

void print_capabilities(bool json)
{
    if (json) {
        print_json();
        return;
    }
    int n = rk_profile_count();
    printf("%-26s", "feature");
    for (int i = 0; i < n; i++)
        printf(" %-9s", short_name(rk_profile_at(i)->name));
    printf("\n");
    for (int f = 0; f < RK_FEATURE_COUNT; f++) {
        printf("%-26s", rk_feature_name((RkFeature)f));
        for (int i = 0; i < n; i++)
            printf(" %-9s", rk_cap_status_name(rk_profile_cap(rk_profile_at(i), (RkFeature)f).status));
        printf("\n");
    }
    printf("\ncolumns: ");
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? ", " : "", rk_profile_at(i)->name);
    printf("\n\nfeatures:\n");
    for (int f = 0; f < RK_FEATURE_COUNT; f++)
        printf("  %-24s %s\n", rk_feature_name((RkFeature)f), rk_feature_summary((RkFeature)f));
    printf("\nreasons:\n");
    for (int f = 0; f < RK_FEATURE_COUNT; f++) {
        const char *last = NULL;
        for (int i = 0; i < n; i++) {
            RkCap c = rk_profile_cap(rk_profile_at(i), (RkFeature)f);
            if (c.reason && (!last || strcmp(last, c.reason)) &&
                strcmp(c.reason, "the scalar profile is work in progress")) {
                printf("  %-24s %s: %s\n", rk_feature_name((RkFeature)f),
                       rk_profile_at(i)->name, c.reason);
                last = c.reason;
            }
        }
    }
    printf("\nWIP: work in progress; the compiler rejects it.\n"
           "scalar: the whole profile is work in progress and is rejected.\n");
}
