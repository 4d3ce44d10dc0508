// The one place the auth decision's intended key-store writes are carried out. A denied key goes
// to the denied history with the address it came from; everything else is a plain store write.

import type { KeyEffect } from './auth-decision.js';
import type { KeyState, KeyStore } from './key-store.js';

export function applyKeyEffects(store: KeyStore, effects: readonly KeyEffect[], source: { remote: string; at: number }): void {
  for (const e of effects) {
    switch (e.op) {
      case 'write':
        if (e.state === 'denied') store.recordDenied(e.id, e.pem, source);
        else store.write(e.state, e.id, e.pem);
        break;
      case 'move':
        store.move(e.id, e.from, e.to);
        break;
      case 'remove':
        store.remove(e.id, e.state);
        break;
    }
  }
}

/** The key states an effect list would write to (what a doctor probe reports as `wouldWrite`). */
export function statesWritten(effects: readonly KeyEffect[]): KeyState[] {
  return effects.flatMap((e) => (e.op === 'write' ? [e.state] : e.op === 'move' ? [e.to] : []));
}
