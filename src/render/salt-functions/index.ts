// The execution functions a template answers on its own thread (template-function.ts), by name.

import { CONFIG_FUNCTIONS } from './config-functions.js';
import { LOG_FUNCTIONS, GRAINS_FUNCTIONS } from './log-grains-functions.js';
import { PATH_FUNCTIONS } from './path-functions.js';
import { TIME_FUNCTIONS } from './time-functions.js';
import { DEFAULTS_FUNCTIONS, SLSUTIL_FUNCTIONS } from './slsutil-functions.js';
import type { TemplateFunction } from './template-function.js';

export { bindTemplateArgs, type LogLevel, type TemplateFunction, type TemplateHost, type TemplateParam } from './template-function.js';

export const TEMPLATE_FUNCTIONS: ReadonlyMap<string, TemplateFunction> = new Map(
  Object.entries({ ...LOG_FUNCTIONS, ...SLSUTIL_FUNCTIONS, ...DEFAULTS_FUNCTIONS, ...PATH_FUNCTIONS, ...GRAINS_FUNCTIONS, ...CONFIG_FUNCTIONS, ...TIME_FUNCTIONS }),
);
