// dockercompose.* and swarm.* (issue 22): declared with Salt's names so docker-formula's
// compose/ and swarm/ states compile and answer test=True as Salt does through module.run,
// and a real call fails with a coded reason: DOCKER_UNAVAILABLE (no docker on PATH, or no
// daemon answering the real docker CLI) or DOCKER_UNSUPPORTED (a daemon answers). The
// daemon that answers is a stand-in on a unix socket the real CLI reaches through DOCKER_HOST.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { harness } from '../state/harness.js';

type Ret = Record<string, { result: boolean | null; comment: string; changes: Record<string, unknown>; __id__: string }>;
const byId = (ret: unknown): Ret => Object.fromEntries(Object.values(ret as Ret).map((v) => [v.__id__, v]));

// the states docker-formula writes (docker/compose/up.sls, docker/swarm/swarm_tokens.sls), one in each module.run syntax
const SLS = {
  'compose.sls': 'docker-compose-app-up:\n  module.run:\n    - name: dockercompose.up\n    - path: /srv/app\n    - service_names: [web]\n',
  'swarm.sls': 'docker-swarm-tokens:\n  module.run:\n    - swarm.swarm_tokens: []\n',
};

const dockerInstalled = spawnSync('sh', ['-c', 'command -v docker']).status === 0;

function withEnv(vars: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

describe('dockercompose and swarm functions', () => {
  it("are listed under Salt's names", async () => {
    const h = harness({ base: {} });
    const r = await h.call('sys.list_functions', ['dockercompose', 'swarm']);
    assert.deepEqual(r.return, [
      'dockercompose.build',
      'dockercompose.create',
      'dockercompose.get',
      'dockercompose.kill',
      'dockercompose.pause',
      'dockercompose.ps',
      'dockercompose.pull',
      'dockercompose.restart',
      'dockercompose.rm',
      'dockercompose.service_create',
      'dockercompose.service_remove',
      'dockercompose.service_set_tag',
      'dockercompose.service_upsert',
      'dockercompose.start',
      'dockercompose.stop',
      'dockercompose.unpause',
      'dockercompose.up',
      'swarm.joinswarm',
      'swarm.leave_swarm',
      'swarm.node_ls',
      'swarm.remove_node',
      'swarm.remove_service',
      'swarm.service_create',
      'swarm.swarm_init',
      'swarm.swarm_service_info',
      'swarm.swarm_tokens',
      'swarm.update_node',
    ]);
  });

  it('answer test=True through module.run as Salt does, in both syntaxes, without calling docker', async () => {
    const h = harness({ base: SLS });
    const r = await h.call('state.sls', ['compose,swarm'], { test: true });
    assert.equal(r.success, true, JSON.stringify(r.return));
    const e = byId(r.return);
    assert.deepEqual(
      { result: e['docker-compose-app-up']!.result, comment: e['docker-compose-app-up']!.comment, changes: e['docker-compose-app-up']!.changes },
      { result: null, comment: 'Module function dockercompose.up is set to execute', changes: {} },
    );
    assert.deepEqual(
      { result: e['docker-swarm-tokens']!.result, comment: e['docker-swarm-tokens']!.comment, changes: e['docker-swarm-tokens']!.changes },
      { result: null, comment: 'Function swarm.swarm_tokens to be executed.', changes: {} },
    );
  });

  it('an argument Salt does not take is refused before docker is asked', async () => {
    const r = await harness({ base: {} }).call('dockercompose.up', [], { path: '/srv/app', colour: 'red' });
    assert.equal(r.error?.code, 'BAD_ARGUMENTS');
  });

  describe('without docker on PATH', () => {
    let empty = '';
    let restore = (): void => undefined;
    before(() => {
      empty = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nodocker-'));
      restore = withEnv({ PATH: empty });
    });
    after(() => {
      restore();
      fs.rmSync(empty, { recursive: true, force: true });
    });

    it('a call fails with DOCKER_UNAVAILABLE naming the package, and module.run fails that state with it', async () => {
      const h = harness({ base: SLS });
      const r = await h.call('swarm.leave_swarm', [], { force: true });
      assert.equal(r.error?.code, 'DOCKER_UNAVAILABLE');
      assert.equal(r.error?.message, `swarm.leave_swarm cannot run on this minion: docker is not installed on this minion (not on PATH: ${empty}); install the docker.io package`);
      const run = byId((await h.call('state.sls', ['compose'])).return);
      assert.equal(run['docker-compose-app-up']!.result, false);
      assert.match(run['docker-compose-app-up']!.comment, /^Module function dockercompose\.up threw an exception\. Exception: dockercompose\.up cannot run on this minion: docker is not installed/);
    });
  });

  describe('with the docker CLI', { skip: dockerInstalled ? false : 'needs the docker CLI (Debian package docker.io)' }, () => {
    let dir = '';
    let server: http.Server | undefined;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-dockerd-'));
      // the two requests `docker version` makes: HEAD /_ping, then GET /v<api>/version
      server = http.createServer((req, res) => {
        res.setHeader('Api-Version', '1.43');
        res.setHeader('Content-Type', 'application/json');
        if (req.url?.endsWith('/_ping')) res.end('OK');
        else if (req.url?.endsWith('/version')) res.end(JSON.stringify({ Version: '24.0.7', ApiVersion: '1.43', MinAPIVersion: '1.12', Os: 'linux', Arch: 'amd64' }));
        else {
          res.statusCode = 404;
          res.end('{"message":"not here"}');
        }
      });
      const sock = path.join(dir, 'docker.sock');
      await new Promise<void>((resolve) => server!.listen(sock, resolve));
    });
    after(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("and no daemon: DOCKER_UNAVAILABLE saying to start it, with docker's own words", async () => {
      const restore = withEnv({ DOCKER_HOST: `unix://${path.join(dir, 'none.sock')}` });
      try {
        const r = await harness({ base: {} }).call('dockercompose.ps', ['/srv/app']);
        assert.equal(r.error?.code, 'DOCKER_UNAVAILABLE');
        assert.match(
          r.error!.message,
          /^dockercompose\.ps cannot run on this minion: docker is not running: start the docker daemon \(systemctl start docker\) or point DOCKER_HOST at a running one \(docker said: .*daemon/i,
        );
      } finally {
        restore();
      }
    });

    it('and a daemon answering: DOCKER_UNSUPPORTED naming the command to run instead', async () => {
      const restore = withEnv({ DOCKER_HOST: `unix://${path.join(dir, 'docker.sock')}` });
      try {
        const h = harness({ base: {} });
        const compose = await h.call('dockercompose.up', ['/srv/app'], { service_names: ['web'] });
        assert.equal(compose.error?.code, 'DOCKER_UNSUPPORTED');
        assert.equal(compose.error?.message, 'dockercompose.up: brine does not drive docker compose yet; run `docker compose --project-directory <path> <command>` with cmd.run');
        const swarm = await h.call('swarm.swarm_tokens');
        assert.equal(swarm.error?.code, 'DOCKER_UNSUPPORTED');
        assert.match(swarm.error!.message, /^swarm\.swarm_tokens: brine does not drive docker swarm yet; run `docker swarm \.\.\.`/);
      } finally {
        restore();
      }
    });
  });
});
