/**
 * What every registry of names (estimators, losses, KL types, samplings, tasks, credit modes, group
 * filters, buffer modes, advantage units) needs from its table: its keys, typed, for the schema's
 * z.enum, and one lookup that refuses an unknown name in one way. Pure.
 */

/** The keys of a registry as a non-empty tuple, in entry order (what z.enum takes). */
export const namesOf = <R extends object>(r: R) =>
  Object.keys(r) as [keyof R & string, ...(keyof R & string)[]];

/**
 * The entry of `registry` called `name`; an unknown name (an inherited one such as `toString`
 * included) throws `Unknown <what> '<name>'. Valid: <every key>.`, as verl's registries do.
 */
export function lookup<R extends object>(registry: R, what: string, name: string): R[keyof R] {
  if (!Object.hasOwn(registry, name))
    throw new Error(`Unknown ${what} '${name}'. Valid: ${Object.keys(registry).join(', ')}.`);
  return registry[name as keyof R];
}
