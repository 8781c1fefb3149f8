MP_STATUS_CHECK_INTERVAL = 5.0

from . import collate, fetch, pin_memory, worker  # noqa: E402,F401
