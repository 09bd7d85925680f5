/* tests/shared/conformance/stacks_compact_readings.rk with x86 intrinsics. */
#include "rake_intrin.h"

struct rake_stack_CompactReadings_v2 {
    int64_t count;
    int8_t *adjustment;
    int16_t *offset;
    uint8_t *quality;
    uint16_t *weight;
    int32_t *total;
};

void stacks_compact_readings__combine_readings(struct rake_stack_CompactReadings_v2 *input)
{
    int64_t full = RK_FULL(input->count), rem = RK_REM(input->count);
    const int8_t *a = input->adjustment;
    const int16_t *o = input->offset;
    const uint8_t *q = input->quality;
    const uint16_t *w = input->weight;
    int32_t *total = input->total;
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu_i(total + i, viadd(viadd(viadd(load_i8(a + i), load_i16(o + i)), load_u8(q + i)),
                                   load_u16(w + i)));
    if (rem) {
        M t = tail_mask(rem);
        VI s = viadd(viadd(viadd(load_i8_tail(a + full, rem, t), load_i16_tail(o + full, rem, t)),
                           load_u8_tail(q + full, rem, t)),
                     load_u16_tail(w + full, rem, t));
        store_tail_i(total + full, s, rem, t);
    }
}
