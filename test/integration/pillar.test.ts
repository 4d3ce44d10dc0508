// Pillar end to end (issue 10 item 1): a real master renders pillar_roots per minion with its
// grains and sends it only over that minion's session; two real minions read different data,
// pick up an edited file after saltutil.refresh_pillar, are targeted by -I / I@ from the
// master's pillar cache; a render error stays with its minion (last good pillar + _errors +
// brine doctor); a raw client asking for another ID gets nothing; the secret never reaches a
// log or the event stream; the cache file is 0600.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';
import { outsidePillarReturns } from '../helpers/events.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const SECRET = `S3cret-${randomBytes(8).toString('hex')}`;

describe('pillar: rendered on the master per minion, sent over its own session', () => {
  let fx: RawPeerFixture;
  let pillarRoot: string;
  let saltRoot: string;
  let events: Proc;
  const minions: Proc[] = [];

  const runJson = async (tgt: string, args: string[], flags: string[] = []): Promise<Record<string, unknown>> => {
    const r = await fx.cluster.brine(['run', '--static', ...flags, tgt, ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${tgt} ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  before(async () => {
    fx = await RawPeerFixture.start({ auto_accept: true, log_level: 'trace' }, { goodMinion: false });
    pillarRoot = path.join(fx.cluster.root, 'master', 'srv', 'pillar');
    saltRoot = path.join(fx.cluster.root, 'master', 'srv', 'salt');
    write(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - common\n  'web1':\n    - web\n  'db1':\n    - db\n");
    write(path.join(pillarRoot, 'common.sls'), `{% from 'map.jinja' import conf with context %}\ndb_password: ${SECRET}\npkg: {{ conf.pkg }}\nminion: {{ grains['id'] }}\n`);
    write(path.join(pillarRoot, 'map.jinja'), "{% set conf = salt['grains.filter_by']({'default': {'pkg': 'generic'}}, grain='nosuchgrain', default='default') %}\n");
    write(path.join(pillarRoot, 'web.sls'), 'role: web\napp:\n  tier: front\n  port: 80\nmotd: hello from pillar\n');
    write(path.join(pillarRoot, 'db.sls'), 'role: db\napp:\n  tier: back\n');
    write(
      path.join(saltRoot, 'motd.sls'),
      "{{ grains['cachedir'] if false else '' }}motd:\n  file.managed:\n    - name: {{ pillar['target_dir'] | default('/nonexistent') }}/motd\n    - contents_pillar: motd\n",
    );
    write(path.join(saltRoot, 'override.sls'), "ov:\n  file.managed:\n    - name: {{ pillar['target_dir'] }}/override\n    - contents: {{ pillar['k'] }}-{{ pillar['role'] }}\n");
    // the event stream records everything that follows; it must never carry the secret
    events = fx.cluster.spawnBrine('events', ['events', '-c', fx.cluster.masterConfigDir, '--out', 'json', '--timeout', '600']);
    for (const id of ['web1', 'db1']) minions.push(fx.cluster.startMinion(id, { log_level: 'trace' }));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/)));
  });
  after(() => fx.close());

  it('pillar.get / pillar.items / item / ls / keys give each minion its own data, rendered with its grains', async () => {
    await waitUntil(
      async () => {
        const r = await runJson('*', ['pillar.get', 'role']);
        return r.web1 === 'web' && r.db1 === 'db' ? r : undefined;
      },
      30_000,
      'both minions hold their pillar',
    );
    const items = await runJson('*', ['pillar.items']);
    assert.deepEqual(items.web1, { db_password: SECRET, pkg: 'generic', minion: 'web1', role: 'web', app: { tier: 'front', port: 80 }, motd: 'hello from pillar' });
    assert.deepEqual(items.db1, { db_password: SECRET, pkg: 'generic', minion: 'db1', role: 'db', app: { tier: 'back' } });
    assert.deepEqual((await runJson('web1', ['pillar.get', 'app:port'])).web1, 80);
    assert.deepEqual((await runJson('db1', ['pillar.get', 'app:port', 'default=5432'])).db1, 5432);
    assert.deepEqual((await runJson('web1', ['pillar.item', 'role', 'app:tier'])).web1, { role: 'web', 'app:tier': 'front' });
    assert.deepEqual(((await runJson('db1', ['pillar.ls'])).db1 as string[]).sort(), ['app', 'db_password', 'minion', 'pkg', 'role']);
    assert.deepEqual((await runJson('web1', ['pillar.keys', 'app'])).web1, ['tier', 'port']);
  });

  it('-I, -J and I@ target from the master pillar cache', async () => {
    assert.deepEqual(Object.keys(await runJson('role:web', ['test.ping'], ['-I'])), ['web1']);
    assert.deepEqual(Object.keys(await runJson('app:tier:b.*', ['test.ping'], ['-J'])), ['db1']);
    assert.deepEqual(Object.keys(await runJson('I@role:db and db*', ['test.ping'], ['-C'])).sort(), ['db1']);
    assert.deepEqual(Object.keys(await runJson('app|tier|front', ['test.ping'], ['-I', '--delimiter', '|'])), ['web1']);
    const none = await fx.cluster.brine(['run', '-I', 'role:nothing', 'test.ping', '-t', '10']);
    assert.equal(none.code, 2, none.stdout + none.stderr);
  });

  it('an edited pillar file reaches the minion after saltutil.refresh_pillar', async () => {
    write(path.join(pillarRoot, 'web.sls'), `role: web\napp:\n  tier: front\n  port: 8080\nmotd: hello again\ntarget_dir: ${fx.cluster.root}\n`);
    assert.deepEqual(await runJson('web1', ['saltutil.refresh_pillar']), { web1: true });
    assert.equal((await runJson('web1', ['pillar.get', 'app:port'])).web1, 8080);
    // the other minion's pillar did not change (it was not refreshed, and its files did not change)
    assert.equal((await runJson('db1', ['pillar.get', 'app:port', 'default=none'])).db1, 'none');
  });

  it('file.managed contents_pillar writes the pillar value', async () => {
    const r = await runJson('web1', ['state.apply', 'motd']);
    const ret = Object.values(r.web1 as Record<string, { result: boolean }>);
    assert.ok(ret.length === 1 && ret[0]!.result === true, JSON.stringify(r));
    assert.equal(fs.readFileSync(path.join(fx.cluster.root, 'motd'), 'utf8'), 'hello again\n');
  });

  it("state.apply pillar='{...}' overrides for that run only, merged over the minion's pillar", async () => {
    const r = await runJson('web1', ['state.apply', 'override', 'pillar={"k": "over"}']);
    const ret = Object.values(r.web1 as Record<string, { result: boolean }>);
    assert.ok(ret.length === 1 && ret[0]!.result === true, JSON.stringify(r));
    assert.equal(fs.readFileSync(path.join(fx.cluster.root, 'override'), 'utf8'), 'over-web\n');
    assert.equal((await runJson('web1', ['pillar.get', 'k', 'default=unset'])).web1, 'unset');
  });

  it('a render error stays with its minion: last good pillar + _errors with file and line, others unaffected, doctor lists it', async () => {
    write(path.join(pillarRoot, 'db.sls'), 'role: db\napp: [unclosed\n  tier: back\n');
    assert.deepEqual(await runJson('*', ['saltutil.refresh_pillar']), { web1: true, db1: true });
    const items = (await runJson('db1', ['pillar.items'])).db1 as Record<string, unknown>;
    assert.equal(items.role, 'db', 'the last good pillar is kept');
    const errors = items._errors as string[];
    assert.ok(Array.isArray(errors) && errors.length === 1, JSON.stringify(items));
    assert.match(errors[0]!, /db\.sls:\d+/);
    assert.equal((await runJson('web1', ['pillar.get', 'app:port'])).web1, 8080);
    assert.equal(((await runJson('web1', ['pillar.items'])).web1 as Record<string, unknown>)._errors, undefined);
    const doctor = await fx.cluster.brine(['doctor', 'master']);
    assert.match(doctor.stdout, /FAIL pillar of db1: the latest render failed \(1 error\(s\)\): .*db\.sls:\d+/);
    assert.doesNotMatch(doctor.stdout, /pillar of web1/);
    assert.ok(!doctor.stdout.includes(SECRET));
    // a state run on that minion is refused (Salt's pillar failure), coded; force=True runs it on the last good pillar
    const refused = await fx.cluster.brine(['run', 'db1', 'state.apply', 'override', `pillar={"k": "x", "target_dir": ${JSON.stringify(fx.cluster.root)}}`, '--out', 'json', '-t', '30']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    const refusedRet = (JSON.parse(refused.stdout) as { db1: string[] }).db1;
    assert.equal(refusedRet[0], 'Pillar failed to render with the following messages:');
    assert.match(refusedRet[1]!, /db\.sls:\d+/);
    assert.equal(fs.readFileSync(path.join(fx.cluster.root, 'override'), 'utf8'), 'over-web\n', 'no state ran');
    const forced = await runJson('db1', ['state.apply', 'override', `pillar={"k": "forced", "target_dir": ${JSON.stringify(fx.cluster.root)}}`, 'force=True']);
    assert.ok(
      Object.values(forced.db1 as Record<string, { result: boolean }>).every((r) => r.result === true),
      JSON.stringify(forced),
    );
    assert.equal(fs.readFileSync(path.join(fx.cluster.root, 'override'), 'utf8'), 'forced-db\n');
    // fixed: the error goes away
    write(path.join(pillarRoot, 'db.sls'), 'role: db\napp:\n  tier: back\n');
    await runJson('db1', ['saltutil.refresh_pillar']);
    assert.equal(((await runJson('db1', ['pillar.items'])).db1 as Record<string, unknown>)._errors, undefined);
  });

  it("a raw client signed in as one minion asking for another's pillar gets a refusal, counted and logged", async () => {
    const raw = await fx.connect();
    raw.send({ t: 'hello', versions: [1], id: 'raw-pillar', agent: 'raw-client' });
    assert.equal((await raw.nextFrame(5000))?.status, 'accepted');
    /** The next frame of type `t` (jobs and job queries sent to this peer come in between). */
    const frameOf = async (t: string): Promise<Record<string, unknown> | undefined> => {
      for (let i = 0; i < 20; i++) {
        const f = await raw.nextFrame(10_000);
        if (f === undefined || f.t === t) return f;
      }
      return undefined;
    };
    // Salt's greedy rule: the master has no pillar of raw-pillar yet, so a pillar target expects it
    // (the minion re-checks on its side); db1's cached pillar rules db1 out
    const greedy = await fx.cluster.brine(['run', '-I', 'role:web', 'test.ping', '--out', 'json', '-t', '3']);
    const sent = await frameOf('job');
    assert.equal(sent?.tgtType, 'pillar', JSON.stringify(sent));
    assert.ok(greedy.stdout.includes('"raw-pillar"') && greedy.stdout.includes('"web1"'), greedy.stdout);
    assert.ok(!greedy.stdout.includes('"db1"'), greedy.stdout);
    raw.send({ t: 'pillar_request', rid: 7, id: 'web1' });
    const denied = await frameOf('pillar_reply');
    assert.equal(denied?.t, 'pillar_reply');
    assert.equal(denied?.ok, false);
    assert.equal((denied?.error as { code: string } | undefined)?.code, 'PILLAR_DENIED');
    assert.equal(denied?.pillar, undefined);
    await fx.master.waitForOutput(/refused a pillar request from minion raw-pillar for another minion's pillar \(web1\)/);
    // its own pillar: only what the top file gives raw-pillar ('*': common)
    raw.send({ t: 'pillar_request', rid: 8 });
    const own = await frameOf('pillar_reply');
    assert.equal(own?.ok, true, JSON.stringify(own?.error));
    assert.equal((own?.pillar as Record<string, unknown> | undefined)?.minion, 'raw-pillar');
    assert.equal((own?.pillar as Record<string, unknown> | undefined)?.role, undefined);
    // now cached (no role): the same target expects web1 only and does not wait for raw-pillar
    assert.deepEqual(Object.keys(await runJson('role:web', ['test.ping'], ['-I'])), ['web1']);
  });

  it('the master pillar cache files are mode 0600 in a 0700 directory', () => {
    const dir = path.join(fx.cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'pillar');
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.includes('web1.json') && files.includes('db1.json'), files.join(','));
    for (const f of files) assert.equal(fs.statSync(path.join(dir, f)).mode & 0o777, 0o600, f);
  });

  it('the secret is in no master or minion log line (log_level trace) and in no event', async () => {
    // (not '*': the raw client above is an accepted minion that never answers jobs)
    await runJson('web1,db1', ['test.ping'], ['-L']);
    await events.kill('SIGTERM');
    assert.match(events.output, /"tag":"salt\/job\/\d+\/ret\//, 'the event stream saw the jobs');
    // the returns of pillar.* jobs carry it, as Salt's return events do; no other event may
    assert.ok(!outsidePillarReturns(events.output).includes(SECRET), 'secret in brine events output');
    for (const p of [fx.master, ...minions]) {
      assert.ok(p.output.length > 0);
      assert.ok(!p.output.includes(SECRET), `secret in the log of ${p.name}`);
    }
  });
});
