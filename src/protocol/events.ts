// Typed lifecycle and job events, emitted on the master's bus and streamed to `brine events`.
// Each has a Salt-like tag (`brine/minion/<id>/connected`) for people and a `kind` for code.

export type BrineEvent =
  | { kind: 'minion_connected'; id: string; remote: string; agent: string; at: number }
  | { kind: 'minion_disconnected'; id: string; remote: string; reason: string; connectedForMs: number; silentForMs: number; at: number }
  | { kind: 'minion_replaced'; id: string; oldRemote: string; newRemote: string; at: number }
  | { kind: 'auth_pending'; id: string; remote: string; fingerprint: string; at: number }
  | { kind: 'auth_rejected'; id: string; remote: string; fingerprint: string; reason: string; at: number }
  | { kind: 'key_mismatch'; id: string; remote: string; acceptedFingerprint: string; presentedFingerprint: string; at: number }
  | { kind: 'invalid_id'; remote: string; reason: string; at: number }
  | { kind: 'job_published'; jid: string; fun: string; tgt: string | string[]; tgtType: string; minions: string[]; notConnected: string[]; at: number }
  | { kind: 'job_return'; jid: string; minion: string; fun: string; retcode: number; success: boolean; at: number }
  /** POST /hook/<path> on the REST API (webhook_url set): the body, and the API user who sent it. */
  | { kind: 'api_hook'; path: string; user: string; body: unknown; at: number };

export type EventKind = BrineEvent['kind'];

export const EVENT_KINDS: readonly EventKind[] = [
  'minion_connected',
  'minion_disconnected',
  'minion_replaced',
  'auth_pending',
  'auth_rejected',
  'key_mismatch',
  'invalid_id',
  'job_published',
  'job_return',
  'api_hook',
];

/** The event's tag, in Salt's slash-separated style. */
export function eventTag(e: BrineEvent): string {
  switch (e.kind) {
    case 'minion_connected':
      return `brine/minion/${e.id}/connected`;
    case 'minion_disconnected':
      return `brine/minion/${e.id}/disconnected`;
    case 'minion_replaced':
      return `brine/minion/${e.id}/replaced`;
    case 'auth_pending':
      return `brine/auth/${e.id}/pending`;
    case 'auth_rejected':
      return `brine/auth/${e.id}/rejected`;
    case 'key_mismatch':
      return `brine/auth/${e.id}/key_mismatch`;
    case 'invalid_id':
      return 'brine/auth/invalid_id';
    case 'job_published':
      return `brine/job/${e.jid}/new`;
    case 'job_return':
      return `brine/job/${e.jid}/ret/${e.minion}`;
    case 'api_hook':
      return `brine/netapi/hook/${e.path}`;
  }
}
