// Every pointer into docs/ resolves: a `docs/FILE.md#heading` in code, tests, scripts, lint messages,
// tooltips and markdown, and a markdown link into docs/ (from README.md, or between docs files), names
// a file that exists and, after '#', a heading it holds (GitHub's slug). The background notes the
// docs were written from are not part of the repository, so no file may name them; nor may a file
// point at the project's own issues or working sessions ("issue 17", "session 8"), which a clone
// does not have: it says what they meant instead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'test', 'scripts', 'docs', 'eslint.config.js', 'README.md'];
const TEXT = /\.(ts|tsx|js|mjs|md|css|html)$/;
// Spelled in pieces so that this file does not name them itself.
const BACKGROUND = ['algorithms', 'DESIGN', 'tfjs-webgpu', 'style'].map((n) => `${n}.md`);

/** `issue N`, `issue #N` or `session N`, in any case (not `issue81`, a former preset id, nor "issues 1–3"). */
const INTERNAL = /\b(?:issue(?:\s+#?|\s*#)|session\s+#?)\d+/gi;
/**
 * Upstream issues are cited by their project, which the text names just before (`tfjs issue 3830`,
 * `verl issue #3741`); Dr. MAS's issue #81, the ablation the lab runs, is also cited with its
 * project on the line before.
 */
const UPSTREAM = /(?:tfjs|verl|Dr\. MAS(?:'s| repository's)?)\s+$/;
const DRMAS_ABLATION = /^issue #81$/i;

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, '-', '_' and spaces kept), spaces → '-'. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code fences), repeats numbered as GitHub does. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Pointer {
  /** Where it is written, as file:line relative to the repository root. */
  at: string;
  /** The docs file it names, relative to the repository root. */
  file: string;
  anchor?: string;
}

/** `docs/X.md#a` written anywhere, and in markdown files also `[text](X.md#a)` links resolved against the file's folder. */
function pointersIn(path: string, text: string): Pointer[] {
  const out: Pointer[] = [];
  const rel = relative(ROOT, path);
  text.split('\n').forEach((line, i) => {
    const at = `${rel}:${i + 1}`;
    for (const m of line.matchAll(/(?<![\w./-])docs\/([\w./-]+?\.md)(?:#([\w-]+))?/g)) {
      out.push({ at, file: join('docs', m[1]), anchor: m[2] });
    }
    if (!rel.endsWith('.md')) return;
    for (const m of line.matchAll(/\]\(([^)\s]*?)(?:#([^)\s]*))?\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target) || target.startsWith('/')) continue; // a URL, not a file here
      const file = target === '' ? rel : normalize(join(dirname(rel), target));
      if (!file.startsWith('docs/') && !(target === '' && rel.startsWith('docs/'))) continue;
      if (file.endsWith('.md')) out.push({ at, file, anchor: m[2] });
      else out.push({ at, file }); // an image or another file: it must exist
    }
  });
  // A markdown link written as docs/… matches both patterns: keep one of each.
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = `${p.at} ${p.file}#${p.anchor ?? ''}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** What is wrong with each pointer, as 'file:line: …'; empty when every one resolves. */
function brokenPointers(pointers: readonly Pointer[], root = ROOT): string[] {
  const cache = new Map<string, Set<string>>();
  const problems: string[] = [];
  for (const p of pointers) {
    const path = join(root, p.file);
    if (!existsSync(path) || !statSync(path).isFile()) {
      problems.push(`${p.at}: ${p.file} does not exist`);
      continue;
    }
    if (p.anchor === undefined || !p.file.endsWith('.md')) continue;
    if (!cache.has(p.file)) cache.set(p.file, anchors(readFileSync(path, 'utf8')));
    if (!cache.get(p.file)!.has(p.anchor)) problems.push(`${p.at}: ${p.file} has no heading #${p.anchor}`);
  }
  return problems;
}

/** Lines naming a background file, as 'file:line: name'. */
function backgroundMentions(path: string, text: string): string[] {
  const rel = relative(ROOT, path);
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const name of BACKGROUND) {
      if (new RegExp(`(?<![\\w-])${name.replace(/[.-]/g, '\\$&')}`).test(line))
        out.push(`${rel}:${i + 1}: ${name}`);
    }
    if (line.includes('../shared')) out.push(`${rel}:${i + 1}: ../shared`);
  });
  return out;
}

