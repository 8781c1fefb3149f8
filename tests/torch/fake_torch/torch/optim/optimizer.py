# Optimizer with torch's global step pre/post hooks (register_optimizer_step_*_hook), applied by
# wrapping the subclass's step at construction as torch does (profile_hook_step).
import functools
import time

_global_pre_hooks = {}
_global_post_hooks = {}


def register_optimizer_step_pre_hook(hook):
    _global_pre_hooks[len(_global_pre_hooks)] = hook


def register_optimizer_step_post_hook(hook):
    _global_post_hooks[len(_global_post_hooks)] = hook


class Optimizer:
    def __init__(self, params, defaults):
        self.params = list(params)
        self.defaults = defaults
        step = type(self).step
        if not getattr(step, "hooked", False):
            @functools.wraps(step)
            def wrapper(*args, **kwargs):
                opt = args[0]
                for h in list(_global_pre_hooks.values()):
                    h(opt, args, kwargs)
                out = step(*args, **kwargs)
                for h in list(_global_post_hooks.values()):
                    h(opt, args, kwargs)
                return out
            wrapper.hooked = True
            type(self).step = wrapper

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None


class SGD(Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    def step(self):
        time.sleep(0.001)                                      # "GPU" update
        lr = self.defaults["lr"]
        for p in self.params:
            if p.grad is not None:
                p.values = [w - lr * g for w, g in zip(p.values, p.grad.values)]
