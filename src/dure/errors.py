"""The base of every error a user can cause and fix: its message is the one line shown."""


class DureError(Exception):
    """A user-fixable problem (bad configuration, bad input); never shown as a traceback."""
