// Returners end to end (issue 25 point 7) with a real master, a real minion and a real PostgreSQL
// server (Debian's postgresql) started by the test on loopback with Salt's tables: a job run with
// --return postgres lands in salt_returns from the minion (Salt's layout), a schedule entry's
// returner too, event_return stores the master's events in salt_events, master_job_cache copies
// loads and returns; with the store down the job's result is still in brine's job cache and both
// daemons log RETURNER_FAILED naming the returner.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';
import { PostgresServer, postgresSkipReason, saltReturnerTables } from '../helpers/postgres.js';

const skip = privilegedSkip('returners end to end', postgresSkipReason);

describe('returners: --return, schedule returner, event_return and master_job_cache into PostgreSQL', { skip }, () => {
  let pg: PostgresServer | undefined;
  let cluster: Cluster | undefined;
  let master: Proc;
  let minion: Proc;
  /** A Unix socket standing in for /dev/log: the minion's syslog returner writes there. */
  let syslogDir = '';
  let syslog: net.Server | undefined;
  let syslogText = '';
  /** The minion's returns go to database `minionret`, the master's copies to `salt`. */
  const q = (db: string, query: string) => (pg as PostgresServer).sql(query, db);
  const pgOpts = (db: string) => ({ 'returner.postgres.host': '127.0.0.1', 'returner.postgres.port': pg?.port, 'returner.postgres.user': 'postgres', 'returner.postgres.db': db });

  async function runJid(args: string[]): Promise<{ jid: string; stdout: string }> {
    const r = await (cluster as Cluster).brine(['run', ...args, '--show-jid', '--out', 'json']);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const m = /^jid: (\d{20})$/m.exec(r.stdout);
    assert.ok(m, r.stdout);
    return { jid: m[1] as string, stdout: r.stdout };
  }

  before(async () => {
    pg = await PostgresServer.start();
    for (const db of ['salt', 'minionret']) {
      pg.sql(`CREATE DATABASE ${db}`);
      pg.sql(saltReturnerTables(), db);
    }
    syslogDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-syslog-'));
    syslog = net.createServer((c) => c.setEncoding('utf8').on('data', (d: string) => (syslogText += d)));
    await new Promise<void>((resolve) => syslog?.listen(path.join(syslogDir, 'log.sock'), resolve));
    cluster = await Cluster.create();
    master = await cluster.startMaster({
      auto_accept: true,
      id: 'pgmaster',
      event_return: 'postgres',
      event_return_queue: 2,
      event_return_queue_max_seconds: 1,
      master_job_cache: 'postgres',
      ...pgOpts('salt'),
    });
    minion = cluster.startMinion('m1', {
      ...pgOpts('minionret'),
      'syslog.socket': path.join(syslogDir, 'log.sock'),
      schedule: { pgsched: { function: 'test.echo', args: ['from-schedule'], seconds: 1, returner: 'postgres', return_job: false } },
    });
    await minion.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster?.cleanup();
    pg?.stop();
    await new Promise((r) => (syslog ? syslog.close(r) : r(undefined)));
    fs.rmSync(syslogDir, { recursive: true, force: true });
  });

  it("a job run with --return postgres lands in the minion's store in Salt's layout, and the master still has it", async () => {
    const { jid, stdout } = await runJid(['m1', 'test.arg', 'a', 'k=1', '--return', 'postgres']);
    assert.match(stdout, /"m1"/);
    const row = await waitUntil(() => q('minionret', `SELECT fun || '|' || id || '|' || success FROM salt_returns WHERE jid = '${jid}'`) || undefined, 20_000, 'the return in salt_returns');
    assert.equal(row, 'test.arg|m1|true');
    const full = JSON.parse(q('minionret', `SELECT full_ret FROM salt_returns WHERE jid = '${jid}'`));
    assert.equal(full.id, 'm1');
    assert.equal(full.jid, jid);
    assert.equal(full.retcode, 0);
    assert.deepEqual(full.fun_args, ['a', { k: 1, __kwarg__: true }]);
    assert.deepEqual(JSON.parse(q('minionret', `SELECT return FROM salt_returns WHERE jid = '${jid}'`)), full.return);
    assert.deepEqual(full.return.args, ['a']);
    // no --return: nothing from the minion
    const plain = await runJid(['m1', 'test.ping']);
    await waitUntil(() => q('salt', `SELECT count(*) FROM salt_returns WHERE jid = '${plain.jid}'`) === '1' || undefined, 20_000, 'the master copy of the plain job');
    assert.equal(q('minionret', `SELECT count(*) FROM salt_returns WHERE jid = '${plain.jid}'`), '0');
  });

  it('--return syslog,postgres reaches both; --return_kwargs picks another database; an unknown returner is logged and the job still returns', async () => {
    const both = await runJid(['m1', 'test.echo', 'to-both', '--return', 'syslog,postgres']);
    const line = await waitUntil(() => syslogText.split('\n').find((l) => l.includes(both.jid)), 20_000, 'the syslog line');
    assert.match(line, /^<14>.* brine-minion: \{/);
    assert.equal(JSON.parse(line.slice(line.indexOf('{'))).return, 'to-both');
    await waitUntil(() => q('minionret', `SELECT count(*) FROM salt_returns WHERE jid = '${both.jid}'`) === '1' || undefined, 20_000, 'the postgres row');
    const other = await runJid(['m1', 'test.echo', 'kw', '--return', 'postgres', '--return_kwargs', '{"db": "salt"}']);
    // the master's master_job_cache copy and the minion's return, both in `salt`
    await waitUntil(() => q('salt', `SELECT count(*) FROM salt_returns WHERE jid = '${other.jid}'`) === '2' || undefined, 20_000, 'two rows in salt');
    assert.equal(q('minionret', `SELECT count(*) FROM salt_returns WHERE jid = '${other.jid}'`), '0');
    const unknown = await runJid(['m1', 'test.echo', 'nowhere', '--return', 'redis']);
    assert.match(unknown.stdout, /nowhere/);
    await minion.waitForOutput(new RegExp(`return of job ${unknown.jid} was not sent to returner redis: there is no returner 'redis'`));
    assert.match(minion.output, /RETURNER_UNKNOWN/);
  });

  it('brine call --return postgres (salt-call --return), through the daemon and with --local, sends the return from the calling process', async () => {
    const dir = (cluster as Cluster).minionConfigDir('m1');
    for (const [how, extra] of [
      ['daemon', []],
      ['local', ['--local']],
    ] as const) {
      const r = await runCli(['call', 'test.echo', `called-${how}`, '--return', 'postgres', '--out', 'json', ...extra, '-c', dir], { timeoutMs: 90_000 });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /RETURNER_/);
      const row = await waitUntil(() => q('minionret', `SELECT id || '|' || jid FROM salt_returns WHERE return = '"called-${how}"'`) || undefined, 20_000, `the ${how} call's return`);
      assert.match(row, /^m1\|\d{20}$/);
    }
    const bad = await runCli(['call', '--local', 'test.echo', 'x', '--return', 'redis', '-c', dir], { timeoutMs: 90_000 });
    assert.equal(bad.code, 0, 'the call itself succeeded');
    assert.match(bad.stderr, /RETURNER_UNKNOWN: the return was not sent to returner redis/);
  });

  it("a schedule entry's returner sends each run's return, with the entry's name", async () => {
    const row = await waitUntil(() => q('minionret', "SELECT full_ret FROM salt_returns WHERE fun = 'test.echo' LIMIT 1") || undefined, 20_000, 'a scheduled return in salt_returns');
    const full = JSON.parse(row);
    assert.equal(full.schedule, 'pgsched');
    assert.equal(full.return, 'from-schedule');
    assert.equal(full.id, 'm1');
    assert.match(full.jid, /^\d{20}$/);
  });

  it("master_job_cache copies each job's load into jids and each return into salt_returns", async () => {
    const { jid } = await runJid(['m1', 'test.echo', 'cached']);
    const load = await waitUntil(() => q('salt', `SELECT load FROM jids WHERE jid = '${jid}'`) || undefined, 20_000, 'the load in jids');
    const parsed = JSON.parse(load);
    assert.deepEqual([parsed.fun, parsed.arg, parsed.tgt, parsed.tgt_type, parsed.minions], ['test.echo', ['cached'], 'm1', 'glob', ['m1']]);
    const ret = await waitUntil(() => q('salt', `SELECT return || '|' || id FROM salt_returns WHERE jid = '${jid}'`) || undefined, 20_000, 'the return in salt_returns');
    assert.equal(ret, '"cached"|m1');
  });

  it("event_return stores the master's events (job new and ret, the minion's start) with the master id", async () => {
    const { jid } = await runJid(['m1', 'test.ping']);
    const tags = await waitUntil(
      () => {
        const t = q('salt', `SELECT string_agg(tag, ',' ORDER BY id) FROM salt_events WHERE tag LIKE 'salt/job/${jid}/%'`);
        return t.includes('/ret/') ? t : undefined;
      },
      20_000,
      'the job events in salt_events',
    );
    assert.equal(tags, `salt/job/${jid}/new,salt/job/${jid}/ret/m1`);
    const data = JSON.parse(q('salt', `SELECT data FROM salt_events WHERE tag = 'salt/job/${jid}/ret/m1'`));
    assert.deepEqual([data.id, data.jid, data.fun, data.return, data.success], ['m1', jid, 'test.ping', true, true]);
    assert.match(data._stamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(q('salt', "SELECT DISTINCT master_id FROM salt_events WHERE tag = 'salt/minion/m1/start'"), 'pgmaster');
  });

  it("with the store down the job's result is still in brine's job cache, and both daemons log RETURNER_FAILED", async () => {
    pg?.pause();
    try {
      const { jid, stdout } = await runJid(['m1', 'test.echo', 'while-down', '--return', 'postgres']);
      assert.match(stdout, /while-down/);
      const shown = await (cluster as Cluster).brine(['jobs', 'show', jid, '--out', 'json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /while-down/);
      await minion.waitForOutput(new RegExp(`return of job ${jid} was not sent to returner postgres: .*RETURNER_FAILED|RETURNER_FAILED.*${jid}`));
      await master.waitForOutput(new RegExp(`master_job_cache: job ${jid} not copied to postgres`));
      assert.match(master.output, /RETURNER_FAILED/);
    } finally {
      pg?.startAgain();
    }
  });
});
