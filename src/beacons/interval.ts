// When a beacon with `interval:` polls. Salt counts loop ticks per beacon (interval_map): the first
// tick only starts the count, and a beacon polls on the tick where ticks * loop_interval reaches its
// interval, then the count starts again. Kept as that count so a loop_interval change behaves as
// Salt's does; pure, tested with ticks.

export class BeaconIntervals {
  private readonly counters = new Map<string, number>();

  /** One loop tick for `name`: true when it should poll now. An interval of 0 polls every tick. */
  due(name: string, intervalS: number, loopIntervalS: number): boolean {
    if (intervalS <= 0) return true;
    const counter = this.counters.get(name);
    if (counter === undefined) {
      this.counters.set(name, 1);
      return false;
    }
    if (counter * loopIntervalS >= intervalS) {
      this.counters.set(name, 1);
      return true;
    }
    this.counters.set(name, counter + 1);
    return false;
  }

  forget(name: string): void {
    this.counters.delete(name);
  }
}
