/**
 * A refusal in the words the page and the CLI share: what a field must be ("must be at least 2",
 * not zod's "Too small: expected number to be >=2"), what the input gave, and a hint. The one
 * home of this wording: the bad-link alert, the JSON editor, the inline and live fields, Train's
 * reasons (all through src/ui/field-labels.ts, which adds each field's label) and the CLI's
 * config errors (fieldErrorText) read it. Pure: no DOM, no Node.
 */
/** One problem with an input, named by its dotted path (e.g. `runs.1.estimator`). */
export interface FieldError {
  path: string;
  message: string;
  /** The link's own text for this key, where a link gave one (what the alert quotes back). */
  got?: string;
  /**
   * The legend label of the run the path lies in (`runs.1.…`), as the refused input itself gives
   * it: the page names the run by it ("Dr. MAS run: Estimator"), not by the runs on screen.
   */
  run?: string;
  /** For a key the experiment does not have: the field it most likely meant ("did you mean optim.lr?"). */
  hint?: string;
  /**
   * What `hint` suggests, to apply it (the page's link repair, src/ui/link-repair.ts): the key the
   * input most likely meant, which takes its value, or the value the field most likely meant.
   */
  meant?: { key: string } | { value: string };
}

/** zod's type names as a reader says them ("must be a number"). */
const KINDS: Record<string, string> = {
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  object: 'a group of fields',
  array: 'a list',
};

const BOUNDS = { '<=': 'at most', '<': 'less than', '>=': 'at least', '>': 'more than' } as const;

/**
 * A refusal in plain words, as what the field must be: "Too big: expected number to be <=32" →
 * "must be at most 32". A prefix the schema puts before zod's words
 * ("learning rate at step 179: ") is kept, unless `named`: the field's label already says the
 * field and the step ("GRPO run: Learning rate at step 179"). A message it does not know is
 * returned as it is.
 */
export function plainMessage(message: string, named = false): string {
  const [, prefix, rest] = /^(.* at step \S+: )?(.*)$/s.exec(message)!;
  const plain = plainPredicate(rest);
  if (!prefix || named) return plain;
  // After "live change at step 5: " only a bound or a type reads well; "unknown field" stays.
  return prefix + (plain.startsWith('must ') ? plain : rest);
}

function plainPredicate(m: string): string {
  let r: RegExpExecArray | null;
  if ((r = /^Too (?:big|small): expected number to be ([<>]=?)(.+)$/.exec(m)))
    return `must be ${BOUNDS[r[1] as keyof typeof BOUNDS]} ${r[2]}`;
  if (m === 'Too small: expected string to have >=1 characters') return 'must not be empty';
  if ((r = /^Too (?:big|small): expected string to have ([<>]=?)(\d+) characters$/.exec(m)))
    return `must have ${BOUNDS[r[1] as keyof typeof BOUNDS]} ${r[2]} characters`;
  if (/^Invalid input: expected \w+, received undefined$/.test(m)) return 'is missing';
  if ((r = /^Invalid input: expected (\w+), received \w+$/.exec(m)) && r[1] in KINDS)
    return `must be ${KINDS[r[1]]}`;
  if ((r = /^Invalid option: expected one of (.+)$/.exec(m)))
    return `must be one of: ${r[1]
      .split('|')
      .map((o) => o.replace(/^"(.*)"$/, '$1'))
      .join(', ')}`;
  if (m === 'expected a whole number') return 'must be a whole number';
  if (m === 'unknown field') return 'is not a field of an experiment';
  if (m === 'given twice') return 'is given twice';
  return m;
}

/** A list in words: "a", "a and b", "a, b and c". */
export const listed = (xs: readonly string[]): string =>
  xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

/**
 * What a message quotes back of the user's input (a link, a value, a key): whole where short,
 * else its start and how long it was, so a 50 KB link is never echoed whole.
 */
export const echoed = (text: string, max = 80): string =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)`;

/**
 * The words after a refused field's name: the plain message, the input's own text for it where
 * there was one ("must be a number; got 'banana'") and the hint ("did you mean …?"). Messages
 * that read as a sentence ("must …", "is …") follow the name directly; any other keeps a colon.
 * `named`: the name is a label that already says the field and the step (plainMessage).
 */
export function refusalWords(e: FieldError, named = false): string {
  const plain = plainMessage(e.message, named);
  const got = e.got === undefined ? '' : `; got '${echoed(e.got)}'`;
  const hint = e.hint ? `; ${e.hint}` : '';
  return `${/^(must|is) /.test(plain) ? ' ' : ': '}${plain}${got}${hint}`;
}
