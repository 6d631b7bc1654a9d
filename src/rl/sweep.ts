/**
 * Sweeps: an experiment run once per cell of a grid of link fields, the grid cut into shards for
 * a cluster, and shards joined back. Pure (no Node, no DOM): the CLI's `lab sweep`, `lab merge`
 * and `lab report` read and write the files; the map of paired differences per cell, its table
 * and charts, is report/sweep-map.ts. Format and commands: docs/sweeps.md#sweepjson.
 */
import type { Experiment } from '../core/config';
import type { FieldError } from '../core/config-validate';
import { DEFAULT_EXPERIMENT, runRepeats } from '../core/config';
import { fieldErrorsText, validateExperiment } from '../core/config-validate';
import { decodeExperiment, encodeExperiment, valueAt } from '../core/url';
import { dialList, dialValues, splitSweep, SWEEP_PREFIX } from '../core/url-sweep';
import type { DecodeResult } from '../core/url';
import type { Dial } from '../core/url-sweep';

/** A bad grid, shard or sweep folder: the message names the key, value or file. */
export class SweepRefused extends Error {}

export type Params = Record<string, unknown>;

/** What `DIR/sweep.json` holds. */
export interface SweepFile {
  version: 1;
  /** The experiment every cell starts from; its `steps` is the sweep's --steps. */
  config: Experiment;
  grid: Dial[];
  /** This folder's slice of the grid (`--shard index/count`), or null for the whole grid. */
  shard: { index: number; count: number } | null;
  /** This folder's cells, in grid order: each cell's link fields and its train folder (relative). */
  cells: { params: Params; dir: string }[];
}

/** A cell of the grid: its place in grid order, its fields, its folder and its experiment. */
export interface Cell {
  index: number;
  params: Params;
  dir: string;
  config: Experiment;
}

/**
 * `KEY=v1,v2,…` → a dial. Values holding a comma themselves are separated by `;` instead
 * (`KEY=a,b;c`: the two values `a,b` and `c`).
 */
export function parseDial(spec: string): Dial {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new SweepRefused(`--grid ${spec}: expected KEY=v1,v2,… (a link field and its values)`);
  const key = spec.slice(0, eq);
  const read = dialValues(key, spec.slice(eq + 1));
  if ('refused' in read) throw new SweepRefused(`--grid ${spec}: ${read.refused}`);
  return { key, values: read.values };
}

/**
 * The link of `config` with `pairs` set: a grid key replaces the field wherever the link had it.
 * A dial over a run's estimator keeps the run's label (docs/sweeps.md): the map's columns name the
 * runs by label across every cell, and the dial's column says which estimator each cell ran.
 */
function withFields(config: Experiment, given: readonly [string, string][]): string {
  const labels = given.flatMap(([k]): [string, string][] => {
    const run = /^runs\.(\d+)\.estimator$/.exec(k);
    const label = run && config.runs[Number(run[1])]?.label;
    return label && !given.some(([g]) => g === `runs.${run[1]}.label`)
      ? [[`runs.${run[1]}.label`, label]]
      : [];
  });
  const pairs = [...given, ...labels];
  const keys = new Set(pairs.map(([k]) => k));
  const base = encodeExperiment(config)
    .split('&')
    .filter((part) => !keys.has(decodeURIComponent(part.slice(0, part.indexOf('=')))));
  return [...base, ...pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)].join('&');
}

/** Folder names: grid order first, then the fields in a readable, portable spelling. */
function cellDir(index: number, count: number, pairs: readonly [string, string][]): string {
  const slug = pairs
    .map(([k, v]) => `${k}-${v}`)
    .join('_')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 80);
  return `cells/${String(index).padStart(String(count - 1).length, '0')}_${slug}`;
}

/**
 * Each value of each dial read as the link field it is, against `config` with the other dials at
 * their first values: every value the config refuses, with the refusals.
 */
function refusedValues(
  config: Experiment,
  grid: readonly Dial[],
): { dial: Dial; value: string; errors: FieldError[] }[] {
  return grid.flatMap((dial) =>
    dial.values.flatMap((value) => {
      const pairs = grid.map((d): [string, string] => [d.key, d === dial ? value : d.values[0]]);
      const r = decodeExperiment(withFields(config, pairs));
      return r.ok ? [] : [{ dial, value, errors: r.errors }];
    }),
  );
}

/**
 * Every cell of the grid, the cartesian product in grid order: the first dial varies slowest,
 * the last fastest (as nested loops in the order the dials are given). Each value is checked as
 * the link field it is (refusedValues); a value the config refuses is named with its key, after
 * `flag` (how the command or the link names a dial). `config.steps` is every cell's step count.
 */
