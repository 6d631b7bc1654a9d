import type { FieldError } from '../../core/config-validate';
import { echoed, refusal } from '../field-labels';
import { FieldName } from './Labelled';

/**
 * Config field errors as a list, each naming its field by label with the dotted path in small
 * print (a bad link, a refused JSON edit), then the refusal in words with what the link gave
 * ("Learning rate (optim.lr) must be a number; got 'banana'"); a field without a label is named
 * by its path. A run's field is named by the run as the refused input labels it ("GRPO run:
 * Learning rate at step 179"), never by the runs on screen, which a bad link did not open.
 */
export function FieldErrors({ errors }: { errors: readonly FieldError[] }) {
  return (
    <ul>
      {errors.map((e, i) => {
        const { label, text } = refusal(e);
        return (
          <li key={i}>
            <FieldName path={echoed(e.path)} label={label} />
            {text}
          </li>
        );
      })}
    </ul>
  );
}