/** Lines pointing at an issue or session of the project itself, as 'file:line: reference'. */
function internalReferences(path: string, text: string): string[] {
  const rel = relative(ROOT, path);
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(INTERNAL)) {
      if (UPSTREAM.test(line.slice(0, m.index)) || DRMAS_ABLATION.test(m[0])) continue;
      out.push(`${rel}:${i + 1}: ${m[0]}`);
    }
  });
  return out;
}

function files(entry: string): string[] {
  const path = join(ROOT, entry);
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? files(join(entry, d.name))
      : TEXT.test(d.name) && d.name !== 'pointers.test.ts'
        ? [join(path, d.name)]
        : [],
  );
}

const scanned = SCANNED.flatMap(files).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('pointers into docs/', () => {
  it('scan the code, the tests, the scripts, the lint config, the README and the docs', () => {
    const where = new Set(scanned.map((f) => relative(ROOT, f.path).split('/')[0]));
    for (const entry of SCANNED) expect(where).toContain(entry);
    expect(scanned.flatMap((f) => pointersIn(f.path, f.text)).length).toBeGreaterThan(100);
  });

  it('all name a file and a heading that exist', () => {
    const problems = brokenPointers(scanned.flatMap((f) => pointersIn(f.path, f.text)));
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('name none of the background notes the docs were written from', () => {
    const mentions = scanned.flatMap((f) => backgroundMentions(f.path, f.text));
    expect(mentions, mentions.join('\n')).toEqual([]);
  });

  it("point at none of the project's own issues or sessions", () => {
    const references = scanned.flatMap((f) => internalReferences(f.path, f.text));
    expect(references, references.join('\n')).toEqual([]);
  });

  it('catch an issue or session of the project, and let upstream issues and the issue81 preset pass', () => {
    const code = join(ROOT, 'src', 'x.ts');
    const text = [
      '// as issue #28 asks; Issue 17 and issue 4 too',
      '// measured in session 8',
      "// tfjs issue 3830, verl issue #3741, the Dr. MAS repository's issue #81, preset issue81, it issues 1–3 moves",
    ].join('\n');
    expect(internalReferences(code, text)).toEqual([
      'src/x.ts:1: issue #28',
      'src/x.ts:1: Issue 17',
      'src/x.ts:1: issue 4',
      'src/x.ts:2: session 8',
    ]);
  });

  it('catch a missing file, a missing heading and a broken markdown link, naming file and line', () => {
    const code = join(ROOT, 'src', 'x.ts');
    const doc = join(ROOT, 'docs', 'x.md');
    const problems = brokenPointers([
      ...pointersIn(
        code,
        '// fine: docs/estimators.md#grpo\n// docs/nowhere.md#grpo and docs/estimators.md#no-such',
      ),
      ...pointersIn(doc, 'See [a](cli.md#options), [b](cli.md#gone) and [c](img/none.png).'),
    ]);
    expect(problems).toEqual([
      'src/x.ts:2: docs/nowhere.md does not exist',
      'src/x.ts:2: docs/estimators.md has no heading #no-such',
      'docs/x.md:1: docs/cli.md has no heading #gone',
      'docs/x.md:1: docs/img/none.png does not exist',
    ]);
    expect(backgroundMentions(code, `// see ${BACKGROUND[0]} §2`)).toEqual([`src/x.ts:1: ${BACKGROUND[0]}`]);
  });

  it('slug headings as GitHub does', () => {
    expect(slug('The `lab` command line')).toBe('the-lab-command-line');
    expect(slug('Tree sampling (AT-GRPO)')).toBe('tree-sampling-at-grpo');
    expect(slug('Other tools: TensorBoard, W&B, Dr. MAS')).toBe('other-tools-tensorboard-wb-dr-mas');
    expect([...anchors('# A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
  });
});
