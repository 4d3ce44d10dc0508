// Issue 22: an argument a state function does not name is silently ignored exactly where Salt
// 3007's function takes **kwargs (salt/utils/args.py format_call warns only when it does not).
// The tables were read from the signatures in Salt 3007's salt/states/*.py; a state declared with
// the wrong `kwargs` flag either drops Salt's warning or adds one Salt does not give.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ignoredArgs, ignoredArgsWarning } from '../../../src/state/compiler/arg-check.js';
import type { LowChunk } from '../../../src/state/compiler/high-types.js';
import { stateFn } from './state-ctx.js';

/** State functions whose Salt signature ends in **kwargs. */
const SALT_TAKES_KWARGS = [
  'archive.extracted',
  'cmd.run',
  'cmd.script',
  'cmd.wait',
  'cmd.watch',
  'cron.absent',
  'debconf.set',
  'debconf.set_file',
  'docker_container.running',
  'docker_container.stopped',
  'docker_image.present',
  'docker_network.present',
  'file.absent',
  'file.accumulated',
  'file.copy',
  'file.directory',
  'file.exists',
  'file.managed',
  'file.missing',
  'file.recurse',
  'file.rename',
  'file.serialize',
  'file.symlink',
  'git.config_set',
  'git.config_unset',
  'git.latest',
  'iptables.append',
  'iptables.delete',
  'iptables.insert',
  'iptables.set_policy',
  'module.run',
  'module.wait',
  'mount.mounted',
  'mount.unmounted',
  'mysql_database.absent',
  'mysql_database.present',
  'mysql_grants.absent',
  'mysql_grants.present',
  'mysql_user.absent',
  'mysql_user.present',
  'network.managed',
  'network.routes',
  'network.system',
  'pip.installed',
  'pkg.installed',
  'pkg.latest',
  'pkg.purged',
  'pkg.removed',
  'pkg.uptodate',
  'pkgrepo.absent',
  'pkgrepo.managed',
  'service.dead',
  'service.disabled',
  'service.enabled',
  'service.running',
  'ssh_auth.present',
  'stateconf.context',
  'stateconf.set',
  'supervisord.dead',
  'supervisord.running',
  'test.fail_with_changes',
  'test.fail_without_changes',
  'test.nop',
  'test.show_notification',
  'test.succeed_with_changes',
  'test.succeed_without_changes',
  'virtualenv.managed',
  'x509.certificate_managed',
  'x509.private_key_managed',
];

/** State functions whose Salt signature names every argument it takes. */
const SALT_NAMES_ALL = [
  'alias.absent',
  'alias.present',
  'alternatives.auto',
  'alternatives.install',
  'alternatives.remove',
  'alternatives.set',
  'apache_module.disabled',
  'apache_module.enabled',
  'cron.env_absent',
  'cron.env_present',
  'cron.present',
  'docker_container.absent',
  'docker_image.absent',
  'docker_network.absent',
  'environ.setenv',
  'file.append',
  'file.blockreplace',
  'file.comment',
  'file.keyvalue',
  'file.line',
  'file.prepend',
  'file.replace',
  'file.touch',
  'file.uncomment',
  'firewalld.present',
  'firewalld.service',
  'gem.installed',
  'grains.absent',
  'grains.append',
  'grains.exists',
  'grains.list_absent',
  'grains.list_present',
  'grains.present',
  'group.absent',
  'group.present',
  'host.absent',
  'host.only',
  'host.present',
  'iptables.chain_absent',
  'iptables.chain_present',
  'locale.present',
  'locale.system',
  'mount.swap',
  'npm.installed',
  'npm.removed',
  'postgres_database.absent',
  'postgres_database.present',
  'postgres_extension.absent',
  'postgres_extension.present',
  'postgres_schema.absent',
  'postgres_schema.present',
  'postgres_tablespace.absent',
  'postgres_tablespace.present',
  'postgres_user.absent',
  'postgres_user.present',
  'selinux.boolean',
  'selinux.fcontext_policy_present',
  'selinux.mode',
  'service.masked',
  'service.unmasked',
  'ssh_auth.absent',
  'ssh_known_hosts.absent',
  'ssh_known_hosts.present',
  'sysctl.present',
  'test.configurable_test_state',
  'timezone.system',
  'user.absent',
  'user.present',
];

const chunk = (fun: string, extra: Record<string, unknown>): LowChunk => {
  const dot = fun.lastIndexOf('.');
  return { __id__: 'x', __sls__: 'web', __env__: 'base', state: fun.slice(0, dot), fun: fun.slice(dot + 1), name: 'x', order: 1, ...extra } as LowChunk;
};

describe("unknown state arguments follow Salt's signatures", () => {
  it('a function with **kwargs in Salt ignores an unknown argument without a warning', () => {
    for (const fun of SALT_TAKES_KWARGS) assert.deepEqual(ignoredArgs(stateFn(fun), chunk(fun, { colour: 'red' })), [], fun);
  });

  it("a function without **kwargs in Salt names the unknown argument in format_call's warning", () => {
    for (const fun of SALT_NAMES_ALL) {
      const ignored = ignoredArgs(stateFn(fun), chunk(fun, { colour: 'red' }));
      assert.deepEqual(ignored, ['colour'], fun);
      assert.equal(ignoredArgsWarning(fun, ignored), `'colour' is an invalid keyword argument for '${fun}'`);
    }
  });
});
