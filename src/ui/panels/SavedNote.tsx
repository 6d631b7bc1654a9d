/**
 * What Share result saved and how to share it: said under the button that made the file (Export's
 * Share result, Past sessions' Share), since a download is otherwise silent.
 */
export function SavedNote({ name, testId }: { name: string; testId: string }) {
  return (
    <p role="status" className="muted" data-testid={testId}>
      Saved <code>{name}</code>: send the file (it opens dropped on Other tools), or host it and share an{' '}
      <code>#open=</code> link; docs/sharing.md says how.
    </p>
  );
}
