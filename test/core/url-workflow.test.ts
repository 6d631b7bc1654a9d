/**
 * A workflow in a link (docs/links.md#a-workflow-in-a-link): packed into `wf=` when it fits, named
 * by its SHA-256 (`wfhash=`) otherwise, and every malformed or oversized form refused by name.
 */
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPERIMENT, structuralKey, type Experiment } from '../../src/core/config';
import { validateExperiment } from '../../src/core/config-validate';
import { decodeExperiment, encodeExperiment, encodeLink, linkWorkflowHash } from '../../src/core/url';
import { MAX_WORKFLOW_LINK_LENGTH } from '../../src/core/url-pairs';
import { splitSweep } from '../../src/core/url-sweep';
import {
  MAX_PACKED,
  packWorkflow,
  rememberWorkflow,
  unpackWorkflow,
  workflowHash,
} from '../../src/core/workflow/pack';
import type { WorkflowSpec } from '../../src/core/workflow/families';
import type { Workflow } from '../../src/core/workflow/schema';
import { EXAMPLES, exampleWorkflow } from '../tasks/workflow-examples';

const withWorkflow = (workflow: WorkflowSpec): Experiment => {
  const r = validateExperiment({ ...DEFAULT_EXPERIMENT, task: 'workflow', workflow });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};

/** base64url of bytes, as a link would carry a hand-made packed value. */
const b64url = (bytes: Uint8Array) =>
  Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A workflow with `n` inline rows: too large to pack into a link past a few hundred. */
function bigWorkflow(n: number): Workflow {
  const wf = exampleWorkflow('relay');
  const rows = Array.from({ length: n }, (_, i) => ({ word: `w${i.toString(36)}x${(i * 7919) % 997}` }));
  return { ...wf, name: `big-${n}`, data: { rows } };
}

