/**
 * Rewrites every folded `(f32x4.relaxed_madd a b c)` of a .wat text as `(f32x4.add (f32x4.mul a b) c)`:
 * the plain-SIMD twin of a relaxed-SIMD kernel (scripts/build-kernels.ts). Operands must be folded
 * s-expressions, as kernels.wat writes them.
 */
const OP = '(f32x4.relaxed_madd';

/** The end (exclusive) of the parenthesised expression starting at text[i] === '('. */
function expressionEnd(text: string, i: number): number {
  let depth = 0;
  for (let k = i; k < text.length; k++) {
    if (text[k] === '(') depth++;
    else if (text[k] === ')' && --depth === 0) return k + 1;
  }
  throw new Error(`unbalanced parentheses after offset ${i}`);
}

export function plainSimd(text: string): string {
  let out = '';
  let at = 0;
  for (let i = text.indexOf(OP); i >= 0; i = text.indexOf(OP, at)) {
    const end = expressionEnd(text, i);
    const args: string[] = [];
    let k = i + OP.length;
    while (k < end - 1) {
      if (/\s/.test(text[k])) k++;
      else if (text[k] === '(') {
        const e = expressionEnd(text, k);
        args.push(plainSimd(text.slice(k, e)));
        k = e;
      } else
        throw new Error(
          `f32x4.relaxed_madd at offset ${i}: operands must be folded expressions, found ${JSON.stringify(text.slice(k, k + 20))}`,
        );
    }
    if (args.length !== 3)
      throw new Error(`f32x4.relaxed_madd at offset ${i} has ${args.length} operands, not 3`);
    out += `${text.slice(at, i)}(f32x4.add (f32x4.mul ${args[0]} ${args[1]}) ${args[2]})`;
    at = end;
  }
  return out + text.slice(at);
}
