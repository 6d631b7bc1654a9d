/**
 * A result file's body checked: against its schema (result-format.ts), then what no schema says:
 * each experiment one this lab can open, each run of an experiment that is there, each frame as
 * long as its key table with its steps whole and ascending. What is not so is refused with a
 * ResultRefused naming the field (`runs.3.frames.17: …`). Prototype keys and deep nesting never
 * reach here: result-file.ts refuses them in the text. Pure.
 */
import { fieldErrorsText, validateExperiment } from '../core/config-validate';
import type { Experiment } from '../core/config';
import { M } from '../core/metrics';
import { ResultRefused, resultSchema } from './result-format';
import type { ResultBody, ResultRun } from './result-format';

/** A run's frames as Float64Arrays (null → NaN), each as long as its key table, steps whole and ascending. */
function framesOf(r: { keys: string[]; frames: unknown[] }, at: string): Float64Array[] {
  if (r.keys.length === 0 || new Set(r.keys).size !== r.keys.length)
    throw new ResultRefused(`${at}.keys: empty, or a key is there twice`);
  const step = r.keys.indexOf(M.step);
  if (step < 0) throw new ResultRefused(`${at}.keys: no "${M.step}"`);
  let last = -1;
  return r.frames.map((f, j) => {
    if (!Array.isArray(f) || f.length !== r.keys.length)
      throw new ResultRefused(`${at}.frames.${j}: not a list of ${r.keys.length} values, one per key`);
    const out = new Float64Array(f.length);
    for (let k = 0; k < f.length; k++) {
      const v: unknown = f[k];
      if (v === null) out[k] = NaN;
      else if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
      else throw new ResultRefused(`${at}.frames.${j}.${k}: not a finite number or null`);
    }
    if (!Number.isSafeInteger(out[step]) || out[step] <= last)
      throw new ResultRefused(`${at}.frames.${j}: its step is not a whole number after the one before`);
    last = out[step];
    return out;
  });
}

/** The body as the lab wrote it, or a ResultRefused naming the first field that is not. */
export function checkBody(json: unknown): ResultBody {
  const parsed = resultSchema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new ResultRefused(`${issue.path.join('.') || 'its body'}: ${issue.message}`);
  }
  const b = parsed.data;
  if (b.experiments.length === 0) throw new ResultRefused('experiments: none');
  const experiments = b.experiments.map((e, i) => {
    let experiment: Experiment | null = null;
    if (e.experiment !== null) {
      const v = validateExperiment(e.experiment);
      if (!v.ok) throw new ResultRefused(`experiments.${i}.experiment: ${fieldErrorsText(v.errors)}`);
      experiment = v.config;
    }
    if (b.sweep && !e.params)
      throw new ResultRefused(`experiments.${i}.params: a sweep cell without its dials`);
    return { ...e, experiment };
  });
  const runs = b.runs.map((r, i): ResultRun => {
    const of = experiments[r.experiment];
    if (!of) throw new ResultRefused(`runs.${i}.experiment: there is no experiment ${r.experiment}`);
    const runs = of.experiment?.runs.length ?? 0;
    if (of.experiment ? r.runIndex < 0 || r.runIndex >= runs : r.runIndex !== -1)
      throw new ResultRefused(`runs.${i}.runIndex: not a run of its experiment`);
    return { ...r, frames: framesOf(r, `runs.${i}`) };
  });
  return { ...b, experiments, runs };
}
