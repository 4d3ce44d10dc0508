// Which events a minion may fire on the master's bus, and what is fired (threats.md #4, #19). A
// pure decision: the tag is checked against the namespaces the master owns, the firing minion is
// the session's ID (never the payload's), and the Salt event to fire is returned for one caller
// to fire. Salt 3007 fires a minion's event under the tag it sent (so reactors on
// salt/beacon/<id>/... and user tags match); brine does the same and refuses what Salt's
// CVE-2025-22236/22239 fixes were about: a minion speaking for the master or another minion.

import { BrineError } from '../util/errors.js';
import type { MinionEvent, SaltEvent } from '../protocol/index.js';

/** Tag prefixes only the master fires (job publishes and returns, auth, keys, presence, runners, wheel, the API's hook, brine's own). */
const MASTER_PREFIXES = ['salt/job/', 'salt/auth', 'salt/key', 'salt/presence/', 'salt/run/', 'salt/wheel/', 'salt/netapi/', 'salt/cloud/', 'salt/stats/', 'brine/'] as const;
/** Tags the master fires bare: a job's `<jid>` event (20 digits) and the legacy `new_job`-style tags it fires itself. */
const BARE_JID = /^\d{20}$/;
/** Namespaces of one minion: only that minion may fire under them. */
const PER_MINION = ['salt/minion/', 'salt/beacon/'] as const;

export type MinionEventVerdict = { readonly ok: true; readonly event: Omit<SaltEvent, 'kind'> } | { readonly ok: false; readonly error: BrineError };

/**
 * The tag as a reactor's glob would see it after a peer tries to dodge the prefix check: repeated
 * slashes collapsed, leading slashes and whitespace dropped, compared case-insensitively.
 */
function canonical(tag: string): string {
  return tag
    .trim()
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+/, '')
    .toLowerCase();
}

/** Why `tag` may not come from minion `id`, or undefined when it may. */
export function reservedTagReason(id: string, tag: string): string | undefined {
  if (/[\u0000-\u001f\u007f]/.test(tag)) return 'it contains control characters';
  const t = canonical(tag);
  for (const p of MASTER_PREFIXES) if (t === p.replace(/\/$/, '') || t.startsWith(p)) return `the master owns the ${p.replace(/\/$/, '')} namespace`;
  if (BARE_JID.test(t)) return "a bare jid is the tag of the master's own job event";
  for (const p of PER_MINION) {
    if (!t.startsWith(p)) continue;
    const owner =
      tag
        .trim()
        .replace(/\/{2,}/g, '/')
        .replace(/^\/+/, '')
        .slice(p.length)
        .split('/')[0] ?? '';
    if (owner !== id) return `${p}<id>/ tags belong to the minion they name (${JSON.stringify(owner)}, not ${JSON.stringify(id)})`;
  }
  return undefined;
}

/** Decides one minion_event from minion `id` (the session's); `pretag` is Salt's load field, always null here. */
export function decideMinionEvent(id: string, message: MinionEvent): MinionEventVerdict {
  const why = reservedTagReason(id, message.tag);
  if (why !== undefined) return { ok: false, error: new BrineError('EVENT_TAG_RESERVED', `minion ${id} may not fire ${JSON.stringify(message.tag)}: ${why}`) };
  if (message.kind === 'beacon') {
    if (!canonical(message.tag).startsWith(`salt/beacon/${id.toLowerCase()}/`)) {
      return { ok: false, error: new BrineError('EVENT_TAG_RESERVED', `minion ${id} sent a beacon event on ${JSON.stringify(message.tag)}; beacon events are fired on salt/beacon/${id}/<beacon>/`) };
    }
    // Salt's beacon data carries the minion's id; the session's, whatever the payload said
    return { ok: true, event: { tag: message.tag, data: { ...message.data, id } } };
  }
  // Salt's master fires event.send / fire_master's load itself: {cmd, data, id, pretag, tag} (tok removed)
  return { ok: true, event: { tag: message.tag, data: { cmd: '_minion_event', data: message.data, id, pretag: null, tag: message.tag } } };
}
