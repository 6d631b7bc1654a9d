/** Says when the service worker brought a new build of the lab, or has one waiting for the next load. */
import { create } from 'zustand';
import type { BuildUpdate } from '../../host/service-worker';

/** What the panel says (src/host/service-worker.ts tells it, through main.tsx); null: nothing. */
export const useUpdateNotice = create<{ notice: BuildUpdate | null }>(() => ({ notice: null }));

export function UpdateNotice() {
  const notice = useUpdateNotice((s) => s.notice);
  if (!notice) return null;
  return (
    <p role="status" className="notice" data-testid="update-notice">
      {notice.kind === 'updated'
        ? `Lab updated to build ${notice.build}.`
        : 'A new version of the lab is ready; it takes over the next time the lab is opened.'}{' '}
      <button type="button" className="link" onClick={() => useUpdateNotice.setState({ notice: null })}>
        dismiss
      </button>
    </p>
  );
}
