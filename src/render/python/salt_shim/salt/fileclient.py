"""salt.fileclient.get_file_client(opts): fetches salt:// files through brine's file server.

cache_file returns a local path (in a private directory removed when the render ends) or False
when the file server has no such file, as Salt's client does. Only salt:// URLs are served."""

import os

from salt import _brine


def _split(url, saltenv):
    rel = url[len("salt://") :]
    if "?" in rel:
        rel, _, query = rel.partition("?")
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key == "saltenv" and value:
                saltenv = value
    return rel.lstrip("/"), saltenv


class FileClient:
    def __init__(self, opts):
        self.opts = opts

    def cache_file(self, path, saltenv="base", cachedir=None, source_hash=None, verify_ssl=True, use_etag=False):
        if not isinstance(path, str) or not path.startswith("salt://"):
            raise ValueError("brine's file client fetches salt:// files only, not %r" % (path,))
        rel, saltenv = _split(path, saltenv)
        text = _brine.ask({"op": "load", "name": rel})
        if text is None:
            return False
        root = os.path.join(_brine.scratch_dir(), "files", saltenv)
        local = os.path.normpath(os.path.join(root, rel))
        if not local.startswith(root + os.sep):
            raise ValueError("%r leaves the file server's root" % (path,))
        os.makedirs(os.path.dirname(local), exist_ok=True)
        with open(local, "w", encoding="utf-8") as fh:
            fh.write(text)
        return local

    def cache_files(self, paths, saltenv="base", cachedir=None):
        if isinstance(paths, str):
            paths = paths.split(",")
        return [self.cache_file(p, saltenv) for p in paths]

    def get_file_str(self, path, saltenv="base"):
        local = self.cache_file(path, saltenv)
        if not local:
            return False
        with open(local, encoding="utf-8") as fh:
            return fh.read()

    def get_state(self, sls, saltenv):
        """Salt's {source, dest} for an SLS name (a/b -> a/b.sls, else a/b/init.sls), {} when neither exists."""
        base = sls.replace(".", "/")
        for rel in (base + ".sls", base + "/init.sls"):
            dest = self.cache_file("salt://" + rel, saltenv)
            if dest:
                return {"source": "salt://" + rel, "dest": dest}
        return {}

    def destroy(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()


def get_file_client(opts, pillar=False, force_local=False):
    return FileClient(opts)
