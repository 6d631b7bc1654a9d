/**
 * One writer per stored session. A tab that records a session (its runs have workers) is its
 * writer: it claims the Web Lock `agentwise-session:<id>` and keeps it until it ends the session
 * or closes; a tab that shows a session another tab writes shows it read-only (restore.ts) and
 * waits for the lock to be free to offer "Take over". (The word is "claim", not "hold": a run's
 * hold is its driver waiting before a step for a live change, docs/vocabulary.md.) Without two
 * writers no two histories are mixed into one session: before this, two tabs could each resume
 * the same session from its saved states and both save into it.
 *
 * Web Locks need a secure context (https or localhost). Elsewhere the same questions are asked on
 * a BroadcastChannel: a claimant asks who writes the session and takes it if no tab answers within
 * ANSWER_MS; the writer says when it lets go (and as its page goes away). That is weaker (a tab
 * that crashed says nothing, so it is taken for gone after the wait), and enough for two tabs of a
 * user.
 */
import { setSession, useLab } from './store';

const lockName = (id: string) => `agentwise-session:${id}`;
const ANSWER_MS = 150;

type Word = { type: 'who' | 'mine' | 'free'; id: string };

const locks = (): LockManager | undefined =>
  typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : undefined;

/** The tab's writer lock: the sessions it has claimed, and the session on screen it watches. */
export class WriterLock {
  /** The sessions this tab has claimed, with the function that lets each go. */
  private readonly claimed = new Map<string, () => void>();
  /** The fallback's channel (no Web Locks), opened on first use, and who listens on it. */
  private channel: BroadcastChannel | null = null;
  private readonly listeners = new Set<(w: Word) => void>();
  /** The watch of the session on screen (watch): a newer one aborts it. */
  private watching: AbortController | null = null;

  /** The fallback's channel: answers "who writes it?" for the sessions this tab has claimed. */
  private words(): BroadcastChannel | null {
    if (this.channel || typeof BroadcastChannel === 'undefined') return this.channel;
    const channel = (this.channel = new BroadcastChannel('agentwise-writers'));
    channel.onmessage = (e: MessageEvent<Word>) => {
      if (e.data.type === 'who' && this.claimed.has(e.data.id))
        channel.postMessage({ type: 'mine', id: e.data.id });
      for (const f of this.listeners) f(e.data);
    };
    if (typeof window !== 'undefined')
      window.addEventListener('pagehide', () => {
        for (const id of this.claimed.keys()) channel.postMessage({ type: 'free', id });
      });
    return channel;
  }

  /** Fallback: does another tab answer that it has claimed `id`? */
  private askWho(id: string): Promise<boolean> {
    const ch = this.words();
    if (!ch) return Promise.resolve(false);
    return new Promise((ok) => {
      const hear = (w: Word) => {
        if (w.type !== 'mine' || w.id !== id) return;
        this.listeners.delete(hear);
        ok(true);
      };
      this.listeners.add(hear);
      ch.postMessage({ type: 'who', id });
      setTimeout(() => {
        this.listeners.delete(hear);
        ok(false);
      }, ANSWER_MS);
    });
  }

  /**
   * Takes the session for this tab if no other tab has claimed it; true if this tab is its writer
   * now. The lock is kept until `letGo(id)` or the page goes away.
   */
  async claim(id: string): Promise<boolean> {
    if (this.claimed.has(id)) return true;
    const lm = locks();
    if (!lm) {
      if (await this.askWho(id)) return false;
      this.claimed.set(id, () => this.words()?.postMessage({ type: 'free', id }));
      return true;
    }
    return new Promise<boolean>((ok) => {
      void lm
        .request(lockName(id), { ifAvailable: true }, (lock) => {
          if (!lock) return ok(false);
          ok(true);
          return new Promise<void>((release) => this.claimed.set(id, release));
        })
        .catch(() => ok(false));
    });
  }

  /** Lets the session go (the tab stopped recording it): a tab waiting in `whenFree` may take over. */
  letGo(id: string): void {
    const release = this.claimed.get(id);
    this.claimed.delete(id);
    release?.();
  }

  /** Whether another tab has claimed the session now. */
  async claimedElsewhere(id: string): Promise<boolean> {
    if (this.claimed.has(id)) return false;
    const lm = locks();
    if (!lm) return this.askWho(id);
    const { held: all = [] } = await lm.query();
    // This tab may have claimed it meanwhile.
    return !this.claimed.has(id) && all.some((l) => l.name === lockName(id));
  }

  /** Resolves once no other tab has claimed the session (it stopped recording it, or closed); `signal` gives up. */
  private whenFree(id: string, signal: AbortSignal): Promise<void> {
    const lm = locks();
    if (lm)
      // Shared: granted once the writer's exclusive lock goes, to every waiting tab at once; held for no time.
      return lm.request(lockName(id), { mode: 'shared', signal }, () => undefined).then(() => undefined);
    return new Promise<void>((ok, ko) => {
      const hear = (w: Word) => {
        if (w.type !== 'free' || w.id !== id) return;
        this.listeners.delete(hear);
        ok();
      };
      this.listeners.add(hear);
      this.words();
      signal.addEventListener('abort', () => {
        this.listeners.delete(hear);
        ko(signal.reason);
      });
    });
  }

  /**
   * The stored session `id` came on screen: if another tab has claimed it, it is shown read-only
   * (Train off, saying why) until that tab lets it go or closes; then "Take over" is offered.
   */
  watch(id: string): void {
    this.watching?.abort();
    const ctl = (this.watching = new AbortController());
    const onScreen = () => !ctl.signal.aborted && useLab.getState().restored?.id === id;
    void this.claimedElsewhere(id)
      .then((elsewhere) => {
        if (!elsewhere || !onScreen()) return;
        setSession({ readOnly: { id, free: false } });
        return this.whenFree(id, ctl.signal).then(() => {
          if (useLab.getState().readOnly?.id === id) setSession({ readOnly: { id, free: true } });
        });
      })
      .catch(() => undefined); // given up: another session came on screen
  }

  /** Claims the session for this tab; where another tab has, shows it read-only and throws saying so. */
  async claimOrWatch(id: string): Promise<void> {
    if (await this.claim(id)) return;
    this.watch(id);
    throw new Error('another tab is training this session; it is shown here read-only');
  }

  /** Tests only: closes the fallback's channel, which would keep a Node process alive. */
  close(): void {
    this.channel?.close();
    this.channel = null;
  }
}
