// The postgres returner against a real PostgreSQL server (Debian's postgresql, started by the test
// on 127.0.0.1 and a free port, stopped after) with Salt's tables as docs/returners.md creates
// them: the rows Salt's returner writes (salt_returns, jids, salt_events), its read functions, its
// option lookup (ret_config, ret_kwargs), and a coded RETURNER_FAILED when the store is down.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildReturner, type Returner, type SaltReturn } from '../../../src/returners/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { PostgresServer, postgresSkipReason, saltReturnerTables } from '../../helpers/postgres.js';
import { freePort } from '../../helpers/ports.js';

const skip = privilegedSkip('postgres returner', postgresSkipReason);

describe('postgres returner against a real server', { skip }, () => {
  let server: PostgresServer | undefined;
  let pg: Returner;
  const opts = () => ({ 'returner.postgres.host': '127.0.0.1', 'returner.postgres.port': server?.port, 'returner.postgres.user': 'postgres', 'returner.postgres.db': 'salt' });
  const sql = (q: string) => (server as PostgresServer).sql(q, 'salt');
  const ret = (over: Partial<SaltReturn>): SaltReturn => ({ id: 'web1', jid: '20261207063000000001', fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true, ...over });

  before(async () => {
    server = await PostgresServer.start();
    server.sql('CREATE DATABASE salt');
    server.sql(saltReturnerTables(), 'salt');
    pg = buildReturner('postgres', { opts: opts(), id: 'm_master', program: 'brine-master' });
  });
  after(() => server?.stop());

  it("stores a return as Salt's returner does: fun, jid, JSON return, id, success, and the whole dict in full_ret", async () => {
    const r = ret({ fun: 'cmd.run', fun_args: ['echo hi', { cwd: '/', __kwarg__: true }], return: 'hi', jid: '20261207063000000002' });
    await pg.returner(r);
    const row = sql("SELECT fun || '|' || jid || '|' || return || '|' || id || '|' || success FROM salt_returns WHERE jid = '20261207063000000002'");
    assert.equal(row, 'cmd.run|20261207063000000002|"hi"|web1|true');
    assert.deepEqual(JSON.parse(sql("SELECT full_ret FROM salt_returns WHERE jid = '20261207063000000002'")), r);
    await pg.returner(ret({ id: 'web2', jid: '20261207063000000002', fun: 'cmd.run', return: 'err', retcode: 1, success: false }));
    assert.equal(sql("SELECT success FROM salt_returns WHERE id = 'web2'"), 'false');
  });

  it('reads back with get_jid, get_fun (each minion’s latest), get_minions', async () => {
    await pg.returner(ret({ jid: '20261207063000000010', fun: 'test.version', return: '1' }));
    await pg.returner(ret({ jid: '20261207063000000011', fun: 'test.version', return: '2' }));
    const byJid = (await pg.getJid?.('20261207063000000002')) ?? {};
    assert.deepEqual(Object.keys(byJid).sort(), ['web1', 'web2']);
    assert.equal((byJid.web1 as SaltReturn).return, 'hi');
    const latest = (await pg.getFun?.('test.version')) ?? {};
    assert.deepEqual(Object.keys(latest), ['web1']);
    assert.equal((latest.web1 as SaltReturn).jid, '20261207063000000011', 'the latest jid of test.version on web1');
    assert.deepEqual((await pg.getMinions?.())?.sort(), ['web1', 'web2']);
  });

  it("saves a job's load once (a second save of the jid is ignored, as in Salt) and lists it in jobs.list_jobs' shape", async () => {
    const load = { jid: '20261207063000123456', fun: 'test.arg', arg: ['a', { k: 1, __kwarg__: true }], tgt: 'web*', tgt_type: 'glob', user: 'root', minions: ['web1'] };
    await pg.saveLoad?.(load.jid, load);
    await pg.saveLoad?.(load.jid, { ...load, fun: 'other.fun' });
    assert.deepEqual(await pg.getLoad?.(load.jid), load);
    assert.deepEqual((await pg.getJids?.())?.[load.jid], {
      Function: 'test.arg',
      Arguments: ['a', { k: 1, __kwarg__: true }],
      Target: 'web*',
      'Target-type': 'glob',
      User: 'root',
      StartTime: '2026, Dec 07 06:30:00.123456',
    });
    assert.deepEqual(await pg.getLoad?.('20261207063000999999'), {}, 'an unknown jid has an empty load');
  });

  it('stores a batch of events with tag, JSON data and the master id, in one transaction', async () => {
    await pg.eventReturn?.([
      { tag: 'salt/job/20261207063000000002/new', data: { fun: 'test.ping', _stamp: '2026-12-07T06:30:00.000001' } },
      { tag: 'salt/auth', data: { act: 'pend', id: 'web3' } },
    ]);
    assert.equal(sql("SELECT string_agg(tag || '|' || master_id, ',' ORDER BY id) FROM salt_events"), 'salt/job/20261207063000000002/new|m_master,salt/auth|m_master');
    assert.deepEqual(JSON.parse(sql("SELECT data FROM salt_events WHERE tag = 'salt/auth'")), { act: 'pend', id: 'web3' });
  });

  it('ret_config picks the alternative option set and ret_kwargs overrides single options', async () => {
    server?.sql('CREATE DATABASE other');
    server?.sql(saltReturnerTables(), 'other');
    const alt = buildReturner('postgres', { opts: { ...opts(), 'alternative.returner.postgres.db': 'other' }, id: 'm', program: 'brine-minion' });
    await alt.returner(ret({ jid: '20261207063000000020', ret_config: 'alternative' }));
    await alt.returner(ret({ jid: '20261207063000000021', ret_kwargs: { db: 'other' } }));
    assert.equal(server?.sql("SELECT string_agg(jid, ',' ORDER BY jid) FROM salt_returns", 'other'), '20261207063000000020,20261207063000000021');
    assert.equal(sql("SELECT count(*) FROM salt_returns WHERE jid IN ('20261207063000000020', '20261207063000000021')"), '0');
  });

  it('a store that does not answer is RETURNER_FAILED naming the returner, the job and where it tried', async () => {
    const port = await freePort();
    const down = buildReturner('postgres', { opts: { ...opts(), 'returner.postgres.port': port }, id: 'm', program: 'brine-minion' });
    await assert.rejects(down.returner(ret({ jid: '20261207063000000030' })), (err: unknown) => {
      assert.ok(isBrineError(err));
      assert.equal(err.code, 'RETURNER_FAILED');
      assert.match(err.message, new RegExp(`postgres returner could not store the return of job 20261207063000000030 on postgres@127\\.0\\.0\\.1:${port}/salt`));
      return true;
    });
    const noTables = buildReturner('postgres', { opts: { ...opts(), 'returner.postgres.db': 'postgres' }, id: 'm', program: 'brine-minion' });
    await assert.rejects(noTables.returner(ret({})), /RETURNER_FAILED|relation "salt_returns" does not exist/);
  });
});
