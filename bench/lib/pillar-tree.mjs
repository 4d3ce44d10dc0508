// A realistic pillar tree for bench:pillar: a map.jinja looked up by os_family with
// grains.filter_by, a top file giving every minion five SLS files, each with 10 top-level keys
// (50 per minion) made of lookups, loops and per-minion values.

import * as fs from 'node:fs';
import * as path from 'node:path';

const MAP = `{% set defaults = salt['grains.filter_by']({
  'Debian': {'pkg': 'apache2', 'service': 'apache2', 'conf_dir': '/etc/apache2', 'user': 'www-data', 'python': 'python3'},
  'RedHat': {'pkg': 'httpd', 'service': 'httpd', 'conf_dir': '/etc/httpd', 'user': 'apache', 'python': 'python3'},
  'Suse': {'pkg': 'apache2', 'service': 'apache2', 'conf_dir': '/etc/apache2', 'user': 'wwwrun', 'python': 'python3'}
}, grain='os_family') %}
`;

const sls = {
  'top.sls': "base:\n  '*':\n    - common\n    - users\n    - app.settings\n    - app.network\n    - monitoring\n",
  'map.jinja': MAP,
  'common.sls': `{% from 'map.jinja' import defaults with context %}
web_pkg: {{ defaults.pkg }}
web_service: {{ defaults.service }}
web_conf_dir: {{ defaults.conf_dir }}
web_user: {{ defaults.user }}
python: {{ defaults.python }}
minion_id: {{ grains['id'] }}
{% for i in range(4) %}
common_flag_{{ i }}: {{ i * 2 }}
{% endfor %}
`,
  'users.sls': `{% for i in range(10) %}
user_{{ i }}:
  uid: {{ 2000 + i }}
  shell: {{ '/bin/bash' if i % 2 == 0 else '/bin/zsh' }}
  home: /home/user{{ i }}
{% endfor %}
`,
  'app/settings.sls': `{% from 'map.jinja' import defaults with context %}
{% for name in ['cache', 'queue', 'search', 'mail', 'auth', 'billing', 'reports', 'api', 'admin', 'static'] %}
app_{{ name }}:
  enabled: {{ loop.index % 3 != 0 }}
  workers: {{ loop.index * 2 }}
  log: {{ defaults.conf_dir }}/{{ name }}.log
{% endfor %}
`,
  'app/network.sls': `{% for i in range(10) %}
net_{{ i }}:
  port: {{ 8000 + i }}
  bind: 10.{{ i }}.0.1
  owner: {{ grains['id'] }}
{% endfor %}
`,
  'monitoring.sls': `{% for check in ['cpu', 'mem', 'disk', 'load', 'net', 'proc', 'ntp', 'dns', 'http', 'tls'] %}
check_{{ check }}:
  interval: {{ 30 * loop.index }}
  family: {{ grains['os_family'] }}
{% endfor %}
`,
};

export const KEYS_PER_MINION = 50;
export const SLS_FILES = ['common', 'users', 'app/settings', 'app/network', 'monitoring'];
export const OS_FAMILIES = ['Debian', 'RedHat', 'Suse'];

/** The emulator's grains for minion i (the same rule as src/emulator). */
export function grainsOf(prefix, i) {
  const family = OS_FAMILIES[i % OS_FAMILIES.length];
  return { id: `${prefix}${i}`, os_family: family, os: family, emulated: true };
}

export function writePillarTree(root) {
  for (const [rel, text] of Object.entries(sls)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}
