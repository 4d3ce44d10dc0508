// Sign-ins and disconnects told to the event bus (brine events, metrics) and to the log. Listed
// after presence and jobs, so a disconnect is announced once the table and the waits know of it.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { EventBus } from '../event-bus.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

export class ConnectionEvents implements MasterFeature {
  readonly name = 'connection-events';

  constructor(private readonly deps: { events: EventBus; logger: Logger; clock: Clock }) {}

  onReady(s: MinionSession): void {
    this.deps.events.emit({ kind: 'minion_connected', id: s.id, remote: s.remoteAddress, agent: s.agent, at: this.deps.clock.now() });
    this.deps.logger.info({ id: s.id, remote: s.remoteAddress, agent: s.agent }, `minion ${s.id} connected`);
  }

  onDown(s: MinionSession, reason: string): void {
    const now = this.deps.clock.now();
    const error = s.closeInfo?.error?.message;
    this.deps.events.emit({ kind: 'minion_disconnected', id: s.id, remote: s.remoteAddress, reason, connectedForMs: now - s.connectedAt, silentForMs: now - s.lastSeen, at: now });
    const level = reason === 'replaced' || reason === 'shutdown' ? 'info' : 'warn';
    this.deps.logger[level]({ id: s.id, remote: s.remoteAddress, reason, error }, `minion ${s.id} disconnected (${reason})`);
  }
}
