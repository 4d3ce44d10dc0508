// The syslog returner through the real `logger` (util-linux) to a Unix socket the test owns: the
// return as one JSON line with Salt's default priority (LOG_USER|LOG_INFO), the configured tag,
// facility, level and LOG_PID; options syslog does not have and a missing socket are
// RETURNER_FAILED naming what to fix.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildReturner, type SaltReturn, syslogLine } from '../../../src/returners/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { waitUntil } from '../../helpers/wait.js';

const skip = spawnSync('sh', ['-c', 'command -v logger']).status !== 0 ? 'logger is not installed (Debian: bsdutils)' : false;
const RET: SaltReturn = { id: 'web1', jid: '20261207063000000001', fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true };

describe('syslog returner', { skip }, () => {
  let dir = '';
  let socket = '';
  let server: net.Server;
  const lines: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-syslog-'));
    socket = path.join(dir, 'log.sock');
    server = net.createServer((conn) => {
      let buf = '';
      conn.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          lines.push(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          nl = buf.indexOf('\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes the return as one JSON line at Salt's default priority (user.info = <14>) with the daemon's ident", async () => {
    const r = buildReturner('syslog', { opts: { 'syslog.socket': socket }, id: 'web1', program: 'brine-minion' });
    await r.returner(RET);
    const line = await waitUntil(() => lines.find((l) => l.includes(RET.jid)), 10_000, 'the syslog line');
    const m = /^<(\d+)>\w{3} [ \d]\d \d\d:\d\d:\d\d ([^:[]+)(?:\[\d+\])?: (.*)$/.exec(line);
    assert.ok(m, line);
    assert.equal(m[1], '14');
    assert.equal(m[2], 'brine-minion');
    assert.deepEqual(JSON.parse(m[3] as string), RET);
  });

  it('honours syslog.tag, facility, level and LOG_PID', async () => {
    const opts = { 'syslog.socket': socket, 'syslog.tag': 'salt-returns', 'syslog.facility': 'LOG_LOCAL3', 'syslog.level': 'LOG_WARNING', 'syslog.options': ['LOG_PID'] };
    const jid = '20261207063000000002';
    await buildReturner('syslog', { opts, id: 'web1', program: 'brine-minion' }).returner({ ...RET, jid });
    const line = await waitUntil(() => lines.find((l) => l.includes(jid)), 10_000, 'the syslog line');
    assert.match(line, new RegExp(`^<156>.* salt-returns\\[${process.pid}\\]: \\{`), '<156> = local3 (19) * 8 + warning (4)');
  });

  it('a level, facility, option or tag syslog does not take is RETURNER_FAILED naming it', () => {
    const ctx = (o: Record<string, unknown>) => ({ opts: { 'syslog.socket': socket, ...o }, id: 'web1', program: 'brine-minion' });
    const refused = (o: Record<string, unknown>, re: RegExp) =>
      assert.throws(
        () => syslogLine(ctx(o)),
        (err: unknown) => isBrineError(err) && err.code === 'RETURNER_FAILED' && re.test(err.message),
      );
    refused({ 'syslog.level': 'LOG_LOUD' }, /syslog\.level "LOG_LOUD" is not a syslog level/);
    refused({ 'syslog.facility': 'LOG_USERS' }, /syslog\.facility "LOG_USERS" is not a syslog facility/);
    refused({ 'syslog.options': ['LOG_PID', 'LOG_FAST'] }, /syslog\.options has "LOG_FAST"/);
    refused({ 'syslog.tag': 'x'.repeat(33) }, /limited to 32 characters/);
  });

  it('a socket that is not there is RETURNER_FAILED with the job and logger’s reason', async () => {
    const r = buildReturner('syslog', { opts: { 'syslog.socket': path.join(dir, 'missing.sock') }, id: 'web1', program: 'brine-minion' });
    await assert.rejects(r.returner(RET), (err: unknown) => {
      assert.ok(isBrineError(err));
      assert.equal(err.code, 'RETURNER_FAILED');
      assert.match(err.message, /could not log the return of job 20261207063000000001: logger exited \d+/);
      return true;
    });
  });
});