export function planCells(config: Experiment, grid: readonly Dial[], flag = '--grid'): Cell[] {
  const keys = grid.map((d) => d.key);
  const again = keys.find((k, i) => keys.indexOf(k) !== i);
  if (again !== undefined) throw new SweepRefused(`${flag} ${again} is given twice; give its values once`);
  const own = keys.find((k) => k === 'v' || k === 'steps');
  if (own !== undefined)
    throw new SweepRefused(
      `${flag} ${own}: not a dial (${own === 'v' ? 'the link version' : 'give --steps'})`,
    );
  const [bad] = refusedValues(config, grid);
  if (bad)
    throw new SweepRefused(`${flag} ${bad.dial.key}=${bad.value}: refused: ${fieldErrorsText(bad.errors)}`);
  let combos: [string, string][][] = [[]];
  for (const dial of grid)
    combos = combos.flatMap((c) => dial.values.map((v): [string, string][] => [...c, [dial.key, v]]));
  return combos.map((pairs, index) => {
    const r = decodeExperiment(withFields(config, pairs));
    if (!r.ok)
      throw new SweepRefused(
        `${flag} cell ${pairs.map((p) => p.join('=')).join(', ')}: ${fieldErrorsText(r.errors)}`,
      );
    const cellConfig = { ...r.config, steps: config.steps };
    return {
      index,
      params: Object.fromEntries(pairs.map(([k, v]) => [k, valueAt(cellConfig, k) ?? v])),
      dir: cellDir(index, combos.length, pairs),
      config: cellConfig,
    };
  });
}

/**
 * `lab sweep`'s dials: a --config link's own (`sweep.KEY=…`, the page's link sweep) first, in the
 * link's order, then the --grid flags', so the link and the command are one experiment. A key in
 * both is refused rather than one silently winning.
 */
export function joinDials(link: readonly Dial[], grid: readonly Dial[]): Dial[] {
  const both = grid.find((d) => link.some((l) => l.key === d.key));
  if (both)
    throw new SweepRefused(
      `--grid ${both.key} is also in the --config link as ${SWEEP_PREFIX}${both.key}: give its values in one place`,
    );
  const dials = [...link, ...grid];
  if (!dials.length)
    throw new SweepRefused(
      `sweep needs at least one --grid KEY=v1,v2,…, or a --config link that carries ${SWEEP_PREFIX}KEY=v1,v2,…`,
    );
  return dials;
}

/**
 * The most runs (cells × runs × seeds) a link's sweep may ask of the page: the page trains them
 * in its own tab, on one worker per core; a bigger sweep is for `lab sweep`.
 */
export const MAX_LINK_RUNS = 32;

