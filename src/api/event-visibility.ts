// What a user without '@events' sees of the event bus on GET /events (threats.md #48): events
// about minions its ACL reaches, jobs it could have run and its own hooks; never key and sign-in
// events, other minions (nor their addresses) or other users' hook bodies. Decided per event
// with Salt's ACL check, against target matches cached for a few seconds so that a busy bus
// does not turn into a target lookup per event.

import { type AclEntry, type AclRequest, checkAcl, type MinionScope, minionScope, type Principal } from '../auth/index.js';
import { isJid } from '../jobs/index.js';
import type { SaltEvent } from '../protocol/index.js';
import type { ApiBackend } from './backend.js';

/** How long a target's matched minions are reused before being asked for again. */
const MATCH_TTL_MS = 5_000;
/** A target whose cached match hides an event is asked again when the match is older than this. */
const RECHECK_MS = 1_000;
/** Target lookups one decision may need (the ACL check is re-run as matches become known). */
const MAX_ROUNDS = 8;
/** Targets remembered per stream; past it the cache starts over. */
const MAX_CACHED = 1024;

export class EventVisibility {
  private readonly entries: AclEntry[];
  private readonly scope: MinionScope;
  private readonly matches = new Map<string, { at: number; minions: string[] }>();

  constructor(
    private readonly backend: ApiBackend,
    private readonly who: Principal,
  ) {
    this.entries = backend.auth.permsOf(who);
    this.scope = minionScope(this.entries);
  }

  /**
   * The event as this user may see it, or undefined. Presence events are cut down to the
   * minions the user reaches (a change that loses all its minions is hidden); the others are
   * shown whole or not at all (shows).
   */
  async view(event: SaltEvent): Promise<SaltEvent | undefined> {
    if (event.tag === 'salt/presence/present' || event.tag === 'salt/presence/change') {
      try {
        return await this.presenceView(event);
      } catch {
        return undefined;
      }
    }
    return (await this.shows(event)) ? event : undefined;
  }

  private async presenceView({ tag, data }: SaltEvent): Promise<SaltEvent | undefined> {
    const reached = async (v: unknown): Promise<string[]> => {
      const out: string[] = [];
      for (const id of Array.isArray(v) ? v : []) if (typeof id === 'string' && (await this.reaches(id))) out.push(id);
      return out;
    };
    if (tag === 'salt/presence/present') return { tag, data: { ...data, present: await reached(data.present) } };
    const [added, lost] = [await reached(data.new), await reached(data.lost)];
    return added.length === 0 && lost.length === 0 ? undefined : { tag, data: { ...data, new: added, lost } };
  }

  /** True when the user may see the event. Any failure (the master unreachable) hides it. */
  async shows(event: SaltEvent): Promise<boolean> {
    try {
      return await this.decide(event);
    } catch {
      return false;
    }
  }

