// The minion's static grains file (Salt's <config dir>/grains, YAML): where it is, reading it,
// and writing it back as Salt's setvals does (block-style YAML).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { yamlPackage } from '../util/yaml-package.js';
import { BrineError, errorMessage } from '../util/errors.js';

/** <config_dir>/grains, beside the minion's config file, as Salt puts it. */
export function grainsFilePath(config: Readonly<Record<string, unknown>>): string {
  const dir = typeof config.config_dir === 'string' && config.config_dir !== '' ? config.config_dir : '/etc/brine';
  return path.join(dir, 'grains');
}

/** The file's grains; {} when it is missing or does not hold a mapping (Salt ignores it then). */
export function readGrainsFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let data: unknown;
  try {
    data = yamlPackage().parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `Unable to read existing grains file: ${errorMessage(err)}`);
  }
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

export function writeGrainsFile(file: string, grains: Record<string, unknown>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Object.keys(grains).length === 0 ? '{}\n' : yamlPackage().stringify(grains, { indent: 2, lineWidth: 0 }));
}
