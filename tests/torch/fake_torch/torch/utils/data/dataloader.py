# DataLoader and its two iterators, shaped like torch's: _next_data, _get_data, _process_data,
# _rcvd_idx/_send_idx, one index queue per worker, a shared result queue, an optional
# pin-memory thread between the result queue and the main process.
import multiprocessing
import queue
import threading

from . import _utils
from ._utils.collate import default_collate
from ._utils.fetch import _MapDatasetFetcher
from ._utils.pin_memory import _pin_memory_loop


class _BatchSampler:
    def __init__(self, n, batch_size, drop_last):
        self.n, self.batch_size, self.drop_last = n, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in range(self.n):
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        full, rest = divmod(self.n, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)


class DataLoader:
    def __init__(self, dataset, batch_size=1, num_workers=0, pin_memory=False, drop_last=False,
                 collate_fn=None, prefetch_factor=2, multiprocessing_context=None):
        self.dataset = dataset
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.drop_last = drop_last
        self.collate_fn = collate_fn or default_collate
        self.prefetch_factor = prefetch_factor
        self.multiprocessing_context = multiprocessing_context
        self._index_sampler = _BatchSampler(len(dataset), batch_size, drop_last)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __len__(self):
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._pin_memory = loader.pin_memory

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _MapDatasetFetcher(loader.dataset, True, loader.collate_fn, loader.drop_last)

    def _next_data(self):
        index = next(self._sampler_iter)
        data = self._dataset_fetcher.fetch(index)
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data)
        return data


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        ctx = loader.multiprocessing_context or multiprocessing.get_context("fork")
        if isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._num_workers = loader.num_workers
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        for i in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()
            w = ctx.Process(target=_utils.worker._worker_loop,
                            args=(0, loader.dataset, iq, self._worker_result_queue,
                                  self._workers_done_event, True, loader.collate_fn,
                                  loader.drop_last, 0, None, i, self._num_workers, False, 0))
            w.daemon = True
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        if self._pin_memory:
            self._pin_memory_thread_done_event = threading.Event()
            self._data_queue = queue.Queue()
            t = threading.Thread(target=_pin_memory_loop,
                                 args=(self._worker_result_queue, self._data_queue, 0,
                                       self._pin_memory_thread_done_event, None))
            t.daemon = True
            t.start()
            self._pin_memory_thread = t
        else:
            self._data_queue = self._worker_result_queue
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._shutdown = False
        for _ in range(loader.prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        w = self._send_idx % self._num_workers
        self._index_queues[w].put((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        while True:
            try:
                return self._data_queue.get(timeout=5.0)
            except queue.Empty:
                if not all(w.is_alive() for w in self._workers):
                    raise RuntimeError("DataLoader worker exited unexpectedly")

    def _next_data(self):
        while True:
            if self._rcvd_idx >= self._send_idx:
                self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                return self._process_data(data)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        if hasattr(self, "_pin_memory_thread"):
            self._pin_memory_thread_done_event.set()
            self._pin_memory_thread.join()
        self._workers_done_event.set()
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=10)
            if w.is_alive():
                w.terminate()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # noqa: BLE001
            pass
