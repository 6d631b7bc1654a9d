/**
 * Progress bars, one per run, redrawn in place on a terminal; on a pipe (CI, a log file) one line
 * per run every 10% instead, so logs stay readable.
 */
export class Progress {
  private drawn = 0;
  private readonly lastDecile = new Map<string, number>();

  constructor(
    private readonly labels: readonly string[],
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(label: string, step: number, info: string): void {
    const state = this.state.get(label) ?? { step: 0, info: '' };
    state.step = step;
    state.info = info;
    this.state.set(label, state);
    if (this.out.isTTY) return this.redraw();
    const decile = Math.floor((10 * step) / this.total);
    if (decile !== this.lastDecile.get(label) || step === this.total) {
      this.lastDecile.set(label, decile);
      this.out.write(
        `${label.padEnd(this.width)}  ${String(step).padStart(String(this.total).length)}/${this.total}  ${info}\n`,
      );
    }
  }

  private readonly state = new Map<string, { step: number; info: string }>();

  private get width(): number {
    return Math.max(...this.labels.map((l) => l.length));
  }

  private redraw(): void {
    const cols = this.out.columns ?? 100;
    if (this.drawn) this.out.write(`\x1b[${this.drawn}A`);
    for (const label of this.labels) {
      const s = this.state.get(label) ?? { step: 0, info: '' };
      const barWidth = 24;
      const filled = Math.round((barWidth * s.step) / this.total);
      const line = `${label.padEnd(this.width)} [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${s.step}/${this.total} ${s.info}`;
      this.out.write(`\x1b[2K${line.slice(0, cols - 1)}\n`);
    }
    this.drawn = this.labels.length;
  }
}
