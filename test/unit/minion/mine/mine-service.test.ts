// The minion's mine service with real execution functions (the default registry) and a link
// that answers like a master: mine.update sends the entries that ran (an unknown function is
// reported by name, the others are sent), `mine_functions=` and `clear`, the size bound checked
// before anything is sent, and a pillar change of mine_functions sent at once. MasterMine's
// request/reply matching, timeout (fake clock) and link loss are MINE_UNAVAILABLE.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../../src/util/clock.js';
import { BrineError } from '../../../../src/util/errors.js';
import { silentLogger } from '../../../../src/util/logger.js';
import type { MineSend, MinionMessage } from '../../../../src/protocol/index.js';
import { createDefaultRegistry } from '../../../../src/modules/index.js';
import { MasterMine } from '../../../../src/minion/mine/master-mine.js';
import { MineService } from '../../../../src/minion/mine/mine-service.js';
import { PillarStore } from '../../../../src/minion/pillar-store.js';
import type { FileLink } from '../../../../src/minion/master-files.js';
import { settle } from '../../../helpers/wait.js';

/** A link whose master stores nothing and answers every request ok (or not at all). */
class AnsweringLink implements FileLink {
  ready = true;
  answer = true;
  readonly sent: MinionMessage[] = [];
  mine: MasterMine | undefined;
  send(m: MinionMessage): boolean {
    this.sent.push(m);
    const rid = (m as { rid: number }).rid;
    if (this.answer) setImmediate(() => this.mine?.onReply({ t: 'mine_reply', rid, ok: true }));
    return true;
  }
  sends(): MineSend[] {
    return this.sent.filter((m): m is MineSend => m.t === 'mine_send');
  }
}

const registry = createDefaultRegistry();
const ctx = { grains: () => ({ role: 'web' }), minionId: 'me', config: {}, signal: new AbortController().signal, jid: 'mine' };

function setup(configured: unknown, clock = new FakeClock(), intervalMs?: number) {
  const link = new AnsweringLink();
  const master = new MasterMine(() => [link], clock);
  link.mine = master;
  const pillar = new PillarStore();
  const service = new MineService({
    master,
    hasFunction: (fun) => registry.get(fun) !== undefined,
    run: (fun, arg, kwarg) => registry.call(fun, arg, kwarg, ctx),
    configured,
    pillar,
    clock,
    logger: silentLogger(),
    intervalMs,
  });
  return { link, master, pillar, service, clock };
}

