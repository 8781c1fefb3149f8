from .dataloader import DataLoader  # noqa: F401
from .dataset import Dataset  # noqa: F401
