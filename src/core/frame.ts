/**
 * Metric frames: how one optimizer step of one run travels from a worker to the page and the CLI.
 * The key table is sent once per run; each step is then a flat Float64Array in key order, whose
 * buffer is transferred, never copied (docs/architecture.md#metric-to-chart). NaN marks a key without a value at
 * this step (no eval this step, an agent that did not act). Pure: no tfjs, no DOM.
 */

export class FrameCodec {
  readonly keys: readonly string[];
  private readonly index = new Map<string, number>();

  constructor(keys: readonly string[]) {
    if (new Set(keys).size !== keys.length) throw new Error('frame keys must be unique');
    this.keys = keys;
    keys.forEach((k, i) => this.index.set(k, i));
  }

  /** Packs `values` in key order; keys not in the table are an error (a typo would vanish). */
  encode(values: Readonly<Record<string, number>>): Float64Array {
    const out = new Float64Array(this.keys.length).fill(NaN);
    for (const [k, v] of Object.entries(values)) {
      const i = this.index.get(k);
      if (i === undefined) throw new Error(`metric "${k}" is not in the frame's key table`);
      out[i] = v;
    }
    return out;
  }

  /** The values present in a frame (NaN slots are left out). */
  decode(frame: Float64Array): Record<string, number> {
    if (frame.length !== this.keys.length) {
      throw new Error(`frame has ${frame.length} values for ${this.keys.length} keys`);
    }
    const out: Record<string, number> = {};
    for (let i = 0; i < frame.length; i++) if (!Number.isNaN(frame[i])) out[this.keys[i]] = frame[i];
    return out;
  }

  indexOf(key: string): number {
    return this.index.get(key) ?? -1;
  }
}
