import type { FieldError } from '../../core/config';
import { labelOf, refusalText } from '../field-labels';
import { useLab } from '../store';
import { FieldName } from './Labelled';

/**
 * Config field errors as a list, each naming its field by label with the dotted path in small
 * print (a bad link, a refused JSON edit), then the refusal in words with what the link gave
 * ("Learning rate (optim.lr) must be a number; got 'banana'"); a field without a label is named
 * by its path, a run's estimator by the run's name.
 */
export function FieldErrors({ errors }: { errors: readonly FieldError[] }) {
  const config = useLab((s) => s.config);
  return (
    <ul>
      {errors.map((e, i) => (
        <li key={i}>
          <FieldName path={e.path} label={labelOf(e.path, config)} />
          {refusalText(e)}
        </li>
      ))}
    </ul>
  );
}
