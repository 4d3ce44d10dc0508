// One valid example of every message type, with the fields that may be absent and, per field,
// values of the wrong shape that the schema must refuse. Shared by the codec tests.

export const JID = '20240101000000123456';

export interface Sample {
  message: Record<string, unknown>;
  optional: string[];
  /** field -> values that must be refused */
  bad: Record<string, unknown[]>;
  /** Fields that take any JSON value, null included (a function may return None). */
  anyJson?: string[];
}

export const MINION_SAMPLES: Sample[] = [
  {
    message: { t: 'hello', versions: [1, 2], id: 'web1', agent: 'brine/0.1.0', probe: true, carryAcks: true },
    optional: ['probe', 'carryAcks'],
    bad: { versions: ['1', [0], ['1'], [1.5], Array(33).fill(1)], id: [5, null, 'x'.repeat(1025)], agent: [true, 'a'.repeat(129)], probe: ['true', 1], carryAcks: ['true', 1] },
  },
  {
    message: { t: 'ping', seq: 0, rtt: 1.5 },
    optional: ['rtt'],
    bad: { seq: [-1, 1.5, '1', null], rtt: [-1, '2'] },
  },
  { message: { t: 'pong', seq: 7 }, optional: [], bad: { seq: ['7', -3, 2 ** 53] } },
  {
    message: { t: 'return', jid: JID, fun: 'test.ping', ret: { a: [1, null] }, retcode: 0, success: true, error: { code: 'EXEC_FAILED', message: 'boom' } },
    optional: ['error'],
    anyJson: ['ret'],
    // biome-ignore lint/correctness/noPrecisionLoss: a jid sent as a number is a bad sample on purpose
    bad: { jid: ['123', 20240101000000123456, `${JID}0`], fun: [1, 'f'.repeat(257)], retcode: [0.5, '0'], success: ['true', 1], error: [{ code: 1, message: 'm' }, { code: 'X' }, 'X'] },
  },
  { message: { t: 'bye', reason: 'shutdown' }, optional: [], bad: { reason: [7, 'r'.repeat(65)] } },
  { message: { t: 'job_status', jid: JID, running: true }, optional: [], bad: { jid: ['../x', 1], running: ['true', 1, null] } },
  {
    message: { t: 'grains', grains: { os: 'Debian', roles: ['web'], ipv4: ['10.0.0.1'], nested: { a: { b: 1 } } } },
    optional: [],
    bad: { grains: [null, [], 'os', { big: 'x'.repeat(1_048_577) }, Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, 1]))] },
  },
  {
    message: { t: 'file_list', rid: 1, kind: 'files', saltenv: 'base', prefix: 'web/' },
    optional: [],
    bad: { rid: [-1, 1.5, '1', 2 ** 31], kind: ['all', 1], saltenv: ['', 5, 'x'.repeat(129)], prefix: [null, 'x'.repeat(4097)] },
  },
  { message: { t: 'file_stat', rid: 2, saltenv: 'base', path: 'web/nginx.conf' }, optional: [], bad: { rid: [null], saltenv: [''], path: [1, 'x'.repeat(4097)] } },
  {
    message: { t: 'file_read', rid: 3, saltenv: 'base', path: 'web/nginx.conf', offset: 0, length: 262144 },
    optional: [],
    bad: { offset: [-1, 0.5, '0'], length: [0, 16 * 1024 * 1024 + 1, '1'], path: [false] },
  },
  // pillar (issue 10)
  { message: { t: 'pillar_request', rid: 4, id: 'web1' }, optional: ['id'], bad: { rid: [-1, '4'], id: [5, 'x'.repeat(1025)] } },
  // mine
  {
    message: { t: 'mine_send', rid: 4, data: { 'network.ip_addrs': { data: ['10.0.0.5'] }, db: { data: null, allowTgt: 'web*', allowTgtType: 'glob' } }, clear: false },
    optional: [],
    bad: {
      rid: [-1, '4'],
      data: [
        null,
        [],
        { '../x': { data: 1 } },
        { a: 1 },
        { a: { data: 1, allowTgtType: 'bogus' } },
        { a: { data: 'x'.repeat(1_048_577) } },
        Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, { data: 1 }])),
      ],
      clear: ['false', 0],
    },
  },
  {
    message: { t: 'mine_get', rid: 5, tgt: ['web1', 'web2'], tgtType: 'list', funs: ['network.ip_addrs'], delimiter: ':' },
    optional: ['delimiter'],
    bad: { tgt: [5, [1]], tgtType: ['GLOB', 1], funs: ['network.ip_addrs', [''], ['a b'], Array(1001).fill('a')], delimiter: [''] },
  },
  { message: { t: 'mine_delete', rid: 6, fun: 'network.ip_addrs' }, optional: [], bad: { fun: ['', 1, 'a/b', 'x'.repeat(257)] } },
  { message: { t: 'mine_flush', rid: 7 }, optional: [], bad: { rid: [null, 1.5] } },
  {
    message: { t: 'minion_event', rid: 8, kind: 'fire_master', tag: 'myco/build/done', data: { result: 'ok' } },
    optional: ['rid'],
    bad: { kind: ['other', 1], tag: ['', 't'.repeat(513), 1], data: [[], 'x', null, { big: 'x'.repeat(262_145) }] },
  },
  {
    message: { t: 'state_progress', jid: JID, n: 0, len: 3, tag: 'cmd_|-slow_|-sleep 2_|-run', ret: { name: 'sleep 2', result: true, changes: {}, comment: '', __run_num__: 0 } },
    optional: [],
    bad: { jid: ['1', 5], n: [-1, 1.5, '0'], len: [0, '3'], tag: ['', 't'.repeat(4097)], ret: [[], null, 'x', { big: 'x'.repeat(262_145) }] },
  },
];

