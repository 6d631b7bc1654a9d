/**
 * The page of the auto-choice browser test: exposes `chooseAuto(budgetMs)`, which runs `auto`'s
 * selection (backend.ts) on the page with the software adapters timed too, so that SwiftShader's
 * WebGPU and WebGL are measured against wasm rather than skipped.
 */
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../../src/backends/backend';
import type { BackendReport } from '../../../src/backends/backend-types';
import { browserPlatform } from '../../../src/backends/platform-browser';

async function chooseAuto(budgetMs: number): Promise<BackendReport> {
  return selectBackend(tf, 'auto', browserPlatform, {
    preset: 'nano',
    timeAlone: true,
    timeSoftware: true,
    budgetMs,
  });
}

(globalThis as unknown as { chooseAuto: typeof chooseAuto }).chooseAuto = chooseAuto;
