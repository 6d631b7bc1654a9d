/**
 * Resumable run state: everything a RunTrainer needs to go on exactly where it stopped — the
 * experiment and which run of it, the step, the live hyper-parameters as they stand, per model
 * its weights, its AdamW moments and step, and (with a KL penalty) its frozen reference, and
 * (train.buffer=per-agent) the rows waiting in each agent's buffer.
 *
 * Every random draw of a step is seeded from (seed, step) — instances, rollouts, mini-batches —
 * so a run resumed from step s repeats the uninterrupted run's steps s, s+1, … bit for bit on the
 * same backend (tested on cpu). That is what makes a checkpoint every N steps enough for
 * recovering from a crash, a stop, or a lost GPU device.
 *
 * One framed binary file (checkpoint.ts's framing, magic AGWRUN01): a JSON manifest, then per
 * model [weights | m | v | ref?] as float32. One hash covers the header and the payload (an edited
 * step or live value is refused like a flipped weight), and each model's weights are checked again
 * by their own checkpoint manifest. A state names its run (experiment, index, label, seed), and
 * checkRunIdentity refuses it anywhere else.
 *
 * This module is the format alone: the types, packing and unpacking, the checks and the file.
 * `saveRunState` takes a trainer's state (one readback) and `resumeRunTrainer` builds the trainer
 * that goes on from one (trainer-state.ts): the trainer itself only trains.
 */
import type { Experiment } from '../core/config';
import type { LiveParam } from '../core/live-params';
import { uncarry, type CarriedFrames, type StepFrame } from '../core/carried-frames';
import { structuralKey } from '../core/config';
import { fieldErrorsText, validateExperiment } from '../core/config-validate';
import { LIVE_PARAMS } from '../core/live-params';
import type { Checkpoint, CheckpointHeader, CheckpointManifest } from '../model/checkpoint';
import { signCheckpoint, verifyCheckpoint } from '../model/checkpoint';
import { migrateParts } from './run-state-migration';
import { contentHash, decodeFramed, encodeFramed, hashWords, headerHash, shown } from '../core/signed-file';
import type { AdamWState } from '../model/optim';
import type { BufferedRow } from './buffers';

const RUN_STATE_FORMAT = 'agentwise-run';
/** 2: the hash covers the header too (version 1's covered the payload only). */
const RUN_STATE_VERSION = 2;
const MAGIC = 'AGWRUN01';
const WHAT = 'Agentwise run state';

interface ModelState {
  id: string;
  preset: string;
  agents: string[];
  /** The model's weights as a checkpoint manifest (config, shapes, their own hash). */
  weights: CheckpointManifest;
  /** AdamW's update count (its bias correction). */
  optStep: number;
  /** The frozen reference's manifest when one follows the moments in the payload (KL penalty on). */
  ref: CheckpointManifest | null;
}

export interface RunStateManifest {
  format: typeof RUN_STATE_FORMAT;
  version: number;
  experiment: Experiment;
  /** Index into experiment.runs. */
  runIndex: number;
  label: string;
  seed: number;
  /** Steps completed: the resumed run's next step. */
  step: number;
  /** Live hyper-parameters as they stood (they may differ from the experiment's). */
  live: Record<LiveParam, number>;
  /** Wall time trained so far, so `time_s` continues instead of restarting. */
  elapsedS: number;
  models: ModelState[];
  /** train.buffer=per-agent: each agent's waiting rows (absent otherwise, and in states saved before buffers). */
  buffers?: Record<string, BufferedRow[]>;
  byteLength: number;
  /** runStateHash of everything else in the manifest and of the payload. */
  hash: string;
  /** Free-form: backend, reason for the save. */
  notes: Record<string, unknown>;
}

export interface RunState {
  manifest: RunStateManifest;
  payload: ArrayBuffer;
}

/** One model's part of a run state, as arrays. */
interface ModelParts {
  state: ModelState;
  checkpoint: Checkpoint;
  moments: AdamWState;
  ref: Checkpoint | null;
}

/** Packs the parts into a run state; `meta` is everything in the manifest but models and sizes. */
export function packRunState(
  meta: RunStateMeta,
  parts: readonly {
    id: string;
    preset: string;
    agents: string[];
    checkpoint: Checkpoint;
    moments: AdamWState;
    ref: Checkpoint | null;
  }[],
): RunState {
  const chunks: Uint8Array[] = [];
  const models: ModelState[] = parts.map((p) => {
    chunks.push(new Uint8Array(p.checkpoint.weights), bytesOf(p.moments.m), bytesOf(p.moments.v));
    if (p.ref) chunks.push(new Uint8Array(p.ref.weights));
    return {
      id: p.id,
      preset: p.preset,
      agents: p.agents,
      weights: p.checkpoint.manifest,
      optStep: p.moments.step,
      ref: p.ref?.manifest ?? null,
    };
  });
  const payload = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    payload.set(c, offset);
    offset += c.length;
  }
  const header = {
    format: RUN_STATE_FORMAT,
    version: RUN_STATE_VERSION,
    ...meta,
    models,
    byteLength: payload.byteLength,
  } as const;
  return { manifest: { ...header, hash: runStateHash(header, payload) }, payload: payload.buffer };
}