export const MASTER_SAMPLES: Sample[] = [
  {
    message: {
      t: 'auth',
      status: 'accepted',
      version: 1,
      minVersion: 1,
      code: 'OK',
      message: 'welcome',
      masterFingerprint: 'ab:cd:ef',
      heartbeatInterval: 10,
      heartbeatTimeout: 30,
      retryAfter: 10,
    },
    optional: ['version', 'code', 'heartbeatInterval', 'heartbeatTimeout', 'retryAfter'],
    bad: {
      status: ['ok', 'ACCEPTED', 1],
      version: [0, '1'],
      minVersion: [0, 1.5],
      code: [9, 'c'.repeat(65)],
      message: [1, 'm'.repeat(4097)],
      masterFingerprint: [null, 'f'.repeat(129)],
      heartbeatInterval: [-1, '10'],
      heartbeatTimeout: [-0.5],
      retryAfter: [-1],
    },
  },
  { message: { t: 'ping', seq: 3 }, optional: [], bad: { seq: [-1, 'x'] } },
  { message: { t: 'pong', seq: 3 }, optional: [], bad: { seq: [1.25] } },
  {
    message: { t: 'job', jid: JID, fun: 'cmd.run', arg: ['ls', 1, { x: null }], kwarg: { cwd: '/', env: { A: '1' } }, tgt: ['a', 'b'], tgtType: 'list', delimiter: ':', timeout: 5 },
    optional: ['timeout', 'delimiter'],
    bad: {
      jid: ['abc'],
      fun: ['test', '../x.y', 'a.b/c', 1, `x.${'y'.repeat(300)}`],
      arg: [{}, 'ls'],
      kwarg: [[], 'x', null],
      tgt: [5, [1], { a: 1 }],
      tgtType: ['range', 'GLOB'],
      delimiter: ['', 1, 'd'.repeat(17)],
      timeout: [-1, '5'],
    },
  },
  { message: { t: 'ack', jid: JID }, optional: [], bad: { jid: [2024, ''] } },
  // carried acks (issue 27)
  { message: { t: 'acks', jids: [JID, '20240101000000123457'] }, optional: [], bad: { jids: [JID, [JID, 'x'], Array(1001).fill(JID), null] } },
  { message: { t: 'find_job', jid: JID }, optional: [], bad: { jid: [2024, '', '../../proc/self/fd/0'] } },
  { message: { t: 'error', code: 'MESSAGE_INVALID', message: 'bad' }, optional: [], bad: { code: [1, 'c'.repeat(65)], message: [{}, 'm'.repeat(4097)] } },
  { message: { t: 'bye', reason: 'replaced' }, optional: [], bad: { reason: [false] } },
  {
    message: {
      t: 'file_reply',
      rid: 3,
      ok: true,
      error: { code: 'PATH_REFUSED', message: 'no' },
      list: ['a'],
      stat: { path: 'a', sha256: 'a'.repeat(64), size: 1, mode: 0o644 },
      data: 'aGk=',
      eof: true,
    },
    optional: ['error', 'list', 'stat', 'data', 'eof'],
    bad: {
      rid: [-1, '3'],
      ok: ['true', 1],
      error: [{ code: 1 }],
      list: ['a', [1]],
      stat: [
        { path: 'a', sha256: 'xyz', size: 1, mode: 0 },
        { path: 'a', sha256: 'a'.repeat(64), size: -1, mode: 0 },
      ],
      data: [5],
      eof: ['yes'],
    },
  },
  // pillar (issue 10)
  {
    message: { t: 'pillar_reply', rid: 4, ok: true, error: { code: 'PILLAR_DENIED', message: 'no' }, pillar: { role: 'web', users: ['a'] }, errors: ['bad.sls:2: YAML error'] },
    optional: ['error', 'pillar', 'errors'],
    bad: { rid: ['4'], ok: [1], pillar: [[], 'x'], errors: ['e', [1]] },
  },
  {
    message: { t: 'event_reply', rid: 8, ok: false, error: { code: 'EVENT_TAG_RESERVED', message: 'reserved' } },
    optional: ['error'],
    bad: { ok: ['false', null], error: ['x', { code: 1, message: 'm' }] },
  },
  {
    message: { t: 'mine_reply', rid: 5, ok: true, error: { code: 'MINE_DATA_TOO_LARGE', message: 'too big' }, data: { 'network.ip_addrs': { web1: ['10.0.0.5'] } } },
    optional: ['error', 'data'],
    anyJson: ['data'],
    bad: { rid: [-1, '5'], ok: ['true'], error: [{ code: 1 }, 'x'] },
  },
];

