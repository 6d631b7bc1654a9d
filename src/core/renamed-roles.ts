/**
 * Reading what earlier builds wrote under a task's old role names (RENAMED_ROLES in vocab.ts:
 * `plan` ran its planner as `solver` and its executor as `coder`). A link, a JSON config or a run
 * folder's config.json that names an old role on that task opens with today's name and one note
 * saying so; a session folder's metric keys (`agent/solver/…`, `model/coder/…`) are read the same way.
 * Pure: no tfjs, no DOM.
 */
import { RENAMED_ROLES } from './vocab';

/** A JSON object (not null, not an array): what a config or a field group must be. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The note an opened config or folder gets when it named a task's old roles. */
function renamedNote(task: string, used: ReadonlySet<string>): string {
  const renames = RENAMED_ROLES[task];
  const said = [...used].sort().map((old) => `${old} → ${renames[old]}`);
  return `${task}'s agents were renamed: read ${said.join(', ')}`;
}

/**
 * `input` (an experiment as given, before validation) with every object key that is an old role
 * of its task renamed, at any depth (per-agent dials, optimizer overrides, model sizes, model ids
 * and live schedules alike), and model-id values too; `note` says which, or is null. A key given
 * under both names is kept under neither guess: `conflicts` names its old path.
 */
export function renameRolesInConfig(input: unknown): {
  input: unknown;
  note: string | null;
  conflicts: { path: string; message: string }[];
} {
  const conflicts: { path: string; message: string }[] = [];
  if (!isRecord(input) || typeof input.task !== 'string') return { input, note: null, conflicts };
  const task = input.task;
  const renames = RENAMED_ROLES[task];
  if (!renames) return { input, note: null, conflicts };
  const used = new Set<string>();
  const name = (k: string): string => {
    if (!Object.hasOwn(renames, k)) return k;
    used.add(k);
    return renames[k];
  };
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}.${i}`));
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const key = name(k);
      // A model id is a name like an agent's: `models.ids.coder=coder` keeps its agent's name.
      const value = path === '.models.ids' && typeof x === 'string' ? name(x) : walk(x, `${path}.${k}`);
      if (key !== k && Object.hasOwn(v, key)) {
        const at = `${path}.${k}`.slice(1);
        conflicts.push({
          path: at,
          message: `${k} is ${task}'s ${key} now, also given as ${at.replace(/[^.]+$/, key)}: give one`,
        });
        continue;
      }
      out[key] = value;
    }
    return out;
  };
  const renamed = walk(input, '');
  return { input: renamed, note: used.size ? renamedNote(task, used) : null, conflicts };
}

/** A metric key in today's role names: `agent/solver/…` or `model/solver/…` on plan is planner's. */
export function renameMetricKey(key: string, task: string): string {
  const renames = RENAMED_ROLES[task];
  if (!renames) return key;
  const m = /^(agent|model)\/([^/]+)\/(.*)$/.exec(key);
  return m ? `${m[1]}/${renameRole(m[2], task)}/${m[3]}` : key;
}

/** An agent's or model's name in today's role names (`solver` on plan is `planner`). */
export function renameRole(name: string, task: string): string {
  const renames = RENAMED_ROLES[task];
  return renames && Object.hasOwn(renames, name) ? renames[name] : name;
}
