// The daemon log (log_file plus its SIGHUP handler) is released when the daemon stops, so a daemon
// run inside a process that goes on (runMinionDaemon in tests) leaves no handler or descriptor.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openDaemonLog } from '../../../src/cli/daemon-start.js';

describe('openDaemonLog', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-daemon-log-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('dispose() removes its SIGHUP handler and closes log_file', () => {
    const file = path.join(tmp, 'minion.log');
    const hupBefore = process.listenerCount('SIGHUP');
    const log = openDaemonLog('minion', { log_level: 'info', log_level_logfile: 'info', log_fmt: 'text', log_file: file });
    assert.equal(process.listenerCount('SIGHUP'), hupBefore + 1);
    log.logger.info('before dispose');
    log.dispose();
    assert.equal(process.listenerCount('SIGHUP'), hupBefore, 'the SIGHUP handler is gone');
    log.logger.info('after dispose');
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /before dispose/);
    assert.doesNotMatch(text, /after dispose/, 'the file is closed: nothing more is written to it');
  });
});
