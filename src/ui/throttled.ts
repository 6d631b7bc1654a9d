/**
 * Store values that follow the store at most once per interval, for views people read rather than
 * watch (the Findings table, the rollout inspector), which would otherwise re-render at every step
 * of every run. A mounted hook registers a watcher here; the page's one store listener
 * (subscriptions.ts) hands every change to followThrottled. No tfjs.
 */
import { useEffect, useState } from 'react';
import { useLab } from './session/store';
import type { LabState } from './session/store';

type Watcher = (s: LabState, prev: LabState) => void;
const watchers = new Set<Watcher>();

/** The reaction: tells every mounted useThrottledLab that the store changed. */
export function followThrottled(s: LabState, prev: LabState): void {
  for (const watch of watchers) watch(s, prev);
}

/**
 * A selected value that follows the store at most once per `ms` (the first change right away,
 * then the latest one per interval). `select` must be module-level; `arg` says what to select
 * (a run id …).
 */
export function useThrottledLab<A, T>(select: (s: LabState, arg: A) => T, arg: A, ms: number): T {
  const [value, setValue] = useState(() => select(useLab.getState(), arg));
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = -Infinity;
    const take = () => {
      timer = null;
      last = performance.now();
      setValue(() => select(useLab.getState(), arg));
    };
    take(); // `arg` changed (another run picked): show its value now
    const watch: Watcher = (s, prev) => {
      if (timer !== null || Object.is(select(s, arg), select(prev, arg))) return;
      timer = setTimeout(take, Math.max(0, last + ms - performance.now()));
    };
    watchers.add(watch);
    return () => {
      watchers.delete(watch);
      if (timer !== null) clearTimeout(timer);
    };
  }, [select, arg, ms]);
  return value;
}
