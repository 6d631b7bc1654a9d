import { splitKeys } from '../field-labels';

/**
 * A message with every config key it names shown as the field's label, the key in small print
 * after it: "lower Batch size B (rollout.batchSize)". The words come from field-labels.ts.
 */
export function Labelled({ text }: { text: string }) {
  return (
    <>
      {splitKeys(text).map((p, i) =>
        'text' in p ? (
          p.text
        ) : (
          <span key={i} className="field-name">
            {p.label}{' '}
            <small>
              (<code>{p.path}</code>)
            </small>
          </span>
        ),
      )}
    </>
  );
}
