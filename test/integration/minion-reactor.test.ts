// Issue 25 point 5 (caller. reactions, the reactor on a minion) with a real masterless minion
// process (file_client: local, master_type: disable, engines: [reactor]): `brine call event.fire`
// in a process of its own reaches the daemon's bus, the minion's reactor maps the tag to SLS files
// (salt:// from its own file_roots, and an absolute path) whose caller.file.touch and
// caller.state.single run on that minion, with salt[...] in the SLS answered by the minion's own
// functions; a beacon's events reach the reactor as Salt's __beacons_return; a reaction that
// fires its own tag is stopped after 3 rounds, as on the master.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { writeWithDirs as write } from '../helpers/paths.js';

describe("a masterless minion's own reactor", () => {
  let cluster: Cluster;
  let minion: Proc;
  let out: string;
  let reactorDir: string;

  /** brine call on this minion's machine (masterless: runs here, event.fire goes to the daemon's bus). */
  const call = (args: string[]) => runCli(['call', ...args, '--out', 'json', '-c', cluster.minionConfigDir('solo')]);

  before(async () => {
    cluster = await Cluster.create();
    out = path.join(cluster.root, 'out');
    fs.mkdirSync(out, { recursive: true });
    reactorDir = path.join(cluster.root, 'reactor');
    const srv = path.join(cluster.root, 'minions', 'solo', 'srv', 'salt');
    // from the minion's own file_roots (salt://), the current args: syntax
    write(path.join(srv, 'reactor', 'touch.sls'), "touch_marker:\n  caller.file.touch:\n    - args:\n      - name: {{ data['path'] | json }}\n");
    // salt[...] runs the minion's own functions (grains.get, cmd.run, pillar.get) while rendering
    write(
      path.join(reactorDir, 'managed.sls'),
      [
        "{% set word = salt['cmd.run']('echo rendered-by-cmd-run') %}",
        'write_managed:',
        '  caller.state.single:',
        '    - args:',
        '      - fun: file.managed',
        `      - name: ${out}/managed.txt`,
        "      - contents: \"{{ salt['grains.get']('id') }} {{ word }} {{ salt['pillar.get']('missing', 'default-value') }} {{ data['n'] }}\"",
        '',
      ].join('\n'),
    );
    // fires the tag its own glob matches: a loop the guard must stop
    write(path.join(reactorDir, 'loop.sls'), 'again:\n  caller.event.fire:\n    - args:\n      - data: {round: 1}\n      - tag: myco/loop/again\n');
    write(path.join(reactorDir, 'local.sls'), 'not_here:\n  local.test.ping:\n    - tgt: solo\n');
    // a beacon's events are on the minion's bus as Salt's __beacons_return bundle
    write(
      path.join(reactorDir, 'beacon.sls'),
      `{% for b in data['beacons'] if b['tag'].startswith('salt/beacon/solo/diskusage') %}{% if loop.first %}\nseen_disk:\n  caller.file.touch:\n    - args:\n      - name: ${out}/beacon-{{ b['data']['mount'] | replace('/', 'root') }}\n{% endif %}{% endfor %}\n`,
    );
    minion = cluster.startMinion('solo', {
      file_client: 'local',
      master_type: 'disable',
      engines: [{ reactor: { worker_threads: 2 } }],
      reactor: [
        { 'myco/touch': 'salt://reactor/touch.sls' },
        { 'myco/managed': [path.join(reactorDir, 'managed.sls')] },
        { 'myco/loop/*': [path.join(reactorDir, 'loop.sls')] },
        { 'myco/local': [path.join(reactorDir, 'local.sls')] },
        { __beacons_return: [path.join(reactorDir, 'beacon.sls')] },
      ],
      beacons: { diskusage: [{ '^/$': '0%' }, { interval: 2 }] },
    });
    await minion.waitForOutput(/reactor started on the minion's own event bus/);
    // the control socket opens with the other features: event.fire answers true once it does
    await waitUntil(async () => (await call(['event.fire', '{}', 'myco/warmup'])).stdout.includes('true'), 30_000, "event.fire to reach the minion's bus");
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('brine call event.fire -> the reactor maps the tag to salt://reactor/touch.sls, whose caller.file.touch runs on the minion: the file appears', async () => {
    const marker = path.join(out, 'touched');
    assert.equal(fs.existsSync(marker), false);
    const r = await call(['event.fire', JSON.stringify({ path: marker }), 'myco/touch']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: true });
    await waitUntil(() => fs.existsSync(marker), 30_000, 'caller.file.touch to create the marker');
    await minion.waitForOutput(/reactor salt:\/\/reactor\/touch\.sls ran caller\.file\.touch for tag myco\/touch/);
  });

  it("caller.state.single with salt[...] in the SLS: cmd.run, grains.get and pillar.get are the minion's own; event.send on a masterless minion fires on its own bus (Salt's rule)", async () => {
    const r = await call(['event.send', 'myco/managed', 'n=7']);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(out, 'managed.txt');
    await waitUntil(() => fs.existsSync(file), 60_000, 'caller.state.single to write managed.txt');
    assert.equal(fs.readFileSync(file, 'utf8'), 'solo rendered-by-cmd-run default-value 7\n');
  });

  it("a beacon's event reaches the minion's reactor as Salt's __beacons_return (data['beacons'] holds its tag and data): the reaction touches a file named from it", async () => {
    await waitUntil(() => fs.existsSync(path.join(out, 'beacon-root')), 30_000, 'the diskusage beacon -> __beacons_return -> caller.file.touch');
    assert.match(minion.output, /beacon\.sls ran caller\.file\.touch for tag __beacons_return/);
  });

  it('a reaction that fires its own tag (caller.event.fire) is stopped after 3 rounds with REACTOR_LOOP naming the SLS and tag; the minion goes on', async () => {
    const r = await call(['event.fire', '{}', 'myco/loop/start']);
    assert.equal(r.code, 0, r.stderr);
    const warning = await minion.waitForOutput(/REACTOR_LOOP: reactor (\S+) was not run for tag (myco\/loop\/again)/);
    assert.equal(warning[1], path.join(reactorDir, 'loop.sls'));
    const rounds = minion.output.split(/loop\.sls ran caller\.event\.fire for tag myco\/loop\//).length - 1;
    assert.equal(rounds, 3, 'three reactions, then the loop is stopped');
    assert.equal(minion.running, true);
  });

  it('a local. reaction on a minion is REACTION_UNSUPPORTED saying to use caller.; brine call event.fire with no daemon answers false with the reason', async () => {
    const r = await call(['event.fire', '{}', 'myco/local']);
    assert.equal(r.code, 0, r.stderr);
    await minion.waitForOutput(/REACTION_UNSUPPORTED: \S+local\.sls: reaction 'not_here' cannot run here: a minion's reactor runs caller\.<fun> reactions only/);
    await minion.kill('SIGTERM');
    const none = await call(['event.fire', '{}', 'myco/touch']);
    assert.deepEqual(JSON.parse(none.stdout), { local: false });
    assert.match(none.stderr, /no minion daemon answers on \S+minion\.sock/);
  });
});