/** A word for the shell, quoted where it needs to be. */
export const shellWord = (s: string): string =>
  /^[\w.,=:+/@%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A link's sweep (docs/links.md#a-sweep-in-a-link) planned over its experiment as `lab sweep`
 * plans a grid (planCells): its cells, or refusals as a link's are, one per bad value under its
 * dial's `sweep.KEY` (what the field must be, and the value). A sweep over more than
 * MAX_LINK_RUNS runs is refused, naming its keys and giving the `lab sweep` command that runs it.
 */
export function planLinkSweep(
  config: Experiment,
  sweep: readonly Dial[],
): { ok: true; cells: Cell[] } | { ok: false; errors: FieldError[] } {
  if (sweep.length === 0) return { ok: true, cells: [] };
  const tooBig = (size: string) => {
    const command = [
      `npm run lab -- sweep --config ${shellWord(encodeExperiment(config))}`,
      ...sweep.map((d) => `--grid ${shellWord(`${d.key}=${dialList(d.values)}`)}`),
      `--steps ${config.steps} --out sweeps/NAME`,
    ].join(' ');
    const path = sweep.map((d) => SWEEP_PREFIX + d.key).join(', ');
    const message = `${size}; the page trains at most ${MAX_LINK_RUNS}: run it with lab sweep (${command})`;
    return { ok: false as const, errors: [{ path, message }] };
  };
  // Each cell trains a run at least: more cells than that are refused before they are planned (a
  // few dials of many values would make millions).
  const count = sweep.reduce((n, d) => n * d.values.length, 1);
  if (count > MAX_LINK_RUNS) return tooBig(`${count} cells, each of one run or more`);
  const refused = refusedValues(config, sweep);
  if (refused.length)
    return {
      ok: false,
      // A refusal of another dial's field is that dial's to say (it is read at its first value here).
      errors: refused.flatMap(({ dial, value, errors }) =>
        errors
          .filter((e) => e.path === dial.key || !sweep.some((d) => d.key === e.path))
          .map((e) => ({
            path: SWEEP_PREFIX + dial.key,
            message: e.path === dial.key ? e.message : `${e.path}: ${e.message}`,
            got: value,
          })),
      ),
    };
  let cells: Cell[];
  try {
    cells = planCells(config, sweep, 'sweep');
  } catch (e) {
    if (!(e instanceof SweepRefused)) throw e;
    return { ok: false, errors: [{ path: 'sweep', message: e.message.replace(/^sweep /, '') }] };
  }
  const runs = cells.reduce((n, c) => n + runRepeats(c.config).length, 0);
  if (runs <= MAX_LINK_RUNS) return { ok: true, cells };
  const span = (xs: number[]) =>
    Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`;
  return tooBig(
    `${cells.length} cells × ${span(cells.map((c) => c.config.runs.length))} runs × ` +
      `${span(cells.map((c) => c.config.seeds))} seeds is ${runs} runs`,
  );
}

/**
 * A link read whole, as the page opens it: its experiment (decodeExperiment) and the sweep it
 * carries (splitSweep), planned (planLinkSweep). Anything wrong in either refuses the whole link,
 * as any bad link is: the defaults, no sweep, and every refusal.
 */
export function decodeSweepLink(hash: string): DecodeResult & { sweep: Dial[] } {
  const split = splitSweep(hash);
  const r = decodeExperiment(split.experiment);
  const fail = (errors: FieldError[]) => ({
    ok: false as const,
    config: DEFAULT_EXPERIMENT,
    errors,
    sweep: [],
  });
  if (!r.ok || split.errors.length) return fail([...(r.ok ? [] : r.errors), ...split.errors]);
  const planned = planLinkSweep(r.config, split.sweep);
  return planned.ok ? { ...r, sweep: split.sweep } : fail(planned.errors);
}

/** `i/n` → the i-th (from 0) of n shards; the slices are disjoint and together the whole grid. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count)
    throw new SweepRefused(
      `--shard ${text}: expected i/n with 0 ≤ i < n (e.g. --shard $SLURM_ARRAY_TASK_ID/4)`,
    );
  return { index, count };
}

/** Cells dealt round-robin: each shard gets every dial value, so shards take about as long. */
export const shardCells = <C extends { index: number }>(
  cells: readonly C[],
  shard: SweepFile['shard'],
): C[] => (shard ? cells.filter((c) => c.index % shard.count === shard.index) : [...cells]);

export function sweepFile(
  config: Experiment,
  grid: Dial[],
  shard: SweepFile['shard'],
  planned: readonly Cell[] = shardCells(planCells(config, grid), shard),
): SweepFile {
  return { version: 1, config, grid, shard, cells: planned.map(({ params, dir }) => ({ params, dir })) };
}

/** Which of config, grid and steps two sweeps differ in (empty: the same sweep). */
export function sweepDifference(a: SweepFile, b: SweepFile): string[] {
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  return [
    ...(a.config.steps !== b.config.steps ? [`steps ${a.config.steps} vs ${b.config.steps}`] : []),
    ...(!same({ ...a.config, steps: 0 }, { ...b.config, steps: 0 }) ? ['config'] : []),
    ...(!same(a.grid, b.grid) ? ['grid'] : []),
  ];
}

/** A parsed sweep.json checked for shape; `name` is how a refusal names the file. */
export function readSweepFile(json: unknown, name: string): SweepFile {
  const j = json as Partial<SweepFile> | null;
  const bad = (what: string) => new SweepRefused(`${name}: ${what}; not a sweep.json written by lab sweep`);
  if (typeof j !== 'object' || j === null || j.version !== 1) throw bad('no "version": 1');
  const config = validateExperiment(j.config);
  if (!config.ok) throw new SweepRefused(`${name}: its config: ${fieldErrorsText(config.errors)}`);
  if (!Array.isArray(j.grid) || !j.grid.every((d) => typeof d?.key === 'string' && Array.isArray(d.values)))
    throw bad('no "grid" of {key, values}');
  if (
    !Array.isArray(j.cells) ||
    !j.cells.every((c) => typeof c?.dir === 'string' && typeof c.params === 'object')
  )
    throw bad('no "cells" of {params, dir}');
  return { version: 1, config: config.config, grid: j.grid, shard: j.shard ?? null, cells: j.cells };
}

/**
 * Shards joined: the whole grid's sweep.json (as an unsharded run writes it) and which shard
 * holds each cell. Refuses shards of different sweeps and a cell held by two, naming them;
 * `missing` lists the grid's cells no shard holds.
 */
export function mergeShards(shards: readonly { name: string; sweep: SweepFile }[]): {
  sweep: SweepFile;
  from: Map<string, string>;
  missing: string[];
} {
  if (shards.length === 0) throw new SweepRefused('merge: no shard folders given');
  const [first] = shards;
  for (const s of shards.slice(1)) {
    const diff = sweepDifference(first.sweep, s.sweep);
    if (diff.length)
      throw new SweepRefused(
        `${first.name} and ${s.name} are shards of different sweeps (they differ in ${diff.join(', ')})`,
      );
  }
  const from = new Map<string, string>();
  for (const s of shards)
    for (const c of s.sweep.cells) {
      const other = from.get(c.dir);
      if (other !== undefined)
        throw new SweepRefused(`cell ${c.dir} is in both ${other} and ${s.name}: shards must not overlap`);
      from.set(c.dir, s.name);
    }
  const sweep = sweepFile(first.sweep.config, first.sweep.grid, null);
  const stray = [...from.keys()].filter((d) => !sweep.cells.some((c) => c.dir === d));
  if (stray.length)
    throw new SweepRefused(`${from.get(stray[0])}: cell ${stray[0]} is not a cell of its grid`);
  return { sweep, from, missing: sweep.cells.map((c) => c.dir).filter((d) => !from.has(d)) };
}
