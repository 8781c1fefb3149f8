# amdahl_torch: annotates an unmodified PyTorch training script with amdahl's NVTX stages.
# `amdahl profile` puts this package's directory on PYTHONPATH (for every Python command unless
# --no-torch); its sitecustomize.py calls enable(), which installs an import hook: when `torch`
# (or PIL) is imported, the hooks in _hooks.py are placed. _hooks itself (inspect, ctypes) is
# imported only then, so a Python process that never imports torch pays for the hook alone.
# See docs/torch.md.
import sys

from ._import_hook import when_imported

__all__ = ["enable", "placed", "uncovered"]


def placed():
    """What was annotated in this process."""
    from . import _hooks
    return list(_hooks.placed)


def uncovered():
    """What could not be annotated in this process (also recorded as torch.uncovered:* marks)."""
    from . import _hooks
    return list(_hooks.uncovered)


def _lazy(name):
    def run(module):
        from . import _hooks
        getattr(_hooks, name)(module)
    return run


def enable():
    """Places the hooks now if torch is already imported, else when it is. Never raises."""
    try:
        when_imported("torch", _lazy("install"))
        when_imported("PIL.Image", _lazy("patch_pil_image"))
        when_imported("PIL.JpegImagePlugin", _lazy("patch_pil_jpeg"))
    except Exception as e:  # noqa: BLE001 (the script must run whatever happens here)
        import os
        if os.environ.get("AMDAHL_TORCH_VERBOSE"):
            sys.stderr.write("amdahl_torch: import hook not installed: %s\n" % e)
