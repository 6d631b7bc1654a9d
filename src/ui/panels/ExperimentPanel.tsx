/** The experiment decoded from the URL: presets, task, models, runs and hyper-parameters. */
import { PRESETS } from '../../core/presets';
import { chooseConfig, useLab } from '../store';

export function ExperimentPanel() {
  const c = useLab((s) => s.config);
  const rows: [string, string][] = [
    ['Task', c.task],
    ['Models', `${c.models.assignment}, ${c.models.preset}${Object.keys(c.models.perAgent).length ? ` (${Object.entries(c.models.perAgent).map(([a, p]) => `${a}: ${p}`).join(', ')})` : ''}, ${c.models.base === 'shipped' ? 'shipped base checkpoints' : 'from scratch'}`],
    ['Rollout', `B = ${c.rollout.batchSize} tasks × G = ${c.rollout.groupSize} rollouts, temperature ${c.rollout.temperature}, top-p ${c.rollout.topP}`],
    ['Optimizer', `AdamW lr ${c.optim.lr}, wd ${c.optim.weightDecay}, clip ${c.optim.clipLow}/${c.optim.clipHigh} (dual ${c.optim.dualClip}), ${c.optim.lossAgg}`],
    ['Advantage', `${c.advantage.normalizeStd ? 'std-normalized' : 'centered only'}, eps ${c.advantage.eps}, singletons ${c.advantage.singleton}`],
    ['Evaluation', c.eval.every ? `every ${c.eval.every} steps: avg@${c.eval.k} / pass@${c.eval.k} on ${c.eval.questions} questions` : 'off'],
    ['Steps · seed', `${c.steps} steps · seed ${c.seed}${c.seeds > 1 ? ` × ${c.seeds} seeds` : ''}`],
  ];
  return (
    <section className="panel" aria-labelledby="experiment-title">
      <h2 id="experiment-title">Experiment</h2>
      <div className="presets" role="group" aria-label="Presets">
        {PRESETS.map((p) => (
          <button key={p.id} type="button" title={p.blurb} onClick={() => chooseConfig(p.config)}>
            {p.title}
          </button>
        ))}
      </div>
      <dl className="summary" data-testid="experiment-summary">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd data-field={k}>{v}</dd>
          </div>
        ))}
      </dl>
      <h3>Runs</h3>
      <ul data-testid="runs">
        {c.runs.map((r, i) => (
          <li key={i}>
            <strong>{r.label}</strong> — estimator <code>{r.estimator}</code>
            {Object.keys(r.advantage).length + Object.keys(r.optim).length > 0 &&
              ` (overrides: ${JSON.stringify({ ...r.advantage, ...r.optim })})`}
          </li>
        ))}
      </ul>
    </section>
  );
}
