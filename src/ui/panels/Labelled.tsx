import { splitKeys } from '../field-labels';

/**
 * A config field named for a reader: its label, the dotted path in small print after it
 * ("Batch size B (rollout.batchSize)"); a field without a label is named by its path.
 */
export function FieldName({ path, label }: { path: string; label?: string }) {
  if (!label) return <code>{path}</code>;
  return (
    <span className="field-name">
      {label}{' '}
      <small>
        (<code>{path}</code>)
      </small>
    </span>
  );
}

/**
 * A message with every config key it names shown as the field's label, the key in small print
 * after it: "lower Batch size B (rollout.batchSize)". The words come from field-labels.ts.
 */
export function Labelled({ text }: { text: string }) {
  return (
    <>
      {splitKeys(text).map((p, i) =>
        'text' in p ? p.text : <FieldName key={i} path={p.path} label={p.label} />,
      )}
    </>
  );
}
