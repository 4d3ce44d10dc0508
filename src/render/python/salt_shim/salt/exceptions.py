"""Salt's exception names (salt/exceptions.py's documented classes) for tree code that raises or catches them."""


class SaltException(Exception):
    def __init__(self, message=""):
        super().__init__(message)
        self.strerror = message


class SaltClientError(SaltException):
    pass


class SaltSystemExit(SystemExit):
    pass


class CommandExecutionError(SaltException):
    """An execution function failed; when brine ran it, `brine_code` is brine's error code."""

    def __init__(self, message="", info=None, brine_code=None):
        super().__init__(message)
        self.info = info
        if brine_code is not None:
            self.brine_code = brine_code


class CommandNotFoundError(SaltException):
    pass


class SaltInvocationError(SaltException, TypeError):
    pass


class SaltRenderError(SaltException):
    """A renderer could not render; Salt's signature (message, line_num, buf, marker, trace)."""

    def __init__(self, message, line_num=None, buf="", marker="    <======================", trace=None):
        super().__init__(message)
        self.line_num = line_num
        self.buffer = buf
        self.context = ""
        self.marker = marker
        self.trace = trace


class TemplateError(SaltException):
    pass


class MinionError(SaltException):
    pass


class FileserverConfigError(SaltException):
    pass


class LoaderError(SaltException):
    pass


class TimedProcTimeoutError(SaltException):
    pass
