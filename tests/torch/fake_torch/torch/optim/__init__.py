from .optimizer import SGD, Optimizer  # noqa: F401
