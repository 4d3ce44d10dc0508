// Custom grains, modules and states from the master (issue 10 item 2): `_modules/`, `_grains/`
// and `_states/` in the master's file_roots reach a real minion through saltutil.sync_*, land in
// <cachedir>/extmods, are loaded by the daemon and its job threads, follow changes and removals
// on the master, and a broken file is reported by name while the others load.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { JobCache } from '../../src/jobs/index.js';
import { findFile, writeWithDirs as write } from '../helpers/paths.js';

const helloModule = (greeting: string): string => `export const functions = [{
  name: 'hello.world',
  doc: 'Say hello.',
  params: [],
  run: (ctx) => '${greeting} from ' + ctx.minionId,
}];\n`;

describe('custom modules, grains and states synced from the master', () => {
  let cluster: Cluster;
  let srv: string;
  let m1: Proc;

  const run = async (tgt: string[], args: string[]): Promise<{ code: number | null; out: Record<string, unknown>; jid: string; stderr: string }> => {
    const r = await cluster.brine(['run', ...tgt, ...args, '--out', 'json', '--static', '--show-jid', '-t', '30'], { timeoutMs: 60_000 });
    const jid = r.stdout.match(/^jid: (\d{20})$/m)?.[1] ?? '';
    const body = r.stdout.replace(/^jid: .*\n/m, '').trim();
    // "No minions matched the target." is text, not JSON
    const out = body.startsWith('{') ? (JSON.parse(body) as Record<string, unknown>) : {};
    return { code: r.code, out, jid, stderr: r.stderr };
  };
  const m1Run = async (...args: string[]): Promise<unknown> => (await run(['m1'], args)).out.m1;
  const extmods = (kind: string): string => path.join(cluster.root, 'minions', 'm1', 'var', 'cache', 'brine', 'minion', 'extmods', kind);
  const storedError = (jid: string): { code?: string; message?: string } | undefined => {
    const cache = JobCache.open(findFile(path.join(cluster.root, 'master'), 'jobs.sqlite')!, { keepJobsSeconds: 0 });
    try {
      return cache.getReturns(jid).find((r) => r.minion === 'm1')?.error;
    } finally {
      cache.close();
    }
  };

  before(async () => {
    cluster = await Cluster.create();
    srv = path.join(cluster.root, 'master', 'srv', 'salt');
    write(path.join(srv, '_modules', 'hello.js'), helloModule('hello'));
    // not modules: ignored by the sync, never copied
    write(path.join(srv, '_modules', 'README.txt'), 'notes\n');
    // a pillar rendered with a grain that a custom grains file brings later
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    write(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - fromgrains\n");
    write(path.join(pillarRoot, 'fromgrains.sls'), "role_from_grains: {{ grains.get('custom_role', 'none') }}\n");
    await cluster.startMaster({ auto_accept: true });
    m1 = cluster.startMinion('m1', { grains: { override_me: 'from config' } });
    const m2 = cluster.startMinion('m2');
    await Promise.all([m1.waitForOutput(/ready to receive requests/), m2.waitForOutput(/ready to receive requests/)]);
  });
  after(() => cluster.cleanup());

  it('sync_modules brings a module, the function works, a second sync changes nothing', async () => {
    const before = await run(['m1'], ['hello.world']);
    assert.equal(before.code, 1, 'hello.world must not exist before the sync');
    assert.deepEqual(await m1Run('saltutil.sync_modules'), ['modules.hello']);
    assert.ok(fs.existsSync(path.join(extmods('modules'), 'hello.js')), 'the module lands in <cachedir>/extmods/modules');
    assert.ok(!fs.existsSync(path.join(extmods('modules'), 'README.txt')));
    assert.equal(await m1Run('hello.world'), 'hello from m1');
    assert.deepEqual(await m1Run('saltutil.sync_modules'), []);
    // documented like a built-in
    assert.match(JSON.stringify(await m1Run('sys.doc', 'hello.world')), /Say hello\./);
  });

  it('a module changed on the master is synced again and its new code runs in job threads', async () => {
    write(path.join(srv, '_modules', 'hello.js'), helloModule('howdy'));
    assert.deepEqual(await m1Run('saltutil.sync_modules'), ['modules.hello']);
    assert.equal(await m1Run('hello.world'), 'howdy from m1');
  });

  it('a module removed on the master is removed from the minion', async () => {
    fs.rmSync(path.join(srv, '_modules', 'hello.js'));
    // Salt lists only added or replaced files, not removals
    assert.deepEqual(await m1Run('saltutil.sync_modules'), []);
    assert.ok(!fs.existsSync(path.join(extmods('modules'), 'hello.js')));
    const r = await run(['m1'], ['hello.world']);
    assert.equal(r.code, 1);
    assert.match(String(r.out.m1), /'hello\.world' is not available/);
  });

  it('custom grains appear in grains.items, override core grains, lose to config grains, and target with -G', async () => {
    write(
      path.join(srv, '_grains', 'roles.js'),
      `export function roles() { return { custom_role: 'builder', override_me: 'from custom', localhost: 'custom-localhost' }; }
export async function later() { return { async_grain: 42 }; }\n`,
    );
    const none = await run(['-G', 'custom_role:builder'], ['test.ping']);
    assert.deepEqual(none.out, {}, 'no minion has the grain before the sync');
    assert.equal(await m1Run('pillar.get', 'role_from_grains'), 'none');
    assert.deepEqual(await m1Run('saltutil.sync_grains'), ['grains.roles']);
    // the grains changed, so the pillar the master renders with them is fetched again (Salt's
    // sync_grains refreshes the pillar): no saltutil.refresh_pillar needed, and I@ sees it
    assert.equal(await m1Run('pillar.get', 'role_from_grains'), 'builder');
    assert.deepEqual((await run(['-I', 'role_from_grains:builder'], ['test.ping'])).out, { m1: true });
    const items = (await m1Run('grains.items')) as Record<string, unknown>;
    assert.equal(items.custom_role, 'builder');
    assert.equal(items.async_grain, 42);
    assert.equal(items.localhost, 'custom-localhost', 'custom grains override core grains');
    assert.equal(items.override_me, 'from config', 'config grains override custom grains');
    // the master's data cache has them: grain targeting picks m1 and only m1
    await waitUntil(
      async () => {
        const r = await run(['-G', 'custom_role:builder'], ['test.ping']);
        return JSON.stringify(r.out) === JSON.stringify({ m1: true });
      },
      20_000,
      '-G custom_role:builder to match m1 only',
    );
  });

  it('a broken grains file is reported by name; the other custom grains stay', async () => {
    write(path.join(srv, '_grains', 'bad.js'), 'export function oops() { throw new Error("no grains today"); }\n');
    const r = await run(['m1'], ['saltutil.sync_grains']);
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.m1, { grains: ['grains.bad'], errors: ['bad.js: oops() failed: no grains today'] });
    assert.equal(storedError(r.jid)?.code, 'MODULE_LOAD_FAILED');
    assert.equal(((await m1Run('grains.items')) as Record<string, unknown>).custom_role, 'builder');
    fs.rmSync(path.join(srv, '_grains', 'bad.js'));
    assert.deepEqual(await m1Run('saltutil.sync_grains'), []);
  });

  it('a custom state from _states is used by an SLS through state.apply', async () => {
    write(
      path.join(srv, '_states', 'greeting.mjs'),
      `export const states = [{
  name: 'greeting.present',
  doc: 'Make sure a greeting exists.',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'loud', type: 'bool', default: false }],
  run: async (ctx, args) => ({
    name: args.named.name,
    result: ctx.test ? null : true,
    changes: ctx.test ? {} : { greeted: args.named.loud ? args.named.name.toUpperCase() : args.named.name },
    comment: 'greeted ' + args.named.name + ' on ' + ctx.exec.minionId,
  }),
}];\n`,
    );
    write(path.join(srv, 'greet.sls'), 'say hi:\n  greeting.present:\n    - name: world\n    - loud: true\n');
    const before = await run(['m1'], ['state.apply', 'greet']);
    assert.equal(before.code, 1, 'greeting.present is unknown before the sync');
    assert.deepEqual(await m1Run('saltutil.sync_states'), ['states.greeting']);
    const ret = (await m1Run('state.apply', 'greet')) as Record<string, { result: unknown; changes: unknown; comment: string }>;
    const state = ret['greeting_|-say hi_|-world_|-present'];
    assert.ok(state, JSON.stringify(ret));
    assert.equal(state.result, true);
    assert.deepEqual(state.changes, { greeted: 'WORLD' });
    assert.equal(state.comment, 'greeted world on m1');
  });

  it('a broken module is reported by name (coded) while another in the same sync loads', async () => {
    write(path.join(srv, '_modules', 'broken.js'), 'throw new Error("broken on purpose");\n');
    write(path.join(srv, '_modules', 'good2.mjs'), "export const functions = [{ name: 'good2.ok', doc: 'ok', params: [], run: () => 'fine' }];\n");
    const r = await run(['m1'], ['saltutil.sync_modules']);
    assert.equal(r.code, 1, r.stderr);
    // what changed, per kind as sync_all has it, and each broken file with its reason
    assert.deepEqual(r.out.m1, { modules: ['modules.broken', 'modules.good2'], errors: ['broken.js: broken on purpose'] });
    const error = storedError(r.jid);
    assert.equal(error?.code, 'MODULE_LOAD_FAILED', JSON.stringify(error));
    assert.match(error?.message ?? '', /broken\.js: broken on purpose/);
    assert.equal(await m1Run('good2.ok'), 'fine');
    await m1.waitForOutput(/broken\.js was not loaded: broken on purpose/);
    // the minion keeps working
    assert.equal(await m1Run('test.ping'), true);
    // and brine doctor on the minion's host names the file until a sync brings a fixed one
    const doctor = await runCli(['doctor', 'minion', '-c', cluster.minionConfigDir('m1')], { timeoutMs: 30_000 });
    assert.match(doctor.stdout, /WARN.*custom modules.*MODULE_LOAD_FAILED.*broken\.js: broken on purpose/);
    fs.rmSync(path.join(srv, '_modules', 'broken.js'));
  });

  it('sync_all returns what changed per kind', async () => {
    // broken.js is gone from the master: the sync removes it and the doctor line goes
    assert.deepEqual(await m1Run('saltutil.sync_modules'), []);
    assert.doesNotMatch((await runCli(['doctor', 'minion', '-c', cluster.minionConfigDir('m1')], { timeoutMs: 30_000 })).stdout, /custom modules/);
    write(path.join(srv, '_modules', 'third.js'), "export const functions = [{ name: 'third.one', doc: 'one', params: [], run: () => 1 }];\n");
    const all = (await m1Run('saltutil.sync_all')) as Record<string, unknown>;
    assert.deepEqual(all, { grains: [], modules: ['modules.third'], states: [], renderers: [] });
    assert.equal(await m1Run('third.one'), 1);
    assert.deepEqual(await m1Run('saltutil.sync_all'), { grains: [], modules: [], states: [], renderers: [] });
  });

  it('a module name with path characters or a subdirectory is never synced', async () => {
    write(path.join(srv, '_modules', 'sub', 'nested.js'), "export const functions = [{ name: 'nested.x', doc: 'x', params: [], run: () => 1 }];\n");
    const r = await run(['m1'], ['saltutil.sync_modules']);
    assert.equal(r.code, 1);
    assert.deepEqual((r.out.m1 as { modules: unknown }).modules, []);
    assert.match(JSON.stringify(r.out.m1), /_modules\/sub\/nested\.js: custom modules in subdirectories are not synced/);
    assert.match(storedError(r.jid)?.message ?? '', /subdirector/);
    assert.ok(!fs.existsSync(path.join(extmods('modules'), 'sub')));
    assert.ok(!fs.existsSync(path.join(extmods('modules'), 'nested.js')));
    fs.rmSync(path.join(srv, '_modules', 'sub'), { recursive: true });
  });

  it('synced modules and grains are loaded again after a restart', async () => {
    await m1.kill();
    m1 = cluster.startMinion('m1', { grains: { override_me: 'from config' } });
    await m1.waitForOutput(/ready to receive requests/);
    assert.equal(await m1Run('third.one'), 1);
    assert.equal(((await m1Run('grains.items')) as Record<string, unknown>).custom_role, 'builder');
  });

  it('startup_states syncs custom modules first (autoload_dynamic_modules) and runs the SLS at start', async () => {
    const m3 = cluster.startMinion('m3', { startup_states: 'sls', sls_list: ['greet'] });
    // greet.sls uses the custom greeting.present state: it only succeeds if the sync ran first
    await m3.waitForOutput(/startup_states: state\.sls: 1 state\(s\), 0 failed \(retcode 0\)/, 30_000);
    assert.match(m3.output, /startup_states: saltutil\.sync_all: retcode 0/);
    assert.equal((await run(['m3'], ['third.one'])).out.m3, 1);
  });

  it('brine call --local syncs from the local file_roots and the next call loads the module', async () => {
    // relative paths are under root_dir (<root>/minions/loc): this is the master's tree
    cluster.writeMinionConfig('loc', { file_client: 'local', file_roots: { base: ['../../master/srv/salt'] } });
    const call = (...args: string[]) => runCli(['call', '--local', ...args, '--out', 'json', '-c', cluster.minionConfigDir('loc')]);
    const synced = await call('saltutil.sync_modules');
    assert.equal(synced.code, 0, synced.stderr);
    assert.deepEqual(JSON.parse(synced.stdout), { local: ['modules.good2', 'modules.third'] });
    const r = await call('third.one');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: 1 });
  });
});
