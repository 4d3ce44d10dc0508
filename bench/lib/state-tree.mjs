// The state tree bench:states applies, and the same work as a plain script (the raw floor):
// files from one Jinja template, directories, and commands guarded by `unless`.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const TEMPLATE = `# managed by the bench: {{ name }}
[app]
index = {{ index }}
host = {{ grains['id'] }}
{% for k in ['alpha', 'beta', 'gamma'] -%}
{{ k }} = {{ index * loop.index }}
{% endfor -%}
{% if index is even %}parity = even{% else %}parity = odd{% endif %}
`;

/** How the 500 states split: files from the template, directories, guarded commands (+1 directory for the markers). */
export function shape(total) {
  const files = Math.floor(total / 2) - 1;
  const dirs = Math.floor(total / 4);
  const cmds = total - files - dirs - 1;
  return { files, dirs, cmds };
}

/**
 * Writes file_roots/base (top.sls, bench/init.sls, bench/app.conf.j2) for states applied under
 * `destExpr`, a Jinja expression (e.g. `'/tmp/x/' ~ grains['id']` so minions on one host differ).
 */
export function writeTree(root, destExpr, total) {
  const { files, dirs, cmds } = shape(total);
  fs.mkdirSync(path.join(root, 'bench'), { recursive: true });
  fs.writeFileSync(path.join(root, 'top.sls'), "base:\n  '*':\n    - bench\n");
  fs.writeFileSync(path.join(root, 'bench', 'app.conf.j2'), TEMPLATE);
  const sls = [];
  sls.push(`{% set dest = ${destExpr} %}`);
  sls.push(`{% for i in range(${files}) %}`);
  sls.push(
    'bench-file-{{ i }}:\n  file.managed:\n    - name: {{ dest }}/files/f{{ i }}.conf\n    - source: salt://bench/app.conf.j2\n    - template: jinja\n    - makedirs: True\n    - context:\n        name: f{{ i }}\n        index: {{ i }}',
  );
  sls.push('{% endfor %}');
  sls.push(`{% for i in range(${dirs}) %}`);
  sls.push('bench-dir-{{ i }}:\n  file.directory:\n    - name: {{ dest }}/dirs/d{{ i }}\n    - makedirs: True');
  sls.push('{% endfor %}');
  sls.push('bench-markers:\n  file.directory:\n    - name: {{ dest }}/markers\n    - makedirs: True');
  sls.push(`{% for i in range(${cmds}) %}`);
  sls.push('bench-cmd-{{ i }}:\n  cmd.run:\n    - name: touch {{ dest }}/markers/m{{ i }}\n    - unless: test -e {{ dest }}/markers/m{{ i }}\n    - require:\n      - file: bench-markers');
  sls.push('{% endfor %}');
  fs.writeFileSync(path.join(root, 'bench', 'init.sls'), `${sls.join('\n')}\n`);
}