/** A run state's manifest fields but its models and sizes: what packRunState and sealRunState are given. */
type RunStateMeta = Omit<RunStateManifest, 'format' | 'version' | 'models' | 'byteLength' | 'hash'>;

/**
 * A run state as read between two steps, before anything is hashed: the manifest's fields, per
 * model its checkpoint headers unsigned, and the payload in the file's layout (per model
 * weights | m | v | ref?). The page's run workers keep this after every step (hashing 4 MB in
 * plain JS cost more than the rest of the save together), with stateCheck's fast hash beside it;
 * sealRunState makes the file's RunState from it, bit for bit what packRunState would.
 */
export interface UnsealedRunState {
  meta: RunStateMeta;
  models: {
    id: string;
    preset: string;
    agents: string[];
    optStep: number;
    weights: CheckpointHeader;
    ref: CheckpointHeader | null;
  }[];
  payload: ArrayBuffer;
}

/** The signed RunState of an unsealed one: every checkpoint manifest signed, the state hashed. */
export function sealRunState(u: UnsealedRunState): RunState {
  let offset = 0;
  const take = (bytes: number) => u.payload.slice(offset, (offset += bytes));
  const models: ModelState[] = u.models.map((m) => {
    const n = m.weights.byteLength;
    const weights = signCheckpoint(m.weights, take(n)).manifest;
    offset += 2 * n; // m and v are covered by the state's hash alone
    const ref = m.ref ? signCheckpoint(m.ref, take(m.ref.byteLength)).manifest : null;
    return { id: m.id, preset: m.preset, agents: m.agents, weights, optStep: m.optStep, ref };
  });
  if (offset !== u.payload.byteLength)
    throw new Error(`run state payload holds ${u.payload.byteLength} bytes; its models need ${offset}`);
  const header = {
    format: RUN_STATE_FORMAT,
    version: RUN_STATE_VERSION,
    ...u.meta,
    models,
    byteLength: u.payload.byteLength,
  } as const;
  return { manifest: { ...header, hash: runStateHash(header, u.payload) }, payload: u.payload };
}

/**
 * The check a kept unsealed state carries (hashWords over the payload, folded into the JSON of
 * the rest, and of the frames it carries: src/core/carried-frames.ts): what storage gives back is
 * the state that was put, or it is refused.
 */
export function stateCheck(u: UnsealedRunState, frames?: CarriedFrames): string {
  const rest = { meta: u.meta, models: u.models, ...(frames ? { frames } : {}) };
  return headerHash(rest, hashWords(new Uint8Array(u.payload)));
}

/** The RunState of a kept unsealed one, once its check matches (throws, saying so, if not). */
export function openKeptState(u: UnsealedRunState, check: string, frames?: CarriedFrames): RunState {
  const got = stateCheck(u, frames);
  if (got !== check)
    throw new Error(
      `the kept run state does not match its check (${got}, kept ${shown(check)}): storage corrupted?`,
    );
  const state = sealRunState(u);
  verifyRunState(state);
  return state;
}

/**
 * A kept state opened (openKeptState: its check covers the frames it carries too) and those frames
 * (src/core/carried-frames.ts; none for a state that carries none). Throws, saying so, where either
 * does not read back.
 */
export function openKept(kept: { state: UnsealedRunState; check: string; frames?: CarriedFrames }): {
  state: RunState;
  frames: StepFrame[];
} {
  const state = openKeptState(kept.state, kept.check, kept.frames);
  const frames = kept.frames ? uncarry(kept.frames, kept.state.meta.step) : [];
  if (!frames) throw new Error('the kept run state carries frames that do not read back');
  return { state, frames };
}

/** The hash of a state (contentHash): a changed step, live value or label is caught like a changed weight. */
export function runStateHash(
  manifest: Omit<RunStateManifest, 'hash'> & { hash?: string },
  payload: ArrayBuffer | Uint8Array,
): string {
  return contentHash(manifest, payload);
}

/**
 * Throws, saying what is wrong, unless the state is whole and its parts fit each other. Returns
 * what the checks produced, the experiment as read today and the per-model parts, so a resume
 * does not validate and unpack a second time.
 */
