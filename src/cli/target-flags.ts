// The `salt` target selectors of `brine run` (-E -L -G -P -S -C -N -I -J, --delimiter) and the one
// target type they choose; more than one selector is a usage error.

import type { TargetType } from '../protocol/index.js';
import { BrineError } from '../util/errors.js';

export interface TargetFlags {
  pcre?: boolean;
  list?: boolean;
  grain?: boolean;
  grainPcre?: boolean;
  ipcidr?: boolean;
  compound?: boolean;
  nodegroup?: boolean;
  pillar?: boolean;
  pillarPcre?: boolean;
  pillarExact?: boolean;
  delimiter?: string;
}

const SELECTORS: ReadonlyArray<readonly [keyof TargetFlags, string, TargetType]> = [
  ['pcre', '-E', 'pcre'],
  ['list', '-L', 'list'],
  ['grain', '-G', 'grain'],
  ['grainPcre', '-P', 'grain_pcre'],
  ['ipcidr', '-S', 'ipcidr'],
  ['compound', '-C', 'compound'],
  ['nodegroup', '-N', 'nodegroup'],
  ['pillar', '-I', 'pillar'],
  ['pillarPcre', '-J', 'pillar_pcre'],
  ['pillarExact', '--pillar-exact', 'pillar_exact'],
];

/** Target types whose key:value expression --delimiter splits. */
const DELIMITED: ReadonlySet<TargetType> = new Set(['grain', 'grain_pcre', 'pillar', 'pillar_pcre', 'pillar_exact']);

/** The target type the flags select (glob when none), and the grain delimiter if given. */
export function targetFromFlags(flags: TargetFlags): { tgtType: TargetType; delimiter?: string } {
  const chosen = SELECTORS.filter(([key]) => flags[key] === true);
  if (chosen.length > 1) throw new BrineError('USAGE', `choose one target type, not ${chosen.map(([, flag]) => flag).join(' and ')}`);
  const tgtType = chosen[0]?.[2] ?? 'glob';
  if (flags.delimiter === undefined) return { tgtType };
  if (flags.delimiter.length < 1 || flags.delimiter.length > 16) throw new BrineError('USAGE', '--delimiter must be 1 to 16 characters');
  if (!DELIMITED.has(tgtType)) throw new BrineError('USAGE', '--delimiter applies to -G, -P, -I, -J and --pillar-exact targets (in -C, write G<delim>@key<delim>value instead)');
  return { tgtType, delimiter: flags.delimiter };
}
