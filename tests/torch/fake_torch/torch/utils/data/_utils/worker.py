# The worker process loop (torch.utils.data._utils.worker._worker_loop): take (idx, index) from
# the index queue, fetch, put (idx, batch) on the result queue; None ends it.
import queue



def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shared_seed):
    from .fetch import _MapDatasetFetcher
    fetcher = _MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
    if init_fn is not None:
        init_fn(worker_id)
    while True:
        try:
            r = index_queue.get(timeout=0.5)
        except queue.Empty:
            continue
        if r is None:
            break
        idx, index = r
        data = fetcher.fetch(index)
        data_queue.put((idx, data))
        del data, idx, index, r
    data_queue.cancel_join_thread()
    data_queue.close()
