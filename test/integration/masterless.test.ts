// Masterless mode (issue 9 point 5): `brine call` runs the function in a worker thread with the
// same host services as a minion job. With file_client: local (or --local, as salt-call --local)
// salt:// comes from the minion's own file_roots; without it there is no master session and the
// error says what to do. A custom module proves the worker's blocking syncHost (call in another
// worker thread, readFile through the file client) end to end.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, type CliResult } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const PROBE = `import { threadId } from 'node:worker_threads';
export const functions = [
  {
    name: 'probe.thread',
    doc: 'The thread this runs in.',
    params: [],
    run: () => threadId,
  },
  {
    name: 'probe.nested',
    doc: 'Blocking calls through syncHost, as the Jinja renderer makes them.',
    params: [],
    run: (ctx) => {
      const other = ctx.syncHost.call('probe.thread', [], {});
      const echo = ctx.syncHost.call('test.echo', ['via host'], {});
      const bad = ctx.syncHost.call('nosuch.fun', [], {});
      return {
        me: threadId,
        other: other.return,
        echo: echo.return,
        badCode: bad.error && bad.error.code,
        text: ctx.syncHost.readFile('salt://web/motd', 'base'),
        missing: ctx.syncHost.readFile('salt://web/none', 'base') === undefined,
      };
    },
  },
  {
    name: 'probe.files',
    doc: 'The async file client proxy.',
    params: [],
    run: async (ctx) => ({ envs: await ctx.files.listEnvs(), stat: await ctx.files.stat('salt://web/motd', 'base') }),
  },
];
`;

describe('masterless: brine call with file_client local', () => {
  let cluster: Cluster;
  let callIn: (dir: string, args: string[]) => Promise<CliResult>;

  before(async () => {
    cluster = await Cluster.create();
    const modules = path.join(cluster.root, 'modules');
    write(path.join(modules, 'probe.mjs'), PROBE);
    for (const [name, extra] of [
      ['local', { file_client: 'local' }],
      ['remote', {}],
    ] as const) {
      cluster.writeMinionConfig(name, { id: `ml-${name}`, module_dirs: [modules], ...extra });
      const srv = path.join(cluster.root, 'minions', name, 'srv', 'salt');
      write(path.join(srv, 'top.sls'), "base:\n  '*':\n    - web\n");
      write(path.join(srv, 'web', 'init.sls'), 'motd:\n  file.managed: []\n');
      write(path.join(srv, 'web', 'motd'), 'hello from the local file_roots\n');
    }
    callIn = (name, args) => runCli(['call', ...args, '-c', cluster.minionConfigDir(name)]);
  });
  after(() => cluster.cleanup());

  it("file_client: local serves cp.* from the minion's own file_roots, no master needed", async () => {
    const r = await callIn('local', ['cp.list_master', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: ['top.sls', 'web/init.sls', 'web/motd'] });
    const states = await callIn('local', ['cp.list_states', '--out', 'json']);
    assert.deepEqual(JSON.parse(states.stdout), { local: ['top', 'web'] });
    const cached = await callIn('local', ['cp.cache_file', 'salt://web/motd', '--out', 'json']);
    const local = (JSON.parse(cached.stdout) as { local: string }).local;
    assert.equal(local, path.join(cluster.root, 'minions', 'local', 'var', 'cache', 'brine', 'minion', 'files', 'base', 'web', 'motd'));
    assert.equal(fs.readFileSync(local, 'utf8'), 'hello from the local file_roots\n');
  });

  it('--local implies file_client: local, as salt-call --local does', async () => {
    const r = await callIn('remote', ['--local', 'cp.list_master', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: ['top.sls', 'web/init.sls', 'web/motd'] });
  });

  it('without local mode brine call goes through the minion daemon; with none running, MINION_NOT_RUNNING says to start it or use --local', async () => {
    const r = await callIn('remote', ['cp.list_master']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^MINION_NOT_RUNNING: .*Start the minion.*--local/m);
  });

  it('a path leaving the root is PATH_REFUSED in local mode too', async () => {
    const r = await callIn('local', ['cp.cache_file', 'salt://../../etc/passwd']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^PATH_REFUSED: /m);
  });

  it('syncHost: a blocking call runs in another worker thread, readFile reads through the file client', async () => {
    const r = await callIn('local', ['probe.nested', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const got = (JSON.parse(r.stdout) as { local: Record<string, unknown> }).local;
    assert.notEqual(got.me, 0, 'the function runs in a worker thread, not on the main thread');
    assert.notEqual(got.other, got.me, 'the nested call ran in the blocked worker');
    assert.notEqual(got.other, 0, 'the nested call ran on the host thread');
    assert.equal(got.echo, 'via host');
    assert.equal(got.badCode, 'UNKNOWN_FUNCTION');
    assert.equal(got.text, 'hello from the local file_roots\n');
    assert.equal(got.missing, true);
  });

  it('the async file client proxy answers from the host thread', async () => {
    const r = await callIn('local', ['probe.files', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const got = (JSON.parse(r.stdout) as { local: { envs: string[]; stat: { path: string; size: number } } }).local;
    assert.deepEqual(got.envs, ['base']);
    assert.equal(got.stat.path, 'web/motd');
    assert.equal(got.stat.size, 'hello from the local file_roots\n'.length);
  });
});
