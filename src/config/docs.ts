// Generates docs/configuration.md from the option table, so the documentation cannot drift from
// what the loader accepts (a unit test compares the committed file with this output).

import { defaultFor, type OptionSpec, type Role } from './option-spec.js';
import { optionsFor } from './schema.js';

export const REGENERATE_COMMAND = 'node --import tsx -e "import(\'./src/config/docs.ts\').then((m) => process.stdout.write(m.renderConfigurationDoc()))" > docs/configuration.md';

const INTRO = `# Configuration

<!-- Generated from src/config/schema.ts by renderConfigurationDoc() (src/config/docs.ts); do not edit by hand.
     Regenerate with: ${REGENERATE_COMMAND} -->

brine reads YAML files with Salt's option names and, where Salt has them, Salt's defaults. The tables
below list every option brine knows; anything else is kept as written (see *Unknown keys*).

## Where configuration comes from

- **Config directory**: \`-c/--config-dir\`, else the environment variable \`BRINE_CONFIG_DIR\`, else
  \`/etc/brine\`.
- **Files, in order**: the master reads \`<dir>/master\`, then every \`<dir>/master.d/*.conf\` sorted by
  file name; the minion reads \`<dir>/minion\` and \`<dir>/minion.d/*.conf\`. A later file wins per
  top-level key and replaces the whole value: a \`grains:\` mapping in \`minion.d/20.conf\` replaces the
  one in \`minion\`, it is not merged into it. Command-line flags win over every file. A missing base
  file is fine (defaults apply); dot files in \`.d/\` are ignored.
- **YAML 1.1**, as Salt's loader: \`yes\`/\`no\`/\`on\`/\`off\` and \`True\`/\`False\` are booleans; dates
  stay strings. An empty file sets nothing.
- \`brine config show\` prints the effective configuration with sorted keys (\`--sources\` adds the file
  each value came from, or \`default\`).

## root_dir

Options of type *path* are moved under \`root_dir\` (default \`/\`), as Salt's \`prepend_root_dir\`
does: defaults and configured absolute paths alike, unless they already lie under \`root_dir\`; a
relative path is taken relative to \`root_dir\`. With \`root_dir: /srv/test\` the minion's \`pki_dir\`
is \`/srv/test/etc/brine/pki/minion\`. These are the options Salt moves: \`pki_dir\`, \`cachedir\`,
\`sock_dir\`, \`log_file\`, \`extension_modules\` (when set), and on the master \`autosign_file\`,
\`autoreject_file\` and \`api_logfile\` (Salt's \`pidfile\`, \`token_dir\`, \`sqlite_queue_dir\` and
\`autosign_grains_dir\` are moved too in Salt; brine has no such options).

Nothing else is moved. In particular \`file_roots\` and \`pillar_roots\` are used as written, as in
Salt (whose default \`/srv/salt\` does not change with \`root_dir\`): a Salt configuration with
\`root_dir: /opt/salt\` and \`file_roots: {base: [/srv/formulas]}\` serves \`/srv/formulas\`. A
relative directory in them is taken under \`root_dir\` (Salt would take it from the daemon's working
directory). brine's own path options (\`module_dirs\`, \`nats_tls_ca\`, \`nats_enrolment\`) are used
as written too, like Salt's options outside its list (\`module_dirs\`, its TLS files); their
defaults follow \`pki_dir\`, which is moved. \`brine config show\` prints every path as the daemon
uses it.

At start-up the master (and a minion with \`file_client: local\`, and \`brine call --local\`) warns,
naming it, about each \`file_roots\` or \`pillar_roots\` directory that does not exist, about
\`file_roots\` with no \`top.sls\` in any directory (naming where it looked), and about each
Salt option set in a file that brine does not implement (see *Salt options brine ignores*).

## Validation: stricter than Salt

Salt only logs a warning when an option has the wrong type and silently accepts unknown keys, so a
misspelt option leaves the default in force without a trace. brine refuses to start instead, with
one line naming the option, the file and what is expected:

- a known option with a value of the wrong type: \`CONFIG_TYPE\`, e.g.
  \`option 'master_port' in /etc/brine/minion.d/10.conf must be an integer, got string "abc"\`.
  As in Salt, \`master_port\` also accepts a string of digits, and a numeric \`id: 1234\` becomes the
  string \`"1234"\`;
- a value outside an option's allowed values: \`CONFIG_VALUE\`, naming the allowed values (case is
  forgiven: \`log_level: INFO\` means \`info\`); also an empty path, an empty \`master\` list, or
  \`config_dir\` set in a file;
- a key one edit (insertion, deletion, substitution or swap of neighbours) away from a known option
  of either role: \`CONFIG_UNKNOWN_KEY\`, e.g.
  \`unknown option 'mastr_port' in /etc/brine/minion: did you mean 'master_port'?\`
  (options shorter than four characters, such as \`id\`, are not suggested);
- YAML that does not parse, or a top level that is not a mapping: \`CONFIG_PARSE\` with the line;
  a file that cannot be read: \`CONFIG_UNREADABLE\`; a required file that is missing:
  \`CONFIG_NOT_FOUND\`.

**Unknown keys** that are not near-misses are kept as written: Salt and its modules read their own
settings (\`mysql.host\`, ...) from the same files. Options of the other role are accepted and
type-checked, so one file can serve both daemons.

## Legend

*brine only*: Salt has no such option. *Salt default*: brine deliberately changed Salt's default, for
the reason given. Paths use \`brine\` where Salt's use \`salt\` (\`/etc/brine\`, \`/var/cache/brine\`, ...).
Shared options appear in both tables.
`;

function code(text: string): string {
  return `\`${text}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function typeCell(spec: OptionSpec): string {
  switch (spec.type) {
    case 'int':
      return spec.numericString ? 'int or digit string' : spec.nullable ? 'int or null' : 'int';
    case 'string':
      return spec.path ? 'path' : 'string';
    case 'number':
    case 'bool':
    case 'list':
      return spec.type;
    case 'string_or_list':
      return 'string or list';
    case 'string_or_bool':
      return 'string or bool';
    case 'map':
      return 'mapping';
    case 'enum':
      return [...(spec.values ?? []).map(code), ...(spec.nullable ? ['null'] : [])].join(', ');
  }
}

function formatValue(value: unknown): string {
  if (value === undefined) return '*(unset)*';
  if (typeof value === 'string') return code(value === '' ? '""' : value);
  return code(JSON.stringify(value));
}

function defaultCell(spec: OptionSpec, role: Role): string {
  if (spec.derived) return '*(the config directory)*';
  const value = defaultFor(spec, role);
  const unit = spec.unit !== undefined && typeof value === 'number' ? ` ${spec.unit}` : '';
  return `${formatValue(value)}${unit}`;
}

function meaningCell(spec: OptionSpec): string {
  const marks: string[] = [];
  if (spec.brineOnly) marks.push('*brine only.*');
  if (spec.saltDefault !== undefined) marks.push(`*Salt default: ${formatValue(spec.saltDefault)}.*`);
  return [...marks, spec.doc].join(' ');
}

function roleTable(role: Role): string {
  const rows = optionsFor(role).map((spec) => `| ${code(spec.name)} | ${cell(typeCell(spec))} | ${cell(defaultCell(spec, role))} | ${cell(meaningCell(spec))} |`);
  const title = role === 'master' ? 'Master options' : 'Minion options';
  return [`## ${title}`, '', '| option | type | default | meaning |', '|---|---|---|---|', ...rows, ''].join('\n');
}

export function renderConfigurationDoc(): string {
  return [INTRO, roleTable('master'), roleTable('minion')].join('\n');
}
