// Lint = style + architecture. The layer rules keep tfjs out of the pure layers and the UI bundle
// (docs/architecture.md#layers; lint checks each module's own imports, and
// test/architecture/ui-bundle.test.ts walks the UI's to the end); the sync-read ban keeps WebGPU from stalling or dying (docs/backends.md#ops-to-avoid).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const syncReads = ['dataSync', 'arraySync', 'bufferSync'].map((name) => ({
  selector: `MemberExpression[property.name='${name}']`,
  message: `${name}() is banned in src/: it stalls WebGPU (and killed the SwiftShader device). Use one batched \`await t.data()\` per phase.`,
}));

/** Every folder of src/, for the layer rules: what a layer may not import is all the others. */
const LAYERS = [
  'core',
  'rl',
  'tasks',
  'sizing',
  'report',
  'interop',
  'model',
  'train',
  'backends',
  'workers',
  'storage',
  'host',
  'ui',
  'cli',
];

/** A pure layer: no tfjs, no UI library, no Node, and of src/ only the layers in `may`. */
const pure = (layer, may, why) => ({
  files: [`src/${layer}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['@tensorflow/*'],
            message: `src/${layer} is pure TypeScript: no tfjs (docs/architecture.md#layers).`,
          },
          {
            group: ['react', 'react-dom', 'zustand', 'recharts'],
            message: `src/${layer} is pure: no UI libraries.`,
          },
          {
            group: ['node:*', 'fs', 'path', 'os', 'child_process'],
            message: `src/${layer} runs in browsers too: no Node APIs.`,
          },
          {
            group: LAYERS.filter((l) => l !== layer && !may.includes(l)).map((l) => `**/${l}/**`),
            message: `src/${layer} imports only ${may.length ? may.map((l) => `src/${l}`).join(' and ') : 'itself'}: ${why} (docs/architecture.md#layers).`,
          },
        ],
      },
    ],
  },
});

/** A layer above the pure ones: what it may not import, and why. */
const above = (layer, forbidden, why) => ({
  files: [`src/${layer}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [{ group: forbidden.map((l) => `**/${l}/**`), message: `src/${layer} ${why}` }] },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'public/**', 'coverage/**', 'out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.worker, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['src/**/*.{ts,tsx}'], rules: { 'no-restricted-syntax': ['error', ...syncReads] } },
  {
    // Every store subscription is in src/ui/subscriptions.ts: importing a module starts nothing.
    files: ['src/ui/**/*.{ts,tsx}'],
    ignores: ['src/ui/subscriptions.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...syncReads,
        {
          selector: "CallExpression[callee.object.name='useLab'][callee.property.name='subscribe']",
          message:
            'Store subscriptions live in src/ui/subscriptions.ts: export the reaction and call it there.',
        },
      ],
    },
  },
  pure('core', [], 'it is the bottom layer, which every other one reads'),
  pure('rl', ['core'], 'estimators know no task, and src/train composes rl and tasks'),
  pure('tasks', ['core'], 'tasks know no estimator, and src/train composes rl and tasks'),
  {
    // The backend choice sits below the run workers: a worker starts its run on a backend, never
    // the reverse (docs/architecture.md#layers).
    files: ['src/backends/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workers/**', '**/storage/**', '**/ui/**', '**/cli/**', '**/host/**'],
              message:
                'src/backends chooses and sets up a backend: it imports no run worker, storage, UI or CLI.',
            },
          ],
        },
      ],
    },
  },
  // Run reporting: summaries, the seed comparison, What differs, a sweep's map and the metrics.jsonl
  // lines they read. Pure, over core and rl, so the CLI and the page report the same numbers.
  pure('report', ['core', 'rl'], 'run reporting reads summaries and frames, not tasks or models'),
  // What an experiment needs before anything is built: its models and its memory. Pure, over core
  // and tasks, so that the page sizes a config in its main bundle.
  pure('sizing', ['core', 'tasks'], 'sizing reads the task registry and nothing that builds a model'),
  // File formats of other tools (TensorBoard, W&B, Dr. MAS): pure codecs over core and tasks,
  // used by the CLI (with Node's files) and the page (with dropped files, in a worker).
  pure('interop', ['core', 'tasks'], "the codecs read the lab's names and tasks, nothing above"),
  // IndexedDB for the page and the run workers alike: it stores what it is given and knows no one.
  above(
    'storage',
    [
      'model',
      'train',
      'backends',
      'workers',
      'host',
      'ui',
      'cli',
      'rl',
      'tasks',
      'sizing',
      'report',
      'interop',
    ],
    'stores what it is given: it imports no model, trainer, worker, UI or CLI (docs/architecture.md#layers).',
  ),
  // The run workers sit below the page: the page starts them, never the reverse.
  above(
    'workers',
    ['ui', 'cli', 'host'],
    'holds the run workers and their page-side clients: it imports no UI, CLI or host (docs/architecture.md#layers).',
  ),
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tensorflow/*'],
              message:
                'The UI never imports tfjs: it talks to runs through src/workers/protocol (docs/architecture.md#layers).',
            },
            {
              group: ['**/model/**', '**/train/**', '**/cli/**'],
              message:
                'The UI reaches models and trainers only through the worker protocol (workers/protocol).',
            },
            {
              group: [
                '**/backends/backend',
                '**/backends/sanity',
                '**/backends/measure',
                '**/backends/platform-*',
                '**/backends/relaxed-simd-node',
                '**/workers/*.worker*',
                '**/workers/run-backend',
                '**/workers/base-models',
                '**/workers/env-pool-node',
              ],
              message:
                'These modules load tfjs or run only in a worker or Node: the UI imports their types from backends/backend-types or workers/protocol.',
            },
          ],
        },
      ],
    },
  },
);
