# amdahl_torch: annotates an unmodified PyTorch training script with amdahl's NVTX stages.
# `amdahl profile --torch` puts this package's directory on PYTHONPATH; its sitecustomize.py
# calls enable(), which installs an import hook: when `torch` (or PIL) is imported, the hooks
# in _hooks.py are placed. See docs/torch.md.
import sys

from . import _hooks
from ._import_hook import when_imported

__all__ = ["enable", "placed", "uncovered"]


def placed():
    """What was annotated in this process."""
    return list(_hooks.placed)


def uncovered():
    """What could not be annotated in this process (also recorded as torch.uncovered:* marks)."""
    return list(_hooks.uncovered)


def enable():
    """Places the hooks now if torch is already imported, else when it is. Never raises."""
    try:
        when_imported("torch", _hooks.install)
        when_imported("PIL.Image", _hooks.patch_pil_image)
        when_imported("PIL.JpegImagePlugin", _hooks.patch_pil_jpeg)
    except Exception as e:  # noqa: BLE001 (the script must run whatever happens here)
        if "amdahl_torch" in sys.modules:
            _hooks._verbose("import hook not installed: %s" % e)
