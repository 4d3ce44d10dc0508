// How often a NATS client pings its server, derived from heartbeat_timeout for masters and
// minions alike, so a dead server or path is noticed within it.

/** nats.js declares a connection stale after this many unanswered pings (checked each interval). */
const MAX_PINGS_OUT = 2;

/**
 * nats.js checks every `pingInterval` and gives up when MAX_PINGS_OUT pings are unanswered at a
 * check: silence is noticed within (MAX_PINGS_OUT + 2) intervals at worst, which must fit in
 * heartbeat_timeout. NATS's own default (2 minutes, 2 pings out) would take up to 8 minutes.
 */
export function natsPingSettings(heartbeatTimeoutMs: number): { pingInterval: number; maxPingOut: number } {
  return { pingInterval: Math.max(100, Math.floor(heartbeatTimeoutMs / (MAX_PINGS_OUT + 2))), maxPingOut: MAX_PINGS_OUT };
}
