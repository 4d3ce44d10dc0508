// Error codes of one area (configuration); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const CONFIG_ERRORS = {
  CONFIG_NOT_FOUND: spec('A configuration file that was named or required does not exist.', 'Create the file or point -c/--config-dir (or BRINE_CONFIG_DIR) at the right directory.', 78),
  CONFIG_UNREADABLE: spec('A configuration file exists but cannot be read.', 'Fix the file permissions so the daemon user can read it.', 78),
  CONFIG_PARSE: spec('A configuration file is not valid YAML or not a mapping at the top level.', 'Fix the YAML syntax at the line given; the top level must be `key: value` pairs.', 78),
  CONFIG_TYPE: spec('A known option has a value of the wrong type.', 'Change the value to the expected type named in the message.', 78),
  CONFIG_VALUE: spec('A known option has a value outside what it accepts.', 'Use one of the allowed values named in the message.', 78),
  API_NOT_CONFIGURED: spec(
    '`brine api` was started with a master configuration that has no `api:` (or `rest_cherrypy:`) section.',
    'Add `api: {standalone: true}` (with port, host and the rest as needed) to the master configuration `brine api` reads (-c), and restart the master so it leaves the API to `brine api`.',
    78,
  ),
  CONFIG_UNKNOWN_KEY: spec('An option name is one typo away from a known option.', 'Rename the key to the suggested option, or remove it.', 78),
} as const satisfies Record<string, ErrorSpec>;
