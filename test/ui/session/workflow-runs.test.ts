/**
 * A workflow experiment's runs, as the controller starts them: each run's `start` carries the
 * workflow's dataset file (its worker registers the rows by SHA-256 before it builds the run) and
 * the base models prepared for it, as uploaded checkpoints would be; checkpoint files the user chose
 * win over them. Node has no Web Worker: each worker only keeps what it is sent.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT } from '../../../src/core/config';
import { validateExperiment } from '../../../src/core/config-validate';
import { SessionController } from '../../../src/ui/session/controller';
import { resetLab, setConfig } from '../../../src/ui/session/store';
import { readWorkflowFiles } from '../../../src/tasks/workflow-files';
import { expandWorkflow } from '../../../src/core/workflow/families';
import type { ToWorker } from '../../../src/workers/protocol';

class KeepingWorker {
  onmessage = null;
  onerror = null;
  readonly sent: ToWorker[] = [];
  postMessage(msg: ToWorker): void {
    this.sent.push(msg);
  }
  terminate(): void {}
}

const bytes = (path: string) => new Uint8Array(readFileSync(path)).buffer;
let made: SessionController | null = null;
beforeEach(() => resetLab());
afterEach(() => {
  made?.reset();
  made?.writer.close();
});

it('gives every run the dataset and the prepared base models, and chosen checkpoints instead of them', async () => {
  const workers: KeepingWorker[] = [];
  const controller = (made = new SessionController({
    workers: { newWorker: () => (workers.push(new KeepingWorker()), workers.at(-1) as unknown as Worker) },
  }));
  const csv = bytes('examples/workflows/relay.csv');
  const read = readWorkflowFiles({
    workflow: { name: 'relay.yaml', bytes: bytes('examples/workflows/relay.yaml') },
    data: { name: 'relay.csv', bytes: csv },
  });
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  const exp = validateExperiment({ ...DEFAULT_EXPERIMENT, task: 'workflow', workflow: read.workflow });
  if (!exp.ok) throw new Error(JSON.stringify(exp.errors));
  const data = expandWorkflow(read.workflow).data;
  const sha256 = 'file' in data ? data.sha256! : '';
  await controller.workflows.keepData(sha256, { file: 'relay.csv', bytes: csv });
  const files = ['ann', 'ben', 'cal'].map((a) => ({ name: `${a}.ckpt`, bytes: new ArrayBuffer(8) }));
  await controller.workflows.keepBase(exp.config, {
    files,
    steps: 20,
    success: 0,
    own: {},
    short: true,
    seconds: 1,
  });
  setConfig(exp.config);

  controller.play();
  await new Promise((ok) => setTimeout(ok, 0));
  const starts = workers.flatMap((w) => w.sent.filter((m) => m.type === 'start'));
  expect(starts).toHaveLength(2); // GRPO and Dr. MAS
  for (const s of starts) {
    expect(s.dataset?.file).toBe('relay.csv');
    expect(new Uint8Array(s.dataset!.bytes)).toEqual(new Uint8Array(csv));
    expect(s.uploads?.map((u) => u.name)).toEqual(['ann.ckpt', 'ben.ckpt', 'cal.ckpt']);
  }

  // Checkpoint files the user chose start the next session instead.
  controller.reset();
  await controller.chooseCheckpoints([new File([new Uint8Array(8)], 'mine-ann.ckpt')]);
  controller.play();
  await new Promise((ok) => setTimeout(ok, 0));
  const again = workers.slice(2).flatMap((w) => w.sent.filter((m) => m.type === 'start'));
  expect(again.map((s) => s.uploads?.map((u) => u.name))).toEqual([['mine-ann.ckpt'], ['mine-ann.ckpt']]);
  expect(again.every((s) => s.dataset?.file === 'relay.csv')).toBe(true);
});