  /** Decided by the tag (the API process sees events relayed without their typed origin). */
  private async decide({ tag, data }: SaltEvent): Promise<boolean> {
    const parts = tag.split('/');
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    if (parts[0] === 'salt' && parts[1] === 'job' && parts[2] !== undefined) {
      const jid = parts[2];
      // the whole job: every minion it went to, as if the user had published it
      if (parts[3] === 'new' && parts.length === 4) return this.mayRun(jid, str(data.fun) ?? '', list(data.minions));
      if (parts[3] === 'ret' && parts.length >= 5) return this.mayRun(jid, str(data.fun) ?? '', [parts.slice(4).join('/')]);
      return false;
    }
    // Salt's bare `<jid>` event: the minions a job went to
    const jid = parts[0];
    if (parts.length === 1 && isJid(jid)) {
      const fun = this.backend.jobs.getJob(jid)?.fun;
      return fun !== undefined && this.mayRun(jid, fun, list(data.minions));
    }
    // salt/minion/<id>/start, salt/beacon/<id>/..., brine/minion/<id>/...
    if ((parts[0] === 'salt' && (parts[1] === 'minion' || parts[1] === 'beacon')) || (parts[0] === 'brine' && parts[1] === 'minion')) {
      const id = parts[2];
      return id !== undefined && id !== '' && this.reaches(id);
    }
    if (tag === 'minion_start') {
      const id = str(data.id);
      return id !== undefined && this.reaches(id);
    }
    if (tag.startsWith('salt/netapi/hook/')) return data.user === this.who.user;
    // salt/run/<jid>/..., salt/wheel/<jid>/...: to users whose ACL allows that runner or wheel function
    if (parts[0] === 'salt' && (parts[1] === 'run' || parts[1] === 'wheel') && parts.length >= 4) {
      const client = parts[1] === 'run' ? 'runner' : 'wheel';
      const fun = str(data.fun)?.replace(/^(runner|wheel)\./, '');
      return fun !== undefined && fun !== '' && checkAcl(this.entries, { client, fun, arg: [], kwarg: {} }, () => []).allowed;
    }
    // keys and sign-ins (salt/auth, salt/key, brine/auth/...) are the key administrator's
    // business and name unknown hosts; anything else is shown to '@events' users only
    return false;
  }

  /** The user's ACL reaches the minion with some function. */
  private async reaches(id: string): Promise<boolean> {
    if (this.scope.all) return true;
    // a minion accepted since the cached match is asked for again (at most once a second)
    for (const maxAgeMs of [MATCH_TTL_MS, RECHECK_MS]) {
      for (const target of this.scope.targets) if ((await this.matched(target, 'compound', maxAgeMs)).includes(id)) return true;
    }
    return false;
  }

  /** Salt's ACL check for running `fun` on exactly these minions, with the job's own arguments. */
  private async mayRun(jid: string, fun: string, minions: string[]): Promise<boolean> {
    if (minions.length === 0) return false;
    const job = this.backend.jobs.getJob(jid);
    const req: AclRequest = { client: 'local', fun, tgt: minions, tgtType: 'list', arg: job?.arg ?? [], kwarg: job?.kwarg ?? {} };
    // a denial against matches older than RECHECK_MS is checked again with fresh ones
    for (const maxAgeMs of [MATCH_TTL_MS, RECHECK_MS]) {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const wanted: Array<[string | string[], string]> = [];
        const decision = checkAcl(this.entries, req, (tgt, tgtType) => {
          // the minions of a job event are the job's own: no lookup for them
          if (tgtType === 'list' && Array.isArray(tgt)) return tgt;
          const hit = this.cached(tgt, tgtType, maxAgeMs);
          if (hit) return hit;
          wanted.push([tgt, tgtType]);
          return [];
        });
        if (wanted.length === 0) {
          if (decision.allowed) return true;
          break;
        }
        for (const [tgt, tgtType] of wanted) await this.matched(tgt, tgtType, maxAgeMs);
      }
    }
    return false;
  }

  private keyOf(tgt: string | string[], tgtType: string): string {
    return JSON.stringify([tgt, tgtType]);
  }

  private cached(tgt: string | string[], tgtType: string, maxAgeMs: number): string[] | undefined {
    const hit = this.matches.get(this.keyOf(tgt, tgtType));
    return hit && this.backend.clock.monotonic() - hit.at < maxAgeMs ? hit.minions : undefined;
  }

  private async matched(tgt: string | string[], tgtType: string, maxAgeMs: number): Promise<string[]> {
    const hit = this.cached(tgt, tgtType, maxAgeMs);
    if (hit) return hit;
    const { matched } = await this.backend.matchTarget(tgt, tgtType);
    if (this.matches.size >= MAX_CACHED) this.matches.clear();
    this.matches.set(this.keyOf(tgt, tgtType), { at: this.backend.clock.monotonic(), minions: matched });
    return matched;
  }
}
