/**
 * The studies of docs/findings.md as data: each one's exact lab command, steps and seeds, the work
 * it cuts into (a train folder, or one folder per sweep cell) and the header its table file gets.
 * scripts/studies.ts runs them; this module holds no I/O, so the manifest and the header are
 * tested apart (test/scripts/studies.test.ts).
 */
import { encodeExperiment } from '../src/core/url';
import { presetById } from '../src/core/presets';
import { shellWord } from '../src/rl/sweep';
import type { Machine } from '../src/cli/machine';
import { machineLine } from '../src/cli/machine';

/** Three runs in one folder, GRPO first: the estimator studies' runs. */
const THREE =
  'runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Step-level&runs.1.estimator=global-step&runs.2.label=Dr.+MAS&runs.2.estimator=drmas';
/** GRPO, Dr. MAS and global-step, GRPO first (the agents study's runs, named by their estimators). */
const AGENT_RUNS =
  'runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr.+MAS&runs.1.estimator=drmas&runs.2.label=global-step&runs.2.estimator=global-step';
/** Evaluation of the 200-step studies: every 50 steps, avg@16. */
const EVAL = 'eval.every=50&eval.k=16';
/** The dial studies' experiment (docs/findings.md, "The commands"). */
const DIALS =
  'v=1&task=sync-own&seeds=5&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr. MAS&runs.1.estimator=drmas&runs.2.label=global-step&runs.2.estimator=global-step';

export interface Study {
  /** Its table is docs/studies/<name>.txt; `--only NAME` picks it. */
  name: string;
  /** The section of docs/findings.md it belongs to. */
  title: string;
  kind: 'train' | 'sweep';
  /** The experiment, as `--config` takes it. */
  config: string;
  /** A workflow file that replaces the experiment's task (`--workflow`), where the study has one. */
  workflow?: string;
  /** The sweep's dials, `KEY=v1,v2,…` as `--grid` takes them. */
  grid: string[];
  steps: number;
  /** Seeds per run (the config's `seeds`): stated here for --list and checked against the config by the test. */
  seeds: number;
  /** `npm run agent-medians -- DIR …` statistics printed under the report, where the study reads them. */
  medians: string[];
  /** Whether docs/findings.md holds its table; false: its command is given there, not yet run. */
  tabled: boolean;
  /**
   * A loss-balance study: each folder's calls per agent go in its table, and a folder whose
   * agents act about equally often is not tabulated (scripts/studies-calls.ts).
   */
  balance?: true;
}

const train = (s: Omit<Study, 'kind' | 'grid' | 'medians'> & Partial<Pick<Study, 'medians'>>): Study => ({
  kind: 'train',
  grid: [],
  medians: [],
  ...s,
});
const sweep = (s: Omit<Study, 'kind' | 'medians'>): Study => ({ kind: 'sweep', medians: [], ...s });

/** The parts family's agents (src/core/workflow/families.ts), in order. */
const PART_AGENTS = ['ann', 'ben', 'cal', 'dee', 'eve', 'fay', 'gus', 'hal'];
/** `reward.scale.<agent>` of N agents spread geometrically from 1 to 8: 8^(i / (N − 1)), 2 decimals. */
const spreadScales = (n: number): string =>
  PART_AGENTS.slice(0, n)
    .map((a, i) => `reward.scale.${a}=${Number((8 ** (i / (n - 1))).toFixed(2))}`)
    .join('&');

/** The shipped preset's experiment with `seeds` set, as the ablation commands build it. */
const presetLink = (id: string, seeds: number): string => {
  const p = presetById(id);
  if (!p) throw new Error(`studies: no preset ${id}`);
  return withField(encodeExperiment(p.config), 'seeds', String(seeds));
};

