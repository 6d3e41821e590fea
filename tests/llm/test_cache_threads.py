"""The cache's one sqlite connection is used from several threads at once (the embedder puts and
gets vectors through ``asyncio.to_thread`` while other batches are in flight): every use must be
serialised, or sqlite fails ("cannot start a transaction within a transaction") or crashes."""

from __future__ import annotations

import threading

from voxjudge.llm.cache import Cache


def test_concurrent_puts_and_gets_from_many_threads(tmp_path):
    cache = Cache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(t: int) -> None:
        try:
            start.wait()
            for k in range(60):
                rows = [(f"t{t}-{k}-{j}", bytes([t, k, j, 0]), 1) for j in range(20)]
                cache.put_vectors("fake", "hash", rows)
                got = cache.get_vectors([key for key, _, _ in rows])
                assert got == {key: blob for key, blob, _ in rows}
        except BaseException as e:  # noqa: BLE001 -- reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]
    assert cache.stats()["vectors"] == 8 * 60 * 20
    cache.close()
