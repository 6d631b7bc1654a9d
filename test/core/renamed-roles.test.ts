/**
 * plan's agents are `planner` and `executor`; links, configs and session folders written when they ran
 * as `solver` and `coder` open with today's names and one note saying so.
 */
import { describe, expect, it } from 'vitest';
import { validateExperiment } from '../../src/core/config-validate';
import { metricKeys } from '../../src/core/metrics';
import { renameMetricKey } from '../../src/core/renamed-roles';
import { decodeExperiment, encodeExperiment } from '../../src/core/url';
import { getTask } from '../../src/tasks/registry';
import { modelSlots } from '../../src/sizing/slots';

describe("plan's role names", () => {
  it('are planner and executor in its agents, model ids and metric keys', () => {
    const agents = getTask('plan').agents.map((a) => a.role);
    expect(agents).toEqual(['planner', 'executor']);
    const exp = validateExperiment({ task: 'plan' });
    if (!exp.ok) throw new Error('default plan experiment refused');
    expect(modelSlots(exp.config).map((s) => s.id)).toEqual(['planner', 'executor']);
    const keys = metricKeys(agents, agents, 8);
    expect(keys).toContain('agent/planner/grad_norm');
    expect(keys).toContain('model/executor/grad_norm');
    expect(keys.filter((k) => /solver|coder/.test(k))).toEqual([]);
  });

  it('an old link with solver and coder on plan opens under the new names, with a note', () => {
    const r = decodeExperiment(
      '#v=1&task=plan&optim.perAgent.solver.lr=0.002&reward.scale.coder=2&runs.0.reward.offset.solver=-0.5',
    );
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.note).toBe("plan's agents were renamed: read coder → executor, solver → planner");
    expect(r.config.optim.perAgent).toEqual({ planner: { lr: 0.002 } });
    expect(r.config.reward.scale).toEqual({ executor: 2 });
    expect(r.config.runs[0].reward.offset).toEqual({ planner: -0.5 });
    // The link written back names today's roles, and reads without a note.
    const hash = encodeExperiment(r.config);
    expect(hash).toContain('optim.perAgent.planner.lr=0.002');
    expect(hash).not.toMatch(/solver|coder/);
    const again = decodeExperiment(hash);
    expect(again.ok && again.note).toBeUndefined();
  });

  it('renames model ids and sizes in a JSON config, and only on plan', () => {
    const r = validateExperiment({
      task: 'plan',
      models: { ids: { solver: 'solver', coder: 'solver' }, perAgent: { coder: 'small' } },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.config.models.ids).toEqual({ planner: 'planner', executor: 'planner' });
    expect(r.config.models.perAgent).toEqual({ executor: 'small' });
    // math's solver is math's own role: left as it is, no note.
    const math = decodeExperiment('v=1&task=math&reward.scale.solver=2');
    expect(math.ok && math.config.reward.scale).toEqual({ solver: 2 });
    expect(math.ok && math.note).toBeUndefined();
  });

  it('refuses a link that gives one dial under both names, naming both', () => {
    const r = decodeExperiment('v=1&task=plan&reward.scale.solver=2&reward.scale.planner=3');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      {
        path: 'reward.scale.solver',
        message: "solver is plan's planner now, also given as reward.scale.planner: give one",
        got: '2',
      },
    ]);
  });

  it("reads a session folder's metric keys under the new names on plan only", () => {
    expect(renameMetricKey('agent/solver/grad_norm', 'plan')).toBe('agent/planner/grad_norm');
    expect(renameMetricKey('agent/coder/shadow/grpo/corr', 'plan')).toBe('agent/executor/shadow/grpo/corr');
    expect(renameMetricKey('model/coder/grad_norm', 'plan')).toBe('model/executor/grad_norm');
    expect(renameMetricKey('agent/solver/grad_norm', 'math')).toBe('agent/solver/grad_norm');
    expect(renameMetricKey('reward/mean', 'plan')).toBe('reward/mean');
  });
});
