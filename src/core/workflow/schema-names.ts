/**
 * The names a workflow file gives: its agents' and its rows' fields. Apart from schema.ts so that
 * the stage and rule schemas, which schema.ts composes, can read them without an import circle. Pure.
 */
import { z } from 'zod';

/** An agent's name: the user's, used in charts, metric keys (`agent/<name>/…`) and links. */
export const workflowAgentName = z.string().regex(/^[a-z]{1,12}$/, 'lower-case letters, at most 12');

/** A row field's name. */
export const fieldName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,23}$/, 'lower-case letters, digits and _, at most 24');