export const CONTROL_REQUEST_SAMPLES: Sample[] = [
  {
    message: { t: 'publish', tgt: 'web*', tgtType: 'glob', delimiter: '|', fun: 'test.ping', arg: [], kwarg: {}, timeout: 5, user: 'root', apiUser: 'alice' },
    optional: ['timeout', 'user', 'delimiter', 'apiUser'],
    bad: { tgt: [1, [2]], tgtType: ['Range', 'range'], delimiter: ['', 7], fun: [1, 'f'.repeat(257)], arg: ['x', {}], kwarg: [null, [1]], timeout: [-1, 'soon'], user: [0], apiUser: ['', 1] },
  },
  { message: { t: 'sessions' }, optional: [], bad: {} },
  { message: { t: 'events', kinds: ['minion_connected', 'job_return'] }, optional: ['kinds'], bad: { kinds: ['minion_connected', ['nope'], Array(65).fill('job_return')] } },
  { message: { t: 'keys_changed', since: 1796579400000 }, optional: ['since'], bad: { since: [-1, 'now'] } },
  { message: { t: 'match', tgt: 'web*', tgtType: 'glob', delimiter: '|' }, optional: ['delimiter'], bad: { tgt: [1], tgtType: [2, 'x'.repeat(33)], delimiter: [''] } },
  { message: { t: 'active_jids' }, optional: [], bad: {} },
  { message: { t: 'emit_hook', path: 'deploy/done', user: 'alice', body: { version: 3 } }, optional: [], anyJson: ['body'], bad: { path: [1, 'x'.repeat(257)], user: [null] } },
  { message: { t: 'metrics' }, optional: [], bad: {} },
  { message: { t: 'fileserver_update', backend: 'gitfs' }, optional: ['backend'], bad: { backend: [1, 'x'.repeat(65)] } },
  { message: { t: 'git_pillar_update', branch: '__env__', repo: 'https://git.example.org/pillar.git' }, optional: ['branch', 'repo'], bad: { branch: [1, 'x'.repeat(1025)], repo: [[]] } },
  {
    message: { t: 'runner', fun: 'manage.down', arg: [], kwarg: { removekeys: false }, async: false, timeout: 5, apiUser: 'admin' },
    optional: ['async', 'timeout', 'apiUser'],
    bad: { fun: ['', 1, 'f'.repeat(257)], arg: [{}], kwarg: [[1]], async: ['yes'], timeout: [-1], apiUser: [''] },
  },
  { message: { t: 'fire_event', tag: 'salt/wheel/1/new', data: { a: 1 } }, optional: [], bad: { tag: ['', 'x'.repeat(1025)], data: [[1], null] } },
  { message: { t: 'reactions', limit: 50 }, optional: [], bad: { limit: [0, 1001, 1.5, '5'] } },
];

