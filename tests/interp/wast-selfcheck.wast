;; tests/interp/wast-selfcheck.wast: assertions with deliberately WRONG
;; expectations, so tests/31-wasm-spec.bats can show that a generated
;; program detects a wrong bit.  Each wrong one says why; the test expects
;; exactly these failures (FAILS * 10000 + FIRST from each program).

(module
  (func (export "add") (param v128 v128) (result v128) (f32x4.add (local.get 0) (local.get 1)))
  (func (export "min") (param v128 v128) (result v128) (f32x4.min (local.get 0) (local.get 1)))
  (func (export "shl") (param v128 i32) (result v128) (i32x4.shl (local.get 0) (local.get 1)))
  (func (export "lt_u") (param v128 v128) (result v128) (i32x4.lt_u (local.get 0) (local.get 1)))
)

;; add, 1: right
(assert_return (invoke "add" (v128.const f32x4 1 2 3 4) (v128.const f32x4 1 1 1 1))
                             (v128.const f32x4 2 3 4 5))
;; add, 2: WRONG in lane 0: 1 + 2^-24 is a tie and rounds to even, 1.0
(assert_return (invoke "add" (v128.const f32x4 1 0 0 0) (v128.const f32x4 0x1p-24 0 0 0))
                             (v128.const f32x4 0x1.000002p+0 0 0 0))
;; add, 3: right: -0 + -0 is -0
(assert_return (invoke "add" (v128.const f32x4 -0 -0 -0 -0) (v128.const f32x4 -0 -0 -0 -0))
                             (v128.const f32x4 -0 -0 -0 -0))
;; add, 4: WRONG in lane 3: +0 expected where the sum is -0
(assert_return (invoke "add" (v128.const f32x4 -0 -0 -0 -0) (v128.const f32x4 -0 -0 -0 -0))
                             (v128.const f32x4 -0 -0 -0 0))
;; add, 5: WRONG in lane 1: a number expected where the sum is a NaN
(assert_return (invoke "add" (v128.const f32x4 1 nan 1 1) (v128.const f32x4 1 1 1 1))
                             (v128.const f32x4 2 2 2 2))
;; add, 6: right: any NaN
(assert_return (invoke "add" (v128.const f32x4 1 nan 1 1) (v128.const f32x4 1 1 1 1))
                             (v128.const f32x4 2 nan:arithmetic 2 2))
;; min, 1: WRONG in lane 2: min(-0, +0) is -0
(assert_return (invoke "min" (v128.const f32x4 1 2 -0 4) (v128.const f32x4 1 2 0 4))
                             (v128.const f32x4 1 2 0 4))
;; shl, 1: right: the count is taken modulo 32
(assert_return (invoke "shl" (v128.const i32x4 1 2 3 4) (i32.const 33))
                             (v128.const i32x4 2 4 6 8))
;; shl, 2: WRONG: a count of 32 shifts by 0, not out
(assert_return (invoke "shl" (v128.const i32x4 1 2 3 4) (i32.const 32))
                             (v128.const i32x4 0 0 0 0))
;; lt_u, 1: WRONG in lane 0: 0x80000000 is above 1 when unsigned
(assert_return (invoke "lt_u" (v128.const i32x4 0x80000000 0 0 0) (v128.const i32x4 1 0 0 0))
                              (v128.const i32x4 -1 0 0 0))
