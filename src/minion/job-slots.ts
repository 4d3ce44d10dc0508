// max_concurrent_jobs: at most `max` jobs hold a slot; the others wait in arrival order and are
// admitted one by one as slots are given back.

export class JobSlots<K> {
  private used = 0;
  private readonly line: Array<{ key: K; admit: () => void }> = [];
  readonly max: number;

  constructor(max: number) {
    this.max = Math.max(1, max);
  }

  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.line.length;
  }

  /** Takes a slot if one is free now. */
  tryTake(): boolean {
    if (this.used >= this.max) return false;
    this.used++;
    return true;
  }

  /** Waits in line; `admit` runs with the slot already counted (it is then the caller's to give back). */
  enqueue(key: K, admit: () => void): void {
    this.line.push({ key, admit });
  }

  /** Leaves the line; false when `key` was not waiting (admitted already, or never queued). */
  cancel(key: K): boolean {
    const i = this.line.findIndex((w) => w.key === key);
    if (i < 0) return false;
    this.line.splice(i, 1);
    return true;
  }

  /** Gives a slot back and admits whoever is next. */
  release(): void {
    this.used--;
    while (this.used < this.max && this.line.length > 0) {
      // counted before admitting, so a burst of finishing jobs cannot start more than the limit
      this.used++;
      this.line.shift()?.admit();
    }
  }
}