export const CONTROL_REPLY_SAMPLES: Sample[] = [
  { message: { t: 'published', jid: JID, minions: ['a'], notConnected: [], missing: ['z'] }, optional: [], bad: { minions: ['a'], notConnected: [[1]] } },
  { message: { t: 'ret', jid: JID, minion: 'a', fun: 'test.ping', ret: true, retcode: 0, success: true }, optional: ['error'], anyJson: ['ret'], bad: { retcode: ['0'] } },
  { message: { t: 'done', jid: JID, noResponse: ['b'], reason: 'master_shutdown' }, optional: ['reason'], bad: { noResponse: [null], reason: ['crashed'] } },
  {
    message: { t: 'sessions', sessions: [{ id: 'a', state: 'connected', remote: '10.0.0.1:5000', connectedSince: 1, lastSeen: 2, agent: 'x', protocol: 1, rttMs: 0.5, reconnects: 0 }] },
    optional: [],
    bad: { sessions: [[{ id: 'a', state: 'connected' }], [{ id: 'a', state: 'x', reconnects: 1.5 }]] },
  },
  { message: { t: 'error', code: 'X', message: 'y' }, optional: [], bad: { code: [1] } },
  { message: { t: 'keys_reconciled', closed: ['web1'] }, optional: [], bad: { closed: ['web1', [1]] } },
  { message: { t: 'matched', matched: ['web1'], missing: ['web9'] }, optional: [], bad: { matched: [[1]], missing: ['x'] } },
  { message: { t: 'active_jids', jids: [JID] }, optional: [], bad: { jids: [['1']] } },
  { message: { t: 'hook_emitted' }, optional: [], bad: {} },
  {
    message: { t: 'runner_ret', jid: JID, done: true, return: 'Exception occurred in runner x.y: E: m', success: false, retcode: 1, error: { code: 'E', message: 'm' } },
    optional: ['return', 'success', 'retcode', 'error'],
    anyJson: ['return'],
    bad: { jid: ['1'], done: ['yes'], retcode: [1.5], error: [{ code: 1 }] },
  },
  { message: { t: 'event_fired', tag: 'myco/deploy/start' }, optional: [], bad: { tag: [1, 't'.repeat(1025)] } },
  { message: { t: 'metrics', text: '# HELP x\n', contentType: 'text/plain; version=0.0.4' }, optional: [], bad: { text: [1], contentType: [null] } },
  {
    message: {
      t: 'reactions',
      reactions: [
        { at: 1796579400000, tag: 'salt/key', sls: '/srv/reactor/key.sls', id: 'highstate_new', fun: 'local.state.apply', outcome: 'published', jid: JID, error: { code: 'E', message: 'm' } },
      ],
    },
    optional: [],
    bad: { reactions: [[{ at: 1, tag: 'x', sls: 'y' }], [{ at: -1, tag: 'x', sls: 'y', outcome: 'done' }], [{ at: 1, tag: 'x', sls: 'y', outcome: 'done', jid: '1' }]] },
  },
  {
    message: { t: 'fileserver_updated', remotes: [{ remote: 'ssh://git@h/r.git', ok: false, changed: false, error: 'Connection refused' }] },
    optional: [],
    bad: { remotes: [[{ remote: 'x', ok: 'yes', changed: false }], 'x'] },
  },
  {
    message: { t: 'git_pillar_updated', remotes: [{ remote: '__env__ https://git.example.org/pillar.git', ok: true, changed: true }] },
    optional: [],
    bad: { remotes: [[{ remote: 'x', ok: true, changed: 'no' }], null] },
  },
  {
    message: {
      t: 'event',
      tag: 'salt/job/20261207061200123456/ret/web1',
      data: { cmd: '_return', id: 'web1', success: true, return: true, retcode: 0, jid: '20261207061200123456', fun: 'test.ping', fun_args: [], _stamp: '2026-12-07T06:12:00.123000' },
    },
    optional: [],
    bad: { tag: [1], data: [[], 'x'] },
  },
];

