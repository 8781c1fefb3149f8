# torch.cuda without a GPU (and without torch.cuda.nvtx: amdahl_torch uses the nvtx package).
def is_available():
    return False
