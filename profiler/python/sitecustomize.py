# sitecustomize for `amdahl profile` (--torch; on by default for Python commands): enables
# amdahl_torch's import hook (torch is annotated when the script imports it), then runs the
# sitecustomize this one shadows, if any.
# Set AMDAHL_TORCH=0 to disable the annotations while keeping this directory on PYTHONPATH.
import os
import sys


def _amdahl_enable():
    if os.environ.get("AMDAHL_TORCH", "1") == "0":
        return
    try:
        import amdahl_torch
        amdahl_torch.enable()
    except Exception as e:  # noqa: BLE001 (never break the interpreter's start-up)
        if os.environ.get("AMDAHL_TORCH_VERBOSE"):
            sys.stderr.write("amdahl_torch: not enabled: %s\n" % e)


def _amdahl_chain():
    """Loads the next `sitecustomize` on sys.path (the one this file shadows)."""
    import importlib.machinery
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    if os.path.abspath(spec.origin or "") == os.path.abspath(__file__):
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_amdahl_chained_sitecustomize"] = mod
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # noqa: BLE001 (as site.py does: report and go on)
        sys.stderr.write("Error in sitecustomize (chained by amdahl): %r\n" % (e,))


_amdahl_enable()
_amdahl_chain()
