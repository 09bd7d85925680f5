/* nirops.c: the operation table. */
#include "nirops.h"

#include <string.h>

#define ONE 0x3f800000u
#define ZERO 0u
#define P RK_OP_PURE
#define FU RK_OP_FUSABLE
#define X RK_OP_CROSS
#define FL RK_OP_FLOAT
#define IN RK_OP_INT
#define EF RK_OP_EFFECT
#define R RK_OP_RAISES

static const RkOpInfo ops[] = {
    {"const", SH_CONST, P | FU, 0, 0},
    {"rack.splat", SH_CONST, P | FU, 0, 0},
    {"mask.const", SH_CONST, P | FU, 0, 0},
    {"mask.splat", SH_SPLAT, P | FU, 0, 0},
    {"copy", SH_COPY, P | FU, 0, 0},
    {"rack.add", SH_BIN, P | FU | R, ZERO, ZERO},
    {"rack.sub", SH_BIN, P | FU | R, ZERO, ZERO},
    {"rack.mul", SH_BIN, P | FU | R, ONE, ONE},
    {"rack.div", SH_BIN, P | FU | FL | R, ZERO, ONE},
    {"rack.min", SH_BIN, P | FU | R, ZERO, ZERO},
    {"rack.max", SH_BIN, P | FU | R, ZERO, ZERO},
    {"rack.and", SH_BIN, P | FU | IN, 0, 0},
    {"rack.or", SH_BIN, P | FU | IN, 0, 0},
    {"rack.xor", SH_BIN, P | FU | IN, 0, 0},
    {"rack.andnot", SH_BIN, P | FU | IN, 0, 0},
    {"rack.relaxed_min", SH_BIN, P | FU | FL, 0, 0},
    {"rack.relaxed_max", SH_BIN, P | FU | FL, 0, 0},
    {"rack.neg", SH_UN, P | FU, 0, 0},
    {"rack.abs", SH_UN, P | FU, 0, 0},
    {"rack.sqrt", SH_UN, P | FU | FL | R, ONE, 0},
    {"rack.floor", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.ceil", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.trunc", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.nearest", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.exp", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.log", SH_UN, P | FU | FL | R, ONE, 0},
    {"rack.log2", SH_UN, P | FU | FL | R, ONE, 0},
    {"rack.tanh", SH_UN, P | FU | FL | R, ZERO, 0},
    {"rack.fma", SH_TER, P | FU | FL | R, ZERO, ZERO},
    {"rack.relaxed_madd", SH_TER, P | FU | FL, 0, 0},
    {"rack.relaxed_nmadd", SH_TER, P | FU | FL, 0, 0},
    {"rack.shl", SH_SHIFT, P | FU | IN, 0, 0},
    {"rack.shr", SH_SHIFT, P | FU | IN, 0, 0},
    {"rack.sar", SH_SHIFT, P | FU | IN, 0, 0},
    {"rack.cmp.eq", SH_CMP, P | FU | R, ZERO, ZERO},
    {"rack.cmp.ne", SH_CMP, P | FU | R, ZERO, ZERO},
    {"rack.cmp.lt", SH_CMP, P | FU | R, ZERO, ZERO},
    {"rack.cmp.le", SH_CMP, P | FU | R, ZERO, ZERO},
    {"rack.cmp.gt", SH_CMP, P | FU | R, ZERO, ZERO},
    {"rack.cmp.ge", SH_CMP, P | FU | R, ZERO, ZERO},
    {"mask.and", SH_MBIN, P | FU, 0, 0},
    {"mask.or", SH_MBIN, P | FU, 0, 0},
    {"mask.not", SH_MUN, P | FU, 0, 0},
    {"mask.select", SH_SELECT, P | FU, 0, 0},
    {"rack.to_i32", SH_CONVERT, P | FU | R, ZERO, 0},
    {"rack.to_u32", SH_CONVERT, P | FU | R, ZERO, 0},
    {"rack.to_f32", SH_CONVERT, P | FU, 0, 0},
    {"rack.bitcast", SH_CONVERT, P, 0, 0},
    {"rack.widen_low", SH_CONVERT, P | FU, 0, 0},
    {"rack.widen_high", SH_CONVERT, P | FU, 0, 0},
    {"rack.narrow", SH_CONVERT, P | FU, 0, 0},
    {"rack.dot", SH_CONVERT, P | FU, 0, 0},
    {"rack.sum", SH_REDUCE, P | X, 0, 0},
    {"rack.product", SH_REDUCE, P | X, 0, 0},
    {"rack.minimum", SH_REDUCE, P | X, 0, 0},
    {"rack.maximum", SH_REDUCE, P | X, 0, 0},
    {"rack.scan_sum", SH_SCAN, P | X, 0, 0},
    {"rack.scan_product", SH_SCAN, P | X, 0, 0},
    {"rack.scan_minimum", SH_SCAN, P | X, 0, 0},
    {"rack.scan_maximum", SH_SCAN, P | X, 0, 0},
    {"rack.extract", SH_EXTRACT, P | X, 0, 0},
    {"rack.insert", SH_INSERT, P | X, 0, 0},
    {"rack.shuffle", SH_SHUFFLE, P | FU | X, 0, 0},
    {"mask.all", SH_MREDUCE, P | X, 0, 0},
    {"mask.any", SH_MREDUCE, P | X, 0, 0},
    {"mask.bitmask", SH_MREDUCE, P | X, 0, 0},
    /* uniform operations may sit in a fused region: a fused binding may
     * compute on uniforms (`a * (<k> + <k>)`) and test them in a uniform
     * `if` (10-gap-notes.md sections 2 and 3) */
    {"u.add", SH_UBIN, P | FU, 0, 0},
    {"u.sub", SH_UBIN, P | FU, 0, 0},
    {"u.mul", SH_UBIN, P | FU, 0, 0},
    {"u.div", SH_UBIN, P | FU, 0, 0},
    {"u.and", SH_UBIN, P | FU, 0, 0},
    {"u.or", SH_UBIN, P | FU, 0, 0},
    {"u.neg", SH_UUN, P | FU, 0, 0},
    {"u.not", SH_UUN, P | FU, 0, 0},
    {"u.cmp.eq", SH_UCMP, P | FU, 0, 0},
    {"u.cmp.ne", SH_UCMP, P | FU, 0, 0},
    {"u.cmp.lt", SH_UCMP, P | FU, 0, 0},
    {"u.cmp.le", SH_UCMP, P | FU, 0, 0},
    {"u.cmp.gt", SH_UCMP, P | FU, 0, 0},
    {"u.cmp.ge", SH_UCMP, P | FU, 0, 0},
    {"u.select", SH_USELECT, P | FU, 0, 0},
    {"u.cvt", SH_UCVT, P | FU, 0, 0},
    {"stack.count", SH_MEM, P, 0, 0},
    {"stack.column", SH_MEM, P, 0, 0},
    {"stack.set_count", SH_MEM, EF, 0, 0},
    {"view.ptr", SH_MEM, P, 0, 0},
    {"view.count", SH_MEM, P, 0, 0},
    {"ptr.add", SH_MEM, P, 0, 0},
    {"rack.load", SH_MEM, 0, 0, 0},
    {"rack.load.masked", SH_MEM, 0, 0, 0},
    {"rack.store", SH_MEM, EF, 0, 0},
    {"rack.store.masked", SH_MEM, EF, 0, 0},
    {"rack.compress_store", SH_MEM, EF | X, 0, 0},
    {"rack.gather", SH_MEM, X, 0, 0},
    {"elem.load", SH_MEM, 0, 0, 0},
    {"mask.popcount", SH_MEM, P | X, 0, 0},
    {"mask.lanes_below", SH_MEM, P, 0, 0},
    {"slow.call", SH_MEM, EF, 0, 0},
    {NULL, SH_CONST, 0, 0, 0},
};

const RkOpInfo *rk_nir_op(const char *name)
{
    for (const RkOpInfo *o = ops; o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}
