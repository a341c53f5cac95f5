"""progress= callbacks and the piece API of the relayout engine."""
import numpy as np
import pytest

import tessera
from tessera import _tessera

LAYOUT = "f32[2048,2048]{1,0:T(8,128)}"


def test_progress_reports_growing_bytes_up_to_the_total():
    x = np.arange(2048 * 2048, dtype=np.float32).reshape(2048, 2048)
    calls = []
    physical = tessera.to_physical(x, LAYOUT, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (16 << 20, 16 << 20)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert np.array_equal(physical, tessera.to_physical(x, LAYOUT))
    back_calls = []
    back = tessera.from_physical(physical, LAYOUT, progress=lambda d, t: back_calls.append(d))
    assert np.array_equal(back, x) and back_calls[-1] == 16 << 20
    converted_calls = []
    tessera.convert(physical, LAYOUT, "f32[2048,2048]{0,1}", progress=lambda d, t: converted_calls.append(d))
    assert converted_calls[-1] == 16 << 20


def test_an_exception_in_progress_stops_the_conversion():
    x = np.zeros((4096, 4096), np.float32)

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tessera.to_physical(x, "f32[4096,4096]{1,0:T(8,128)}", progress=stop)


def test_pieces_in_order_are_the_whole_conversion():
    source = tessera.Layout.parse("f32[1000,999]{1,0}").index_map
    destination = tessera.Layout.parse("f32[1000,999]{0,1:T(8,128)}").index_map
    plan = _tessera.Relayout(source, destination, threads=2)
    data = np.random.default_rng(3).integers(0, 256, plan.source_bytes, dtype=np.uint8)
    whole = np.zeros(plan.destination_bytes, np.uint8)
    plan.execute(data, whole)
    pieces = np.full(plan.destination_bytes, 7, np.uint8)
    assert plan.piece_count > 1
    assert sum(plan.piece_bytes(i) for i in range(plan.piece_count)) > 0
    for first in range(0, plan.piece_count, 3):
        plan.execute_pieces(data, pieces, first, min(first + 3, plan.piece_count))
    assert np.array_equal(pieces, whole)


def test_settled_bytes_are_not_written_by_later_pieces():
    source = tessera.Layout.parse("f32[1024,1024]{1,0}").index_map
    destination = tessera.Layout.parse("f32[1024,1024]{1,0:T(8,128)}").index_map
    plan = _tessera.Relayout(source, destination)
    data = np.random.default_rng(4).integers(0, 256, plan.source_bytes, dtype=np.uint8)
    half = plan.piece_count // 2
    settled = plan.destination_settled_bytes(half)
    assert settled == sum(plan.piece_bytes(i) for i in range(half)) > 0
    rest = np.full(plan.destination_bytes, 0xEE, np.uint8)
    plan.execute_pieces(data, rest, half, plan.piece_count)
    assert (rest[:settled] == 0xEE).all() and not (rest[settled:] == 0xEE).all()
    assert plan.destination_settled_bytes(plan.piece_count) == plan.destination_bytes


def test_release_buffers_frees_the_recycled_outputs():
    x = np.zeros((2048, 2048), np.float32)
    physical = tessera.to_physical(x, LAYOUT)
    del physical  # a 16 MiB output goes back to the cache when freed
    assert tessera.release_buffers() >= 16 << 20
    assert tessera.release_buffers() == 0
