// Salt's `postgres` returner (salt/returners/postgres.py) on the maintained `pg` client: the same
// options (`returner.postgres.host/port/user/passwd/db`, Salt's defaults), the same tables
// (`jids`, `salt_returns`, `salt_events`, created by the operator from docs/returners.md as Salt's
// docstring has them) and rows, so Salt's own tools read what brine wrote. One connection per
// call, as Salt opens one per call; `pg` is loaded on first use (a minion without a postgres
// return never loads it).

import type { Client } from 'pg';
import { BrineError, errorMessage } from '../util/errors.js';
import type { ReturnedEvent, Returner, ReturnerContext, SaltReturn } from './returner.js';
import { returnerOptions } from './returner-options.js';
import { jidStartTime } from './jid-time.js';

const ATTRS = ['host', 'user', 'passwd', 'db', 'port'] as const;
const DEFAULTS = { host: 'localhost', user: 'salt', passwd: 'salt', db: 'salt', port: 5432 };
/** How long a connection attempt may take before the returner gives up (the job is not held up longer). */
const CONNECT_TIMEOUT_MS = 10_000;

/** Postgres's "unique violation": a load saved twice (Salt ignores it, salt#22171). */
const UNIQUE_VIOLATION = '23505';

export class PostgresReturner implements Returner {
  readonly name = 'postgres';

  constructor(private readonly ctx: ReturnerContext) {}

  async returner(ret: SaltReturn): Promise<void> {
    await this.withClient(ret, `store the return of job ${ret.jid}`, async (c) => {
      await c.query('INSERT INTO salt_returns (fun, jid, return, id, success, full_ret) VALUES ($1, $2, $3, $4, $5, $6)', [
        ret.fun,
        ret.jid,
        JSON.stringify(ret.return ?? null),
        ret.id,
        ret.success ?? false,
        JSON.stringify(ret),
      ]);
    });
  }

  async saveLoad(jid: string, load: Readonly<Record<string, unknown>>): Promise<void> {
    await this.withClient(undefined, `save the load of job ${jid}`, async (c) => {
      try {
        await c.query('INSERT INTO jids (jid, load) VALUES ($1, $2)', [jid, JSON.stringify(load)]);
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      }
    });
  }

  async eventReturn(events: readonly ReturnedEvent[]): Promise<void> {
    await this.withClient(undefined, `store ${events.length} event(s)`, async (c) => {
      // one transaction per batch: a batch is stored whole or not at all, as Salt commits it
      await c.query('BEGIN');
      for (const e of events) await c.query('INSERT INTO salt_events (tag, data, master_id) VALUES ($1, $2, $3)', [e.tag, JSON.stringify(e.data), this.ctx.id]);
      await c.query('COMMIT');
    });
  }

  async getLoad(jid: string): Promise<Record<string, unknown>> {
    return this.withClient(undefined, `read the load of job ${jid}`, async (c) => {
      const r = await c.query<{ load: string }>('SELECT load FROM jids WHERE jid = $1', [jid]);
      return r.rows[0] ? (JSON.parse(r.rows[0].load) as Record<string, unknown>) : {};
    });
  }

  async getJid(jid: string): Promise<Record<string, unknown>> {
    return this.withClient(undefined, `read the returns of job ${jid}`, async (c) => {
      const r = await c.query<{ id: string; full_ret: string }>('SELECT id, full_ret FROM salt_returns WHERE jid = $1', [jid]);
      return Object.fromEntries(r.rows.map((row) => [row.id, JSON.parse(row.full_ret)]));
    });
  }

  async getFun(fun: string): Promise<Record<string, unknown>> {
    // each minion's latest return of `fun` (Salt's query carries MySQL quoting that Postgres refuses)
    const sql = `SELECT s.id, s.full_ret FROM salt_returns s
      JOIN (SELECT MAX(jid) AS jid FROM salt_returns GROUP BY fun, id) max ON s.jid = max.jid
      WHERE s.fun = $1`;
    return this.withClient(undefined, `read the returns of ${fun}`, async (c) => {
      const r = await c.query<{ id: string; full_ret: string }>(sql, [fun]);
      return Object.fromEntries(r.rows.map((row) => [row.id, JSON.parse(row.full_ret)]));
    });
  }

  async getJids(): Promise<Record<string, unknown>> {
    return this.withClient(undefined, 'list the jobs', async (c) => {
      const r = await c.query<{ jid: string; load: string }>('SELECT jid, load FROM jids');
      return Object.fromEntries(r.rows.map((row) => [row.jid, jobInstance(row.jid, JSON.parse(row.load) as Record<string, unknown>)]));
    });
  }

  async getMinions(): Promise<string[]> {
    return this.withClient(undefined, 'list the minions', async (c) => {
      const r = await c.query<{ id: string }>('SELECT DISTINCT id FROM salt_returns');
      return r.rows.map((row) => row.id);
    });
  }

  private async withClient<T>(ret: SaltReturn | undefined, what: string, fn: (c: Client) => Promise<T>): Promise<T> {
    const o = returnerOptions(this.ctx.opts, 'returner.postgres', ATTRS, DEFAULTS, ret);
    const { default: pg } = await import('pg');
    const where = `${String(o.user)}@${String(o.host)}:${String(o.port)}/${String(o.db)}`;
    const client = new pg.Client({
      host: String(o.host),
      port: Number(o.port),
      user: String(o.user),
      password: String(o.passwd),
      database: String(o.db),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // a server that drops the connection later emits 'error' on the client: reported by the query
    client.on('error', () => {});
    try {
      await client.connect();
      return await fn(client);
    } catch (err) {
      throw new BrineError('RETURNER_FAILED', `the postgres returner could not ${what} on ${where}: ${errorMessage(err)}`, { cause: err });
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** Salt's salt.utils.jid.format_jid_instance: a load as jobs.list_jobs shows it. */
function jobInstance(jid: string, load: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Function: load.fun ?? 'unknown-function',
    Arguments: Array.isArray(load.arg) ? load.arg : [],
    Target: load.tgt ?? 'unknown-target',
    'Target-type': load.tgt_type ?? 'list',
    User: load.user ?? 'root',
  };
  if (load.metadata !== undefined) out.Metadata = load.metadata;
  out.StartTime = jidStartTime(jid);
  return out;
}
