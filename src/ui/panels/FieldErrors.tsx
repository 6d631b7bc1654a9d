import type { FieldError } from '../../core/config';
import { labelOf, refusalText } from '../field-labels';

/**
 * Config field errors as a list, each naming its field by label with the dotted path in small
 * print (a bad link, a refused JSON edit), then the refusal in words with what the link gave
 * ("Learning rate (optim.lr) must be a number; got 'banana'"); a field without a label is named
 * by its path.
 */
export function FieldErrors({ errors }: { errors: readonly FieldError[] }) {
  return (
    <ul>
      {errors.map((e, i) => {
        const label = labelOf(e.path);
        return (
          <li key={i}>
            {label ? (
              <span className="field-name">
                {label}{' '}
                <small>
                  (<code>{e.path}</code>)
                </small>
              </span>
            ) : (
              <code>{e.path}</code>
            )}
            {refusalText(e)}
          </li>
        );
      })}
    </ul>
  );
}
