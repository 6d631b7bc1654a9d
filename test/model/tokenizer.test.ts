import { describe, expect, it } from 'vitest';
import { CHARSET, ROLES, SPECIAL, VOCAB, roleToken } from '../../src/core/vocab';
import { Tokenizer, tokenizer } from '../../src/model/tokenizer';

describe('tokenizer', () => {
  it('covers the whole vocabulary, PAD is id 0', () => {
    expect(tokenizer.size).toBe(VOCAB.length);
    expect(tokenizer.pad).toBe(0);
    expect(tokenizer.decode([tokenizer.bos, tokenizer.eos])).toBe(SPECIAL.BOS + SPECIAL.EOS);
  });

  it('round-trips every charset character, special and role token', () => {
    const text =
      SPECIAL.BOS +
      CHARSET +
      ROLES.map(roleToken).join('') +
      SPECIAL.ENV +
      'x' +
      SPECIAL.ENV_END +
      SPECIAL.EOS;
    const ids = tokenizer.encode(text);
    expect(ids.length).toBe([...text].length);
    expect(tokenizer.decode(ids)).toBe(text);
    expect(new Set(ids).size).toBe(new Set(text).size);
  });

  it('names an unknown character and its position', () => {
    expect(() => tokenizer.encode('ab\u00e9c')).toThrow(/"é" \(U\+00E9\) at position 2/);
    expect(() => tokenizer.encode('AB')).toThrow(/"A".*position 0/);
    // Positions count characters (code points), not UTF-16 units.
    expect(() => tokenizer.encode('ab😀')).toThrow(/"😀" \(U\+1F600\) at position 2/);
  });

  it('refuses bad ids and bad vocabularies', () => {
    expect(() => tokenizer.decode([VOCAB.length])).toThrow(/id \d+ at position 0/);
    expect(() => new Tokenizer(['a', 'b', 'a'])).toThrow(/twice/);
    expect(() => new Tokenizer(['ab'])).toThrow(/not one character/);
  });
});
