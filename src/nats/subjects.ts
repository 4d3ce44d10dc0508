// The subject layout of brine on NATS and the permissions each kind of client gets from it.
// A minion ID may contain dots, which NATS reads as token separators; in subjects the ID is one
// token with each '.' spelled '~' ('~' is outside the ID grammar, so the mapping is one-to-one).
// Without that, minion `web1` allowed `brine.ret.web1.>` could publish as `web1.example.com`.

import { assertValidMinionId } from '../util/minion-id.js';
import type { Permissions } from './jwt.js';

export const SUBJECT_ROOT = 'brine';
/** The sign-in request: the only subject a pending key can publish (in the enrol account). */
export const SIGNIN_SUBJECT = `${SUBJECT_ROOT}.signin`;
/** Where a pending client's answers arrive (the client library's default inbox). */
export const ENROL_INBOX = '_INBOX.>';

/** The event token of a return's fast copy (brine.evt.<m>.ret), beside its copy in the stream. */
export const FAST_RETURN_TOKEN = 'ret';

/** The subject suffix of the minion's inbox on which masters send it messages. */
export const MINION_INBOX_SUFFIX = 'm';

/** The single subject token for a minion ID (INVALID_ID for an ID that breaks the grammar). */
export function minionToken(id: string): string {
  assertValidMinionId(id);
  return id.replaceAll('.', '~');
}

/** The minion ID a subject token stands for (the inverse of minionToken). */
export function minionIdOfToken(token: string): string {
  const id = token.replaceAll('~', '.');
  assertValidMinionId(id);
  return id;
}

/** Every subject of one minion, by purpose. */
export function minionSubjects(id: string) {
  const m = minionToken(id);
  return {
    /** jobs published to this minion by any master */
    job: `${SUBJECT_ROOT}.job.${m}`,
    /** returns, `<ret>.<jid>`, captured by the returns stream */
    ret: `${SUBJECT_ROOT}.ret.${m}`,
    /** events the minion raises, `<evt>.<tag...>` */
    evt: `${SUBJECT_ROOT}.evt.${m}`,
    /** requests to the masters (pillar, files, mine), `<req>.<kind>` */
    req: `${SUBJECT_ROOT}.req.${m}`,
    /** heartbeats and presence */
    hb: `${SUBJECT_ROOT}.hb.${m}`,
    /** the minion's inbox prefix: replies to its requests and JetStream acks of its returns */
    inbox: `${SUBJECT_ROOT}.inbox.${m}`,
  };
}

/** What an accepted minion may do: its own subjects and nothing else. */
export function minionPermissions(id: string): Permissions {
  const s = minionSubjects(id);
  return {
    pub: { allow: [`${s.ret}.>`, `${s.evt}.>`, `${s.req}.>`, s.hb] },
    sub: { allow: [s.job, `${s.inbox}.>`] },
  };
}

/** What the shared enrolment credentials may do: ask to sign in and read the answer. */
export function enrolPermissions(): Permissions {
  return { pub: { allow: [SIGNIN_SUBJECT] }, sub: { allow: [ENROL_INBOX] } };
}
