class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError
