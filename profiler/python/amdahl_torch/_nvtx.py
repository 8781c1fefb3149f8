# amdahl_torch._nvtx: the NVTX calls the hooks make, behind one small interface.
#
# Preferred: the `nvtx` package, domain `amdahl`, with int64 payloads on produce/consume marks.
# Fallback: torch.cuda.nvtx (default domain, canonical names, no payloads: the analyzer maps
# the canonical names in any domain, but produce/consume links are then missing).
# Last resort: no NVTX at all (every call is a no-op).
DOMAIN = "amdahl"


class _NullBackend:
    name = "none"
    payloads = False

    def push(self, name):
        pass

    def pop(self):
        pass

    def mark(self, name, payload=None):
        pass

    def start(self, name):
        return None

    def end(self, range_id):
        pass


class _NvtxPackageBackend:
    """The `nvtx` package (PyPI), domain `amdahl`; attributes cached per message."""

    name = "nvtx"
    payloads = True

    def __init__(self, nvtx):
        self._nvtx = nvtx
        self._dom = nvtx.get_domain(DOMAIN)
        self._attrs = {}
        # Newer releases have Domain.push_range(attributes); older ones only the module API.
        self._fast = all(hasattr(self._dom, m) for m in
                         ("get_event_attributes", "push_range", "pop_range", "mark",
                          "start_range", "end_range"))

    def _attr(self, name):
        a = self._attrs.get(name)
        if a is None:
            a = self._dom.get_event_attributes(message=name)
            self._attrs[name] = a
        return a

    def push(self, name):
        if self._fast:
            self._dom.push_range(self._attr(name))
        else:
            self._nvtx.push_range(name, domain=DOMAIN)

    def pop(self):
        if self._fast:
            self._dom.pop_range()
        else:
            self._nvtx.pop_range(domain=DOMAIN)

    def mark(self, name, payload=None):
        if payload is None:
            if self._fast:
                self._dom.mark(self._attr(name))
            else:
                self._nvtx.mark(name, domain=DOMAIN)
            return
        payload = int(payload)          # an int -> an NVTX int64 payload
        if self._fast:
            self._dom.mark(self._dom.get_event_attributes(message=name, payload=payload))
        else:
            self._nvtx.mark(name, domain=DOMAIN, payload=payload)

    def start(self, name):
        if self._fast:
            return self._dom.start_range(self._attr(name))
        return self._nvtx.start_range(name, domain=DOMAIN)

    def end(self, range_id):
        if range_id is None:
            return
        if self._fast:
            self._dom.end_range(range_id)
        else:
            self._nvtx.end_range(range_id)


class _TorchNvtxBackend:
    """torch.cuda.nvtx: default domain, no payloads (marks with a payload are dropped)."""

    name = "torch.cuda.nvtx"
    payloads = False

    def __init__(self, tnvtx):
        self._t = tnvtx
        self._has_start = hasattr(tnvtx, "range_start") and hasattr(tnvtx, "range_end")

    def push(self, name):
        self._t.range_push(name)

    def pop(self):
        self._t.range_pop()

    def mark(self, name, payload=None):
        if payload is None:
            self._t.mark(name)

    def start(self, name):
        if self._has_start:
            return self._t.range_start(name)
        self._t.range_push(name)   # degrade: push/pop (must then end on the same thread)
        return -1

    def end(self, range_id):
        if range_id is None:
            return
        if self._has_start and range_id != -1:
            self._t.range_end(range_id)
        else:
            self._t.range_pop()


def make_backend(torch_module=None):
    """Picks the best NVTX route available in this process (see the module comment)."""
    try:
        import nvtx  # noqa: PLC0415 (imported lazily: it must not be imported before torch)
        return _NvtxPackageBackend(nvtx)
    except Exception:  # noqa: BLE001 (missing or broken: fall back)
        pass
    if torch_module is not None:
        try:
            tnvtx = torch_module.cuda.nvtx
            if hasattr(tnvtx, "range_push") and hasattr(tnvtx, "range_pop"):
                tnvtx.mark("torch.annotations:torch.cuda.nvtx")  # raises on a CPU-only build
                return _TorchNvtxBackend(tnvtx)
        except Exception:  # noqa: BLE001
            pass
    return _NullBackend()
