/**
 * The lab's one character vocabulary, shared by every task and every policy.
 *
 * Everything an agent reads or writes is a plain string. Special tokens (BOS, EOS, PAD, the
 * environment-feedback markers and one role token per agent role) are single reserved
 * characters from the Unicode private-use area, so a task builds prompts by string
 * concatenation and the tokenizer (src/model) is a char → id table. Pure: no tfjs, no DOM.
 */

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
 * Every agent role of every task. A role token ends a prompt and tells a shared model which
 * agent it is playing. Ids are part of shipped checkpoints, and role tokens come before CHARSET
 * in VOCAB, so any new role (even one appended here) shifts every character id and invalidates
 * every shipped checkpoint: new tasks reuse these roles (plan: solver plans, coder executes).
 */
export const ROLES = ['verifier', 'search', 'answer', 'solver', 'coder', 'tester', 'alice', 'bob'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_BASE = 0xe010;
/** The role token (one character) for `role`. */
export function roleToken(role: Role): string {
  return String.fromCharCode(ROLE_BASE + ROLES.indexOf(role));
}

/** The vocabulary in id order: specials, role tokens, then CHARSET. Id 0 is PAD. */
export const VOCAB: readonly string[] = [
  SPECIAL.PAD,
  SPECIAL.BOS,
  SPECIAL.EOS,
  SPECIAL.ENV,
  SPECIAL.ENV_END,
  ...ROLES.map(roleToken),
  ...CHARSET,
];

/** Human-readable form of a string that may hold special tokens, for logs and the UI. */
export function showTokens(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch === SPECIAL.PAD) out += '';
    else if (ch === SPECIAL.BOS) out += '⟨bos⟩';
    else if (ch === SPECIAL.EOS) out += '⟨eos⟩';
    else if (ch === SPECIAL.ENV) out += '⟨env⟩';
    else if (ch === SPECIAL.ENV_END) out += '⟨/env⟩';
    else if (code >= ROLE_BASE && code < ROLE_BASE + ROLES.length) out += `⟨${ROLES[code - ROLE_BASE]}⟩`;
    else out += ch;
  }
  return out;
}
