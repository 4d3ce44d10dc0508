// The issue 22 state functions through the real CLI (`brine call`, masterless, the state worker
// bundle): git.latest against a bare repository on disk, file.keyvalue and file.comment on a real
// file, ssh_auth.present on an authorized_keys file; each first with test=True (nothing changes),
// then for real, then again (no changes). Shapes are pinned in the unit tests; this proves the
// functions are registered and bundled where states run.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

type Ret = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;

describe('masterless state.single with the Salt tree states', () => {
  let cluster: Cluster;
  let work: string;
  const single = async (args: string[]): Promise<{ result: boolean | null; changes: Record<string, unknown>; comment: string }> => {
    const r = await runCli(['call', '-c', cluster.minionConfigDir('st'), '--out', 'json', 'state.single', ...args]);
    const ret = (JSON.parse(r.stdout) as { local: Ret }).local;
    return Object.values(ret)[0]!;
  };

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('st', { file_client: 'local' });
    work = path.join(cluster.root, 'work');
    const git = (cwd: string, ...a: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...a], { cwd });
    git(cluster.root, 'init', '-q', '--bare', 'remote.git');
    git(cluster.root, 'clone', '-q', 'remote.git', work);
    fs.writeFileSync(path.join(work, 'README'), 'hello\n');
    git(work, 'add', 'README');
    git(work, 'commit', '-q', '-m', 'one');
    git(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  });
  after(() => cluster.cleanup());

  it('git.latest clones a file:// remote (test=True first), then is up-to-date', async () => {
    const url = `file://${cluster.root}/remote.git`;
    const target = path.join(cluster.root, 'clone');
    const t = await single(['git.latest', `name=${url}`, `target=${target}`, 'test=True']);
    assert.deepEqual([t.result, t.changes], [null, { new: `${url} => ${target}` }]);
    assert.equal(fs.existsSync(target), false);
    const r = await single(['git.latest', `name=${url}`, `target=${target}`]);
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `${url} cloned to ${target}`);
    assert.equal(fs.readFileSync(path.join(target, 'README'), 'utf8'), 'hello\n');
    assert.equal((await single(['git.latest', `name=${url}`, `target=${target}`])).comment, `Repository ${target} is up-to-date`);
  });

  it('file.keyvalue and file.comment edit a config file', async () => {
    const conf = path.join(cluster.root, 'sshd_config');
    fs.writeFileSync(conf, 'PermitRootLogin yes\nX11Forwarding yes\n');
    const kv = ['file.keyvalue', `name=${conf}`, 'key=PermitRootLogin', 'value=without-password', 'separator= '];
    assert.equal((await single([...kv, 'test=True'])).result, null);
    const r = await single(kv);
    assert.deepEqual([r.result, r.comment], [true, 'Changed 1 lines']);
    const c = await single(['file.comment', `name=${conf}`, 'regex=^X11Forwarding']);
    assert.deepEqual([c.result, c.comment], [true, 'Commented lines successfully']);
    assert.equal(fs.readFileSync(conf, 'utf8'), 'PermitRootLogin without-password\n#X11Forwarding yes\n');
  });

  it('ssh_auth.present adds a real key once', async () => {
    const keyFile = path.join(cluster.root, 'id');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const key = fs.readFileSync(`${keyFile}.pub`, 'utf8').split(' ')[1]!;
    const config = path.join(cluster.root, 'home', '.ssh', 'authorized_keys');
    const args = ['ssh_auth.present', `name=${key}`, 'user=root', 'enc=ssh-ed25519', `config=${config}`];
    assert.deepEqual((await single(args)).changes, { [key]: 'New' });
    assert.equal((await single(args)).comment, `The authorized host key ${key} is already present for user root`);
  });
});
