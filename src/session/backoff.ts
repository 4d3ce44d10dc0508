// Reconnect delays: exponential growth from recon_default to recon_max (Salt's names, in ms)
// with full jitter, so thousands of minions that lost one master do not return in one second.

export interface BackoffOptions {
  /** recon_default: the first delay bound, ms. */
  baseMs: number;
  /** recon_max: the largest delay bound, ms. */
  maxMs: number;
  /** recon_randomize: full jitter when true, the plain bound when false. */
  randomize: boolean;
  /** Never retry faster than this, even when jitter draws zero. */
  floorMs?: number;
}

export class Backoff {
  private attempt = 0;

  constructor(
    private readonly opts: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  get attempts(): number {
    return this.attempt;
  }

  /** The delay before the next attempt; each call grows the bound until maxMs. */
  next(): number {
    const bound = Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    const delay = this.opts.randomize ? this.random() * bound : bound;
    return Math.max(this.opts.floorMs ?? 50, Math.round(delay));
  }

  reset(): void {
    this.attempt = 0;
  }
}
