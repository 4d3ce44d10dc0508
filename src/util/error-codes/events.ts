// Error codes of one area (events minions fire, beacons); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const EVENT_ERRORS = {
  EVENT_TAG_RESERVED: spec(
    "A minion fired an event whose tag is in a namespace the master owns (salt/job/, salt/auth, salt/key, salt/presence/, salt/run/, salt/wheel/, salt/netapi/, brine/, another minion's salt/minion/<id>/ or salt/beacon/<id>/).",
    'Fire it under your own tag (e.g. myco/build/done); the event was not fired, and the refusal is logged on the master with the minion ID.',
    1,
  ),
  EVENT_TOO_LARGE: spec(
    'The data of an event a minion fires is larger than the protocol allows (256 KiB of JSON), or its tag is longer than 512 characters.',
    'Send smaller data (a subset of grains or pillar with with_grains=[...], with_pillar=[...]); nothing was fired.',
    1,
  ),
  EVENT_RATE_LIMITED: spec(
    "A minion fired events faster than the master's minion_event_rate (with minion_event_burst on top).",
    'Fire fewer events (a longer beacon interval, onchangeonly), or raise minion_event_rate on the master; the events over the limit were not fired.',
    1,
  ),
  EVENT_REFUSED: spec('The master did not take the event (it takes no events from minions, or it answered nothing in time).', 'Check the master with `brine doctor`; the event was not fired.', 1),
  EVENT_UNAVAILABLE: spec(
    'An event for the master was fired where there is no master session: brine call --local, file_client: local, or a minion that is not connected.',
    "Run it through the minion daemon (brine run, or brine call without --local) once `brine doctor` shows the minion connected; event.fire fires on the minion's own bus instead.",
    1,
  ),
  BEACON_CONFIG_INVALID: spec(
    "A beacon's configuration is not what the beacon takes (Salt's list-of-dicts form, a known beacon module, valid options).",
    'Fix the beacons: entry (minion config or pillar) as the message says; the other beacons keep running, this one does not run until it is fixed. `brine call beacons.list` shows what is configured.',
    1,
  ),
  BEACON_UNAVAILABLE: spec(
    'A configured beacon cannot run on this host: what it reads is missing (the journald beacon without journalctl or without a running systemd-journald).',
    "Remove the beacon from this minion's beacons: (or target the pillar that sets it to hosts that have it), or install and start what the message names; the other beacons keep running.",
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
