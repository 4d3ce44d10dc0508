// The master's connections not yet closed, each holding its pre-auth slot until it signs in: the
// transports add them, the session router releases and removes them, shutdown closes the rest.

import type { MinionSession } from './minion-session.js';

/** A pre-auth connection slot (the TLS door's caps); NATS sessions hold none. */
export interface PreAuthSlot {
  release(): void;
}

const NO_SLOT: PreAuthSlot = { release() {} };

export class LiveSessions {
  private readonly live = new Map<MinionSession, PreAuthSlot>();

  add(session: MinionSession, slot: PreAuthSlot = NO_SLOT): void {
    this.live.set(session, slot);
  }

  /**
   * Signed in: no longer counts against the pre-auth connection caps. The spent slot (a closure
   * over the TLS connection) is dropped, not kept for the session's life (issue 27, sessmem).
   */
  signedIn(session: MinionSession): void {
    const slot = this.live.get(session);
    if (slot === undefined || slot === NO_SLOT) return;
    this.live.set(session, NO_SLOT);
    slot.release();
  }

  closed(session: MinionSession): void {
    this.live.delete(session);
  }

  /** Connections still before their sign-in (a metrics gauge). */
  awaitingSignIn(): number {
    let n = 0;
    for (const s of this.live.keys()) if (!s.ready) n++;
    return n;
  }

  /** Closes every session (each leaves the map as it closes). */
  closeAll(): void {
    for (const s of this.live.keys()) s.close('shutdown');
  }
}
