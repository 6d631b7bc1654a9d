/**
 * The transformer as a tasks-layer Policy: tokenizes `BOS + prompt`, samples every pending call of
 * one model in a single batched KV-cache decode (one forward and one readback per new token), and
 * returns the text with the token ids and per-token log-probs the update needs. Each call's seed
 * comes from the orchestrator, so samples do not depend on how calls were batched.
 */
import { SPECIAL } from '../core/vocab';
import type { GPT } from '../model/gpt';
import { sample } from '../model/sampler';
import { tokenizer } from '../model/tokenizer';
import type { Policy } from '../tasks/orchestrator';

/** What a sampled row carries besides its text. */
export interface SampledTokens {
  /** BOS + prompt ids. */
  promptIds: number[];
  /** Sampled ids, EOS included when the model stopped. */
  responseIds: number[];
  /** log π_old of each response id under the sampling temperature. */
  oldLogp: number[];
  stop: 'eos' | 'length';
}

export interface PolicyCounters {
  forwards: number;
  readbacks: number;
  tokens: number;
}

/** A Policy backed by `model`; `counters` accumulates decode work for perf metrics. */
export function modelPolicy(model: GPT, counters: PolicyCounters): Policy<SampledTokens> {
  return async (calls, options) => {
    if (calls.length === 0) return [];
    const prompts = calls.map((c) => tokenizer.encode(SPECIAL.BOS + c.prompt));
    const maxNew = Math.max(...calls.map((c) => c.maxResponse)) + 1; // + EOS
    const r = await sample(model, prompts, {
      maxNewTokens: maxNew,
      seeds: calls.map((c) => c.seed),
      temperature: options.temperature,
      topP: options.topP,
      eos: tokenizer.eos,
      pad: tokenizer.pad,
    });
    counters.forwards += r.forwards;
    counters.readbacks += r.readbacks;
    return r.samples.map((s, i) => {
      // A call may allow fewer characters than the batch's longest: cut there, as if at its limit.
      const limit = calls[i].maxResponse + 1;
      const ids = s.tokens.slice(0, limit);
      const logp = s.logp.slice(0, limit);
      const stop = ids[ids.length - 1] === tokenizer.eos ? 'eos' : 'length';
      counters.tokens += ids.length;
      const textIds = stop === 'eos' ? ids.slice(0, -1) : ids;
      return {
        text: tokenizer.decode(textIds),
        promptIds: prompts[i],
        responseIds: ids,
        oldLogp: logp,
        stop,
      };
    });
  };
}
