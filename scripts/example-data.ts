/**
 * `npx tsx scripts/example-data.ts`: writes the datasets of the example workflows,
 * examples/workflows/relay.csv and router.csv, from a fixed seed (the same files every time, so
 * the committed ones can be checked against it: test/tasks/workflow-examples.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { Prng } from '../src/core/prng';

const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';

/** A pronounceable word of `n` letters. */
function word(rng: Prng, n: number): string {
  let w = '';
  for (let i = 0; i < n; i++) w += rng.pick([...(i % 2 === 0 ? CONSONANTS : VOWELS)]);
  return w;
}

/** `n` distinct values from `make`, in draw order. */
function distinct(n: number, make: () => string): string[] {
  const seen = new Set<string>();
  while (seen.size < n) seen.add(make());
  return [...seen];
}

/** relay.csv: 600 words of 3–6 letters; every tenth row held out for validation. */
export function relayCsv(): string {
  const rng = new Prng(2026);
  const words = distinct(600, () => word(rng, rng.range(3, 6)));
  return ['word,split', ...words.map((w, i) => `${w},${i % 10 === 0 ? 'val' : 'train'}`)].join('\n') + '\n';
}

/**
 * router.csv: 900 questions of three kinds, each with its topic (the route) and answer:
 * `sum 23 45` → 68 (topic s), `rev bako` → okab (r), `len bakotu` → 6 (l).
 */
export function routerCsv(): string {
  const rng = new Prng(2027);
  const rows: string[] = [];
  const questions = distinct(900, () => {
    const kind = rng.pick(['s', 'r', 'l']);
    if (kind === 's') return `s|sum ${rng.range(10, 49)} ${rng.range(10, 49)}`;
    const w = word(rng, rng.range(3, 6));
    return `${kind}|${kind === 'r' ? 'rev' : 'len'} ${w}`;
  });
  for (const q of questions) {
    const [topic, question] = q.split('|');
    const [, a, b] = question.split(' ');
    const answer =
      topic === 's'
        ? String(Number(a) + Number(b))
        : topic === 'r'
          ? [...a].reverse().join('')
          : String(a.length);
    rows.push(`${question},${topic},${answer}`);
  }
  return ['question,topic,answer', ...rows].join('\n') + '\n';
}

/**
 * `n` rows of `word,answer` (the word reversed): the data of the benchmarks' two-agent workflow
 * (scripts/bench-workflow.ts), 1,000 rows for its preparation, 50,000 for opening in the page.
 */
export function pairCsv(n: number): string {
  const rng = new Prng(2028);
  const words = distinct(n, () => word(rng, rng.range(4, 9)));
  return ['word,answer', ...words.map((w) => `${w},${[...w].reverse().join('')}`)].join('\n') + '\n';
}

if (process.argv[1]?.endsWith('example-data.ts')) {
  writeFileSync('examples/workflows/relay.csv', relayCsv());
  writeFileSync('examples/workflows/router.csv', routerCsv());
  console.log('wrote examples/workflows/relay.csv (600 rows) and router.csv (900 rows)');
}
