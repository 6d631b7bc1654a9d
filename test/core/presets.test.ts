/**
 * The preset offered beside the sync control is the setting where the mechanism map found the
 * estimators part (docs/findings.md#the-dial-studies-where-does-agent-wise-normalization-start-to-matter):
 * its config must be the map's cell, or the figures its line quotes are not about it.
 */
import { describe, expect, it } from 'vitest';
import {
  PRESET_QUESTIONS,
  PRESETS,
  STARTER_IDS,
  experimentTitle,
  presetById,
  presetLine,
} from '../../src/core/presets';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { runsTitle } from '../../src/ui/config-edit';

describe('presets', () => {
  it('are named for what they compare, and a former id still opens its preset', () => {
    expect(PRESETS.map((p) => p.id).filter((id) => /issue/.test(id))).toEqual([]);
    expect(presetById('issue81')).toBe(presetById('step-vs-agent'));
    expect(presetById('step-vs-agent')!.config.runs.map((r) => r.estimator)).toEqual([
      'grpo',
      'global-step',
      'drmas',
    ]);
  });

  it('offers the map’s parting setting right after the sync control, as the map ran it', () => {
    const ids = PRESETS.map((p) => p.id);
    expect(ids.indexOf('sync-own-scaled')).toBe(ids.indexOf('sync') + 1);
    const c = presetById('sync-own-scaled')!.config;
    expect(c.task).toBe('sync-own');
    expect(c.models.assignment).toBe('per-agent');
    expect(c.reward.scale).toEqual({ alice: 8 });
    expect(c.runs.map((r) => r.estimator)).toEqual(['grpo', 'global-step', 'drmas']);
    // Its link carries the dial: a recipient trains the same cell.
    const back = decodeExperiment(encodeExperiment(c));
    expect(back.ok).toBe(true);
    expect(back.config.reward.scale).toEqual({ alice: 8 });
  });

  it('agents-own is the agents map’s sharpest cell as the study ran it, and its story quotes that cell', () => {
    const c = presetById('agents-own')!.config;
    expect(c.task).toBe('workflow');
    expect(c.workflow).toEqual({ family: 'parts', args: { agents: 6, mix: 1 } });
    expect(c.models.assignment).toBe('per-agent');
    expect(c.runs.map((r) => r.estimator)).toEqual(['grpo', 'global-step', 'drmas']);
    const back = decodeExperiment(encodeExperiment(c));
    expect(back.ok && back.config).toEqual(c);
    // The figures of the agents map's N = 6, mix = 1 cell (docs/findings.md, docs/studies/agents.txt).
    expect(presetById('agents-own')!.story).toMatch(
      /N = 6, own rewards: held-out success 0\.168 under Dr\. MAS against 0\.093 under GRPO, \+0\.075 \[0\.026, 0\.123\]/,
    );
    // Only presets a study measured carry a story.
    expect(PRESETS.filter((p) => p.story).map((p) => p.id)).toEqual([
      'sync',
      'sync-own-scaled',
      'agents-own',
    ]);
  });

  it('mars2-team: the same search for both runs, a team of two coders against the small coder alone', () => {
    const c = presetById('mars2-team')!.config;
    expect(c.task).toBe('coder-tester');
    expect(c.rollout).toMatchObject({ sampling: 'mcts', nodes: 8, filter: 'mixed' });
    expect(c.models.perAgent).toEqual({ coder: 'small' });
    expect(c.models.from).toEqual({ tester: 'coder' });
    expect(c.runs.map((r) => [r.estimator, r.rollout.arms])).toEqual([
      ['mars2', undefined],
      ['mars2', 'coder'],
    ]);
    const back = decodeExperiment(encodeExperiment(c));
    expect(back.ok && back.config).toEqual(c);
  });

  it('one experiment, one name: titles and their leads differ, and every export names a preset by its title', () => {
    const titles = PRESETS.map((p) => p.title);
    expect(new Set(titles).size).toBe(titles.length);
    // The words before ':' or '(' are what a reader remembers ("Where they part", "Own rewards, unscaled").
    const leads = titles.map((t) => t.split(/:| \(/)[0].trim().toLowerCase());
    expect(new Set(leads).size, leads.join(' | ')).toBe(leads.length);
    // No two presets are one experiment: a chart image, the Findings CSV and the picker agree.
    for (const p of PRESETS) expect(experimentTitle(p.config), p.id).toBe(p.title);
    // sync-own-scaled went by three names: "(sync-own)" in its title named its task, which read as
    // the id of another preset. A preset's id is its button's and the CLI's; no title holds one.
    expect(presetById('sync-own-scaled')!.title).toBe('Where they part: own rewards, Alice’s ×8');
    expect(presetById('sync-own')!.title).toBe('Own rewards, unscaled: where the dials start');
    const ids = new Set(PRESETS.map((p) => p.id));
    for (const p of PRESETS)
      for (const [, inside] of p.title.matchAll(/\(([^)]*)\)/g))
        for (const word of inside.split(/[\s,:]+/)) expect(ids.has(word), `${p.id}: ${p.title}`).toBe(false);
  });

  it('one order: a title names its runs as the header does, in the runs’ order (GRPO vs Dr. MAS)', () => {
    const def = presetById('drmas-vs-grpo')!;
    expect(def.title).toBe('GRPO vs Dr. MAS (search)');
    expect(runsTitle(def.config)).toBe('GRPO vs Dr. MAS, per agent, live');
    for (const p of PRESETS) {
      const labels = p.config.runs.map((r) => r.label);
      for (const m of p.title.matchAll(/([\w.\- ]+?) vs ([\w.\- ]+)/g)) {
        const [a, b] = [m[1], m[2]].map((side) =>
          labels.findIndex((l) => side.trim().endsWith(l) || side.trim().startsWith(l)),
        );
        if (a >= 0 && b >= 0) expect(a, `${p.id}: ${p.title}`).toBeLessThan(b);
      }
    }
  });

  it('three starters first, every other preset under one question, none twice or left out', () => {
    const listed = [...STARTER_IDS, ...PRESET_QUESTIONS.flatMap((q) => q.ids)];
    expect([...listed].sort()).toEqual(PRESETS.map((p) => p.id).sort());
    expect(new Set(listed).size).toBe(listed.length);
    // The default experiment is a starter: a newcomer's first Train is one of the three.
    expect(STARTER_IDS).toContain(PRESETS[0].id);
  });

  it("a preset's one line is what it tests; what to look for is the rest of its words", () => {
    for (const p of PRESETS) {
      const { tests, lookFor } = presetLine(p);
      expect(tests.length, p.id).toBeGreaterThan(10);
      expect(tests, p.id).not.toMatch(/Look for/);
      expect(`${tests} ${lookFor}`.trim().toLowerCase(), p.id).toBe(
        p.lookFor.replace(/^Tests: /, '').toLowerCase(),
      );
    }
    expect(presetLine(presetById('sync')!)).toEqual({
      tests:
        'The control: each agent acts once on one shared reward, so GRPO and Dr. MAS compute the same advantages.',
      lookFor: 'Look for: the two runs’ curves on top of each other, step for step.',
    });
    expect(presetLine(presetById('mean-only')!).tests).toBe('Is it the division by σ_k?');
  });
});
