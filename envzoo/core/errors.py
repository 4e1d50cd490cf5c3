"""Exceptions that envzoo raises. Each message says what was wrong and how to fix it."""


class EnvzooError(Exception):
    """Base class of every error envzoo raises on purpose."""


class RegistryError(EnvzooError, ValueError):
    """A malformed ``registry.yaml`` entry, or an id that is not registered."""


class MissingExtraError(EnvzooError, ImportError):
    """An environment needs an optional dependency group (an *extra*) that is not installed."""

    def __init__(self, extra: str, module: str, env_id: str | None = None, install: str | None = None):
        self.extra = extra
        self.module = module
        what = f"Environment {env_id!r}" if env_id else "This feature"
        if install is not None:  # a system requirement: a program, not a Python module
            message = f"{what} needs the program {module!r}, which is not on PATH. Install it with: {install}"
        else:
            message = (f"{what} needs the Python package {module!r}, which is not installed. "
                       f'Install it with: pip install "envzoo[{extra}]"')
        super().__init__(message)


class UnknownArgumentError(EnvzooError, ValueError):
    """An env argument that the env does not take (the message names the close match).

    A ``ValueError``, not Python's ``TypeError`` for an unexpected keyword: Gymnasium's ``make``
    re-raises a ``TypeError`` from an env's constructor as a second one chained to it, which
    printed the message twice; a ``ValueError`` reaches the user as raised."""


class InvalidActionError(EnvzooError, ValueError):
    """An action outside the environment's action space."""


class DataFormatError(EnvzooError, ValueError):
    """A data file that does not have the expected format; the message names file, row, column."""
