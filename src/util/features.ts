// A daemon as a short list of features (issue 24 point 2), as go-choria's server wires its
// managers: each feature (files, pillar, mine, schedule, returns, jobs, presence; later events and
// beacons) owns its state and reacts to the daemon's few moments. The daemon builds the shared
// parts (identity, links or listener, clock, logger), hands them to each feature's constructor,
// and then only calls this list; `master.ts` and `minion.ts` stay wiring you can read in one screen.
//
// `Peer` is what a moment concerns: on a minion the link to a master, on a master a minion's
// session. `Message` is what arrives on it.

/** One feature of a daemon. Every hook is optional; a feature implements the moments it cares about. */
export interface Feature<Peer, Message> {
  /** Names the feature in logs and in errors from its hooks. */
  readonly name: string;
  /** Runs once, in list order, after every feature was constructed (timers, files, listeners). */
  start?(): Promise<void> | void;
  /** A peer became usable: a minion's link to a master is ready, a minion signed in to the master. */
  onReady?(peer: Peer): void;
  /** A peer went away, with the close reason. */
  onDown?(peer: Peer, reason: string): void;
  /** A message from a peer. Returns true when this feature handled it; later features do not see it. */
  onMessage?(message: Message, peer: Peer): boolean;
  /** Runs once, in reverse list order, when the daemon stops. */
  stop?(): Promise<void> | void;
}

/** Called when a feature's hook throws: the daemon logs it and the other features go on. */
export type FeatureErrorHandler = (feature: string, hook: string, err: unknown) => void;

/** The daemon's features in order; each moment is passed to every feature, one failing feature stops no other. */
export class FeatureList<Peer, Message> {
  private readonly features: Feature<Peer, Message>[];

  constructor(
    features: readonly Feature<Peer, Message>[],
    private readonly onError: FeatureErrorHandler,
  ) {
    this.features = [...features];
  }

  get names(): string[] {
    return this.features.map((f) => f.name);
  }

  async start(): Promise<void> {
    for (const f of this.features) await f.start?.();
  }

  ready(peer: Peer): void {
    for (const f of this.features) this.guard(f, 'onReady', () => f.onReady?.(peer));
  }

  down(peer: Peer, reason: string): void {
    for (const f of this.features) this.guard(f, 'onDown', () => f.onDown?.(peer, reason));
  }

  /**
   * Offers the message to each feature in order until one handles it; false when none did. On
   * the master every heartbeat and return comes through here, so no closure is made per message.
   */
  message(message: Message, peer: Peer): boolean {
    for (const f of this.features) {
      if (!f.onMessage) continue;
      try {
        if (f.onMessage(message, peer) === true) return true;
      } catch (err) {
        this.onError(f.name, 'onMessage', err);
      }
    }
    return false;
  }

  /** Stops every feature, last first; a failing stop is reported and the others still stop. */
  async stop(): Promise<void> {
    for (const f of [...this.features].reverse()) {
      try {
        await f.stop?.();
      } catch (err) {
        this.onError(f.name, 'stop', err);
      }
    }
  }

  private guard(f: Feature<Peer, Message>, hook: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onError(f.name, hook, err);
    }
  }
}
