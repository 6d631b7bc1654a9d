/**
 * Character tokenizer over the lab's one vocabulary (src/core/vocab.ts): every special token is a
 * single private-use character, so encoding is a char → id lookup. Unknown characters are an
 * error naming the character and its position. Pure: no tfjs.
 */
import { SPECIAL, VOCAB } from '../core/vocab';

export class Tokenizer {
  readonly vocab: readonly string[];
  readonly size: number;
  readonly pad: number;
  readonly bos: number;
  readonly eos: number;
  private readonly ids: Map<string, number>;

  constructor(vocab: readonly string[] = VOCAB) {
    this.vocab = vocab;
    this.size = vocab.length;
    this.ids = new Map();
    vocab.forEach((ch, i) => {
      if ([...ch].length !== 1)
        throw new Error(`vocabulary entry ${i} is not one character: ${JSON.stringify(ch)}`);
      if (this.ids.has(ch))
        throw new Error(`vocabulary has ${JSON.stringify(ch)} twice (ids ${this.ids.get(ch)} and ${i})`);
      this.ids.set(ch, i);
    });
    this.pad = this.idOf(SPECIAL.PAD);
    this.bos = this.idOf(SPECIAL.BOS);
    this.eos = this.idOf(SPECIAL.EOS);
  }

  /** The id of one character; throws if the vocabulary lacks it. */
  idOf(ch: string): number {
    const id = this.ids.get(ch);
    if (id === undefined) throw new Error(`character ${describe(ch)} is not in the vocabulary`);
    return id;
  }

  /** Encodes a string, one id per character (code point). */
  encode(text: string): number[] {
    const out: number[] = [];
    let pos = 0;
    for (const ch of text) {
      const id = this.ids.get(ch);
      if (id === undefined) {
        throw new Error(
          `cannot encode character ${describe(ch)} at position ${pos} of ${JSON.stringify(text)}: not in the vocabulary`,
        );
      }
      out.push(id);
      pos++;
    }
    return out;
  }

  /** Decodes ids back to the string; an id outside the vocabulary is an error. */
  decode(ids: ArrayLike<number>): string {
    let s = '';
    for (let i = 0; i < ids.length; i++) {
      const ch = this.vocab[ids[i]];
      if (ch === undefined)
        throw new Error(`cannot decode id ${ids[i]} at position ${i}: vocabulary has ${this.size} ids`);
      s += ch;
    }
    return s;
  }
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `${JSON.stringify(ch)} (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** The lab's tokenizer over VOCAB. */
export const tokenizer = new Tokenizer();
