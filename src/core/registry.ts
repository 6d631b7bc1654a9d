/**
 * What every registry of names (losses, KL types, credit modes, group filters, buffer modes,
 * advantage units) needs from its table: its keys, typed, for the schema's z.enum. Pure.
 */

/** The keys of a registry as a non-empty tuple, in entry order (what z.enum takes). */
export const namesOf = <R extends object>(r: R) =>
  Object.keys(r) as [keyof R & string, ...(keyof R & string)[]];