describe('a workflow in a link', () => {
  it('carries every example packed in one wf= pair, under 8 KB, and reads it back exactly', () => {
    for (const name of EXAMPLES) {
      const exp = withWorkflow(exampleWorkflow(name));
      const link = encodeExperiment(exp);
      expect(link).toMatch(/&wf=[A-Za-z0-9_-]+$/);
      expect(link).not.toContain('workflow.');
      expect(link.length).toBeLessThan(MAX_WORKFLOW_LINK_LENGTH);
      const back = decodeExperiment(link);
      expect(back.ok && structuralKey(back.config)).toBe(structuralKey(exp));
      expect(back.ok && back.config.workflow).toEqual(exp.workflow);
    }
  });

  it("carries a family's file as its family and arguments, not the whole workflow", () => {
    const exp = withWorkflow({ family: 'parts', args: { agents: 6, mix: 0.5 } });
    const link = encodeExperiment(exp);
    expect(link.length).toBeLessThan(150);
    const back = decodeExperiment(link);
    expect(back.ok && back.config.workflow).toEqual({ family: 'parts', args: { agents: 6, mix: 0.5 } });
  });

  it('names a workflow too large to pack by its SHA-256, and opens it once the workflow is known', () => {
    const wf = bigWorkflow(3000);
    expect(packWorkflow(wf).length).toBeGreaterThan(MAX_PACKED);
    const exp = withWorkflow(wf);
    const link = encodeExperiment(exp);
    expect(link).toMatch(new RegExp(`&wfhash=${workflowHash(wf)}$`));
    expect(linkWorkflowHash(`#${link}`)).toBe(workflowHash(wf));
    expect(link.length).toBeLessThan(2048);
    const unknown = decodeExperiment(link);
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.errors).toEqual([
      {
        path: 'wfhash',
        message: `names its workflow by its SHA-256 (${workflowHash(wf).slice(0, 12)}…), too large to carry in a link: open the workflow file it names`,
      },
    ]);
    rememberWorkflow(wf);
    const known = decodeExperiment(link);
    expect(known.ok && known.config.workflow).toEqual(wf);
  });

  it('lets workflow.… pairs patch the packed workflow (a sweep over its mix)', () => {
    const exp = withWorkflow(exampleWorkflow('relay'));
    const r = decodeExperiment(`${encodeExperiment(exp)}&workflow.mix=0`);
    const wf = r.ok ? (r.config.workflow as Workflow) : null;
    expect(wf?.mix).toBe(0);
    expect(wf?.agents).toEqual((exp.workflow as Workflow).agents);
    // A sweep dial over it splits off as any other.
    const swept = splitSweep(encodeLink(exp, [{ key: 'workflow.mix', values: ['0', '1'] }]));
    expect(swept.errors).toEqual([]);
    expect(swept.sweep).toEqual([{ key: 'workflow.mix', values: ['0', '1'] }]);
  });

  it('refuses a malformed packed workflow, saying what is wrong', () => {
    const refusal = (packed: string) => {
      const r = decodeExperiment(`v=1&task=workflow&wf=${packed}`);
      return r.ok ? 'accepted' : r.errors.map((e) => `${e.path}: ${e.message}`).join(' | ');
    };
    const good = packWorkflow(exampleWorkflow('relay'));
    expect(refusal(good)).toBe('accepted');
    expect(refusal('abc$def')).toBe(
      'wf: is not a workflow this lab reads (the packed workflow: not base64url text (A–Z, a–z, 0–9, - and _))',
    );
    expect(refusal(good.slice(0, good.length - 20))).toBe(
      'wf: is not a workflow this lab reads (the packed workflow: is not deflated data (cut short or altered?))',
    );
    const pack = (text: string) => b64url(deflateSync(new TextEncoder().encode(text)));
    expect(refusal(pack('[1, 2'))).toBe(
      'wf: is not a workflow this lab reads (the packed workflow: does not unpack to JSON)',
    );
    // A deflate bomb: 4 MB of spaces packs into a few KB, and is stopped at 256 KB.
    const bomb = pack(' '.repeat(4 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(MAX_PACKED);
    expect(refusal(bomb)).toBe(
      'wf: is not a workflow this lab reads (the packed workflow: unpacks to over 256 KB, the limit)',
    );
    // A well-formed package of a bad workflow names the field, with the hint for a misspelt key.
    const wf = { ...exampleWorkflow('relay'), mixx: 0.5 };
    expect(refusal(pack(JSON.stringify(wf)))).toBe(
      'wf: is not a workflow this lab reads (mixx: unknown field; did you mean mix?)',
    );
    expect(unpackWorkflow('A'.repeat(MAX_PACKED + 1))).toMatchObject({
      ok: false,
      issues: [{ message: expect.stringContaining(`a link carries at most ${MAX_PACKED}`) }],
    });
  });

  it('refuses an oversized link, both wf= and wfhash=, and a hash that is no SHA-256', () => {
    const long = `v=1&task=workflow&wf=${'A'.repeat(MAX_WORKFLOW_LINK_LENGTH)}`;
    expect(decodeExperiment(long)).toMatchObject({
      ok: false,
      errors: [
        {
          path: '(hash)',
          message: `${long.length} characters; the limit is ${MAX_WORKFLOW_LINK_LENGTH} for a link that carries its workflow`,
        },
      ],
    });
    // Without a packed workflow, the usual limit holds.
    expect(decodeExperiment(`v=1&optim.lr=${'1'.repeat(2100)}`)).toMatchObject({
      ok: false,
      errors: [{ path: '(hash)', message: expect.stringMatching(/the limit is 2048$/) }],
    });
    const packed = packWorkflow(exampleWorkflow('relay'));
    expect(
      decodeExperiment(`v=1&task=workflow&wf=${packed}&wfhash=${workflowHash(exampleWorkflow('relay'))}`),
    ).toMatchObject({
      ok: false,
      errors: [{ path: 'wfhash', message: 'a link carries its workflow once: wf= or wfhash=, not both' }],
    });
    expect(decodeExperiment('v=1&task=workflow&wfhash=xyz')).toMatchObject({
      ok: false,
      errors: [{ path: 'wfhash', message: "a workflow's SHA-256: 64 hex digits", got: 'xyz' }],
    });
  });
});
