/**
 * The lab's one character vocabulary, shared by every task and every policy.
 *
 * Everything an agent reads or writes is a plain string. Special tokens (BOS, EOS, PAD, the
 * environment-feedback markers and one role token per agent role) are single reserved
 * characters from the Unicode private-use area, so a task builds prompts by string
 * concatenation and the tokenizer (src/model) is a char → id table. Pure: no tfjs, no DOM.
 */

/** Policies see at most this many tokens: BOS + prompt + response + EOS must fit. */
export const MAX_CONTEXT = 128;

/** Printable characters a task may put in a prompt or expect in a response. */
export const CHARSET = ' abcdefghijklmnopqrstuvwxyz0123456789.,:;?!=+-*/%()[]<>_|#\'"';

/** Structural special tokens, each one private-use character. */
export const SPECIAL = {
  PAD: '\uE000',
  BOS: '\uE001',
  EOS: '\uE002',
  /** Opens environment feedback appended to a context (retrieved facts, test results). */
  ENV: '\uE003',
  /** Closes environment feedback. */
  ENV_END: '\uE004',
} as const;

/**
 * The roles of the first vocabulary, ids 5–12, before CHARSET. They stay where they are: token ids
 * are part of every checkpoint, and moving them would move every character id.
 */
const FIRST_ROLES = ['verifier', 'search', 'answer', 'solver', 'coder', 'tester', 'alice', 'bob'] as const;

/**
 * Roles added since, in the reserved block after CHARSET (ROLE_BLOCK slots). Append only: a new
 * role takes the next free slot, so no token id moves and the vocabulary's size does not change.
 */
export const ADDED_ROLES = ['planner', 'executor'] as const;

/**
 * Role-token slots reserved after CHARSET. Every VOCAB holds all of them, used or not, so adding a
 * role changes no id and no shape; a checkpoint of the first vocabulary (73 ids, without the
 * block) is migrated on load (src/model/vocab-migration.ts).
 */
export const ROLE_BLOCK = 16;

/** Every agent role of every task. A role token ends a prompt and tells a shared model which agent it is playing. */
export const ROLES = [...FIRST_ROLES, ...ADDED_ROLES] as const;
/** A role of the lab's own tasks: one with a token of its own. */
export type BuiltinRole = (typeof ROLES)[number];
/**
 * An agent's name. The built-in tasks' agents are BuiltinRoles; a workflow's are the user's own
 * names, given tokens by agentTokens.
 */
export type Role = string;

/**
 * Roles a task used to borrow, by task: `plan` ran its planner as `solver` and its executor as
 * `coder` while a new role would have moved every token id. Old links, session folders and checkpoints
 * that name the old roles are read with these (src/core/renamed-roles.ts, src/model/vocab-migration.ts).
 */
export const RENAMED_ROLES: Readonly<Record<string, Readonly<Record<string, BuiltinRole>>>> = {
  plan: { solver: 'planner', coder: 'executor' },
};

const ROLE_BASE = 0xe010;

/**
 * The role tokens of `roles` (first roles, then added ones in order): slot k of either list is
 * the private-use character ROLE_BASE + k, first roles before CHARSET and added ones in the block.
 * Exported so a test can add a role and check that no id moves.
 */
export function roleTokensOf(added: readonly string[]): Map<string, string> {
  if (added.length > ROLE_BLOCK)
    throw new Error(
      `${added.length} added roles do not fit the ${ROLE_BLOCK} reserved role slots: widen ROLE_BLOCK (older checkpoints then migrate on load)`,
    );
  const tokens = new Map<string, string>();
  [...FIRST_ROLES, ...added].forEach((r, k) => tokens.set(r, String.fromCharCode(ROLE_BASE + k)));
  return tokens;
}

const TOKENS = roleTokensOf(ADDED_ROLES);
const ROLE_OF = new Map([...TOKENS].map(([r, t]) => [t, r]));

/** The role token (one character) for `role`. */
export function roleToken(role: Role): string {
  const token = TOKENS.get(role);
  if (token === undefined)
    throw new Error(
      `'${role}' is not a role of the lab's tasks: a workflow's agents take their tokens from agentTokens`,
    );
  return token;
}

/**
 * The role tokens of a workflow's agents, whose names are the user's: a name that is a role of
 * the lab's keeps that role's token (so `alice` in a workflow is the built-in alice, and shipped
 * models fit), and every other name takes the next free slot of the reserved block, in the
 * workflow's order. No id moves; a workflow's own base models learn what its slots mean.
 */
export function agentTokens(names: readonly string[]): Map<string, string> {
  const free = BLOCK.filter((ch) => !ROLE_OF.has(ch));
  const tokens = new Map<string, string>();
  for (const name of names) {
    const own = TOKENS.get(name);
    if (own !== undefined) tokens.set(name, own);
    else {
      const slot = free.shift();
      if (slot === undefined)
        throw new Error(
          `${names.length} agents need more than the ${ROLE_BLOCK - ADDED_ROLES.length} free role slots`,
        );
      tokens.set(name, slot);
    }
  }
  return tokens;
}

/** The reserved block's characters, used or not. */
const BLOCK = Array.from({ length: ROLE_BLOCK }, (_, k) =>
  String.fromCharCode(ROLE_BASE + FIRST_ROLES.length + k),
);

/** The vocabulary in id order: specials, the first roles, CHARSET, then the role block. Id 0 is PAD. */
export const VOCAB: readonly string[] = [
  SPECIAL.PAD,
  SPECIAL.BOS,
  SPECIAL.EOS,
  SPECIAL.ENV,
  SPECIAL.ENV_END,
  ...FIRST_ROLES.map(roleToken),
  ...CHARSET,
  ...BLOCK,
];

/** Human-readable form of a string that may hold special tokens, for logs and the UI. */
export function showTokens(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch === SPECIAL.PAD) out += '';
    else if (ch === SPECIAL.BOS) out += '⟨bos⟩';
    else if (ch === SPECIAL.EOS) out += '⟨eos⟩';
    else if (ch === SPECIAL.ENV) out += '⟨env⟩';
    else if (ch === SPECIAL.ENV_END) out += '⟨/env⟩';
    else if (ROLE_OF.has(ch)) out += `⟨${ROLE_OF.get(ch)}⟩`;
    else if (BLOCK.includes(ch)) out += '⟨free role slot⟩';
    else out += ch;
  }
  return out;
}
