/**
 * Okapi BM25 retrieval over short documents (the `search` task's knowledge-base facts).
 * Standard formula with Lucene's non-negative idf, ln(1 + (N − n + 0.5)/(n + 0.5)), so a
 * document sharing more query terms never scores below one sharing fewer (for equal lengths).
 * Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009). Pure.
 */

interface Bm25Options {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalization strength (0 = none, 1 = full). */
  b: number;
}

interface Bm25Hit {
  /** Index of the document in the indexed list. */
  index: number;
  score: number;
}

/** Lower-case alphanumeric words; everything else separates. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

export class Bm25 {
  private readonly docs: Map<string, number>[]; // term → count, per document
  private readonly lengths: number[];
  private readonly avgLength: number;
  private readonly docFreq = new Map<string, number>();

  constructor(
    documents: readonly string[],
    private readonly options: Bm25Options = { k1: 1.2, b: 0.75 },
  ) {
    this.docs = documents.map((d) => {
      const counts = new Map<string, number>();
      for (const t of tokenize(d)) counts.set(t, (counts.get(t) ?? 0) + 1);
      return counts;
    });
    this.lengths = documents.map((d) => tokenize(d).length);
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, documents.length);
    for (const counts of this.docs) {
      for (const t of counts.keys()) this.docFreq.set(t, (this.docFreq.get(t) ?? 0) + 1);
    }
  }

  idf(term: string): number {
    const n = this.docFreq.get(term) ?? 0;
    return Math.log(1 + (this.docs.length - n + 0.5) / (n + 0.5));
  }

  /** BM25 score of document `index` for `query`. Repeated query terms count once per occurrence. */
  score(query: string, index: number): number {
    const { k1, b } = this.options;
    const counts = this.docs[index];
    const norm = k1 * (1 - b + (b * this.lengths[index]) / (this.avgLength || 1));
    let s = 0;
    for (const term of tokenize(query)) {
      const tf = counts.get(term) ?? 0;
      if (tf > 0) s += (this.idf(term) * tf * (k1 + 1)) / (tf + norm);
    }
    return s;
  }

  /** The `k` best documents with a positive score, best first; ties keep document order. */
  search(query: string, k: number): Bm25Hit[] {
    const hits: Bm25Hit[] = [];
    for (let i = 0; i < this.docs.length; i++) {
      const score = this.score(query, i);
      if (score > 0) hits.push({ index: i, score });
    }
    hits.sort((x, y) => y.score - x.score || x.index - y.index);
    return hits.slice(0, k);
  }
}
