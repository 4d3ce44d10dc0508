// Issue 23 (points 3 and 4) end to end: a real master with gpg_keydir at its default
// (<config_dir>/gpgkeys, keys made here with the real gpg) renders a `#!yaml|gpg` pillar SLS and
// ext_pillar sources (cmd_json, file_tree with keep_newline) for two real minions. The secret
// reaches web1 only, in plaintext (a state writes it with contents_pillar), and is in no master or
// minion log, no event, no line of the job cache, not in db1's pillar and not in `brine doctor`.
// A cmd_json that prints bad JSON and a block for a key the master lacks are coded pillar errors:
// state runs are refused with the reason, the last good pillar and the other minion stay as they were.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster, type Proc, waitUntil } from '../helpers/cluster.js';
import { GpgHome } from '../helpers/gpg.js';
import { outsidePillarReturns } from '../helpers/events.js';

const SECRET = `GpgPlain-${randomBytes(8).toString('hex')}`;
const CMD_SECRET = `CmdOut-${randomBytes(6).toString('hex')}`;

function write(file: string, data: string, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data, mode === undefined ? {} : { mode });
}

/** Every file under `dir` (the job cache's SQLite file and its -wal/-shm companions). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('pillar secrets: #!yaml|gpg and ext_pillar on a real master with two real minions', () => {
  let cluster: Cluster;
  let master: Proc;
  let events: Proc;
  let gpg: GpgHome;
  let stranger: GpgHome;
  let pillarRoot: string;
  let extDir: string;
  const minions: Proc[] = [];

  const runJson = async (tgt: string, args: string[], flags: string[] = []): Promise<Record<string, unknown>> => {
    const r = await cluster.brine(['run', '--static', ...flags, tgt, ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${tgt} ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  before(async () => {
    cluster = await Cluster.create();
    const masterRoot = path.join(cluster.root, 'master');
    // the default gpg_keydir: <config_dir>/gpgkeys
    gpg = GpgHome.create('brine-master@example.org', cluster.masterConfigDir);
    stranger = GpgHome.create('not-the-master@example.org');
    pillarRoot = path.join(masterRoot, 'srv', 'pillar');
    extDir = path.join(masterRoot, 'ext');
    const armored = gpg.encrypt(SECRET);
    const indented = armored
      .trimEnd()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
    write(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - common\n  'web1':\n    - secret\n");
    write(path.join(pillarRoot, 'common.sls'), 'role: {{ grains.id }}\n');
    write(path.join(pillarRoot, 'secret.sls'), `#!yaml|gpg\ndb:\n  user: app\n  password: |\n${indented}\n`);
    // cmd_json: prints bad JSON (holding CMD_SECRET) while the flag file exists
    write(path.join(extDir, 'ext.sh'), `#!/bin/sh\nif [ -e '${extDir}/broken' ]; then echo '{"leak": ${CMD_SECRET}'; exit 0; fi\nprintf '{"from_cmd": {"id": "%s"}}' "$1"\n`, 0o755);
    write(path.join(extDir, 'tree', 'hosts', 'web1', 'certs', 'site.pem'), 'PEM-LINE\n');
    write(path.join(extDir, 'tree', 'hosts', 'web1', 'note'), 'stripped\n');
    master = await cluster.startMaster({
      auto_accept: true,
      log_level: 'trace',
      ext_pillar: [{ cmd_json: `${extDir}/ext.sh %s` }, { file_tree: { root_dir: path.join(extDir, 'tree'), keep_newline: ['certs/*'] } }],
    });
    events = cluster.spawnBrine('events', ['events', '-c', cluster.masterConfigDir, '--out', 'json', '--timeout', '600']);
    for (const id of ['web1', 'db1']) minions.push(cluster.startMinion(id, { log_level: 'trace' }));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/)));
  });

  after(async () => {
    // the master first (it runs gpg), then the test's gpg-agents, then everything else
    await master?.kill();
    gpg?.close();
    stranger?.close();
    await cluster?.cleanup();
  });

  it("web1's state writes the decrypted secret; db1's pillar has none of it; ext_pillar data is merged", async () => {
    const target = path.join(cluster.root, 'secret.out');
    write(path.join(cluster.root, 'master', 'srv', 'salt', 'secret.sls'), `secret:\n  file.managed:\n    - name: ${target}\n    - contents_pillar: db:password\n`);
    const r = await waitUntil(
      async () => {
        const out = await runJson('web1', ['state.apply', 'secret']);
        const ret = Object.values((out.web1 ?? {}) as Record<string, { result: boolean }>);
        return ret.length === 1 && ret[0]!.result === true ? out : undefined;
      },
      30_000,
      'web1 applies the state with its pillar',
    );
    assert.ok(r);
    assert.equal(fs.readFileSync(target, 'utf8'), `${SECRET}\n`);
    const db1 = (await runJson('db1', ['pillar.items'])).db1 as Record<string, unknown>;
    assert.deepEqual(db1, { role: 'db1', from_cmd: { id: 'db1' } });
    // web1's non-secret keys, through pillar.get (the job return holds no secret)
    assert.deepEqual((await runJson('web1', ['pillar.get', 'from_cmd'])).web1, { id: 'web1' });
    assert.equal((await runJson('web1', ['pillar.get', 'certs:site.pem'])).web1, 'PEM-LINE\n', 'keep_newline glob keeps it');
    assert.equal((await runJson('web1', ['pillar.get', 'note'])).web1, 'stripped');
    assert.equal((await runJson('web1', ['pillar.get', 'db:user'])).web1, 'app');
  });

  it('a cmd_json printing bad JSON: a coded pillar error, the state run refused with it, the last good pillar kept, db1 untouched by a fix', async () => {
    write(path.join(extDir, 'broken'), '');
    assert.deepEqual(await runJson('web1', ['saltutil.refresh_pillar']), { web1: true });
    const refused = await cluster.brine(['run', 'web1', 'state.apply', 'secret', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    const lines = (JSON.parse(refused.stdout) as { web1: string[] }).web1;
    assert.equal(lines[0], 'Pillar failed to render with the following messages:');
    assert.equal(
      lines[1],
      `Failed to load ext_pillar #1 (cmd_json): the command (${extDir}/ext.sh) for minion web1 did not print valid JSON on its standard output; run it by hand on the master to see its output`,
    );
    assert.equal((await runJson('web1', ['pillar.get', 'from_cmd'])).web1 !== undefined, true, 'the last good pillar is kept');
    const doctor = await cluster.brine(['doctor', 'master']);
    assert.match(doctor.stdout, /FAIL pillar of web1: .*ext_pillar #1 \(cmd_json\)/);
    fs.rmSync(path.join(extDir, 'broken'));
    assert.deepEqual(await runJson('web1', ['saltutil.refresh_pillar']), { web1: true });
    const ok = await runJson('web1', ['state.apply', 'secret']);
    assert.ok(
      Object.values(ok.web1 as Record<string, { result: boolean }>).every((x) => x.result === true),
      JSON.stringify(ok),
    );
  });

  it('a block for a key gpg_keydir lacks: GPG_DECRYPT_FAILED naming file and key ID in _errors, and the state run is refused', async () => {
    write(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - common\n  'web1':\n    - secret\n  'db1':\n    - foreign\n");
    const foreign = gpg.encrypt('for-someone-else', stranger);
    write(path.join(pillarRoot, 'foreign.sls'), `#!yaml|gpg\napi_key: "${foreign.trimEnd().split('\n').join('\\n')}"\n`);
    assert.deepEqual(await runJson('db1', ['saltutil.refresh_pillar']), { db1: true });
    const items = (await runJson('db1', ['pillar.items'])).db1 as Record<string, unknown>;
    const errors = items._errors as string[];
    assert.equal(errors.length, 1, JSON.stringify(items));
    assert.match(
      errors[0]!,
      /^Rendering SLS 'foreign' failed: pillar_roots base:foreign\.sls: 1 of 1 PGP message block\(s\) could not be decrypted \(at 'api_key': gpg_keydir .* holds no secret key for key ID /,
    );
    assert.ok(errors[0]!.includes(stranger.encKeyId));
    assert.ok(!errors[0]!.includes('BEGIN PGP'));
    const refused = await cluster.brine(['run', 'db1', 'state.apply', 'anything', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /Pillar failed to render/);
    assert.equal(items.role, 'db1', 'the last good pillar is kept');
  });

  it('the plaintext is in no log, no event, no job cache file and no doctor output', async () => {
    await runJson('web1,db1', ['test.ping'], ['-L']);
    const doctor = await cluster.brine(['doctor', 'master']);
    assert.ok(!doctor.stdout.includes(SECRET) && !doctor.stderr.includes(SECRET));
    await events.kill('SIGTERM');
    assert.match(events.output, /"tag":"salt\/job\/\d+\/ret\//, 'the event stream saw the jobs');
    // the returns of pillar.* jobs carry it, as Salt's return events do; no other event may
    assert.ok(!outsidePillarReturns(events.output).includes(SECRET), 'secret in brine events output');
    for (const p of [master, ...minions]) {
      assert.ok(p.output.length > 0);
      assert.ok(!p.output.includes(SECRET), `secret in the log of ${p.name}`);
      assert.ok(!p.output.includes(CMD_SECRET), `cmd output in the log of ${p.name}`);
    }
    const cacheDir = path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master');
    const jobFiles = filesUnder(cacheDir).filter((f) => path.basename(f).startsWith('jobs.sqlite'));
    assert.ok(jobFiles.length > 0, `no job cache under ${cacheDir}`);
    for (const f of jobFiles) assert.ok(!fs.readFileSync(f).includes(SECRET), `secret in ${f}`);
  });
});