export function verifyRunState(state: RunState): { experiment: Experiment; parts: ModelParts[] } {
  const m = state.manifest;
  if (m?.format !== RUN_STATE_FORMAT)
    throw new Error(`not an ${RUN_STATE_FORMAT} state (format is ${JSON.stringify(m?.format)})`);
  if (m.version !== RUN_STATE_VERSION)
    throw new Error(
      `run state version ${shown(m.version)} is not supported (this lab reads version ${RUN_STATE_VERSION})`,
    );
  if (!Number.isInteger(m.step) || m.step < 0)
    throw new Error(`run state step must be an integer ≥ 0, got ${shown(m.step)}`);
  for (const p of LIVE_PARAMS) {
    if (!Number.isFinite(m.live?.[p]))
      throw new Error(`run state's live parameter ${p} is missing or not finite`);
  }
  if (state.payload.byteLength !== m.byteLength) {
    throw new Error(
      `run state truncated or padded: ${state.payload.byteLength} payload bytes, manifest says ${shown(m.byteLength)}`,
    );
  }
  if (!Array.isArray(m.models)) throw new Error('run state lists no models');
  const bad = m.models.findIndex((ms) => typeof ms?.weights !== 'object' || ms.weights === null);
  if (bad >= 0) throw new Error(`run state's model ${bad} has no weights manifest`);
  const size = (x: unknown) => (typeof x === 'number' ? x : NaN);
  const need = m.models.reduce(
    (a, ms) => a + 3 * size(ms.weights.byteLength) + (ms.ref ? size(ms.ref.byteLength) : 0),
    0,
  );
  if (need !== m.byteLength)
    throw new Error(`run state's models need ${need} bytes; the manifest says ${shown(m.byteLength)}`);
  const hash = runStateHash(m, state.payload);
  if (hash !== m.hash) {
    throw new Error(
      `run state content hash mismatch: manifest says ${shown(m.hash)}, header and payload hash to ${hash} (corrupt or edited file?)`,
    );
  }
  // The experiment is validated after the hash: the costliest check, and moot for a corrupt file.
  const valid = validateExperiment(m.experiment);
  if (!valid.ok) throw new Error(`run state's experiment is invalid: ${fieldErrorsText(valid.errors)}`);
  if (!Number.isInteger(m.runIndex) || !valid.config.runs[m.runIndex])
    throw new Error(
      `run state names run ${shown(m.runIndex)}; its experiment has ${valid.config.runs.length}`,
    );
  const parts = unpackRunState(state);
  for (const part of parts) {
    try {
      verifyCheckpoint(part.checkpoint);
      if (part.ref) verifyCheckpoint(part.ref);
    } catch (e) {
      throw new Error(`model ${shown(part.state.id)}: ${(e as Error).message}`, { cause: e });
    }
  }
  return { experiment: valid.config, parts };
}

/** Which run of which experiment a state belongs to. */
interface RunIdentity {
  experiment: Experiment;
  /** Index into experiment.runs. */
  runIndex: number;
  seed: number;
}

/**
 * Throws, saying which part differs, unless `state` was saved by run `want`: the same run index,
 * label and seed, and the same experiment up to live hyper-parameters (the state carries its own)
 * and the step count (a resumed run may be given more steps). The CLI and the page both call it.
 */
export function checkRunIdentity(m: RunStateManifest, want: RunIdentity): void {
  const label = want.experiment.runs[want.runIndex]?.label;
  if (m.runIndex !== want.runIndex || m.label !== label || m.seed !== want.seed) {
    throw new Error(
      `holds run ${shown(m.runIndex)} (${shown(m.label)}, seed ${shown(m.seed)}); expected run ${want.runIndex} (${label}, seed ${want.seed})`,
    );
  }
  // Read as the CLI reads a config (an earlier build's role names renamed); verifyRunState checked it is valid.
  const valid = validateExperiment(m.experiment);
  const saved = valid.ok ? valid.config : m.experiment;
  const key = (e: Experiment) => structuralKey({ ...e, steps: 0 });
  if (key(saved) !== key(want.experiment)) {
    const differ = Object.keys(want.experiment).filter(
      (k) =>
        JSON.stringify((saved as Record<string, unknown>)[k]) !==
        JSON.stringify((want.experiment as Record<string, unknown>)[k]),
    );
    throw new Error(`saved for another experiment (differs in ${differ.join(', ')})`);
  }
}

/** The per-model parts. Call verifyRunState first. */
export function unpackRunState(state: RunState): ModelParts[] {
  let offset = 0;
  // slice copies: each part owns its bytes, aligned for Float32Array views.
  const take = (bytes: number) => {
    const view = state.payload.slice(offset, offset + bytes);
    offset += bytes;
    return view;
  };
  const parts = state.manifest.models.map((ms) => {
    const n = ms.weights.byteLength;
    const weights = take(n);
    const m = new Float32Array(take(n));
    const v = new Float32Array(take(n));
    return {
      state: ms,
      checkpoint: { manifest: ms.weights, weights },
      moments: { step: ms.optStep, m, v },
      ref: ms.ref ? { manifest: ms.ref, weights: take(ms.ref.byteLength) } : null,
    };
  });
  // A state of an earlier build: today's vocabulary and role names.
  return migrateParts(parts, String(state.manifest.experiment?.task));
}

/** The name of run `index`'s (in runRepeats order) state file, as `lab train` writes it under checkpoints/. */
export const stateFileName = (index: number, label: string): string =>
  `${index}-${label.replace(/[^A-Za-z0-9_-]+/g, '_')}.run`;

export function encodeRunState(state: RunState): Uint8Array {
  return encodeFramed(MAGIC, state.manifest, state.payload);
}

/** Parses and verifies a run-state file. */
export function decodeRunState(bytes: Uint8Array | ArrayBuffer): RunState {
  const { manifest, payload } = decodeFramed<RunStateManifest>(MAGIC, WHAT, bytes);
  const state = { manifest, payload };
  verifyRunState(state);
  return state;
}

function bytesOf(a: Float32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