export const MINION_CONTROL_REQUEST_SAMPLES: Sample[] = [
  { message: { t: 'minion_status' }, optional: [], bad: {} },
  {
    message: { t: 'minion_call', fun: 'state.apply', arg: ['web', 1], kwarg: { test: true, pillar: { a: [1] } }, noReturnEvent: true },
    optional: ['noReturnEvent'],
    bad: { fun: ['', 1, 'f'.repeat(257)], arg: ['x', { a: 1 }], kwarg: [[1], 'x'], noReturnEvent: ['true', 1] },
  },
  { message: { t: 'fire_event', tag: 'myco/deploy/done', data: { path: '/tmp/marker' } }, optional: [], bad: { tag: ['', 1, 't'.repeat(1025)], data: [[], 'x'] } },
];

export const MINION_CONTROL_REPLY_SAMPLES: Sample[] = [
  {
    message: {
      t: 'minion_status',
      id: 'web1',
      startedAt: 1,
      links: [
        {
          endpoint: 'salt:4506',
          state: 'ready',
          connection: 'ready',
          address: '10.0.0.2',
          masterFingerprint: 'ab:cd',
          connectedSince: 2,
          rttMs: 0.4,
          reconnects: 0,
          attempts: 1,
          lastDownReason: 'reset',
        },
      ],
      returnQueue: 3,
      returnsDropped: 0,
    },
    optional: [],
    bad: {
      id: [1],
      startedAt: ['1'],
      links: [{}, [{ endpoint: 'e', state: 's', reconnects: -1, attempts: 0 }], [{ endpoint: 'e', state: 's', reconnects: 0, attempts: 0, rttMs: -1 }]],
      returnQueue: [-1, 1.5],
      returnsDropped: ['0'],
    },
  },
  {
    message: { t: 'call_return', jid: JID, ret: { a: [1, null] }, retcode: 2, success: false, error: { code: 'EXEC_FAILED', message: 'boom' } },
    optional: ['error'],
    anyJson: ['ret'],
    bad: { jid: ['123', `${JID}0`], retcode: [0.5, '0'], success: ['true', 1], error: [{ code: 1, message: 'm' }, 'X'] },
  },
  { message: { t: 'event_fired', tag: 'myco/deploy/done' }, optional: [], bad: { tag: [1] } },
  { message: { t: 'error', code: 'UNKNOWN_METHOD', message: 'no' }, optional: [], bad: { code: [1] } },
];
