import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isBrineError, type ErrorCode } from '../../../src/util/errors.js';
import { asMasterOptions, asMinionOptions, loadConfig, OPTIONS, prependRootDir } from '../../../src/config/index.js';
import { configDir } from './helpers.js';

/** Asserts that fn throws a BrineError with `code` and returns it for further checks. */
function throwsCode(fn: () => unknown, code: ErrorCode): Error & { details: Readonly<Record<string, unknown>> } {
  try {
    fn();
  } catch (err) {
    assert.ok(isBrineError(err, code), `expected ${code}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

test('defaults differ per role and come from the table', (t) => {
  const dir = configDir(t);
  const master = asMasterOptions(loadConfig('master', { configDir: dir, env: {} }));
  const minion = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  assert.equal(master.pki_dir, '/etc/brine/pki/master');
  assert.equal(minion.pki_dir, '/etc/brine/pki/minion');
  assert.equal(master.cachedir, '/var/cache/brine/master');
  assert.equal(minion.sock_dir, '/var/run/brine/minion');
  assert.equal(master.ret_port, 4506);
  assert.equal(master.auto_accept, false);
  assert.equal(master.auth_rate, 1000);
  assert.equal(minion.master, 'salt');
  assert.equal(minion.master_type, 'str');
  assert.equal(minion.master_port, 4506);
  assert.equal(minion.tcp_keepalive_idle, 60, 'brine lowers Salt 300 s below the 240 s NAT timeout');
  assert.equal(minion.heartbeat_timeout, 30);
  assert.equal(minion.retry_dns_count, null);
  assert.deepEqual(minion.grains, {});
  assert.equal(minion.log_level, 'warning');
  assert.equal(master.config_dir, dir);
  // Role separation: master-only options are not defaulted on a minion and vice versa.
  assert.equal('ret_port' in minion, false);
  assert.equal('master_port' in master, false);
  // No default means absent, as Salt's "only applied when the key exists".
  assert.equal('autosign_file' in master, false);
  assert.equal('append_domain' in minion, false);
});

test('a missing base file is fine unless required', (t) => {
  const dir = configDir(t);
  const cfg = loadConfig('minion', { configDir: dir, env: {} });
  assert.deepEqual(cfg.files, []);
  assert.equal(cfg.sources.master_port, 'default');
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {}, requireFile: true }), 'CONFIG_NOT_FOUND');
  assert.match(err.message, new RegExp(`${join(dir, 'minion')} does not exist`));
});

test('master.d/20.conf overrides 10.conf overrides the base file, per top-level key', (t) => {
  const dir = configDir(t, {
    master: 'timeout: 7\nret_port: 5000\nworker_threads: 9\n',
    'master.d/10.conf': 'ret_port: 5001\ntimeout: 8\n',
    'master.d/20.conf': 'ret_port: 5002\n',
    'master.d/notes.txt': 'ret_port: 1\n',
    'master.d/.hidden.conf': 'ret_port: 2\n',
  });
  const cfg = loadConfig('master', { configDir: dir, env: {} });
  assert.equal(cfg.opts.ret_port, 5002);
  assert.equal(cfg.opts.timeout, 8);
  assert.equal(cfg.opts.worker_threads, 9);
  assert.deepEqual(cfg.files, [join(dir, 'master'), join(dir, 'master.d/10.conf'), join(dir, 'master.d/20.conf')]);
  assert.equal(cfg.sources.ret_port, join(dir, 'master.d/20.conf'));
  assert.equal(cfg.sources.timeout, join(dir, 'master.d/10.conf'));
  assert.equal(cfg.sources.worker_threads, join(dir, 'master'));
  assert.equal(cfg.sources.interface, 'default');
});

test('a mapping set in a later file replaces the earlier one whole (shallow merge)', (t) => {
  const dir = configDir(t, {
    minion: 'grains:\n  role: web\n  dc: ams\n',
    'minion.d/50.conf': 'grains:\n  role: db\n',
  });
  assert.deepEqual(loadConfig('minion', { configDir: dir, env: {} }).opts.grains, { role: 'db' });
});

test('overrides win over files and are recorded as command line', (t) => {
  const dir = configDir(t, { minion: 'log_level: info\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {}, overrides: { log_level: 'debug', id: undefined } });
  assert.equal(cfg.opts.log_level, 'debug');
  assert.equal(cfg.sources.log_level, 'command line');
  assert.equal(cfg.opts.id, '', 'an undefined override leaves the value alone');
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {}, overrides: { master_port: 'x' } }), 'CONFIG_TYPE');
  assert.match(err.message, /from the command line/);
});

test('root_dir is prepended to default and configured absolute paths, never twice', (t) => {
  const dir = configDir(t, {
    minion: 'root_dir: /srv/test\ncachedir: /var/cache/other\nsock_dir: /srv/test/run\nlog_file: relative/minion.log\n',
  });
  const cfg = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  assert.equal(cfg.root_dir, '/srv/test');
  assert.equal(cfg.pki_dir, '/srv/test/etc/brine/pki/minion');
  assert.equal(cfg.cachedir, '/srv/test/var/cache/other');
  assert.equal(cfg.sock_dir, '/srv/test/run');
  assert.equal(cfg.log_file, '/srv/test/relative/minion.log');
  assert.equal(cfg.master, 'salt', 'non-path options are untouched');
  assert.equal(cfg.config_dir, dir, 'config_dir is where the files are, not under root_dir');

  const master = loadConfig('master', { configDir: configDir(t, { master: 'root_dir: /r/\nautosign_file: /etc/brine/autosign.conf\n' }), env: {} });
  assert.equal(master.opts.autosign_file, '/r/etc/brine/autosign.conf');
  assert.equal(master.opts.root_dir, '/r');
});

test('root_dir moves exactly the path options Salt moves; file_roots and pillar_roots stay where they are (issue 22)', (t) => {
  // Salt's apply_master_config / apply_minion_config call prepend_root_dir on pki_dir, cachedir,
  // sock_dir, extension_modules, pidfile, the log files and (master) autosign/autoreject/token/
  // syndic/sqlite_queue/autosign_grains dirs; file_roots and pillar_roots are not in those lists
  // and their defaults (/srv/salt, /srv/pillar) do not depend on root_dir
  const paths = ['pki_dir', 'cachedir', 'sock_dir', 'log_file', 'extension_modules', 'api_logfile', 'autosign_file', 'autoreject_file'];
  assert.deepEqual(
    OPTIONS.filter((o) => o.path).map((o) => o.name),
    paths,
  );
  assert.deepEqual(
    OPTIONS.filter((o) => o.trees).map((o) => o.name),
    ['file_roots', 'pillar_roots'],
  );
  const master = asMasterOptions(
    loadConfig('master', {
      configDir: configDir(t, {
        master: 'root_dir: /opt/salt\nfile_roots:\n  base: [/srv/formulas, local/states]\n  prod: [/srv/prod/../prod-states]\nnats_tls_ca: /etc/ssl/ca.pem\n',
      }),
      env: {},
    }),
  );
  assert.deepEqual(master.file_roots, { base: ['/srv/formulas', '/opt/salt/local/states'], prod: ['/srv/prod-states'] });
  assert.deepEqual(master.pillar_roots, { base: ['/srv/pillar'] }, 'the default is not under root_dir either');
  assert.equal(master.nats_tls_ca, '/etc/ssl/ca.pem', 'a brine-only path is used as written');
  assert.equal(master.pki_dir, '/opt/salt/etc/brine/pki/master');
});

test('prependRootDir follows Salt, including prefix look-alikes', () => {
  assert.equal(prependRootDir('/', '/etc/brine'), '/etc/brine');
  assert.equal(prependRootDir('/srv', '/srv'), '/srv');
  assert.equal(prependRootDir('/srv', '/srvx/a'), '/srv/srvx/a', 'a shared string prefix is not a parent directory');
  assert.equal(prependRootDir('/srv', 'pki'), '/srv/pki');
});

test('BRINE_CONFIG_DIR chooses the directory unless configDir is given', (t) => {
  const fromEnv = configDir(t, { minion: 'master: env-master\n' });
  const explicit = configDir(t, { minion: 'master: explicit-master\n' });
  assert.equal(loadConfig('minion', { env: { BRINE_CONFIG_DIR: fromEnv } }).opts.master, 'env-master');
  assert.equal(loadConfig('minion', { configDir: explicit, env: { BRINE_CONFIG_DIR: fromEnv } }).opts.master, 'explicit-master');
  assert.equal(loadConfig('minion', { env: { BRINE_CONFIG_DIR: fromEnv } }).configDir, fromEnv);
});

test('a numeric id becomes a string; master_port accepts a digit string', (t) => {
  const dir = configDir(t, { minion: 'id: 1234\nmaster_port: "4510"\nmaster:\n  - m1\n  - m2\n' });
  const cfg = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  assert.equal(cfg.id, '1234');
  assert.equal(cfg.master_port, 4510);
  assert.deepEqual(cfg.master, ['m1', 'm2']);
});

test('YAML 1.1 booleans as in Salt; dates stay strings', (t) => {
  const dir = configDir(t, { master: 'auto_accept: yes\nopen_mode: False\nmysql.since: 2024-01-01\n' });
  const cfg = loadConfig('master', { configDir: dir, env: {} });
  assert.equal(cfg.opts.auto_accept, true);
  assert.equal(cfg.opts.open_mode, false);
  assert.equal(cfg.opts['mysql.since'], '2024-01-01');
});

test('an unreadable file is CONFIG_UNREADABLE (a directory stands in, as tests run as root)', (t) => {
  const dir = configDir(t);
  mkdirSync(join(dir, 'minion'));
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_UNREADABLE');
  assert.match(err.message, /minion: it is a directory/);

  const dropIn = configDir(t);
  mkdirSync(join(dropIn, 'minion.d/10.conf'), { recursive: true });
  assert.match(throwsCode(() => loadConfig('minion', { configDir: dropIn, env: {} }), 'CONFIG_UNREADABLE').message, /10\.conf/);
});

test('bad YAML is CONFIG_PARSE with file and line', (t) => {
  const dir = configDir(t, { minion: 'id: a\nmaster: [one, two\nmaster_port: 4506\n' });
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_PARSE');
  assert.ok(err.message.includes(join(dir, 'minion')), err.message);
  assert.match(err.message, /at line \d+/);
  assert.equal(typeof err.details.line, 'number');
  assert.ok((err.details.line as number) >= 2, `line ${String(err.details.line)}`);
});

test('a top level that is not a mapping is CONFIG_PARSE', (t) => {
  const dir = configDir(t, { 'master.d/10.conf': '- ret_port: 1\n' });
  const err = throwsCode(() => loadConfig('master', { configDir: dir, env: {} }), 'CONFIG_PARSE');
  assert.match(err.message, /10\.conf must hold `option: value` pairs at the top level, got a list/);
});

test('an empty file sets nothing', (t) => {
  const dir = configDir(t, { minion: '# only a comment\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {} });
  assert.deepEqual(cfg.files, [join(dir, 'minion')]);
  assert.equal(cfg.opts.master, 'salt');
});

test('a wrong type names option, file, expected type and value', (t) => {
  const dir = configDir(t, { minion: 'master_port: 4506\n', 'minion.d/10.conf': 'master_port: abc\n' });
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_TYPE');
  assert.equal(err.message, `option 'master_port' in ${join(dir, 'minion.d/10.conf')} must be an integer, got string "abc"`);

  const cases: Array<[string, RegExp]> = [
    ['tcp_keepalive: "yes please"\n', /'tcp_keepalive' .* must be a boolean \(true or false\), got string "yes please"/],
    ['heartbeat_timeout: soon\n', /must be a number, got string "soon"/],
    ['grains: [a, b]\n', /'grains' .* must be a mapping, got a list of 2 items/],
    ['master: [a, 1]\n', /'master' .* must be a string or a list of strings/],
    ['retry_dns_count: 1.5\n', /must be an integer, got number 1.5/],
    ['grains:\n', /must be a mapping, got null/],
    ['ret_port: "4506"\n', /'ret_port' .* must be an integer, got string "4506"/],
  ];
  for (const [text, expected] of cases) {
    const d = configDir(t, { minion: text });
    assert.match(throwsCode(() => loadConfig('minion', { configDir: d, env: {} }), 'CONFIG_TYPE').message, expected, text);
  }
});

test('an enum value outside its values is CONFIG_VALUE naming the allowed values', (t) => {
  const dir = configDir(t, { minion: 'master_type: func\n' });
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_VALUE');
  assert.match(err.message, /'master_type' in .*minion must be one of str, failover, disable, got string "func"/);
  // Case is forgiven and normalised.
  const ok = configDir(t, { minion: 'log_level: INFO\nmaster_type: Failover\nmaster: [a]\n' });
  const cfg = loadConfig('minion', { configDir: ok, env: {} });
  assert.equal(cfg.opts.log_level, 'info');
  assert.equal(cfg.opts.master_type, 'failover');
});

test('empty paths and an empty master list are refused', (t) => {
  for (const text of ['pki_dir: ""\n', 'root_dir: ""\n', 'master: []\n']) {
    const dir = configDir(t, { minion: text });
    throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_VALUE');
  }
});

test('a key one typo from a known option is CONFIG_UNKNOWN_KEY with a suggestion', (t) => {
  const dir = configDir(t, { minion: 'mastr_port: 4506\n' });
  const err = throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_UNKNOWN_KEY');
  assert.equal(err.message, `unknown option 'mastr_port' in ${join(dir, 'minion')}: did you mean 'master_port'?`);
  const cases: Array<[string, string]> = [
    ['tcp_keepalvie_idle: 60\n', 'tcp_keepalive_idle'], // swapped neighbours
    ['master-port: 1\n', 'master_port'],
    ['autoaccept: true\n', 'auto_accept'], // a master option typed in a minion file still counts
    ['Master: x\n', 'master'],
  ];
  for (const [text, suggestion] of cases) {
    const d = configDir(t, { minion: text });
    assert.match(throwsCode(() => loadConfig('minion', { configDir: d, env: {} }), 'CONFIG_UNKNOWN_KEY').message, new RegExp(`did you mean '${suggestion}'`));
  }
});

test('unrelated unknown keys and other-role options are kept as written', (t) => {
  const dir = configDir(t, { minion: 'mysql.host: db1\nmy_setting: {a: 1}\nip: 10.0.0.1\nret_port: 4507\n__proto__: {polluted: true}\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {} });
  assert.equal(cfg.opts['mysql.host'], 'db1');
  assert.deepEqual(cfg.opts.my_setting, { a: 1 });
  assert.equal(cfg.opts.ip, '10.0.0.1', "two-letter keys are not taken for typos of 'id'");
  assert.equal(cfg.opts.ret_port, 4507);
  assert.equal(cfg.sources['mysql.host'], join(dir, 'minion'));
  assert.equal(Object.getPrototypeOf(cfg.opts), Object.prototype);
  assert.equal((cfg.opts as { polluted?: unknown }).polluted, undefined);
  // Other-role options are still type-checked.
  const bad = configDir(t, { minion: 'ret_port: many\n' });
  throwsCode(() => loadConfig('minion', { configDir: bad, env: {} }), 'CONFIG_TYPE');
});

test('config_dir cannot be set in a file', (t) => {
  const dir = configDir(t, { minion: 'config_dir: /elsewhere\n' });
  assert.match(throwsCode(() => loadConfig('minion', { configDir: dir, env: {} }), 'CONFIG_VALUE').message, /BRINE_CONFIG_DIR/);
});

test('the typed views refuse the other role', (t) => {
  const cfg = loadConfig('minion', { configDir: configDir(t), env: {} });
  throwsCode(() => asMasterOptions(cfg), 'INTERNAL');
});

test('loaded defaults are copies: changing one config does not change the next', (t) => {
  const dir = configDir(t);
  const first = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  first.grains.injected = true;
  assert.deepEqual(asMinionOptions(loadConfig('minion', { configDir: dir, env: {} })).grains, {});
});
