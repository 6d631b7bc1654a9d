import { describe, expect, it } from 'vitest';
import { Bm25, tokenize } from '../../src/tasks/bm25';

describe('BM25', () => {
  const facts = [
    'kai city oslo',
    'kai job poet',
    'bo city lima',
    'oslo land peru',
    'lima land chad',
    'bo job chef',
  ];
  const bm = new Bm25(facts);

  it('ranks the fact matching every query term first', () => {
    expect(bm.search('kai city', 2).map((h) => facts[h.index])).toEqual(['kai city oslo', 'kai job poet']);
    expect(bm.search('oslo land', 1).map((h) => facts[h.index])).toEqual(['oslo land peru']);
    expect(bm.search('bo job', 1).map((h) => facts[h.index])).toEqual(['bo job chef']);
  });

  it('weights rare terms above common ones (idf)', () => {
    expect(bm.idf('peru')).toBeGreaterThan(bm.idf('city'));
    expect(bm.idf('missing')).toBeGreaterThan(bm.idf('peru'));
    // 'kai' is in 2 facts, 'land' in 2, 'oslo' in 2: a query 'peru' finds its single fact.
    expect(bm.search('peru', 3).map((h) => h.index)).toEqual([3]);
  });

  it('returns nothing for unknown words and ignores punctuation and case', () => {
    expect(bm.search('sky moon', 2)).toEqual([]);
    expect(bm.search('', 2)).toEqual([]);
    expect(bm.search('KAI, city!', 1).map((h) => h.index)).toEqual([0]);
    expect(tokenize('a:B c;d')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('prefers the shorter document for equal term counts (length normalization)', () => {
    const b = new Bm25(['red fox jumps over the lazy dog again', 'red fox', 'blue whale']);
    expect(b.search('fox', 2).map((h) => h.index)).toEqual([1, 0]);
  });

  it('matches the closed form on a one-term, one-document case', () => {
    const b = new Bm25(['x y', 'z'], { k1: 1.2, b: 0.75 });
    // N = 2, n = 1: idf = ln(1 + 1.5/1.5) = ln 2; tf = 1, |d| = 2, avg = 1.5.
    const norm = 1.2 * (1 - 0.75 + (0.75 * 2) / 1.5);
    expect(b.score('x', 0)).toBeCloseTo((Math.log(2) * 2.2) / (1 + norm), 12);
  });

  it('breaks ties by document order', () => {
    const b = new Bm25(['a b', 'a c', 'a d']);
    expect(b.search('a', 3).map((h) => h.index)).toEqual([0, 1, 2]);
  });
});