export const STUDIES: readonly Study[] = [
  train({
    name: 'sync',
    title: '`sync`, the control',
    config: `v=1&task=sync&${THREE}&${EVAL}&seeds=5`,
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  train({
    name: 'math-loop',
    title: '`math-loop`',
    config: `v=1&task=math&${THREE}&${EVAL}&seeds=5`,
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  train({
    name: 'search',
    title: '`search`',
    config: `v=1&${THREE}&${EVAL}&seeds=5`,
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  train({
    name: 'search-roles',
    title: '`search-roles`',
    config: `v=1&task=search-roles&${THREE}&${EVAL}&seeds=5`,
    steps: 200,
    seeds: 5,
    medians: ['amplification'],
    tabled: true,
  }),
  train({
    name: 'search-roles-shared',
    title: '`search-roles` with one shared model',
    config: `v=1&task=search-roles&models.assignment=shared&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr.+MAS&runs.1.estimator=drmas&${EVAL}&seeds=3`,
    steps: 200,
    seeds: 3,
    medians: ['amplification', 'grad_norm'],
    tabled: true,
  }),
  train({
    name: 'magrpo-comlrl',
    title: 'MAGRPO as CoMLRL runs it, on `coder-tester`',
    config:
      'v=1&task=coder-tester&runs.0.label=MAGRPO+(CoMLRL)&runs.0.estimator=magrpo&runs.0.optim.policyLoss=reinforce&runs.0.optim.lossAgg=seq-mean-token-sum&runs.0.reward.joint=true&runs.0.train.buffer=per-agent&runs.0.train.bufferSize=32&runs.1.label=GRPO&runs.1.estimator=grpo&runs.2.label=Dr.+MAS&runs.2.estimator=drmas&steps=60&seeds=3',
    steps: 60,
    seeds: 3,
    tabled: true,
  }),
  train({
    name: 'mars2-team',
    title: "MARS2's claim on `coder-tester`",
    config:
      'v=1&task=coder-tester&models.perAgent.coder=small&models.from.tester=coder&runs.0.label=Team+(small+%2B+nano+coder)&runs.0.estimator=mars2&runs.1.label=Small+coder+alone&runs.1.estimator=mars2&runs.1.rollout.arms=coder&rollout.sampling=mcts&rollout.filter=mixed&train.buffer=per-agent&train.bufferSize=32&eval.every=0&seeds=5',
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  train({
    name: 'mars2-drmas',
    title: "`mars2` against `drmas` on MARS2's trees",
    config:
      'v=1&task=coder-tester&rollout.sampling=mcts&runs.0.label=MARS2&runs.0.estimator=mars2&runs.1.label=Dr.+MAS&runs.1.estimator=drmas&eval.every=0&seeds=5',
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  sweep({
    name: 'scale-100',
    title: 'The dial studies: (i) reduced, the scale map at 100 steps',
    config: DIALS,
    grid: ['models.assignment=shared,per-agent', 'reward.scale.alice=1,2,4,8,16,32'],
    steps: 100,
    seeds: 5,
    tabled: true,
  }),
  sweep({
    name: 'offset-100',
    title: 'The dial studies: (ii) reduced, the offset map at 100 steps',
    config: DIALS,
    grid: ['models.assignment=shared,per-agent', 'reward.offset.alice=0,0.25,0.5,1,2,4'],
    steps: 100,
    seeds: 5,
    tabled: true,
  }),
  sweep({
    name: 'scale-check',
    title: 'The dial studies: per-agent ρ = 1 and 8 again at the new weights',
    config: `${DIALS}&models.assignment=per-agent`,
    grid: ['reward.scale.alice=1,8'],
    steps: 100,
    seeds: 5,
    tabled: true,
  }),
  sweep({
    name: 'scale',
    title: 'The dial studies: (i) the standard scale map',
    config: DIALS,
    grid: ['models.assignment=shared,per-agent', 'reward.scale.alice=1,2,4,8,16,32'],
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  sweep({
    name: 'offset',
    title: 'The dial studies: (ii) the offset dial',
    config: DIALS,
    grid: ['models.assignment=shared,per-agent', 'reward.offset.alice=0,0.25,0.5,1,2,4'],
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  ...['mean-only', 'loss-balance', 'grad-clip', 'liteppo'].map((p) =>
    sweep({
      name: `ablation-${p}`,
      title: `The dial studies: (iii) the reviewers' ablations, preset ${p}`,
      config: presetLink(p, 5),
      grid: ['task=math,search-roles'],
      steps: 200,
      seeds: 5,
      tabled: false,
      ...(p === 'loss-balance' ? { balance: true as const } : {}),
    }),
  ),
  // More agents, shared or own rewards (docs/findings.md): the parts family, N agents each
  // reversing its own word, with GRPO, Dr. MAS and global-step over N and the reward mix.
  sweep({
    name: 'agents',
    title: 'More agents: the agents map',
    config: `v=1&task=workflow&workflow.family=parts&${AGENT_RUNS}&${EVAL}&seeds=5`,
    grid: ['workflow.args.agents=2,3,4,6,8', 'workflow.args.mix=0,0.5,1'],
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  // The agents map's third prediction: own rewards on scales spread geometrically from 1 to 8
  // across the agents (its first agent ×1, its last ×8), at N = 2, 4 and 8.
  ...[2, 4, 8].map((n) =>
    train({
      name: `agents-scales-${n}`,
      title: `More agents: own rewards on scales 1 to 8, N = ${n}`,
      config: `v=1&task=workflow&workflow.family=parts&workflow.args.agents=${n}&workflow.args.mix=1&${spreadScales(n)}&${AGENT_RUNS}&${EVAL}&seeds=5`,
      steps: 200,
      seeds: 5,
      tabled: true,
    }),
  ),
  // The Dr. MAS reviewers' four-agent math chain, which the paper's authors did not publish.
  train({
    name: 'chain',
    title: 'More agents: the four-agent math chain',
    config: `v=1&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr.+MAS&runs.1.estimator=drmas&${EVAL}&seeds=5`,
    workflow: 'examples/workflows/chain.yaml',
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
  train({
    name: 'spikes',
    title: 'The dial studies: (iv) the spike paradox on search',
    config:
      'v=1&task=search&seeds=5&eval.every=50&eval.k=16&runs=[]&runs.0.label=GRPO&runs.0.estimator=grpo&runs.1.label=Dr. MAS&runs.1.estimator=drmas&runs.2.label=mean-only&runs.2.estimator=custom&runs.2.advantage.unit=rows&runs.2.advantage.meanOver=group,agent&runs.2.advantage.stdOver=none&runs.3.label=Dr. MAS floor 0.1&runs.3.estimator=drmas&runs.3.advantage.eps=0.1',
    steps: 200,
    seeds: 5,
    tabled: true,
  }),
];

/** `link` with `key` set to `value`: the pair replaced where the link has it, appended where not. */
export function withField(link: string, key: string, value: string): string {
  const parts = link.split('&');
  const at = parts.findIndex((p) => decodeURIComponent(p.slice(0, p.indexOf('='))) === key);
  if (at < 0) return `${link}&${key}=${value}`;
  parts[at] = `${key}=${value}`;
  return parts.join('&');
}

/** A smoke run's reductions: every study at `steps`, with `seeds` per run (null: the study's own). */
export interface Overrides {
  steps: number | null;
  seeds: number | null;
}

/** The study as this invocation runs it: steps and seeds overridden for a smoke run. */
export function asRun(study: Study, o: Overrides): Study {
  return {
    ...study,
    steps: o.steps ?? study.steps,
    seeds: o.seeds ?? study.seeds,
    config: o.seeds === null ? study.config : withField(study.config, 'seeds', String(o.seeds)),
  };
}

/** A sweep's cell count: the cartesian product of its dials (as planCells makes it). */
export const cellCount = (study: Study): number =>
  study.grid.reduce(
    (n, dial) => n * dial.slice(dial.indexOf('=') + 1).split(dial.includes(';') ? ';' : ',').length,
    1,
  );

/** One piece of work: a train folder, or one cell of a sweep run as `--shard cell/cells` into a folder of its own. */
export interface Unit {
  study: Study;
  /** 0 for a train study; the cell's index for a sweep. */
  cell: number;
  /** The folder the command writes (under --out). */
  dir: string;
  /** The lab arguments that start it, and, run again, go on with it. */
  args: string[];
}

/** Where a study's folders go: OUT/<name>/run (train) or OUT/<name>/cell-<i> and the merged OUT/<name>/all (sweep). */
export const trainDir = (out: string, s: Study) => `${out}/${s.name}/run`;
export const cellDir = (out: string, s: Study, cell: number) => `${out}/${s.name}/cell-${cell}`;
export const mergedDir = (out: string, s: Study) => `${out}/${s.name}/all`;
/** The folder `lab report` reads for the study's table. */
export const reportDir = (out: string, s: Study) =>
  s.kind === 'train' ? trainDir(out, s) : mergedDir(out, s);

/** `--workflow F` where the study names a workflow file. */
const workflowArgs = (s: Study): string[] => (s.workflow ? ['--workflow', s.workflow] : []);

/** Every unit of `studies`, in manifest order: a train study is one, a sweep one per cell. */
export function units(studies: readonly Study[], out: string): Unit[] {
  return studies.flatMap((s): Unit[] => {
    if (s.kind === 'train') {
      const dir = trainDir(out, s);
      return [
        {
          study: s,
          cell: 0,
          dir,
          args: [
            'train',
            '--config',
            s.config,
            ...workflowArgs(s),
            '--steps',
            String(s.steps),
            '--out',
            dir,
            '--quiet',
          ],
        },
      ];
    }
    const count = cellCount(s);
    return Array.from({ length: count }, (_, cell) => {
      const dir = cellDir(out, s, cell);
      const grid = s.grid.flatMap((g) => ['--grid', g]);
      return {
        study: s,
        cell,
        dir,
        args: [
          'sweep',
          '--config',
          s.config,
          ...workflowArgs(s),
          ...grid,
          '--steps',
          String(s.steps),
          '--shard',
          `${cell}/${count}`,
          '--out',
          dir,
          '--quiet',
        ],
      };
    });
  });
}

/** The i-th of n slices of the units (units i, i+n, i+2n, …), as `lab sweep --shard` slices cells. */
export const shardUnits = (all: readonly Unit[], shard: { index: number; count: number } | null): Unit[] =>
  shard ? all.filter((_, i) => i % shard.count === shard.index) : [...all];

/** `npm run lab -- …` as a user types it. */
export const labCommand = (args: readonly string[]): string =>
  `npm run lab -- ${args.map(shellWord).join(' ')}`;

/**
 * The study as one command per step, what docs/findings.md prints with its table: the whole
 * train or sweep (unsharded), then the report; the sharded form `npm run studies` runs is the
 * same cells, merged.
 */
export function studyCommands(s: Study, out: string): string[] {
  const dir = reportDir(out, s);
  const main =
    s.kind === 'train'
      ? ['train', '--config', s.config, ...workflowArgs(s), '--steps', String(s.steps), '--out', dir]
      : [
          'sweep',
          '--config',
          s.config,
          ...workflowArgs(s),
          ...s.grid.flatMap((g) => ['--grid', g]),
          '--steps',
          String(s.steps),
          '--out',
          dir,
        ];
  return [
    labCommand(main),
    labCommand(['report', dir]),
    ...(s.medians.length ? [`npm run agent-medians -- ${[dir, ...s.medians].map(shellWord).join(' ')}`] : []),
  ];
}

/** Where `npm run studies` itself ran: the moment and checkout the table was written at. */
export interface Writer {
  date: string;
  commit: string | null;
  dirty: boolean | null;
}

/**
 * A table file's header, `# `-prefixed lines: the study, when and at which commit it was written,
 * every machine its folders say they ran on (machine.json; each distinct one once, with how many
 * folders), and the commands. A smoke run says it is one.
 */
export function tableHeader(
  s: Study,
  out: string,
  writer: Writer,
  machines: readonly (readonly Machine[])[],
  smoke: Overrides,
): string[] {
  const commit = writer.commit
    ? `${writer.commit.slice(0, 7)}${writer.dirty ? ' (tree dirty)' : ' (tree clean)'}`
    : 'no git commit';
  const seen = new Map<string, number>();
  let unrecorded = 0;
  for (const folder of machines) {
    if (!folder.length) unrecorded++;
    for (const line of new Set(folder.map(machineLine))) seen.set(line, (seen.get(line) ?? 0) + 1);
  }
  const n = (k: number) => `${k} folder${k === 1 ? '' : 's'}`;
  const reduced = [
    smoke.steps !== null && `--steps ${smoke.steps}`,
    smoke.seeds !== null && `--seeds ${smoke.seeds}`,
  ].filter(Boolean);
  return [
    `# ${s.name}: ${s.title} (docs/findings.md), ${s.kind === 'train' ? 'one train folder' : `${cellCount(s)} sweep cells`}, ${s.steps} steps, ${s.seeds} seed${s.seeds === 1 ? '' : 's'}`,
    ...(reduced.length ? [`# SMOKE RUN (${reduced.join(' ')}): not the study's numbers`] : []),
    `# written ${writer.date} by npm run studies at ${commit}`,
    ...[...seen].map(([line, k]) => `# ran at ${line} (${n(k)})`),
    ...(unrecorded ? [`# ran at: not recorded (${n(unrecorded)} without machine.json)`] : []),
    ...studyCommands(s, out).map((c) => `# ${c}`),
  ];
}
