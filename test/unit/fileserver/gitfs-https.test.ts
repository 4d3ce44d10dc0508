// gitfs over HTTPS with a user and password (gitfs_user/gitfs_password or per remote): a real
// `git http-backend` behind a local HTTPS server that demands HTTP Basic authentication, with a
// certificate the test makes (Debian `openssl`) and git told to trust it. The right password
// gets the files; a wrong one fails with GITFS_REMOTE_UNREACHABLE, and the password appears in
// no log line, status or error, even when the operator wrote it into the URL.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLogger } from '../../../src/util/logger.js';
import { readFileChunk } from '../../../src/fileserver/index.js';
import { GitfsBackend, type GitfsBackendOptions } from '../../../src/fileserver/git/index.js';
import { GitRepo } from '../../helpers/git-repo.js';
import { makeTestCertificate } from '../../helpers/test-cert.js';
import { GitHttpServer } from '../../helpers/git-http.js';

const PASSWORD = 'pw-9f3c-not-in-logs';
const WRONG = 'wrong-7d1e-not-in-logs';

describe('gitfs over HTTPS with HTTP Basic credentials', () => {
  let dir: string;
  let server: GitHttpServer;
  let repo: GitRepo;
  const savedCa = process.env.GIT_SSL_CAINFO;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-gitfs-https-'));
    const { cert, key } = makeTestCertificate(dir, '127.0.0.1');
    // git verifies the server against this CA, as it would a real one from the system store
    process.env.GIT_SSL_CAINFO = cert;
    repo = new GitRepo(path.join(dir, 'srv'));
    repo.commit({ 'top.sls': "base:\n  '*': [app]\n", 'app/init.sls': 'app: {}\n' });
    repo.push();
    server = await GitHttpServer.start({ projectRoot: repo.dir, basic: { user: 'alice', password: PASSWORD }, tls: { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') } });
  });
  after(async () => {
    await server?.close();
    if (savedCa === undefined) delete process.env.GIT_SSL_CAINFO;
    else process.env.GIT_SSL_CAINFO = savedCa;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const backend = (name: string, opts: Omit<GitfsBackendOptions, 'cachedir'>) => {
    const log: string[] = [];
    const gitfs = new GitfsBackend({ cachedir: path.join(dir, name), ...opts }, createLogger({ name: 'test', level: 'debug', write: (l) => log.push(l) }));
    return { gitfs, log };
  };

  it('gitfs_user and gitfs_password reach the server through git (askpass), and the files are served', async () => {
    const { gitfs } = backend('ok', { gitfs_remotes: [server.url('remote.git')], gitfs_user: 'alice', gitfs_password: PASSWORD });
    const [r] = await gitfs.update();
    assert.equal(r!.ok, true, r!.error);
    assert.ok(server.authenticated.includes('alice'), 'the server saw alice authenticate');
    assert.equal(readFileChunk(gitfs.find('base', 'app/init.sls')!, 0, 100).toString(), 'app: {}\n');
  });

  it('a wrong password fails with GITFS_REMOTE_UNREACHABLE, and no password reaches the log, the status or the error', async () => {
    const refusedBefore = server.refused;
    const perRemote = backend('wrong', { gitfs_remotes: [{ [server.url('remote.git')]: [{ user: 'alice' }, { password: WRONG }] }] });
    const [r] = await perRemote.gitfs.update();
    assert.equal(r!.ok, false);
    assert.ok(server.refused > refusedBefore, 'the wrong password was sent and refused');
    const inUrl = backend('inurl', { gitfs_remotes: [server.url('remote.git').replace('https://', `https://alice:${WRONG}@`)] });
    const [u] = await inUrl.gitfs.update();
    assert.equal(u!.ok, false);
    assert.match(u!.remote, /^https:\/\/\*\*\*@127\.0\.0\.1:/);
    // the URL (and its password) is not written into the clone's config either
    const configs = (fs.readdirSync(path.join(dir, 'inurl', 'gitfs'), { recursive: true }) as string[]).filter((f) => f.endsWith('config'));
    assert.ok(configs.length > 0);
    for (const c of configs) assert.ok(!fs.readFileSync(path.join(dir, 'inurl', 'gitfs', c), 'utf8').includes(WRONG), c);
    for (const { gitfs, log } of [perRemote, inUrl]) {
      const everything = [log.join(''), JSON.stringify(gitfs.status()), r!.error, u!.error, u!.remote].join('\n');
      assert.match(log.join(''), /GITFS_REMOTE_UNREACHABLE/);
      assert.ok(!everything.includes(WRONG) && !everything.includes(PASSWORD), `a password leaked:\n${everything}`);
    }
  });
});
