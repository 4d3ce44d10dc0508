// test.provider, test.providers and test.exception (salt/modules/test.py). provider names the
// Salt module file that would serve a virtual module here (service -> systemd_service, pkg ->
// aptpkg), so trees that branch on it (`test.provider('service').startswith('systemd')`) take
// the branch that matches what brine does on this host.

import { BrineError } from '../util/errors.js';
import { which } from './host-tools.js';
import type { ModuleRegistry } from './registry.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

// brine module -> the file name of the Salt module with the same functions (where they differ)
const SALT_FILE: Record<string, () => string> = {
  service: () => 'systemd_service',
  pkg: () => (!which('apt-get') && which('dnf') ? 'yumpkg' : 'aptpkg'),
  cmd: () => 'cmdmod',
  user: () => 'useradd',
  group: () => 'groupadd',
  sysctl: () => 'linux_sysctl',
  locale: () => 'localemod',
  debconf: () => 'debconfmod',
  sys: () => 'sysmod',
};

function provider(registry: ModuleRegistry, module: string): string {
  if (!registry.list().some((n) => n.startsWith(`${module}.`))) return '';
  return SALT_FILE[module]?.() ?? module;
}

export function testProviderFunctions(registry: ModuleRegistry): ModuleFunction[] {
  return [
    defineFunction({
      name: 'test.provider',
      doc: "The Salt module that provides a virtual module here (e.g. 'systemd_service' for service); '' when there is none.",
      params: [{ name: 'module', type: 'string', required: true, doc: 'a module name such as service or pkg' }],
      run: (_ctx, a) => provider(registry, a.named.module),
    }),
    defineFunction({
      name: 'test.providers',
      doc: "Every module keyed by the Salt module file that provides it, as Salt returns it: {provider: module} ({'systemd_service': 'service', 'test': 'test'}).",
      params: [],
      // Salt's providers() keys its dict by provider() and stores the module name as the value
      run: () => {
        const mods = [...new Set(registry.list().map((n) => n.slice(0, n.indexOf('.'))))].sort();
        return Object.fromEntries(mods.map((m) => [provider(registry, m), m]));
      },
    }),
    defineFunction({
      name: 'test.exception',
      doc: 'Fail with the message given (trees use it to stop a render with their own error).',
      params: [{ name: 'message', type: 'string', default: 'Test Exception', doc: 'the error message' }],
      run: (_ctx, a) => {
        throw new BrineError('EXEC_FAILED', a.named.message);
      },
    }),
  ];
}
