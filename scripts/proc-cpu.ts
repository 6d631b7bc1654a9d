/**
 * The CPU time of every thread of a Chromium, from Linux's per-thread schedstat: what each thread
 * ran, user and kernel, however it ran it (a Chrome trace leaves out a worker's tasks that write
 * through a sync access handle, and is only as fine as its events). Linux only; for bench:put and
 * bench:experiment. Node only.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  /** The browser process (the one whose command line holds the marker and no `--type=`). */
  browser: boolean;
  /** Its process's `--type=` (renderer, gpu-process, utility, zygote), '' for the browser. */
  type: string;
  pid: string;
  /** The thread's name (`comm`: DedicatedWorker, CrRendererMain, …). */
  name: string;
  ns: number;
}

const read = (f: string): string => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
};
const list = (d: string): string[] => {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
};

/**
 * Every thread, by `pid:tid`, of the Chromium whose browser process has an argument containing
 * `marker` (its --user-data-dir, or a flag of the caller's), and of the processes under it.
 */
export function chromeThreads(marker: string): Map<string, ThreadCpu> {
  const procs = list('/proc').filter((d) => /^\d+$/.test(d));
  // A child process rewrites its title: its arguments may come as one string, not split by NULs.
  const cmdline = new Map(procs.map((p) => [p, read(`/proc/${p}/cmdline`)]));
  const typeOf = (p: string) => /--type=([\w-]+)/.exec(cmdline.get(p)!)?.[1] ?? '';
  const root = procs.find((p) => cmdline.get(p)!.includes(marker) && !typeOf(p));
  if (!root) throw new Error(`no Chromium with ${marker} is running`);
  const parent = new Map(procs.map((p) => [p, read(`/proc/${p}/stat`).split(') ')[1]?.split(' ')[1]]));
  const under = (p: string): boolean => p === root || (!!parent.get(p) && under(parent.get(p)!));
  const out = new Map<string, ThreadCpu>();
  for (const pid of procs.filter(under)) {
    const type = typeOf(pid);
    for (const tid of list(`/proc/${pid}/task`)) {
      const ns = Number(read(`/proc/${pid}/task/${tid}/schedstat`).split(' ')[0]);
      const name = read(`/proc/${pid}/task/${tid}/comm`).trim();
      if (ns) out.set(`${pid}:${tid}`, { browser: pid === root, type, pid, name, ns });
    }
  }
  return out;
}

/** CPU ms by `group` between two chromeThreads() readings (threads gone meanwhile left out). */
export function cpuBetween(
  before: Map<string, ThreadCpu>,
  after: Map<string, ThreadCpu>,
  group: (t: ThreadCpu) => string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, t] of after) out[group(t)] = (out[group(t)] ?? 0) + (t.ns - (before.get(k)?.ns ?? 0)) / 1e6;
  return out;
}
