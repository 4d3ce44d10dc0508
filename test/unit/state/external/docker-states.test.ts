// docker_* states: Salt's argument validation and test=True answers, and the run-time failure
// that names what is missing. The docker daemon cannot run on this machine (no dockerd), so a
// real run is tested where it is: the CLI installed and no daemon, or no docker at all (an
// empty PATH). Shapes from salt/states/docker_container.py (running, stopped, absent,
// _format_comments), docker_image.py (present, absent) and docker_network.py (present, absent).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runState } from '../state-ctx.js';

describe('docker states under test=True', () => {
  it('docker_container.running: a container to create, with the image Salt could not resolve (image {old: None, new: False})', async () => {
    const r = await runState('docker_container.running', { name: 'web', image: 'nginx:1.25', port_bindings: ['8080:80'] }, { test: true });
    assert.deepEqual(r, { name: 'web', result: null, changes: { image: { old: null, new: false } }, comment: "Container 'web' would be created" });
    const forced = await runState('docker_container.running', { name: 'web', image: 'nginx:1.25', force: true }, { test: true });
    assert.deepEqual(forced.changes, { forced_update: true });
  });

  it("docker_container.running without image fails in both modes with Salt's comment", async () => {
    for (const test of [true, false]) {
      assert.deepEqual(await runState('docker_container.running', { name: 'web' }, { test }), { name: 'web', result: false, changes: {}, comment: "The 'image' argument is required" });
    }
  });

  it('docker_container.stopped and .absent, docker_image.present and .absent, docker_network.present and .absent', async () => {
    assert.deepEqual(await runState('docker_container.stopped', { name: 'web' }, { test: true }), {
      name: 'web',
      result: null,
      changes: {},
      comment: 'The following container(s) will be stopped: web',
    });
    assert.equal((await runState('docker_container.stopped', { name: 'x', containers: ['a', 'b'] }, { test: true })).comment, 'The following container(s) will be stopped: a, b');
    assert.deepEqual(await runState('docker_container.absent', { name: 'web' }, { test: true }), { name: 'web', result: null, changes: {}, comment: "Container 'web' will be removed" });
    assert.deepEqual(await runState('docker_image.present', { name: 'nginx', tag: '1.25' }, { test: true }), { name: 'nginx', result: null, changes: {}, comment: 'Image nginx:1.25 will be pulled' });
    assert.equal((await runState('docker_image.present', { name: 'app', tag: 'v1', build: '/srv/app' }, { test: true })).comment, 'Image app:v1 will be built');
    assert.equal((await runState('docker_image.present', { name: 'app', tag: 'v1', load: '/srv/app.tar' }, { test: true })).comment, 'Image app:v1 will be loaded');
    assert.deepEqual(await runState('docker_image.absent', { name: 'busybox' }, { test: true }), { name: 'busybox', result: null, changes: {}, comment: 'Image busybox:latest will be removed' });
    assert.equal(
      (await runState('docker_image.absent', { name: 'x', images: ['busybox', 'centos:6', 'reg:5000/app'] }, { test: true })).comment,
      'The following images will be removed: busybox:latest, centos:6, reg:5000/app:latest',
    );
    assert.deepEqual(await runState('docker_network.present', { name: 'backend', driver: 'bridge' }, { test: true }), {
      name: 'backend',
      result: null,
      changes: {},
      comment: 'Network will be created',
    });
    assert.deepEqual(await runState('docker_network.absent', { name: 'backend' }, { test: true }), { name: 'backend', result: null, changes: {}, comment: "Network 'backend' will be removed" });
  });

  it("argument errors are Salt's, whatever the mode", async () => {
    assert.equal(
      (await runState('docker_image.present', { name: 'app', build: '/srv/app', load: '/x.tar', tag: 'v1' }, { test: true })).comment,
      "Only one of 'build', 'load', or 'sls' is permitted.",
    );
    assert.equal(
      (await runState('docker_image.present', { name: 'app', build: '/srv/app' }, { test: true })).comment,
      "The 'tag' argument is required if any one of 'build', 'load', or 'sls' is used.",
    );
    assert.equal((await runState('docker_image.absent', { name: '' }, { test: true })).comment, "One of 'name' and 'images' must be provided");
    assert.equal((await runState('docker_container.stopped', { name: '' }, { test: true })).comment, "One of 'name' and 'containers' must be provided");
  });
});

const dockerInstalled = spawnSync('sh', ['-c', 'command -v docker']).status === 0;
const daemonUp = dockerInstalled && spawnSync('docker', ['version', '--format', '{{.Server.Version}}']).status === 0;

describe('docker states at run time', () => {
  it('with the docker CLI but no daemon, a real run fails saying to start it', { skip: !dockerInstalled || daemonUp ? 'needs the docker CLI and no running daemon' : false }, async () => {
    const r = await runState('docker_container.running', { name: 'web', image: 'nginx:1.25' });
    assert.equal(r.result, false);
    assert.deepEqual(r.changes, {});
    assert.match(r.comment, /^docker_container\.running cannot act on this minion: docker is not running: start the docker daemon \(systemctl start docker\) or point DOCKER_HOST at a running one/);
    assert.match(r.comment, /docker said: .*daemon/i, "docker's own words are kept");
  });

  describe('without docker on PATH', () => {
    let empty = '';
    let savedPath = '';
    before(() => {
      empty = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nodocker-'));
      savedPath = process.env.PATH ?? '';
      process.env.PATH = empty;
    });
    after(() => {
      process.env.PATH = savedPath;
      fs.rmSync(empty, { recursive: true, force: true });
    });
    it('every docker state fails naming the package to install', async () => {
      for (const [fun, args] of [
        ['docker_container.absent', { name: 'web' }],
        ['docker_image.present', { name: 'nginx' }],
        ['docker_network.present', { name: 'backend' }],
      ] as const) {
        const r = await runState(fun, args);
        assert.equal(r.result, false, fun);
        assert.equal(r.comment, `${fun} cannot act on this minion: docker is not installed on this minion (not on PATH: ${empty}); install the docker.io package`);
      }
    });
  });
});
