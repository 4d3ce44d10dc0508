"""Measuring instrument for bench/salt-lowchunks.mjs: real Salt, imported from its source tree
(PYTHONPATH), compiles SLS files masterless as `salt-call --local state.show_low_sls` does.
One process per tree so Salt's loader and grains are built once. Not part of brine.

stdin: {"config_dir": DIR, "sls": [NAME, ...]}
stdout: one JSON document {"version", "grains", "results": {sls: {"ok": bool, "low"|"error"}}}
"""

import json
import sys


def main():
    req = json.load(sys.stdin)
    import salt.client
    import salt.config
    import salt.version

    opts = salt.config.minion_config(req["config_dir"] + "/minion")
    opts["file_client"] = "local"
    caller = salt.client.Caller(mopts=opts)
    out = {"version": salt.version.__version__, "results": {}}
    out["grains"] = caller.cmd("grains.items")
    for sls in req["sls"]:
        try:
            low = caller.cmd("state.show_low_sls", sls)
        except BaseException as exc:  # a render error Salt raises instead of returning
            out["results"][sls] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            continue
        if isinstance(low, list) and all(isinstance(c, dict) for c in low):
            out["results"][sls] = {"ok": True, "low": low}
        else:
            out["results"][sls] = {"ok": False, "error": low if isinstance(low, str) else json.dumps(low, default=str)}
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
