;; Fused kernels for the tfjs wasm backend, f32x4 SIMD (Node 20 and Chrome both run it): multi-head
;; attention, LayerNorm, GELU and column sums, forward and backward, and the matmuls (a·b + bias,
;; xᵀ·dy). Multiply-adds are written f32x4.relaxed_madd (one FMA instruction where the engine has relaxed
;; SIMD); build-kernels.ts also emits a plain-SIMD twin with mul + add, for engines without it. Assembled by
;; `npx tsx scripts/build-kernels.ts` into kernels-wasm.ts (checked in; no runtime dependency). The
;; module imports the wasm backend's own memory, so every pointer below is a byte address of a tfjs
;; tensor on that heap: no copies. Attention layouts (floats, row-major):
;;   q (b, t, h, d) at q + (b·T + t)·qs + h·hd + d      k, v likewise over S keys with strides ks, vs
;;   bias (b, t, s) at bias + b·bbs + t·S + s           (bbs = 0 broadcasts one bias over the batch)
;;   y (b, t, h, d) at y + (b·T + t)·H·hd + h·hd + d     heads merged, ready for the output projection
;;   p (b, h, t, s) at p + ((b·H + h)·T + t)·S + s       softmax probabilities, kept for the backward
;; A key whose bias is ≤ -5e8 (the model's MASK, -1e9) gets no dot product: its probability is exactly 0
;; in the plain formulation too (exp underflows), unless a whole row is masked, which the model never does.
(module
  (import "env" "memory" (memory 1))

  ;; Σ a[i]·b[i], i < n
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f32)
    (local $acc v128) (local $acc2 v128) (local $i i32) (local $n8 i32) (local $n4 i32) (local $s f32)
    (local.set $n8 (i32.and (local.get $n) (i32.const -8)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $done8
      (loop $l8
        (br_if $done8 (i32.ge_u (local.get $i) (local.get $n8)))
        (local.set $acc (f32x4.relaxed_madd (v128.load (local.get $a)) (v128.load (local.get $b)) (local.get $acc)))
        (local.set $acc2 (f32x4.relaxed_madd (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b)) (local.get $acc2)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l8)))
    (if (i32.lt_u (local.get $i) (local.get $n4))
      (then
        (local.set $acc (f32x4.relaxed_madd (v128.load (local.get $a)) (v128.load (local.get $b)) (local.get $acc)))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))))
    (local.set $acc (f32x4.add (local.get $acc) (local.get $acc2)))
    (local.set $s (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
      (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (local.get $a)) (f32.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 4)))
        (local.set $b (i32.add (local.get $b) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))

  ;; y[i] += c·x[i], i < n
  (func $axpy (param $y i32) (param $x i32) (param $c f32) (param $n i32)
    (local $cv v128) (local $i i32) (local $n4 i32)
    (local.set $cv (f32x4.splat (local.get $c)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $done4
      (loop $l4
        (br_if $done4 (i32.ge_u (local.get $i) (local.get $n4)))
        (v128.store (local.get $y) (f32x4.relaxed_madd (local.get $cv) (v128.load (local.get $x)) (v128.load (local.get $y))))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $l4)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f32.store (local.get $y) (f32.add (f32.load (local.get $y)) (f32.mul (local.get $c) (f32.load (local.get $x)))))
        (local.set $y (i32.add (local.get $y) (i32.const 4)))
        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))

  ;; e^x per lane (Cephes expf: x = n·ln2 + r, degree-6 polynomial in r, 2^n from the exponent bits);
  ;; about 1 ulp; exactly 0 below -87 (where float32 underflows). n = round(x·log2 e) by the 1.5·2^23
  ;; trick, and pmin/pmax, because wasm's nearest, trunc_sat, min and max are multi-instruction on x86.
  (func $exp4 (param $x v128) (result v128)
    (local $t v128) (local $n v128) (local $r v128) (local $p v128) (local $under v128)
    (local.set $under (f32x4.lt (local.get $x) (v128.const f32x4 -87 -87 -87 -87)))
    (local.set $x (f32x4.pmin (f32x4.pmax (local.get $x) (v128.const f32x4 -87 -87 -87 -87)) (v128.const f32x4 88 88 88 88)))
    (local.set $t (f32x4.relaxed_madd (local.get $x) (v128.const f32x4 1.44269504088896341 1.44269504088896341 1.44269504088896341 1.44269504088896341) (v128.const f32x4 12582912 12582912 12582912 12582912)))
    (local.set $n (f32x4.sub (local.get $t) (v128.const f32x4 12582912 12582912 12582912 12582912)))
    (local.set $r (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375))))
    (local.set $r (f32x4.relaxed_madd (local.get $n) (v128.const f32x4 2.12194440e-4 2.12194440e-4 2.12194440e-4 2.12194440e-4) (local.get $r)))
    (local.set $p (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
    (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $r) (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3)))
    (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $r) (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3)))
    (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $r) (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2)))
    (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $r) (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1)))
    (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $r) (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1)))
    (local.set $p (f32x4.add (f32x4.relaxed_madd (f32x4.mul (local.get $p) (local.get $r)) (local.get $r) (local.get $r)) (v128.const f32x4 1 1 1 1)))
    ;; 2^n: the low bits of t hold n + 0x400000 (t's exponent is 2^23)
    (v128.andnot
      (f32x4.mul (local.get $p)
        (i32x4.shl (i32x4.add (i32x4.sub (local.get $t) (v128.const i32x4 0x4B400000 0x4B400000 0x4B400000 0x4B400000)) (v128.const i32x4 127 127 127 127)) (i32.const 23)))
      (local.get $under)))

  ;; Zeroes n bytes at ptr (gradient outputs are accumulated into).
  (func (export "zero") (param $ptr i32) (param $n i32)
    (memory.fill (local.get $ptr) (i32.const 0) (local.get $n)))

  ;; y = softmax(q·kᵀ·scale + bias)·v per (batch, head); p keeps the probabilities.
  (func (export "attn_fwd")
    (param $q i32) (param $qs i32) (param $k i32) (param $ks i32) (param $v i32) (param $vs i32)
    (param $bias i32) (param $bbs i32) (param $y i32) (param $p i32)
    (param $B i32) (param $T i32) (param $S i32) (param $H i32) (param $hd i32) (param $scale f32)
    (local $b i32) (local $h i32) (local $t i32) (local $s i32) (local $C i32) (local $S4 i32)
    (local $qrow i32) (local $brow i32) (local $prow i32) (local $yrow i32) (local $addr i32)
    (local $bv f32) (local $sc f32) (local $max f32) (local $sum f32) (local $inv f32) (local $pv f32)
    (local $sumv v128) (local $maxv v128) (local $e v128)
    ;; hd = 32 (every preset's head size): q, then y, held in r0..r7 instead of a call per key
    (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128) (local $r4 v128) (local $r5 v128) (local $r6 v128) (local $r7 v128) (local $acc v128) (local $acc2 v128) (local $pvv v128) (local $kp i32) (local $h32 i32)
    (local $d0 v128) (local $d1 v128) (local $d2 v128) (local $d3 v128) (local $bv4 v128) (local $m4 v128) (local $kq i32) (local $ks4 i32) (local $lo i32) (local $hi i32)
    (local.set $h32 (i32.eq (local.get $hd) (i32.const 32)))
    (local.set $C (i32.mul (local.get $H) (local.get $hd)))
    (local.set $S4 (i32.and (local.get $S) (i32.const -4)))
    (local.set $ks4 (i32.shl (local.get $ks) (i32.const 2)))
    (loop $lb
      (local.set $h (i32.const 0))
      (loop $lh
        (local.set $t (i32.const 0))
        (loop $lt
          (local.set $qrow (i32.add (local.get $q) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $qs))
            (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
          (local.set $brow (i32.add (local.get $bias) (i32.shl (i32.add
            (i32.mul (local.get $b) (local.get $bbs)) (i32.mul (local.get $t) (local.get $S))) (i32.const 2))))
          (local.set $prow (i32.add (local.get $p) (i32.shl (i32.mul
            (i32.add (i32.mul (i32.add (i32.mul (local.get $b) (local.get $H)) (local.get $h)) (local.get $T)) (local.get $t))
            (local.get $S)) (i32.const 2))))
          (local.set $yrow (i32.add (local.get $y) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $C))
            (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
          ;; scores and their max
          (if (local.get $h32)
            (then
              (local.set $r0 (v128.load offset=0 (local.get $qrow)))
              (local.set $r1 (v128.load offset=16 (local.get $qrow)))
              (local.set $r2 (v128.load offset=32 (local.get $qrow)))
              (local.set $r3 (v128.load offset=48 (local.get $qrow)))
              (local.set $r4 (v128.load offset=64 (local.get $qrow)))
              (local.set $r5 (v128.load offset=80 (local.get $qrow)))
              (local.set $r6 (v128.load offset=96 (local.get $qrow)))
              (local.set $r7 (v128.load offset=112 (local.get $qrow)))))
          (local.set $max (f32.const -inf))
          (local.set $s (i32.const 0))
          ;; [lo, hi): the keys from the first visible one to the last; exp and Σ p·v skip the rest
          (local.set $lo (local.get $S))
          (local.set $hi (i32.const 0))
          ;; hd = 32: four keys at a time, their four dot products reduced together by two rounds of
          ;; shuffles, in the one-key order ((l0 + l1) + (l2 + l3)); a group with no visible key is skipped
          (if (local.get $h32)
            (then
              (local.set $maxv (v128.const f32x4 -inf -inf -inf -inf))
              (block $dg (loop $lg
                (br_if $dg (i32.ge_u (local.get $s) (local.get $S4)))
                (local.set $bv4 (v128.load (i32.add (local.get $brow) (i32.shl (local.get $s) (i32.const 2)))))
                (local.set $m4 (f32x4.gt (local.get $bv4) (v128.const f32x4 -5e8 -5e8 -5e8 -5e8)))
                (local.set $e (local.get $bv4))
                (if (v128.any_true (local.get $m4))
                  (then
                    (if (i32.gt_u (local.get $lo) (local.get $s)) (then (local.set $lo (local.get $s))))
                    (local.set $hi (i32.add (local.get $s) (i32.const 4)))
                    (local.set $kp (i32.add (local.get $k) (i32.shl (i32.add
                      (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $ks))
                      (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                    (local.set $kq (local.get $kp))
                    (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $kq))))
                    (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $kq))))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $kq)) (local.get $acc2)))
                    (local.set $d0 (f32x4.add (local.get $acc) (local.get $acc2)))
                    (local.set $kq (i32.add (local.get $kp) (i32.mul (local.get $ks4) (i32.const 1))))
                    (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $kq))))
                    (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $kq))))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $kq)) (local.get $acc2)))
                    (local.set $d1 (f32x4.add (local.get $acc) (local.get $acc2)))
                    (local.set $kq (i32.add (local.get $kp) (i32.mul (local.get $ks4) (i32.const 2))))
                    (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $kq))))
                    (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $kq))))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $kq)) (local.get $acc2)))
                    (local.set $d2 (f32x4.add (local.get $acc) (local.get $acc2)))
                    (local.set $kq (i32.add (local.get $kp) (i32.mul (local.get $ks4) (i32.const 3))))
                    (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $kq))))
                    (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $kq))))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $kq)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $kq)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $kq)) (local.get $acc2)))
                    (local.set $d3 (f32x4.add (local.get $acc) (local.get $acc2)))
                    (local.set $d0 (f32x4.add (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d0) (local.get $d1)) (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d0) (local.get $d1))))
                    (local.set $d2 (f32x4.add (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d2) (local.get $d3)) (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d2) (local.get $d3))))
                    (local.set $d0 (f32x4.add (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d0) (local.get $d2)) (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d0) (local.get $d2))))
                    (local.set $e (v128.bitselect
                      (f32x4.add (local.get $bv4) (f32x4.mul (f32x4.splat (local.get $scale)) (local.get $d0)))
                      (local.get $bv4) (local.get $m4)))))
                (v128.store (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))) (local.get $e))
                (local.set $maxv (f32x4.max (local.get $maxv) (local.get $e)))
                (local.set $s (i32.add (local.get $s) (i32.const 4)))
                (br $lg)))
              (local.set $max (f32.max
                (f32.max (f32x4.extract_lane 0 (local.get $maxv)) (f32x4.extract_lane 1 (local.get $maxv)))
                (f32.max (f32x4.extract_lane 2 (local.get $maxv)) (f32x4.extract_lane 3 (local.get $maxv)))))))
          ;; one key at a time: the keys left over (all of them when hd ≠ 32)
          (if (i32.lt_u (local.get $s) (local.get $S)) (then
          (loop $ls
            (local.set $bv (f32.load (i32.add (local.get $brow) (i32.shl (local.get $s) (i32.const 2)))))
            (if (f32.gt (local.get $bv) (f32.const -5e8))
              (then
                (if (i32.gt_u (local.get $lo) (local.get $s)) (then (local.set $lo (local.get $s))))
                (local.set $hi (i32.add (local.get $s) (i32.const 1)))
                (local.set $kp (i32.add (local.get $k) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $ks))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (if (local.get $h32)
                  (then
                    (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $kp))))
                    (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $kp))))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $kp)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $kp)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $kp)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $kp)) (local.get $acc2)))
                    (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $kp)) (local.get $acc)))
                    (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $kp)) (local.get $acc2)))
                    (local.set $acc (f32x4.add (local.get $acc) (local.get $acc2)))
                    (local.set $sc (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
                      (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc))))))
                  (else (local.set $sc (call $dot (local.get $qrow) (local.get $kp) (local.get $hd)))))
                (local.set $sc (f32.add (local.get $bv) (f32.mul (local.get $scale) (local.get $sc)))))
              (else (local.set $sc (local.get $bv))))
            (f32.store (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))) (local.get $sc))
            (local.set $max (f32.max (local.get $max) (local.get $sc)))
            (br_if $ls (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))))
          ;; exp(score - max) and the sum, over [lo, hi) in groups of 4 from a multiple of 4 (each key keeps
          ;; its lane); masked keys outside get their exact exp, 0, without computing it. A row with no
          ;; visible key (never in the model) keeps the plain formulation's uniform weights.
          (if (i32.ge_u (local.get $lo) (local.get $hi)) (then (local.set $lo (i32.const 0)) (local.set $hi (local.get $S))))
          (local.set $lo (i32.and (local.get $lo) (i32.const -4)))
          (memory.fill (local.get $prow) (i32.const 0) (i32.shl (local.get $lo) (i32.const 2)))
          (local.set $maxv (f32x4.splat (local.get $max)))
          (local.set $sumv (v128.const i32x4 0 0 0 0))
          (local.set $s (local.get $lo))
          (block $dv
            (loop $lv
              (br_if $dv (i32.ge_u (local.get $s) (local.get $S4)))
              (if (i32.ge_u (local.get $s) (local.get $hi))
                (then
                  (memory.fill (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))) (i32.const 0) (i32.shl (i32.sub (local.get $S4) (local.get $s)) (i32.const 2)))
                  (local.set $s (local.get $S4))
                  (br $dv)))
              (local.set $addr (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))))
              (local.set $e (call $exp4 (f32x4.sub (v128.load (local.get $addr)) (local.get $maxv))))
              (v128.store (local.get $addr) (local.get $e))
              (local.set $sumv (f32x4.add (local.get $sumv) (local.get $e)))
              (local.set $s (i32.add (local.get $s) (i32.const 4)))
              (br $lv)))
          (local.set $sum (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $sumv)) (f32x4.extract_lane 1 (local.get $sumv)))
            (f32.add (f32x4.extract_lane 2 (local.get $sumv)) (f32x4.extract_lane 3 (local.get $sumv)))))
          (block $dtail
            (loop $ltail
              (br_if $dtail (i32.ge_u (local.get $s) (local.get $S)))
              (local.set $addr (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))))
              (local.set $pv (f32x4.extract_lane 0 (call $exp4 (f32x4.splat (f32.sub (f32.load (local.get $addr)) (local.get $max))))))
              (f32.store (local.get $addr) (local.get $pv))
              (local.set $sum (f32.add (local.get $sum) (local.get $pv)))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br $ltail)))
          (local.set $inv (f32.div (f32.const 1) (local.get $sum)))
          ;; normalise and y = Σ p·v
          (if (i32.eqz (local.get $h32)) (then (memory.fill (local.get $yrow) (i32.const 0) (i32.shl (local.get $hd) (i32.const 2))))) ;; axpy accumulates into it
          (local.set $r0 (v128.const i32x4 0 0 0 0))
          (local.set $r1 (v128.const i32x4 0 0 0 0))
          (local.set $r2 (v128.const i32x4 0 0 0 0))
          (local.set $r3 (v128.const i32x4 0 0 0 0))
          (local.set $r4 (v128.const i32x4 0 0 0 0))
          (local.set $r5 (v128.const i32x4 0 0 0 0))
          (local.set $r6 (v128.const i32x4 0 0 0 0))
          (local.set $r7 (v128.const i32x4 0 0 0 0))
          (local.set $s (local.get $lo))
          (loop $ly
            (local.set $addr (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2))))
            (local.set $pv (f32.mul (f32.load (local.get $addr)) (local.get $inv)))
            (f32.store (local.get $addr) (local.get $pv))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $kp (i32.add (local.get $v) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $vs))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (if (local.get $h32)
                  (then
                    (local.set $pvv (f32x4.splat (local.get $pv)))
                    (local.set $r0 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=0 (local.get $kp)) (local.get $r0)))
                    (local.set $r1 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=16 (local.get $kp)) (local.get $r1)))
                    (local.set $r2 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=32 (local.get $kp)) (local.get $r2)))
                    (local.set $r3 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=48 (local.get $kp)) (local.get $r3)))
                    (local.set $r4 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=64 (local.get $kp)) (local.get $r4)))
                    (local.set $r5 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=80 (local.get $kp)) (local.get $r5)))
                    (local.set $r6 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=96 (local.get $kp)) (local.get $r6)))
                    (local.set $r7 (f32x4.relaxed_madd (local.get $pvv) (v128.load offset=112 (local.get $kp)) (local.get $r7))))
                  (else (call $axpy (local.get $yrow) (local.get $kp) (local.get $pv) (local.get $hd))))))
            (br_if $ly (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $hi))))
          (if (local.get $h32)
            (then
              (v128.store offset=0 (local.get $yrow) (local.get $r0))
              (v128.store offset=16 (local.get $yrow) (local.get $r1))
              (v128.store offset=32 (local.get $yrow) (local.get $r2))
              (v128.store offset=48 (local.get $yrow) (local.get $r3))
              (v128.store offset=64 (local.get $yrow) (local.get $r4))
              (v128.store offset=80 (local.get $yrow) (local.get $r5))
              (v128.store offset=96 (local.get $yrow) (local.get $r6))
              (v128.store offset=112 (local.get $yrow) (local.get $r7))))
          (br_if $lt (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (local.get $T))))
        (br_if $lh (i32.lt_u (local.tee $h (i32.add (local.get $h) (i32.const 1))) (local.get $H))))
      (br_if $lb (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $B)))))

  ;; Backward of attn_fwd given p and dy (b, t, h, d): dq, dk, dv (row stride gs) are accumulated
  ;; into, so the caller zeroes them; tmp holds S + 2·S·T floats.
  ;;   dv[s] += p[t,s]·dy[t];  ds = p ∘ (dy·vᵀ − Σ_s p·(dy·vᵀ));  dq[t] += scale·Σ_s ds·k[s];  dk[s] += scale·ds·q[t]
  ;; hd = 32 (every preset's head size) goes to attn_bwd32; this is the general form, a pair (t, s) at a time.
  (func (export "attn_bwd")
    (param $q i32) (param $qs i32) (param $k i32) (param $ks i32) (param $v i32) (param $vs i32)
    (param $p i32) (param $dy i32) (param $dq i32) (param $dk i32) (param $dv i32) (param $gs i32) (param $tmp i32)
    (param $B i32) (param $T i32) (param $S i32) (param $H i32) (param $hd i32) (param $scale f32)
    (local $b i32) (local $h i32) (local $t i32) (local $s i32) (local $C i32)
    (local $qrow i32) (local $prow i32) (local $dyrow i32) (local $dqrow i32) (local $krow i32) (local $ap i32)
    (local $pv f32) (local $dp f32) (local $c f32) (local $ds f32)
    (if (i32.eq (local.get $hd) (i32.const 32))
      (then
        (call $attn_bwd32 (local.get $q) (local.get $qs) (local.get $k) (local.get $ks) (local.get $v) (local.get $vs)
          (local.get $p) (local.get $dy) (local.get $dq) (local.get $dk) (local.get $dv) (local.get $gs) (local.get $tmp)
          (local.get $B) (local.get $T) (local.get $S) (local.get $H) (local.get $scale))
        (return)))
    (local.set $C (i32.mul (local.get $H) (local.get $hd)))
    (loop $lb
      (local.set $h (i32.const 0))
      (loop $lh
        (local.set $t (i32.const 0))
        (loop $lt
          (local.set $qrow (i32.add (local.get $q) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $qs))
            (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
          (local.set $dqrow (i32.add (local.get $dq) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $gs))
            (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
          (local.set $dyrow (i32.add (local.get $dy) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $C))
            (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
          (local.set $prow (i32.add (local.get $p) (i32.shl (i32.mul
            (i32.add (i32.mul (i32.add (i32.mul (local.get $b) (local.get $H)) (local.get $h)) (local.get $T)) (local.get $t))
            (local.get $S)) (i32.const 2))))
          ;; dp = dy·vᵀ where p ≠ 0, c = Σ p·dp, dv += p·dy
          (local.set $c (f32.const 0))
          (local.set $s (i32.const 0))
          (loop $l1
            (local.set $pv (f32.load (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2)))))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $ap (i32.add (local.get $v) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $vs))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (local.set $dp (call $dot (local.get $dyrow) (local.get $ap) (local.get $hd)))
                (f32.store (i32.add (local.get $tmp) (i32.shl (local.get $s) (i32.const 2))) (local.get $dp))
                (local.set $c (f32.add (local.get $c) (f32.mul (local.get $pv) (local.get $dp))))
                (local.set $ap (i32.add (local.get $dv) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $gs))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (call $axpy (local.get $ap) (local.get $dyrow) (local.get $pv) (local.get $hd))))
            (br_if $l1 (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))
          ;; ds, then dq and dk
          (local.set $s (i32.const 0))
          (loop $l2
            (local.set $pv (f32.load (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2)))))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $ds (f32.mul (local.get $scale) (f32.mul (local.get $pv)
                  (f32.sub (f32.load (i32.add (local.get $tmp) (i32.shl (local.get $s) (i32.const 2)))) (local.get $c)))))
                (local.set $krow (i32.add (local.get $k) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $ks))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (local.set $ap (i32.add (local.get $dk) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $gs))
                  (i32.mul (local.get $h) (local.get $hd))) (i32.const 2))))
                (call $axpy (local.get $dqrow) (local.get $krow) (local.get $ds) (local.get $hd))
                (call $axpy (local.get $ap) (local.get $qrow) (local.get $ds) (local.get $hd))))
            (br_if $l2 (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))
          (br_if $lt (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (local.get $T))))
        (br_if $lh (i32.lt_u (local.tee $h (i32.add (local.get $h) (i32.const 1))) (local.get $H))))
      (br_if $lb (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $B)))))

  ;; attn_bwd at hd = 32, per (batch, head) in two passes, so that every gradient row is summed in
  ;; registers and stored once. Done a pair (t, s) at a time, dk[s] and dv[s] were loaded and stored
  ;; at every pair: 48 loads and 16 stores of 16 bytes a pair, against 32 loads here.
  ;;   by query t: dp[s] = dy[t]·v[s]; c = Σ_s p·dp; ds[t,s] = scale·p·(dp − c); dq[t] += Σ_s ds[t,s]·k[s]
  ;;   by key s:   dk[s] += Σ_t ds[t,s]·q[t];  dv[s] += Σ_t p[t,s]·dy[t]
  ;; The first pass writes ds and p transposed (tmp: dp's S floats, then dsᵀ and pᵀ, S × T each), so
  ;; the second reads them along rows: read down the columns of p (a cache line a float), the second
  ;; pass took longer than the first.
  ;; Each sum takes the same multiply-adds in the same order as the pair-at-a-time form (s ascending
  ;; for dq, t ascending for dk and dv, from zero), so the gradients are the same bits.
  (func $attn_bwd32
    (param $q i32) (param $qs i32) (param $k i32) (param $ks i32) (param $v i32) (param $vs i32)
    (param $p i32) (param $dy i32) (param $dq i32) (param $dk i32) (param $dv i32) (param $gs i32) (param $tmp i32)
    (param $B i32) (param $T i32) (param $S i32) (param $H i32) (param $scale f32)
    (local $b i32) (local $h i32) (local $t i32) (local $s i32) (local $C i32) (local $hoff i32)
    (local $ph i32) (local $prow i32) (local $dyrow i32) (local $dqrow i32) (local $ap i32)
    (local $dsT i32) (local $pT i32) (local $tcol i32) (local $pcol i32) (local $qstep i32) (local $dystep i32) (local $sstep i32) (local $tstep i32)
    (local $pv f32) (local $dp f32) (local $c f32) (local $ds f32)
    (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128) (local $r4 v128) (local $r5 v128) (local $r6 v128) (local $r7 v128)
    (local $acc v128) (local $acc2 v128) (local $cv v128)
    (local.set $C (i32.shl (local.get $H) (i32.const 5)))
    (local.set $qstep (i32.shl (local.get $qs) (i32.const 2)))
    (local.set $dystep (i32.shl (local.get $C) (i32.const 2)))
    (local.set $sstep (i32.shl (local.get $S) (i32.const 2)))
    (local.set $tstep (i32.shl (local.get $T) (i32.const 2)))
    (local.set $dsT (i32.add (local.get $tmp) (local.get $sstep)))
    (local.set $pT (i32.add (local.get $dsT) (i32.mul (local.get $S) (local.get $tstep))))
    (loop $lb
      (local.set $h (i32.const 0))
      (loop $lh
        (local.set $hoff (i32.shl (local.get $h) (i32.const 5)))
        ;; p[b, h] (T × S)
        (local.set $ph (i32.add (local.get $p) (i32.shl (i32.mul
          (i32.mul (i32.add (i32.mul (local.get $b) (local.get $H)) (local.get $h)) (local.get $T))
          (local.get $S)) (i32.const 2))))
        ;; by query t
        (local.set $t (i32.const 0))
        (loop $lt
          (local.set $prow (i32.add (local.get $ph) (i32.mul (local.get $t) (local.get $sstep))))
          (local.set $tcol (i32.add (local.get $dsT) (i32.shl (local.get $t) (i32.const 2))))
          (local.set $pcol (i32.add (local.get $pT) (i32.shl (local.get $t) (i32.const 2))))
          (local.set $dqrow (i32.add (local.get $dq) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $gs))
            (local.get $hoff)) (i32.const 2))))
          (local.set $dyrow (i32.add (local.get $dy) (i32.shl (i32.add
            (i32.mul (i32.add (i32.mul (local.get $b) (local.get $T)) (local.get $t)) (local.get $C))
            (local.get $hoff)) (i32.const 2))))
          ;; dp = dy·vᵀ where p ≠ 0 (kept in tmp), c = Σ p·dp; dy[t] held in r0..r7
          (local.set $r0 (v128.load offset=0 (local.get $dyrow)))
          (local.set $r1 (v128.load offset=16 (local.get $dyrow)))
          (local.set $r2 (v128.load offset=32 (local.get $dyrow)))
          (local.set $r3 (v128.load offset=48 (local.get $dyrow)))
          (local.set $r4 (v128.load offset=64 (local.get $dyrow)))
          (local.set $r5 (v128.load offset=80 (local.get $dyrow)))
          (local.set $r6 (v128.load offset=96 (local.get $dyrow)))
          (local.set $r7 (v128.load offset=112 (local.get $dyrow)))
          (local.set $c (f32.const 0))
          (local.set $s (i32.const 0))
          (loop $l1
            (local.set $pv (f32.load (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2)))))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $ap (i32.add (local.get $v) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $vs))
                  (local.get $hoff)) (i32.const 2))))
                (local.set $acc (f32x4.mul (local.get $r0) (v128.load (local.get $ap))))
                (local.set $acc2 (f32x4.mul (local.get $r1) (v128.load offset=16 (local.get $ap))))
                (local.set $acc (f32x4.relaxed_madd (local.get $r2) (v128.load offset=32 (local.get $ap)) (local.get $acc)))
                (local.set $acc2 (f32x4.relaxed_madd (local.get $r3) (v128.load offset=48 (local.get $ap)) (local.get $acc2)))
                (local.set $acc (f32x4.relaxed_madd (local.get $r4) (v128.load offset=64 (local.get $ap)) (local.get $acc)))
                (local.set $acc2 (f32x4.relaxed_madd (local.get $r5) (v128.load offset=80 (local.get $ap)) (local.get $acc2)))
                (local.set $acc (f32x4.relaxed_madd (local.get $r6) (v128.load offset=96 (local.get $ap)) (local.get $acc)))
                (local.set $acc2 (f32x4.relaxed_madd (local.get $r7) (v128.load offset=112 (local.get $ap)) (local.get $acc2)))
                (local.set $acc (f32x4.add (local.get $acc) (local.get $acc2)))
                (local.set $dp (f32.add
                  (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
                  (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
                (f32.store (i32.add (local.get $tmp) (i32.shl (local.get $s) (i32.const 2))) (local.get $dp))
                (local.set $c (f32.add (local.get $c) (f32.mul (local.get $pv) (local.get $dp))))))
            (br_if $l1 (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))
          ;; ds and p into column t of dsᵀ and pᵀ, and dq[t] summed in r0..r7
          (local.set $r0 (v128.const i32x4 0 0 0 0))
          (local.set $r1 (v128.const i32x4 0 0 0 0))
          (local.set $r2 (v128.const i32x4 0 0 0 0))
          (local.set $r3 (v128.const i32x4 0 0 0 0))
          (local.set $r4 (v128.const i32x4 0 0 0 0))
          (local.set $r5 (v128.const i32x4 0 0 0 0))
          (local.set $r6 (v128.const i32x4 0 0 0 0))
          (local.set $r7 (v128.const i32x4 0 0 0 0))
          (local.set $s (i32.const 0))
          (loop $l2
            (local.set $pv (f32.load (i32.add (local.get $prow) (i32.shl (local.get $s) (i32.const 2)))))
            (f32.store (i32.add (local.get $pcol) (i32.mul (local.get $s) (local.get $tstep))) (local.get $pv))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $ds (f32.mul (local.get $scale) (f32.mul (local.get $pv)
                  (f32.sub (f32.load (i32.add (local.get $tmp) (i32.shl (local.get $s) (i32.const 2)))) (local.get $c)))))
                (f32.store (i32.add (local.get $tcol) (i32.mul (local.get $s) (local.get $tstep))) (local.get $ds))
                (local.set $ap (i32.add (local.get $k) (i32.shl (i32.add
                  (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $ks))
                  (local.get $hoff)) (i32.const 2))))
                (local.set $cv (f32x4.splat (local.get $ds)))
                (local.set $r0 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=0 (local.get $ap)) (local.get $r0)))
                (local.set $r1 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=16 (local.get $ap)) (local.get $r1)))
                (local.set $r2 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=32 (local.get $ap)) (local.get $r2)))
                (local.set $r3 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=48 (local.get $ap)) (local.get $r3)))
                (local.set $r4 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=64 (local.get $ap)) (local.get $r4)))
                (local.set $r5 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=80 (local.get $ap)) (local.get $r5)))
                (local.set $r6 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=96 (local.get $ap)) (local.get $r6)))
                (local.set $r7 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=112 (local.get $ap)) (local.get $r7)))))
            (br_if $l2 (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))
          (call $add8 (local.get $dqrow) (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3) (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7))
          (br_if $lt (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (local.get $T))))
        ;; by key s: along row s of pᵀ and dsᵀ
        (local.set $s (i32.const 0))
        (loop $ls
          (local.set $pcol (i32.add (local.get $pT) (i32.mul (local.get $s) (local.get $tstep))))
          (local.set $tcol (i32.add (local.get $dsT) (i32.mul (local.get $s) (local.get $tstep))))
          ;; dk[s] = Σ_t ds[t,s]·q[t]
          (local.set $r0 (v128.const i32x4 0 0 0 0))
          (local.set $r1 (v128.const i32x4 0 0 0 0))
          (local.set $r2 (v128.const i32x4 0 0 0 0))
          (local.set $r3 (v128.const i32x4 0 0 0 0))
          (local.set $r4 (v128.const i32x4 0 0 0 0))
          (local.set $r5 (v128.const i32x4 0 0 0 0))
          (local.set $r6 (v128.const i32x4 0 0 0 0))
          (local.set $r7 (v128.const i32x4 0 0 0 0))
          (local.set $ap (i32.add (local.get $q) (i32.shl (i32.add
            (i32.mul (i32.mul (local.get $b) (local.get $T)) (local.get $qs)) (local.get $hoff)) (i32.const 2))))
          (local.set $t (i32.const 0))
          (loop $lk
            (if (f32.ne (f32.load (i32.add (local.get $pcol) (i32.shl (local.get $t) (i32.const 2)))) (f32.const 0))
              (then
                (local.set $cv (v128.load32_splat (i32.add (local.get $tcol) (i32.shl (local.get $t) (i32.const 2)))))
                (local.set $r0 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=0 (local.get $ap)) (local.get $r0)))
                (local.set $r1 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=16 (local.get $ap)) (local.get $r1)))
                (local.set $r2 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=32 (local.get $ap)) (local.get $r2)))
                (local.set $r3 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=48 (local.get $ap)) (local.get $r3)))
                (local.set $r4 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=64 (local.get $ap)) (local.get $r4)))
                (local.set $r5 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=80 (local.get $ap)) (local.get $r5)))
                (local.set $r6 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=96 (local.get $ap)) (local.get $r6)))
                (local.set $r7 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=112 (local.get $ap)) (local.get $r7)))))
            (local.set $ap (i32.add (local.get $ap) (local.get $qstep)))
            (br_if $lk (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (local.get $T))))
          (call $add8 (i32.add (local.get $dk) (i32.shl (i32.add
              (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $gs)) (local.get $hoff)) (i32.const 2)))
            (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3) (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7))
          ;; dv[s] = Σ_t p[t,s]·dy[t]
          (local.set $r0 (v128.const i32x4 0 0 0 0))
          (local.set $r1 (v128.const i32x4 0 0 0 0))
          (local.set $r2 (v128.const i32x4 0 0 0 0))
          (local.set $r3 (v128.const i32x4 0 0 0 0))
          (local.set $r4 (v128.const i32x4 0 0 0 0))
          (local.set $r5 (v128.const i32x4 0 0 0 0))
          (local.set $r6 (v128.const i32x4 0 0 0 0))
          (local.set $r7 (v128.const i32x4 0 0 0 0))
          (local.set $ap (i32.add (local.get $dy) (i32.shl (i32.add
            (i32.mul (i32.mul (local.get $b) (local.get $T)) (local.get $C)) (local.get $hoff)) (i32.const 2))))
          (local.set $t (i32.const 0))
          (loop $lv
            (local.set $pv (f32.load (i32.add (local.get $pcol) (i32.shl (local.get $t) (i32.const 2)))))
            (if (f32.ne (local.get $pv) (f32.const 0))
              (then
                (local.set $cv (f32x4.splat (local.get $pv)))
                (local.set $r0 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=0 (local.get $ap)) (local.get $r0)))
                (local.set $r1 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=16 (local.get $ap)) (local.get $r1)))
                (local.set $r2 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=32 (local.get $ap)) (local.get $r2)))
                (local.set $r3 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=48 (local.get $ap)) (local.get $r3)))
                (local.set $r4 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=64 (local.get $ap)) (local.get $r4)))
                (local.set $r5 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=80 (local.get $ap)) (local.get $r5)))
                (local.set $r6 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=96 (local.get $ap)) (local.get $r6)))
                (local.set $r7 (f32x4.relaxed_madd (local.get $cv) (v128.load offset=112 (local.get $ap)) (local.get $r7)))))
            (local.set $ap (i32.add (local.get $ap) (local.get $dystep)))
            (br_if $lv (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (local.get $T))))
          (call $add8 (i32.add (local.get $dv) (i32.shl (i32.add
              (i32.mul (i32.add (i32.mul (local.get $b) (local.get $S)) (local.get $s)) (local.get $gs)) (local.get $hoff)) (i32.const 2)))
            (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3) (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7))
          (br_if $ls (i32.lt_u (local.tee $s (i32.add (local.get $s) (i32.const 1))) (local.get $S))))
        (br_if $lh (i32.lt_u (local.tee $h (i32.add (local.get $h) (i32.const 1))) (local.get $H))))
      (br_if $lb (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $B)))))

  ;; 32 floats at ptr += r0..r7
  (func $add8 (param $ptr i32) (param $r0 v128) (param $r1 v128) (param $r2 v128) (param $r3 v128) (param $r4 v128) (param $r5 v128) (param $r6 v128) (param $r7 v128)
    (v128.store offset=0 (local.get $ptr) (f32x4.add (v128.load offset=0 (local.get $ptr)) (local.get $r0)))
    (v128.store offset=16 (local.get $ptr) (f32x4.add (v128.load offset=16 (local.get $ptr)) (local.get $r1)))
    (v128.store offset=32 (local.get $ptr) (f32x4.add (v128.load offset=32 (local.get $ptr)) (local.get $r2)))
    (v128.store offset=48 (local.get $ptr) (f32x4.add (v128.load offset=48 (local.get $ptr)) (local.get $r3)))
    (v128.store offset=64 (local.get $ptr) (f32x4.add (v128.load offset=64 (local.get $ptr)) (local.get $r4)))
    (v128.store offset=80 (local.get $ptr) (f32x4.add (v128.load offset=80 (local.get $ptr)) (local.get $r5)))
    (v128.store offset=96 (local.get $ptr) (f32x4.add (v128.load offset=96 (local.get $ptr)) (local.get $r6)))
    (v128.store offset=112 (local.get $ptr) (f32x4.add (v128.load offset=112 (local.get $ptr)) (local.get $r7))))

  ;; ---- the policy's scores (logprobs.ts): per row of logits z (N, V), the log-softmax, the target's
  ;; log-probability and the entropy in one kernel, where tfjs's LogSoftmax, a one-hot pick and the
  ;; entropy's ops took 14 kernels forward and backward.

  ;; ln x for a positive, normal x (Cephes' logf: x = 2^e·m, m in [√½, √2), a degree-8 polynomial
  ;; in m − 1; about 1 ulp). Here x is a softmax's denominator, in [1, V].
  (func $logf (param $x f32) (result f32)
    (local $e f32) (local $m f32) (local $z f32) (local $y f32) (local $bits i32)
    (local.set $bits (i32.reinterpret_f32 (local.get $x)))
    (local.set $e (f32.convert_i32_s (i32.sub (i32.shr_u (local.get $bits) (i32.const 23)) (i32.const 126))))
    ;; m in [0.5, 1)
    (local.set $m (f32.reinterpret_i32 (i32.or (i32.and (local.get $bits) (i32.const 0x007fffff)) (i32.const 0x3f000000))))
    (if (f32.lt (local.get $m) (f32.const 0.707106781186547524))
      (then
        (local.set $e (f32.sub (local.get $e) (f32.const 1)))
        (local.set $m (f32.sub (f32.add (local.get $m) (local.get $m)) (f32.const 1))))
      (else (local.set $m (f32.sub (local.get $m) (f32.const 1)))))
    (local.set $z (f32.mul (local.get $m) (local.get $m)))
    (local.set $y (f32.const 7.0376836292e-2))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const -1.1514610310e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const 1.1676998740e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const -1.2420140846e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const 1.4249322787e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const -1.6668057665e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const 2.0000714765e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const -2.4999993993e-1)))
    (local.set $y (f32.add (f32.mul (local.get $y) (local.get $m)) (f32.const 3.3333331174e-1)))
    (local.set $y (f32.mul (f32.mul (local.get $y) (local.get $m)) (local.get $z)))
    (local.set $y (f32.add (local.get $y) (f32.mul (local.get $e) (f32.const -2.12194440e-4))))
    (local.set $y (f32.sub (local.get $y) (f32.mul (local.get $z) (f32.const 0.5))))
    (f32.add (f32.add (local.get $m) (local.get $y)) (f32.mul (local.get $e) (f32.const 0.693359375))))

  ;; Row n: m = max z, s = Σ exp(z − m), ℓ = m + ln s; p = exp(z − m)/s (N, V), ml[n] = ℓ,
  ;; lp[n] = z[target] − ℓ (0 for a target outside [0, V), as its one-hot row picks nothing), and
  ;; H[n] = −Σ p·(z − ℓ), the entropy.
  (func (export "log_softmax_pick") (param $z i32) (param $tg i32) (param $p i32) (param $ml i32) (param $lp i32) (param $H i32)
    (param $N i32) (param $V i32)
    (local $n i32) (local $j i32) (local $V4 i32) (local $vs i32) (local $m f32) (local $s f32) (local $l f32) (local $h f32) (local $t i32)
    (local $mv v128) (local $sv v128) (local $lv v128) (local $hv v128) (local $e v128) (local $inv v128)
    (local.set $V4 (i32.and (local.get $V) (i32.const -4)))
    (local.set $vs (i32.shl (local.get $V) (i32.const 2)))
    (block $dn (loop $ln
      (br_if $dn (i32.ge_u (local.get $n) (local.get $N)))
      ;; m
      (local.set $mv (v128.const f32x4 -inf -inf -inf -inf))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $V4)))
        (local.set $mv (f32x4.max (local.get $mv) (v128.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (local.set $m (f32.max
        (f32.max (f32x4.extract_lane 0 (local.get $mv)) (f32x4.extract_lane 1 (local.get $mv)))
        (f32.max (f32x4.extract_lane 2 (local.get $mv)) (f32x4.extract_lane 3 (local.get $mv)))))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $V)))
        (local.set $m (f32.max (local.get $m) (f32.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2)))
      ;; exp(z − m) into p, and s
      (local.set $mv (f32x4.splat (local.get $m)))
      (local.set $sv (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d3 (loop $l3
        (br_if $d3 (i32.ge_u (local.get $j) (local.get $V4)))
        (local.set $e (call $exp4 (f32x4.sub (v128.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mv))))
        (v128.store (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2))) (local.get $e))
        (local.set $sv (f32x4.add (local.get $sv) (local.get $e)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l3)))
      (local.set $s (f32.add
        (f32.add (f32x4.extract_lane 0 (local.get $sv)) (f32x4.extract_lane 1 (local.get $sv)))
        (f32.add (f32x4.extract_lane 2 (local.get $sv)) (f32x4.extract_lane 3 (local.get $sv)))))
      (block $d4 (loop $l4
        (br_if $d4 (i32.ge_u (local.get $j) (local.get $V)))
        (local.set $e (call $exp4 (f32x4.splat (f32.sub (f32.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2)))) (local.get $m)))))
        (f32.store (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2))) (f32x4.extract_lane 0 (local.get $e)))
        (local.set $s (f32.add (local.get $s) (f32x4.extract_lane 0 (local.get $e))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l4)))
      (local.set $l (f32.add (local.get $m) (call $logf (local.get $s))))
      (f32.store (local.get $ml) (local.get $l))
      ;; p = e/s, H = −Σ p·(z − ℓ)
      (local.set $inv (f32x4.splat (f32.div (f32.const 1) (local.get $s))))
      (local.set $lv (f32x4.splat (local.get $l)))
      (local.set $hv (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d5 (loop $l5
        (br_if $d5 (i32.ge_u (local.get $j) (local.get $V4)))
        (local.set $e (f32x4.mul (v128.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))) (local.get $inv)))
        (v128.store (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2))) (local.get $e))
        (local.set $hv (f32x4.relaxed_madd (local.get $e)
          (f32x4.sub (v128.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2)))) (local.get $lv)) (local.get $hv)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l5)))
      (local.set $h (f32.add
        (f32.add (f32x4.extract_lane 0 (local.get $hv)) (f32x4.extract_lane 1 (local.get $hv)))
        (f32.add (f32x4.extract_lane 2 (local.get $hv)) (f32x4.extract_lane 3 (local.get $hv)))))
      (block $d6 (loop $l6
        (br_if $d6 (i32.ge_u (local.get $j) (local.get $V)))
        (local.set $s (f32.mul (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))) (f32x4.extract_lane 0 (local.get $inv))))
        (f32.store (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2))) (local.get $s))
        (local.set $h (f32.add (local.get $h)
          (f32.mul (local.get $s) (f32.sub (f32.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 2)))) (local.get $l)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l6)))
      (f32.store (local.get $H) (f32.neg (local.get $h)))
      (local.set $t (i32.load (local.get $tg)))
      (f32.store (local.get $lp)
        (if (result f32) (i32.lt_u (local.get $t) (local.get $V))
          (then (f32.sub (f32.load (i32.add (local.get $z) (i32.shl (local.get $t) (i32.const 2)))) (local.get $l)))
          (else (f32.const 0))))
      (local.set $z (i32.add (local.get $z) (local.get $vs)))
      (local.set $p (i32.add (local.get $p) (local.get $vs)))
      (local.set $tg (i32.add (local.get $tg) (i32.const 4)))
      (local.set $ml (i32.add (local.get $ml) (i32.const 4)))
      (local.set $lp (i32.add (local.get $lp) (i32.const 4)))
      (local.set $H (i32.add (local.get $H) (i32.const 4)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $ln))))

  ;; log_softmax_pick's backward, given dlp and dH (N): with L = z − ℓ (the log-softmax),
  ;; dz = −p·(dlp + dH·(L + H)), and dlp more at the target (∂lp/∂z = onehot − p, ∂H/∂z = −p·(L + H));
  ;; dlp counts as 0 where the target is outside [0, V).
  (func (export "log_softmax_pick_grad") (param $z i32) (param $tg i32) (param $p i32) (param $ml i32) (param $H i32)
    (param $dlp i32) (param $dH i32) (param $dz i32) (param $N i32) (param $V i32)
    (local $n i32) (local $j i32) (local $V4 i32) (local $vs i32) (local $g f32) (local $h f32) (local $c f32) (local $t i32) (local $a i32)
    (local $gv v128) (local $hv v128) (local $cv v128)
    (local.set $V4 (i32.and (local.get $V) (i32.const -4)))
    (local.set $vs (i32.shl (local.get $V) (i32.const 2)))
    (block $dn (loop $ln
      (br_if $dn (i32.ge_u (local.get $n) (local.get $N)))
      ;; a target outside [0, V) picked a constant 0: no gradient through lp
      (local.set $t (i32.load (local.get $tg)))
      (local.set $g (select (f32.load (local.get $dlp)) (f32.const 0) (i32.lt_u (local.get $t) (local.get $V))))
      (local.set $h (f32.load (local.get $dH)))
      ;; L + H = z − (ℓ − H)
      (local.set $c (f32.sub (f32.load (local.get $ml)) (f32.load (local.get $H))))
      (local.set $gv (f32x4.splat (local.get $g)))
      (local.set $hv (f32x4.splat (local.get $h)))
      (local.set $cv (f32x4.splat (local.get $c)))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $V4)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (v128.store (i32.add (local.get $dz) (local.get $a))
          (f32x4.neg (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $a)))
            (f32x4.relaxed_madd (local.get $hv) (f32x4.sub (v128.load (i32.add (local.get $z) (local.get $a))) (local.get $cv)) (local.get $gv)))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $V)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (f32.store (i32.add (local.get $dz) (local.get $a))
          (f32.neg (f32.mul (f32.load (i32.add (local.get $p) (local.get $a)))
            (f32.add (f32.mul (local.get $h) (f32.sub (f32.load (i32.add (local.get $z) (local.get $a))) (local.get $c))) (local.get $g)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2)))
      (if (i32.lt_u (local.get $t) (local.get $V))
        (then
          (local.set $a (i32.add (local.get $dz) (i32.shl (local.get $t) (i32.const 2))))
          (f32.store (local.get $a) (f32.add (f32.load (local.get $a)) (local.get $g)))))
      (local.set $z (i32.add (local.get $z) (local.get $vs)))
      (local.set $p (i32.add (local.get $p) (local.get $vs)))
      (local.set $dz (i32.add (local.get $dz) (local.get $vs)))
      (local.set $tg (i32.add (local.get $tg) (i32.const 4)))
      (local.set $ml (i32.add (local.get $ml) (i32.const 4)))
      (local.set $H (i32.add (local.get $H) (i32.const 4)))
      (local.set $dlp (i32.add (local.get $dlp) (i32.const 4)))
      (local.set $dH (i32.add (local.get $dH) (i32.const 4)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $ln))))

  ;; ---- row-wise ops: the token embedding's lookup and its gradient, column sums (bias gradients),
  ;; LayerNorm, GELU

  ;; out (C, R) = xᵀ for x (R, C): 4 × 4 blocks through two rounds of shuffles, the edges past the last
  ;; multiples of 4 one float at a time. tfjs's Transpose moved a float at a time, 5 ns each.
  (func (export "transpose") (param $x i32) (param $out i32) (param $R i32) (param $C i32)
    (local $r i32) (local $c i32) (local $R4 i32) (local $C4 i32) (local $cs i32) (local $rs i32) (local $px i32) (local $po i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $R4 (i32.and (local.get $R) (i32.const -4)))
    (local.set $C4 (i32.and (local.get $C) (i32.const -4)))
    (local.set $cs (i32.shl (local.get $C) (i32.const 2)))
    (local.set $rs (i32.shl (local.get $R) (i32.const 2)))
    (block $dr (loop $lr
      (br_if $dr (i32.ge_u (local.get $r) (local.get $R4)))
      (local.set $c (i32.const 0))
      (block $dc (loop $lc
        (br_if $dc (i32.ge_u (local.get $c) (local.get $C4)))
        (local.set $px (i32.add (local.get $x) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $C)) (local.get $c)) (i32.const 2))))
        (local.set $a0 (v128.load (local.get $px)))
        (local.set $a1 (v128.load (i32.add (local.get $px) (local.get $cs))))
        (local.set $a2 (v128.load (i32.add (local.get $px) (i32.shl (local.get $cs) (i32.const 1)))))
        (local.set $a3 (v128.load (i32.add (local.get $px) (i32.mul (local.get $cs) (i32.const 3)))))
        (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1)))
        (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1)))
        (local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3)))
        (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3)))
        (local.set $po (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $c) (local.get $R)) (local.get $r)) (i32.const 2))))
        (v128.store (local.get $po) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t2)))
        (v128.store (i32.add (local.get $po) (local.get $rs)) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t2)))
        (v128.store (i32.add (local.get $po) (i32.shl (local.get $rs) (i32.const 1))) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $t3)))
        (v128.store (i32.add (local.get $po) (i32.mul (local.get $rs) (i32.const 3))) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $t3)))
        (local.set $c (i32.add (local.get $c) (i32.const 4)))
        (br $lc)))
      (local.set $r (i32.add (local.get $r) (i32.const 4)))
      (br $lr)))
    ;; the columns from C4 on, of every row; then the rows from R4 on, below C4
    (local.set $r (i32.const 0))
    (block $de (loop $le
      (br_if $de (i32.ge_u (local.get $r) (local.get $R)))
      (local.set $c (select (i32.const 0) (local.get $C4) (i32.ge_u (local.get $r) (local.get $R4))))
      (block $dd (loop $ld
        (br_if $dd (i32.ge_u (local.get $c) (local.get $C)))
        (f32.store (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $c) (local.get $R)) (local.get $r)) (i32.const 2)))
          (f32.load (i32.add (local.get $x) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $C)) (local.get $c)) (i32.const 2)))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $ld)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $le))))

  ;; out[n] = table[ids[n]] (rows of C floats), n < N, ids int32; an id outside [0, V) gives a row of
  ;; zeros, as its one-hot row would
  (func (export "gather_rows") (param $ids i32) (param $table i32) (param $out i32) (param $N i32) (param $C i32) (param $V i32)
    (local $n i32) (local $cs i32) (local $id i32)
    (local.set $cs (i32.shl (local.get $C) (i32.const 2)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $n) (local.get $N)))
      (local.set $id (i32.load (local.get $ids)))
      (if (i32.lt_u (local.get $id) (local.get $V))
        (then (memory.copy (local.get $out) (i32.add (local.get $table) (i32.mul (local.get $id) (local.get $cs))) (local.get $cs)))
        (else (memory.fill (local.get $out) (i32.const 0) (local.get $cs))))
      (local.set $out (i32.add (local.get $out) (local.get $cs)))
      (local.set $ids (i32.add (local.get $ids) (i32.const 4)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l))))

  ;; out (V, C) = Σ_n dy[n] added into row ids[n], n ascending from zero: gather_rows' gradient, the
  ;; sums xᵀ·dy takes with x the one-hot rows (each a sum of dy's rows in row order), without the
  ;; multiply-adds by 0. An id outside [0, V) adds nothing.
  (func (export "scatter_add_rows") (param $ids i32) (param $dy i32) (param $out i32) (param $N i32) (param $C i32) (param $V i32)
    (local $n i32) (local $cs i32) (local $id i32) (local $row i32)
    (local.set $cs (i32.shl (local.get $C) (i32.const 2)))
    (memory.fill (local.get $out) (i32.const 0) (i32.mul (local.get $V) (local.get $cs)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $n) (local.get $N)))
      (local.set $id (i32.load (local.get $ids)))
      (if (i32.lt_u (local.get $id) (local.get $V))
        (then
          (local.set $row (i32.add (local.get $out) (i32.mul (local.get $id) (local.get $cs))))
          (call $add (local.get $row) (local.get $row) (local.get $dy) (local.get $C))))
      (local.set $dy (i32.add (local.get $dy) (local.get $cs)))
      (local.set $ids (i32.add (local.get $ids) (i32.const 4)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l))))

  ;; out[j] = Σ_i x[i·M + j]   (x (N, M), out (M))
  (func (export "colsum") (param $x i32) (param $out i32) (param $N i32) (param $M i32)
    (local $i i32)
    (memory.fill (local.get $out) (i32.const 0) (i32.shl (local.get $M) (i32.const 2)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $N)))
        (call $axpy (local.get $out) (local.get $x) (f32.const 1) (local.get $M))
        (local.set $x (i32.add (local.get $x) (i32.shl (local.get $M) (i32.const 2))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))

  ;; Σ x[i], i < n
  (func $sum (param $x i32) (param $n i32) (result f32)
    (local $acc v128) (local $i i32) (local $n4 i32) (local $s f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d4
      (loop $l4
        (br_if $d4 (i32.ge_u (local.get $i) (local.get $n4)))
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $l4)))
    (local.set $s (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
      (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (f32.add (local.get $s) (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))

  ;; y = (x − mean)·rstd·g + b per row of x (N, C), rstd = 1/√(var + eps); keeps mean and rstd (N) for the backward.
  (func (export "ln_fwd") (param $x i32) (param $g i32) (param $b i32) (param $y i32) (param $mean i32) (param $rstd i32)
    (param $N i32) (param $C i32) (param $eps f32)
    (local $r i32) (local $j i32) (local $C4 i32) (local $m f32) (local $var f32) (local $rs f32) (local $d f32)
    (local $mv v128) (local $rv v128) (local $dv v128) (local $acc v128) (local $inv f32)
    (local.set $C4 (i32.and (local.get $C) (i32.const -4)))
    (local.set $inv (f32.div (f32.const 1) (f32.convert_i32_u (local.get $C))))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $r) (local.get $N)))
        (local.set $m (f32.div (call $sum (local.get $x) (local.get $C)) (f32.convert_i32_u (local.get $C))))
        (local.set $mv (f32x4.splat (local.get $m)))
        ;; variance = mean((x − m)²)
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $d1 (loop $l1
          (br_if $d1 (i32.ge_u (local.get $j) (local.get $C4)))
          (local.set $dv (f32x4.sub (v128.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mv)))
          (local.set $acc (f32x4.relaxed_madd (local.get $dv) (local.get $dv) (local.get $acc)))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $l1)))
        (local.set $var (f32.add
          (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
          (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (block $d2 (loop $l2
          (br_if $d2 (i32.ge_u (local.get $j) (local.get $C)))
          (local.set $d (f32.sub (f32.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 2)))) (local.get $m)))
          (local.set $var (f32.add (local.get $var) (f32.mul (local.get $d) (local.get $d))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $l2)))
        (local.set $rs (f32.div (f32.const 1) (f32.sqrt (f32.add (f32.div (local.get $var) (f32.convert_i32_u (local.get $C))) (local.get $eps)))))
        (f32.store (i32.add (local.get $mean) (i32.shl (local.get $r) (i32.const 2))) (local.get $m))
        (f32.store (i32.add (local.get $rstd) (i32.shl (local.get $r) (i32.const 2))) (local.get $rs))
        (local.set $rv (f32x4.splat (local.get $rs)))
        (local.set $j (i32.const 0))
        (block $d3 (loop $l3
          (br_if $d3 (i32.ge_u (local.get $j) (local.get $C4)))
          (v128.store (i32.add (local.get $y) (i32.shl (local.get $j) (i32.const 2)))
            (f32x4.add
              (f32x4.mul
                (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mv)) (local.get $rv))
                (v128.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2)))))
              (v128.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $l3)))
        (block $d4 (loop $l4
          (br_if $d4 (i32.ge_u (local.get $j) (local.get $C)))
          (f32.store (i32.add (local.get $y) (i32.shl (local.get $j) (i32.const 2)))
            (f32.add
              (f32.mul
                (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 2)))) (local.get $m)) (local.get $rs))
                (f32.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2)))))
              (f32.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $l4)))
        (local.set $x (i32.add (local.get $x) (i32.shl (local.get $C) (i32.const 2))))
        (local.set $y (i32.add (local.get $y) (i32.shl (local.get $C) (i32.const 2))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))

  ;; LayerNorm backward: x̂ = (x − mean)·rstd, ĝ = dy·g;
  ;; dx = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)), dg = Σ_rows dy·x̂, db = Σ_rows dy. tmp holds C floats.
  ;; Four columns at a time, each lane the one-column arithmetic; Σĝ and Σĝ·x̂ still add their terms
  ;; one column at a time, in column order (lane by lane), so the sums are the same bits as one column
  ;; at a time. The columns past the last multiple of 4 one at a time.
  (func (export "ln_bwd") (param $x i32) (param $g i32) (param $mean i32) (param $rstd i32) (param $dy i32)
    (param $dx i32) (param $dg i32) (param $db i32) (param $tmp i32) (param $N i32) (param $C i32)
    (local $r i32) (local $j i32) (local $a i32) (local $C4 i32) (local $m f32) (local $rs f32) (local $xh f32) (local $gh f32) (local $dyv f32)
    (local $s1 f32) (local $s2 f32) (local $invC f32)
    (local $mv v128) (local $rsv v128) (local $xhv v128) (local $ghv v128) (local $dyvv v128) (local $pv v128) (local $s1v v128) (local $s2v v128)
    (local.set $invC (f32.div (f32.const 1) (f32.convert_i32_u (local.get $C))))
    (local.set $C4 (i32.and (local.get $C) (i32.const -4)))
    (memory.fill (local.get $dg) (i32.const 0) (i32.shl (local.get $C) (i32.const 2)))
    (memory.fill (local.get $db) (i32.const 0) (i32.shl (local.get $C) (i32.const 2)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $r) (local.get $N)))
        (local.set $m (f32.load (i32.add (local.get $mean) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $rs (f32.load (i32.add (local.get $rstd) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $mv (f32x4.splat (local.get $m)))
        (local.set $rsv (f32x4.splat (local.get $rs)))
        ;; pass 1: x̂ into tmp, Σĝ, Σĝ·x̂, dg, db
        (local.set $s1 (f32.const 0))
        (local.set $s2 (f32.const 0))
        (local.set $j (i32.const 0))
        (block $d4 (loop $l4
          (br_if $d4 (i32.ge_u (local.get $j) (local.get $C4)))
          (local.set $a (i32.shl (local.get $j) (i32.const 2)))
          (local.set $xhv (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $a))) (local.get $mv)) (local.get $rsv)))
          (local.set $dyvv (v128.load (i32.add (local.get $dy) (local.get $a))))
          (local.set $ghv (f32x4.mul (local.get $dyvv) (v128.load (i32.add (local.get $g) (local.get $a)))))
          (v128.store (i32.add (local.get $tmp) (local.get $a)) (local.get $xhv))
          (local.set $pv (f32x4.mul (local.get $ghv) (local.get $xhv)))
          (local.set $s1 (f32.add (f32.add (f32.add (f32.add (local.get $s1)
            (f32x4.extract_lane 0 (local.get $ghv))) (f32x4.extract_lane 1 (local.get $ghv)))
            (f32x4.extract_lane 2 (local.get $ghv))) (f32x4.extract_lane 3 (local.get $ghv))))
          (local.set $s2 (f32.add (f32.add (f32.add (f32.add (local.get $s2)
            (f32x4.extract_lane 0 (local.get $pv))) (f32x4.extract_lane 1 (local.get $pv)))
            (f32x4.extract_lane 2 (local.get $pv))) (f32x4.extract_lane 3 (local.get $pv))))
          (v128.store (i32.add (local.get $dg) (local.get $a))
            (f32x4.add (v128.load (i32.add (local.get $dg) (local.get $a))) (f32x4.mul (local.get $dyvv) (local.get $xhv))))
          (v128.store (i32.add (local.get $db) (local.get $a))
            (f32x4.add (v128.load (i32.add (local.get $db) (local.get $a))) (local.get $dyvv)))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $l4)))
        (block $d1 (loop $l1
          (br_if $d1 (i32.ge_u (local.get $j) (local.get $C)))
          (local.set $a (i32.shl (local.get $j) (i32.const 2)))
          (local.set $xh (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (local.get $a))) (local.get $m)) (local.get $rs)))
          (local.set $dyv (f32.load (i32.add (local.get $dy) (local.get $a))))
          (local.set $gh (f32.mul (local.get $dyv) (f32.load (i32.add (local.get $g) (local.get $a)))))
          (f32.store (i32.add (local.get $tmp) (local.get $a)) (local.get $xh))
          (local.set $s1 (f32.add (local.get $s1) (local.get $gh)))
          (local.set $s2 (f32.add (local.get $s2) (f32.mul (local.get $gh) (local.get $xh))))
          (f32.store (i32.add (local.get $dg) (local.get $a)) (f32.add (f32.load (i32.add (local.get $dg) (local.get $a))) (f32.mul (local.get $dyv) (local.get $xh))))
          (f32.store (i32.add (local.get $db) (local.get $a)) (f32.add (f32.load (i32.add (local.get $db) (local.get $a))) (local.get $dyv)))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $l1)))
        (local.set $s1 (f32.mul (local.get $s1) (local.get $invC)))
        (local.set $s2 (f32.mul (local.get $s2) (local.get $invC)))
        (local.set $s1v (f32x4.splat (local.get $s1)))
        (local.set $s2v (f32x4.splat (local.get $s2)))
        ;; pass 2: dx
        (local.set $j (i32.const 0))
        (block $d24 (loop $l24
          (br_if $d24 (i32.ge_u (local.get $j) (local.get $C4)))
          (local.set $a (i32.shl (local.get $j) (i32.const 2)))
          (v128.store (i32.add (local.get $dx) (local.get $a))
            (f32x4.mul (local.get $rsv)
              (f32x4.sub
                (f32x4.sub (f32x4.mul (v128.load (i32.add (local.get $dy) (local.get $a))) (v128.load (i32.add (local.get $g) (local.get $a)))) (local.get $s1v))
                (f32x4.mul (v128.load (i32.add (local.get $tmp) (local.get $a))) (local.get $s2v)))))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $l24)))
        (block $d2 (loop $l2
          (br_if $d2 (i32.ge_u (local.get $j) (local.get $C)))
          (local.set $a (i32.shl (local.get $j) (i32.const 2)))
          (f32.store (i32.add (local.get $dx) (local.get $a))
            (f32.mul (local.get $rs)
              (f32.sub
                (f32.sub (f32.mul (f32.load (i32.add (local.get $dy) (local.get $a))) (f32.load (i32.add (local.get $g) (local.get $a)))) (local.get $s1))
                (f32.mul (f32.load (i32.add (local.get $tmp) (local.get $a))) (local.get $s2)))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $l2)))
        (local.set $x (i32.add (local.get $x) (i32.shl (local.get $C) (i32.const 2))))
        (local.set $dy (i32.add (local.get $dy) (i32.shl (local.get $C) (i32.const 2))))
        (local.set $dx (i32.add (local.get $dx) (i32.shl (local.get $C) (i32.const 2))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))

  ;; GELU (tanh form as σ): u = x·(A + A·0.044715·x²), y = x·σ(u), A = 2√(2/π). σ(u) = 1/(1 + e^−u).
  (func $sig4 (param $u v128) (result v128)
    (f32x4.div (v128.const f32x4 1 1 1 1)
      (f32x4.add (v128.const f32x4 1 1 1 1) (call $exp4 (f32x4.neg (local.get $u))))))

  (func $gelu_u (param $x v128) (param $a v128) (param $a3 v128) (result v128)
    (f32x4.mul (local.get $x) (f32x4.relaxed_madd (f32x4.mul (local.get $x) (local.get $x)) (local.get $a3) (local.get $a))))

  ;; y = gelu(x) over n floats (n may be any size: the tail goes through one lane)
  (func $gelu_fwd (export "gelu_fwd") (param $x i32) (param $y i32) (param $n i32) (param $A f32)
    (local $i i32) (local $n4 i32) (local $xv v128) (local $av v128) (local $a3v v128)
    (local.set $av (f32x4.splat (local.get $A)))
    (local.set $a3v (f32x4.splat (f32.mul (local.get $A) (f32.const 0.044715))))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $xv (v128.load (local.get $x)))
      (v128.store (local.get $y) (f32x4.mul (local.get $xv) (call $sig4 (call $gelu_u (local.get $xv) (local.get $av) (local.get $a3v)))))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (local.set $y (i32.add (local.get $y) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $xv (f32x4.splat (f32.load (local.get $x))))
      (f32.store (local.get $y) (f32x4.extract_lane 0
        (f32x4.mul (local.get $xv) (call $sig4 (call $gelu_u (local.get $xv) (local.get $av) (local.get $a3v))))))
      (local.set $x (i32.add (local.get $x) (i32.const 4)))
      (local.set $y (i32.add (local.get $y) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  ;; gelu'(x) = s + x·s·(1 − s)·(A + 3·A·0.044715·x²), given s = σ(u(x))
  (func $gelu_d4 (param $xv v128) (param $s v128) (param $av v128) (param $a3v v128) (result v128)
    (f32x4.add (local.get $s) (f32x4.mul
        (f32x4.mul (f32x4.mul (local.get $xv) (local.get $s)) (f32x4.sub (v128.const f32x4 1 1 1 1) (local.get $s)))
        (f32x4.relaxed_madd (f32x4.mul (local.get $xv) (local.get $xv)) (f32x4.mul (local.get $a3v) (v128.const f32x4 3 3 3 3)) (local.get $av)))))

  ;; dx = dy·gelu'(x)
  (func $gelu_grad4 (param $xv v128) (param $dyv v128) (param $av v128) (param $a3v v128) (result v128)
    (f32x4.mul (local.get $dyv)
      (call $gelu_d4 (local.get $xv) (call $sig4 (call $gelu_u (local.get $xv) (local.get $av) (local.get $a3v))) (local.get $av) (local.get $a3v))))

  ;; y = gelu(x), d = gelu'(x) over n floats (y may be x): the MLP's forward keeps gelu' for its backward
  (func $gelu_fwd_d (param $x i32) (param $y i32) (param $d i32) (param $n i32) (param $A f32)
    (local $i i32) (local $n4 i32) (local $xv v128) (local $s v128) (local $av v128) (local $a3v v128)
    (local.set $av (f32x4.splat (local.get $A)))
    (local.set $a3v (f32x4.splat (f32.mul (local.get $A) (f32.const 0.044715))))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d4 (loop $l
      (br_if $d4 (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $xv (v128.load (local.get $x)))
      (local.set $s (call $sig4 (call $gelu_u (local.get $xv) (local.get $av) (local.get $a3v))))
      (v128.store (local.get $d) (call $gelu_d4 (local.get $xv) (local.get $s) (local.get $av) (local.get $a3v)))
      (v128.store (local.get $y) (f32x4.mul (local.get $xv) (local.get $s)))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (local.set $y (i32.add (local.get $y) (i32.const 16)))
      (local.set $d (i32.add (local.get $d) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $xv (f32x4.splat (f32.load (local.get $x))))
      (local.set $s (call $sig4 (call $gelu_u (local.get $xv) (local.get $av) (local.get $a3v))))
      (f32.store (local.get $d) (f32x4.extract_lane 0 (call $gelu_d4 (local.get $xv) (local.get $s) (local.get $av) (local.get $a3v))))
      (f32.store (local.get $y) (f32x4.extract_lane 0 (f32x4.mul (local.get $xv) (local.get $s))))
      (local.set $x (i32.add (local.get $x) (i32.const 4)))
      (local.set $y (i32.add (local.get $y) (i32.const 4)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  (func (export "gelu_bwd") (param $x i32) (param $dy i32) (param $dx i32) (param $n i32) (param $A f32)
    (local $i i32) (local $n4 i32) (local $av v128) (local $a3v v128)
    (local.set $av (f32x4.splat (local.get $A)))
    (local.set $a3v (f32x4.splat (f32.mul (local.get $A) (f32.const 0.044715))))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (v128.store (local.get $dx) (call $gelu_grad4 (v128.load (local.get $x)) (v128.load (local.get $dy)) (local.get $av) (local.get $a3v)))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (local.set $dy (i32.add (local.get $dy) (i32.const 16)))
      (local.set $dx (i32.add (local.get $dx) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (f32.store (local.get $dx) (f32x4.extract_lane 0
        (call $gelu_grad4 (f32x4.splat (f32.load (local.get $x))) (f32x4.splat (f32.load (local.get $dy))) (local.get $av) (local.get $a3v))))
      (local.set $x (i32.add (local.get $x) (i32.const 4)))
      (local.set $dy (i32.add (local.get $dy) (i32.const 4)))
      (local.set $dx (i32.add (local.get $dx) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  ;; ---- out (A, J) = xᵀ·dy for x (N, A), dy (N, J): the weight gradient of x·W without transposing x.
  ;; gemm_tn_rows, gemm3_tn_rows, gemm6_tn_rows (4 × 8, 3 × 12 and 6 × 8 register tiles over blocks
  ;; of 64 rows, written at @gemm-tiles below by scripts/gemm-wat.ts) compute out's rows [0, A) where
  ;; x's rows are xrow floats apart (xrow ≥ A): a block of the output's rows (x and out offset by the
  ;; block's first row) as the helper threads run it, or all of them (xrow = A). Each output element
  ;; is summed in the same order whatever the tile and the block. Their last argument is a scratch
  ;; of 64 × (J & ~7) floats, where each block of dy's rows is copied in strips before its tiles run.
  ;; gemm_tn_tail: what the tiles leave, each element its products one at a time, unfused: every
  ;; (a, j) with j ≥ J8, or a ≥ A4 and j < J8 (A4, J8: A and J down to multiples of 4 and 8).
  (func $gemm_tn_tail (param $x i32) (param $dy i32) (param $out i32) (param $N i32) (param $A i32) (param $J i32) (param $xrow i32)
    (local $i i32) (local $a i32) (local $j i32) (local $A4 i32) (local $J8 i32)
    (local $xs i32) (local $js i32) (local $px i32) (local $pd i32) (local $po i32) (local $xa f32) (local $xv v128)
    (local $i0 i32) (local $iend i32) (local $acc v128)
    (local.set $A4 (i32.and (local.get $A) (i32.const -4)))
    (local.set $J8 (i32.and (local.get $J) (i32.const -8)))
    (local.set $xs (i32.shl (local.get $xrow) (i32.const 2)))
    (local.set $js (i32.shl (local.get $J) (i32.const 2)))
    ;; Columns from J8 on, rows below A4: four rows of out (four adjacent floats of each x row) in one
    ;; vector, over blocks of 64 rows of x (they stay in L1), each lane summing as one element does
    ;; below. One element at a time, the head's 89th column of xᵀ·dy took 2.4 of the `small` step's
    ;; 4.2 ms for that product.
    (local.set $j (local.get $J8))
    (block $dtj (loop $ltj
      (br_if $dtj (i32.ge_u (local.get $j) (local.get $J)))
      (local.set $i0 (i32.const 0))
      (block $dtb (loop $ltb
        (br_if $dtb (i32.ge_u (local.get $i0) (local.get $N)))
        (local.set $iend (select (local.get $N) (i32.add (local.get $i0) (i32.const 64))
          (i32.lt_u (local.get $N) (i32.add (local.get $i0) (i32.const 64)))))
        (local.set $a (i32.const 0))
        (block $dta (loop $lta
          (br_if $dta (i32.ge_u (local.get $a) (local.get $A4)))
          ;; out[a..a+3, j], J floats apart
          (local.set $po (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $a) (local.get $J)) (local.get $j)) (i32.const 2))))
          (local.set $acc (f32x4.replace_lane 3 (f32x4.replace_lane 2 (f32x4.replace_lane 1
            (f32x4.splat (f32.load (local.get $po)))
            (f32.load (i32.add (local.get $po) (local.get $js))))
            (f32.load (i32.add (local.get $po) (i32.shl (local.get $js) (i32.const 1)))))
            (f32.load (i32.add (local.get $po) (i32.mul (local.get $js) (i32.const 3))))))
          (local.set $px (i32.add (local.get $x) (i32.add (i32.mul (local.get $i0) (local.get $xs)) (i32.shl (local.get $a) (i32.const 2)))))
          (local.set $pd (i32.add (local.get $dy) (i32.shl (i32.add (i32.mul (local.get $i0) (local.get $J)) (local.get $j)) (i32.const 2))))
          (local.set $i (local.get $i0))
          (block $dti (loop $lti
            (br_if $dti (i32.ge_u (local.get $i) (local.get $iend)))
            (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (v128.load (local.get $px)) (v128.load32_splat (local.get $pd)))))
            (local.set $px (i32.add (local.get $px) (local.get $xs)))
            (local.set $pd (i32.add (local.get $pd) (local.get $js)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $lti)))
          (f32.store (local.get $po) (f32x4.extract_lane 0 (local.get $acc)))
          (f32.store (i32.add (local.get $po) (local.get $js)) (f32x4.extract_lane 1 (local.get $acc)))
          (f32.store (i32.add (local.get $po) (i32.shl (local.get $js) (i32.const 1))) (f32x4.extract_lane 2 (local.get $acc)))
          (f32.store (i32.add (local.get $po) (i32.mul (local.get $js) (i32.const 3))) (f32x4.extract_lane 3 (local.get $acc)))
          (local.set $a (i32.add (local.get $a) (i32.const 4)))
          (br $lta)))
        (local.set $i0 (i32.add (local.get $i0) (i32.const 64)))
        (br $ltb)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $ltj)))
    (local.set $i (i32.const 0))
    ;; Row i of x and of dy at a time, so both are read in order (a column at a time read a cache
    ;; line per product: the head's 89th column took 3 ms a step). Each element still sums its
    ;; products one at a time in out (zeroed by the tile), i ascending, unfused; f32x4.mul then
    ;; f32x4.add round each lane as f32.mul and f32.add do.
    (block $di (loop $li
      (br_if $di (i32.ge_u (local.get $i) (local.get $N)))
      (local.set $px (i32.add (local.get $x) (i32.mul (local.get $i) (local.get $xs))))
      (local.set $pd (i32.add (local.get $dy) (i32.mul (local.get $i) (local.get $js))))
      ;; the columns from J8 on, of the rows from A4 on
      (if (i32.lt_u (local.get $J8) (local.get $J))
        (then
          (local.set $a (local.get $A4))
          (block $da (loop $la
            (br_if $da (i32.ge_u (local.get $a) (local.get $A)))
            (local.set $xa (f32.load (i32.add (local.get $px) (i32.shl (local.get $a) (i32.const 2)))))
            (local.set $po (i32.add (local.get $out) (i32.shl (i32.mul (local.get $a) (local.get $J)) (i32.const 2))))
            (local.set $j (local.get $J8))
            (block $dj (loop $lj
              (br_if $dj (i32.ge_u (local.get $j) (local.get $J)))
              (f32.store (i32.add (local.get $po) (i32.shl (local.get $j) (i32.const 2)))
                (f32.add (f32.load (i32.add (local.get $po) (i32.shl (local.get $j) (i32.const 2))))
                  (f32.mul (local.get $xa) (f32.load (i32.add (local.get $pd) (i32.shl (local.get $j) (i32.const 2)))))))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br $lj)))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (br $la)))))
      ;; the rows from A4 on, below J8, 4 columns at a time
      (local.set $a (local.get $A4))
      (block $dr (loop $lr
        (br_if $dr (i32.ge_u (local.get $a) (local.get $A)))
        (local.set $xv (f32x4.splat (f32.load (i32.add (local.get $px) (i32.shl (local.get $a) (i32.const 2))))))
        (local.set $po (i32.add (local.get $out) (i32.shl (i32.mul (local.get $a) (local.get $J)) (i32.const 2))))
        (local.set $j (i32.const 0))
        (block $dv (loop $lv
          (br_if $dv (i32.ge_u (local.get $j) (local.get $J8)))
          (v128.store (i32.add (local.get $po) (i32.shl (local.get $j) (i32.const 2)))
            (f32x4.add (v128.load (i32.add (local.get $po) (i32.shl (local.get $j) (i32.const 2))))
              (f32x4.mul (local.get $xv) (v128.load (i32.add (local.get $pd) (i32.shl (local.get $j) (i32.const 2)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br $lv)))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (br $lr)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $li))))

  ;; ---- c (M, N) = a (M, K) · b (K, N) + bias (N) on every row (bias 0: none); row-major, rows contiguous.
  ;; The matmuls of the forward pass and of dx = dy · wᵀ (wᵀ made explicitly: it is small).
  ;; gemm_ep, gemm3_ep and gemm6_ep are one GEMM on three register tiles (4 × 8, 3 × 12, 6 × 8), the
  ;; same multiply-adds in the same order, so the same bits: which is fastest depends on the engine,
  ;; and gemm-tile.ts times them on the real calls and keeps one. scripts/gemm-wat.ts writes them
  ;; here at assembly (one template; why each shape there). Each then runs an epilogue on each row
  ;; group's rows of c while they are in L1, d (M, N) laid out as c, A GELU's constant (gelu_fwd's):
  ;;   mode 0: none      mode 1: c = gelu(c)      mode 2: c = gelu(c), d = gelu'(c)
  ;; @gemm-tiles

  ;; The columns of c past the last multiple of 8 on rows r0..r1 (inclusive), one at a time, k
  ;; ascending, unfused: the tail every GEMM tile shares (scripts/gemm-wat.ts).
  (func $gemm_tail (param $a i32) (param $b i32) (param $c i32) (param $K i32) (param $N i32) (param $bias i32) (param $r0 i32) (param $r1 i32)
    (local $r i32) (local $j i32) (local $s f32) (local $pa i32) (local $pb i32) (local $end i32) (local $ks i32) (local $ns i32)
    (local.set $ks (i32.shl (local.get $K) (i32.const 2)))
    (local.set $ns (i32.shl (local.get $N) (i32.const 2)))
    (local.set $r (local.get $r0))
    (block $dr (loop $lr
      (br_if $dr (i32.gt_u (local.get $r) (local.get $r1)))
      (local.set $j (i32.and (local.get $N) (i32.const -8)))
      (block $dt (loop $lt
        (br_if $dt (i32.ge_u (local.get $j) (local.get $N)))
        (local.set $s (if (result f32) (local.get $bias) (then (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2))))) (else (f32.const 0))))
        (local.set $pa (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $ks))))
        (local.set $end (i32.add (local.get $pa) (local.get $ks)))
        (local.set $pb (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))
        (loop $lk
          (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (local.get $pa)) (f32.load (local.get $pb)))))
          (local.set $pb (i32.add (local.get $pb) (local.get $ns)))
          (br_if $lk (i32.lt_u (local.tee $pa (i32.add (local.get $pa) (i32.const 4))) (local.get $end))))
        (f32.store (i32.add (local.get $c) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $N)) (local.get $j)) (i32.const 2))) (local.get $s))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $lt)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $lr))))

  ;; gemm_ep's epilogue on n floats of c (and d) in place
  (func $epilogue (param $c i32) (param $d i32) (param $n i32) (param $mode i32) (param $A f32)
    (if (i32.eq (local.get $mode) (i32.const 1)) (then (call $gelu_fwd (local.get $c) (local.get $c) (local.get $n) (local.get $A))))
    (if (i32.eq (local.get $mode) (i32.const 2)) (then (call $gelu_fwd_d (local.get $c) (local.get $c) (local.get $d) (local.get $n) (local.get $A)))))


  ;; ---- the sampler's cached forward as one kernel (decode.ts): token + position embeddings, row copies
  ;; into the KV cache, residual adds. Same f32 operations as the plain ops they replace.

  ;; out[i] = a[i] + b[i], i < n (out may be a)
  (func $add (export "add") (param $out i32) (param $a i32) (param $b i32) (param $n i32)
    (local $i i32) (local $n4 i32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d4 (loop $l4
      (br_if $d4 (i32.ge_u (local.get $i) (local.get $n4)))
      (v128.store (local.get $out) (f32x4.add (v128.load (local.get $a)) (v128.load (local.get $b))))
      (local.set $out (i32.add (local.get $out) (i32.const 16)))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (local.set $b (i32.add (local.get $b) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (f32.store (local.get $out) (f32.add (f32.load (local.get $a)) (f32.load (local.get $b))))
      (local.set $out (i32.add (local.get $out) (i32.const 4)))
      (local.set $a (i32.add (local.get $a) (i32.const 4)))
      (local.set $b (i32.add (local.get $b) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))))

  ;; x[n] = wte[ids[n]] + wpe[pos[n]] (rows of C floats), n < N; ids and pos int32
  (func (export "embed") (param $ids i32) (param $pos i32) (param $wte i32) (param $wpe i32) (param $x i32) (param $N i32) (param $C i32)
    (local $n i32) (local $cs i32)
    (local.set $cs (i32.shl (local.get $C) (i32.const 2)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $n) (local.get $N)))
      (call $add (local.get $x)
        (i32.add (local.get $wte) (i32.mul (i32.load (local.get $ids)) (local.get $cs)))
        (i32.add (local.get $wpe) (i32.mul (i32.load (local.get $pos)) (local.get $cs)))
        (local.get $C))
      (local.set $x (i32.add (local.get $x) (local.get $cs)))
      (local.set $ids (i32.add (local.get $ids) (i32.const 4)))
      (local.set $pos (i32.add (local.get $pos) (i32.const 4)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l))))

  ;; rows × n floats from src to dst, their rows ss and ds floats apart (each row a memory.copy: overlap-safe)
  (func (export "copy_rows") (param $src i32) (param $ss i32) (param $dst i32) (param $ds i32) (param $rows i32) (param $n i32)
    (local $r i32)
    (local.set $ss (i32.shl (local.get $ss) (i32.const 2)))
    (local.set $ds (i32.shl (local.get $ds) (i32.const 2)))
    (local.set $n (i32.shl (local.get $n) (i32.const 2)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $r) (local.get $rows)))
      (memory.copy (local.get $dst) (local.get $src) (local.get $n))
      (local.set $src (i32.add (local.get $src) (local.get $ss)))
      (local.set $dst (i32.add (local.get $dst) (local.get $ds)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $l))))

  ;; ---- the global gradient norm's sums (grad-norm.ts): Σ x² over n floats, one lane, in order, as
  ;; tfjs-backend-wasm's Square then Sum compute it (f32 products, f32 sum from the first value on).
  (func (export "sumsq") (param $x i32) (param $n i32) (result f32)
    (local $s f32) (local $e i32) (local $v f32)
    (local.set $e (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $x) (local.get $e)))
      (local.set $v (f32.load (local.get $x)))
      (local.set $s (f32.add (local.get $s) (f32.mul (local.get $v) (local.get $v))))
      (local.set $x (i32.add (local.get $x) (i32.const 4)))
      (br $l)))
    (local.get $s))

  ;; ---- AdamW for one parameter of n values (optim.ts's formulation, same f32 operations in the same
  ;; order, no multiply-add fusion): m' = b1·m + (1−b1)·(c·g), v' = b2·v + (1−b2)·(c·g)²,
  ;; w' = w·keep − lr·(m'/bc1)/(√(v'/bc2) + eps). Returns Σ 0·x over w', m', v': NaN iff one is not finite.
  (func $adamw4 (param $w v128) (param $g v128) (param $m v128) (param $v v128) (param $k i32) (param $wo i32) (param $mo i32) (param $vo i32) (result v128)
    (local $gs v128) (local $m2 v128) (local $v2 v128) (local $w2 v128)
    (local.set $gs (f32x4.mul (v128.load offset=16 (local.get $k)) (local.get $g)))
    (local.set $m2 (f32x4.add (f32x4.mul (v128.load offset=0 (local.get $k)) (local.get $m)) (f32x4.mul (local.get $gs) (v128.load offset=32 (local.get $k)))))
    (local.set $v2 (f32x4.add (f32x4.mul (local.get $v) (v128.load offset=48 (local.get $k))) (f32x4.mul (f32x4.mul (local.get $gs) (local.get $gs)) (v128.load offset=64 (local.get $k)))))
    (local.set $w2 (f32x4.sub (f32x4.mul (local.get $w) (v128.load offset=80 (local.get $k)))
      (f32x4.mul (f32x4.div (f32x4.div (local.get $m2) (v128.load offset=112 (local.get $k)))
        (f32x4.add (f32x4.sqrt (f32x4.div (local.get $v2) (v128.load offset=128 (local.get $k)))) (v128.load offset=144 (local.get $k))))
        (v128.load offset=96 (local.get $k)))))
    (v128.store (local.get $mo) (local.get $m2))
    (v128.store (local.get $vo) (local.get $v2))
    (v128.store (local.get $wo) (local.get $w2))
    (f32x4.add (f32x4.add (f32x4.mul (local.get $w2) (v128.const f32x4 0 0 0 0)) (f32x4.mul (local.get $m2) (v128.const f32x4 0 0 0 0)))
      (f32x4.mul (local.get $v2) (v128.const f32x4 0 0 0 0))))

  ;; k: 10 constants, each splat over 4 lanes (160 bytes): b1, c, 1−b1, b2, 1−b2, keep, lr, bc1, bc2, eps
  (func (export "adamw") (param $w i32) (param $g i32) (param $m i32) (param $v i32) (param $wo i32) (param $mo i32) (param $vo i32) (param $n i32) (param $k i32) (result f32)
    (local $i i32) (local $n4 i32) (local $z v128) (local $tail i32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $z (f32x4.add (local.get $z) (call $adamw4 (v128.load (local.get $w)) (v128.load (local.get $g)) (v128.load (local.get $m)) (v128.load (local.get $v))
        (local.get $k) (local.get $wo) (local.get $mo) (local.get $vo))))
      (local.set $w (i32.add (local.get $w) (i32.const 16))) (local.set $g (i32.add (local.get $g) (i32.const 16)))
      (local.set $m (i32.add (local.get $m) (i32.const 16))) (local.set $v (i32.add (local.get $v) (i32.const 16)))
      (local.set $wo (i32.add (local.get $wo) (i32.const 16))) (local.set $mo (i32.add (local.get $mo) (i32.const 16)))
      (local.set $vo (i32.add (local.get $vo) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    ;; the last n mod 4 values, one lane each: scratch at k + 160 (48 bytes) takes the lane's outputs
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $tail (i32.add (local.get $k) (i32.const 160)))
      (local.set $z (f32x4.add (local.get $z) (f32x4.replace_lane 1 (f32x4.replace_lane 2 (f32x4.replace_lane 3
        (call $adamw4 (f32x4.splat (f32.load (local.get $w))) (f32x4.splat (f32.load (local.get $g))) (f32x4.splat (f32.load (local.get $m))) (f32x4.splat (f32.load (local.get $v)))
          (local.get $k) (local.get $tail) (i32.add (local.get $tail) (i32.const 16)) (i32.add (local.get $tail) (i32.const 32)))
        (f32.const 0)) (f32.const 0)) (f32.const 0))))
      (f32.store (local.get $wo) (f32.load (local.get $tail)))
      (f32.store (local.get $mo) (f32.load offset=16 (local.get $tail)))
      (f32.store (local.get $vo) (f32.load offset=32 (local.get $tail)))
      (local.set $w (i32.add (local.get $w) (i32.const 4))) (local.set $g (i32.add (local.get $g) (i32.const 4)))
      (local.set $m (i32.add (local.get $m) (i32.const 4))) (local.set $v (i32.add (local.get $v) (i32.const 4)))
      (local.set $wo (i32.add (local.get $wo) (i32.const 4))) (local.set $mo (i32.add (local.get $mo) (i32.const 4)))
      (local.set $vo (i32.add (local.get $vo) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt)))
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $z)) (f32x4.extract_lane 1 (local.get $z)))
      (f32.add (f32x4.extract_lane 2 (local.get $z)) (f32x4.extract_lane 3 (local.get $z)))))
)
