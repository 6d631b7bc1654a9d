/**
 * A number field's draft, shared by the experiment fields and the live hyper-parameters: what is
 * typed is shown but not applied until Enter or leaving the field commits it; Escape drops it.
 */
import { useState } from 'react';
import type { ChangeEvent, KeyboardEvent } from 'react';

/**
 * Props for an <input> showing `value` until edited. `commit(text)` applies the draft and returns
 * true, or returns false to keep it (having shown why); `cancel` runs on Escape.
 */
export function useDraft(value: string, commit: (text: string) => boolean, cancel: () => void) {
  // The draft remembers the value it was typed over: when that value changes under it (a preset,
  // a link, the JSON editor), the draft is stale and the field shows what is applied.
  const [draft, setDraft] = useState<{ text: string; over: string } | null>(null);
  const text = draft !== null && draft.over === value ? draft.text : null;
  const setText = (t: string | null) => setDraft(t === null ? null : { text: t, over: value });
  const done = () => {
    if (text !== null && commit(text)) setText(null);
  };
  return {
    value: text ?? value,
    onChange: (e: ChangeEvent<HTMLInputElement>) => setText(e.target.value),
    onBlur: done,
    onKeyDown: (e: KeyboardEvent<HTMLInputElement>) => {
      if (e.key === 'Enter') done();
      if (e.key === 'Escape') {
        setText(null);
        cancel();
      }
    },
  };
}
