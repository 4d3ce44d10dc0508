"""Measuring instrument for bench/salt-oracle.mjs: real Salt, imported from its source tree
(PYTHONPATH), runs per state file what `salt-call --local` would: `state.sls <sls> test=True`
(apply) and, when that returns no states, `state.show_sls <sls>` (does it compile?). One
long-lived process per tree so Salt's start-up and grains are paid once. Not part of brine.

stdin: {"config_dir": DIR, "sls": [NAME, ...], "timeout": SECONDS_PER_FILE}
stdout: JSON lines; first {"version", "grains"}, then per file
  {"sls", "compile": {"ok", "error"?}, "apply": {"ok", "error"?, "failed"?: [{id, function, comment}]} | null}
"""

import json
import os
import signal
import sys


class FileTimeout(BaseException):
    """Raised by SIGALRM; a BaseException so Salt's `except Exception` blocks let it through."""


def on_alarm(signum, frame):
    raise FileTimeout()


def first_error(value):
    """Salt's compile and run errors come back as a list of messages (or one string)."""
    if isinstance(value, list) and value:
        return str(value[0])[:2000]
    return (value if isinstance(value, str) else json.dumps(value, default=str))[:2000]


def failed_states(ret):
    out = []
    for tag, r in ret.items():
        if isinstance(r, dict) and r.get("result") is False:
            parts = tag.split("_|-")
            fun = f"{parts[0]}.{parts[-1]}" if len(parts) == 4 else tag
            comment = r.get("comment")
            comment = comment if isinstance(comment, str) else json.dumps(comment, default=str)
            out.append({"id": r.get("__id__", parts[1] if len(parts) == 4 else tag), "function": fun, "comment": comment[:300]})
    return out


def timed(seconds, fn):
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)


def compile_only(caller, sls, seconds):
    """`state.show_sls` alone: what bench:corpus counts as compiling."""
    try:
        high = timed(seconds, lambda: caller.cmd("state.show_sls", sls))
    except FileTimeout:
        return {"ok": False, "error": f"timeout: Salt took over {seconds} s"}
    except BaseException as exc:  # a render error Salt raises instead of returning
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000]}
    return {"ok": True} if isinstance(high, dict) else {"ok": False, "error": first_error(high)}


def run_file(caller, sls, seconds):
    """`state.sls test=True` first (it renders as show_sls does, then runs); show_sls only when
    the run did not return states, to tell a compile error from a run refused later (a requisite
    naming a missing state). Half the calls for the files that compile: Salt builds its loaders
    and renders the pillar again for every call."""
    try:
        ret = timed(seconds, lambda: caller.cmd("state.sls", sls, test=True))
    except FileTimeout:
        ret = f"timeout: Salt took over {seconds} s"
    except BaseException as exc:
        ret = f"{type(exc).__name__}: {exc}"[:2000]
    if isinstance(ret, dict):
        failed = failed_states(ret)
        return {"compile": {"ok": True}, "apply": {"ok": False, "failed": failed} if failed else {"ok": True}}
    compiled = compile_only(caller, sls, seconds)
    return {"compile": compiled, "apply": {"ok": False, "error": first_error(ret)} if compiled["ok"] else None}


def main():
    req = json.load(sys.stdin)
    # Salt's modules may print; only this process's own lines go to the real stdout
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    signal.signal(signal.SIGALRM, on_alarm)
    import salt.client
    import salt.config
    import salt.version

    opts = salt.config.minion_config(req["config_dir"] + "/minion")
    opts["file_client"] = "local"
    caller = salt.client.Caller(mopts=opts)

    def emit(obj):
        out.write(json.dumps(obj, default=str) + "\n")
        out.flush()

    emit({"version": salt.version.__version__, "grains": caller.cmd("grains.items")})
    for sls in req["sls"]:
        emit({"sls": sls, **run_file(caller, sls, int(req["timeout"]))})


if __name__ == "__main__":
    main()
