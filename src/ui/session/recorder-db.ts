/**
 * The page's database (`agentwise-lab`, its stores `sessions` and `frames`: recorder.ts) over
 * src/storage/idb.ts, and what the page does when it fails. A write refused for want of room is
 * the caller's to keep (the recorder queues its frames again); any other failure, or the browser
 * closing the database under the page (its storage cleared or evicted), turns recording off with
 * one alert. So does a run state its worker cannot write for any reason but room (stopRecording:
 * worker-messages.ts).
 */
import { database, isFull, LAB_DB } from '../../storage/idb';
import { setStorage } from './store';

export class LabDb {
  private readonly db = database(LAB_DB, (e) => this.disable(e));
  /** Recording stopped after an IndexedDB failure (said once in the page). */
  private disabled = false;

  /**
   * Runs `f` in one transaction; on failure `fallback` is returned, and unless the write was refused
   * for want of room (the caller keeps what it wrote: flush) recording stops with one alert.
   */
  async withTx<T>(
    mode: IDBTransactionMode,
    f: (s: IDBObjectStore, fr: IDBObjectStore) => Promise<T> | T,
    fallback: T,
  ): Promise<T> {
    if (this.disabled) return fallback;
    try {
      return await this.db.transact(mode, (tx) => f(tx.objectStore('sessions'), tx.objectStore('frames')));
    } catch (e) {
      if (!isFull(e)) this.disable(e);
      return fallback;
    }
  }

  /** Recording stopped after an IndexedDB failure (said once in the page). */
  get off(): boolean {
    return this.disabled;
  }

  private disable(e: unknown): void {
    if (this.disabled) return;
    this.stopRecording(e instanceof Error ? e.message : String(e));
    setStorage({ pastSessions: [] }); // this database's list can be read no more
  }

  /**
   * Recording stops, saying `reason` once in the alert area (the status bar then says nothing is
   * being saved, and offers the downloads: Unsaved.tsx). Training goes on; what is stored stays.
   */
  stopRecording(reason: string): void {
    if (this.disabled) return;
    this.disabled = true;
    setStorage({ persistError: `runs will not survive a reload: ${reason}` });
  }
}
