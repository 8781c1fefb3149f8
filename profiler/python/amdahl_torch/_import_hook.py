# amdahl_torch._import_hook: run a callback right after a module finishes importing, through a
# finder at the front of sys.meta_path that wraps the real loader's exec_module. Nothing is
# imported early: torch is patched only if and when the script imports it.
import importlib.abc
import importlib.machinery
import sys

_callbacks = {}          # module name -> [callback(module)]


def _run(name, module):
    for cb in _callbacks.pop(name, []):
        try:
            cb(module)
        except Exception:  # noqa: BLE001 (a hook must never break the import)
            pass


class _Loader(importlib.abc.Loader):
    def __init__(self, name, loader):
        self._name = name
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _run(self._name, module)

    def __getattr__(self, attr):           # get_resource_reader, is_package, get_code, ...
        return getattr(self._loader, attr)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _callbacks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _Loader(fullname, spec.loader)
            return spec
        return None


_finder = _Finder()


def when_imported(name, callback):
    """callback(module) once `name` is imported (now, if it already is)."""
    mod = sys.modules.get(name)
    if mod is not None and getattr(getattr(mod, "__spec__", None), "_initializing", False) is False:
        callback(mod)
        return
    _callbacks.setdefault(name, []).append(callback)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
