import type { FieldError } from '../../core/config';

/** Config field errors as a list, each naming its dotted path (a bad link, a refused JSON edit). */
export function FieldErrors({ errors }: { errors: readonly FieldError[] }) {
  return (
    <ul>
      {errors.map((e, i) => (
        <li key={i}>
          <code>{e.path}</code>: {e.message}
        </li>
      ))}
    </ul>
  );
}