describe('MineService', () => {
  it('update runs every entry, sends the ones that ran and reports the unknown one by name', async () => {
    const { link, service } = setup({ 'test.ping': [], echo: [{ mine_function: 'test.echo' }, 'hi'], 'nosuch.fun': [], 'network.ip_addrs': 'eth0' });
    const report = await service.update(undefined, false);
    assert.deepEqual(report?.sent, ['test.ping', 'echo']);
    assert.deepEqual(
      report?.failed.map((f) => [f.name, f.code]),
      [
        ['network.ip_addrs', 'CONFIG_VALUE'],
        ['nosuch.fun', 'UNKNOWN_FUNCTION'],
      ],
    );
    assert.match(report!.failed[1]!.message, /nosuch\.fun is not a function on this minion/);
    assert.deepEqual(link.sends()[0]?.data, { 'test.ping': { data: true }, echo: { data: 'hi' } });
    assert.equal(link.sends()[0]?.clear, false);
  });

  it('mine_functions= limits the update; clear replaces; nothing configured sends nothing', async () => {
    const { link, service } = setup({ 'test.ping': [], echo: [{ mine_function: 'test.echo' }, 'hi', { allow_tgt: 'web*' }] });
    const r = await service.update(['echo', 'missing'], true);
    assert.deepEqual(r?.sent, ['echo']);
    assert.deepEqual(
      r?.failed.map((f) => f.name),
      ['missing'],
    );
    assert.deepEqual(link.sends()[0], { t: 'mine_send', rid: link.sends()[0]!.rid, data: { echo: { data: 'hi', allowTgt: 'web*', allowTgtType: 'glob' } }, clear: true });
    const none = setup({});
    assert.equal(await none.service.update(undefined, false), undefined);
    assert.equal(none.link.sent.length, 0);
  });

  it('data over the bound is MINE_DATA_TOO_LARGE and is not sent', async () => {
    const { link, service } = setup({});
    await assert.rejects(service.send({ name: 'big', fun: 'test.echo', arg: ['x'.repeat(1_100_000)], kwarg: {} }), (e: unknown) => e instanceof BrineError && e.code === 'MINE_DATA_TOO_LARGE');
    assert.equal(link.sent.length, 0);
  });

  it('a bad target type is refused before anything reaches the master', async () => {
    const { link, service } = setup({});
    await assert.rejects(service.get({ tgt: '*', tgtType: 'bogus', funs: ['a'] }), (e: unknown) => e instanceof BrineError && e.code === 'TARGET_INVALID');
    await assert.rejects(service.get({ tgt: '*', tgtType: 'glob', funs: ['bad name'] }), (e: unknown) => e instanceof BrineError && e.code === 'BAD_ARGUMENTS');
    assert.equal(link.sent.length, 0);
  });

  it('a pillar change of mine_functions is sent at once (config wins for the same name); other pillar changes are not', async () => {
    const { link, pillar, service } = setup({ echo: [{ mine_function: 'test.echo' }, 'from config'] }, new FakeClock(), 3_600_000);
    service.onReady();
    await settle();
    assert.equal(link.sends().length, 1);
    pillar.set({ other: 1 });
    await settle();
    assert.equal(link.sends().length, 1, 'no mine_functions change, no update');
    pillar.set({ other: 1, mine_functions: { echo: [{ mine_function: 'test.echo' }, 'from pillar'], 'test.ping': [] } });
    await settle();
    assert.equal(link.sends().length, 2);
    assert.deepEqual(link.sends()[1]?.data, { echo: { data: 'from config' }, 'test.ping': { data: true } });
    assert.deepEqual(service.valid(), { echo: { 'test.echo': ['from config'] }, 'test.ping': [] });
    service.stop();
  });
});

describe('MasterMine', () => {
  it('no ready link, a master that does not answer and a link going down are MINE_UNAVAILABLE', async () => {
    const clock = new FakeClock();
    const { link, master } = setup({}, clock);
    link.ready = false;
    await assert.rejects(master.request({ t: 'mine_flush' }), (e: unknown) => e instanceof BrineError && e.code === 'MINE_UNAVAILABLE' && /no master is connected/.test(e.message));
    link.ready = true;
    link.answer = false;
    const silent = master.request({ t: 'mine_flush' });
    clock.advance(30_000);
    await assert.rejects(silent, (e: unknown) => e instanceof BrineError && e.code === 'MINE_UNAVAILABLE' && /did not answer a mine_flush within 30 s/.test(e.message));
    const lost = master.request({ t: 'mine_delete', fun: 'a' });
    master.onLinkDown(link);
    await assert.rejects(lost, (e: unknown) => e instanceof BrineError && e.code === 'MINE_UNAVAILABLE' && /closed/.test(e.message));
  });

  it("the master's coded error comes back with its code, and replies match by rid", async () => {
    const { link, master } = setup({});
    link.answer = false;
    const a = master.request({ t: 'mine_get', tgt: '*', tgtType: 'glob', funs: ['x'] });
    const b = master.request({ t: 'mine_get', tgt: 'web*', tgtType: 'glob', funs: ['x'] });
    const [ra, rb] = link.sent.map((m) => (m as { rid: number }).rid);
    master.onReply({ t: 'mine_reply', rid: rb!, ok: false, error: { code: 'TARGET_INVALID', message: 'bad' } });
    master.onReply({ t: 'mine_reply', rid: ra!, ok: true, data: { x: { m1: 1 } } });
    assert.deepEqual(await a, { x: { m1: 1 } });
    await assert.rejects(b, (e: unknown) => e instanceof BrineError && e.code === 'TARGET_INVALID');
  });
});
