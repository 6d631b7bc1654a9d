/**
 * The policy-model layer's public API (issue 4). tfjs only: safe for browser workers and Node.
 * Node file I/O for checkpoints is separate (checkpoint-node.ts) so bundles never pull in node:fs.
 */
export { Tokenizer, tokenizer } from './tokenizer';
export { GPT, gptConfig, paramSpecs, PRESETS, MASK, type GPTConfig, type PresetName, type ParamSpec, type ForwardOptions } from './gpt';
export { bucket, packRows, scatterResponses, gatherResponses, toTensors, disposeBatch, tokenLogprobs, type TokenRow, type Packed, type PackOptions, type TokenBatch } from './logprobs';
export { sample, choose, type SampleOptions, type SampleResult, type Sample } from './sampler';
export { AdamW, globalNorm, clipCoef, type AdamWOptions } from './optim';
export { update, type LossTerm, type UpdateReport } from './update';
export { nextTokenLoss, supervisedStep } from './warmstart';
export { saveCheckpoint, loadCheckpoint, loadCheckpointInto, verifyCheckpoint, encodeCheckpoint, decodeCheckpoint, hashBytes, type Checkpoint, type CheckpointManifest } from './checkpoint';
