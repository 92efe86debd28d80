#!/usr/bin/env python3
"""Writes the committed seed corpus of the fuzz harnesses (corpus/<harness>/).
Rerun after changing an input format; the files are small on purpose."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def put(harness, name, data):
    path = os.path.join(here, "corpus", harness, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- edge_list: text in the edge-list format, valid and not -------------------
edge = {
    "diamond.txt": "# a diamond\n4 4\n0 1\n0 2\n1 3\n2 3\n",
    "empty_graph.txt": "0 0\n",
    "comments_blank.txt": "# c\n\n  # indented comment\n3 2\n\n0 1\n# mid\n1 2\n",
    "crlf_tabs.txt": "3 2\r\n0\t1\r\n1 \t 2\r\n",
    "no_final_newline.txt": "2 1\n0 1",
    "max_u64.txt": "18446744073709551615 1\n18446744073709551615 0\n",
    "too_big.txt": "18446744073709551616 0\n",
    "negative.txt": "3 1\n-1 2\n",
    "malformed.txt": "3 2\n0 1\n1 x\n",
    "trailing.txt": "3 1\n0 1 2\n",
    "too_few.txt": "3 2\n0 1\n",
    "too_many.txt": "3 1\n0 1\n1 2\n",
    "huge_header.txt": "4 1099511627776\n0 1\n",
    "only_comments.txt": "# nothing\n# here\n",
    "cycle.txt": "3 3\n0 1\n1 2\n2 0\n",
}
for name, text in edge.items():
    put("edge_list", name, text)


# --- matrix_market: Matrix Market text, valid and not -------------------------
B = "%%MatrixMarket matrix coordinate "
mtx = {
    "real_general.mtx": B + "real general\n% c\n4 4 6\n1 1 1.0\n2 1 -2e3\n3 1 .5\n4 2 5.\n4 3 +1E-2\n1 4 7\n",
    "pattern_symmetric.mtx": B + "pattern symmetric\n3 3 3\n2 1\n3 2\n1 3\n",
    "integer_skew.mtx": B + "integer skew-symmetric\n3 3 2\n2 1 -4\n3 1 4\n",
    "complex_hermitian.mtx": B + "complex hermitian\n2 2 2\n1 1 1 0\n2 1 0.5 -0.5\n",
    "crlf_case.mtx": "%%MatrixMarket MATRIX Coordinate Pattern GENERAL\r\n\r\n3 3 2\r\n2 1\r\n3\t2",
    "special_values.mtx": B + "real general\n2 2 2\n2 1 NaN\n1 2 -inf\n",
    "empty.mtx": B + "real general\n0 0 0\n",
    "array.mtx": "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n",
    "bad_banner.mtx": "%%MatrixMarkt matrix coordinate real general\n1 1 0\n",
    "not_square.mtx": B + "real general\n3 4 0\n",
    "index_zero.mtx": B + "pattern general\n3 3 1\n0 1\n",
    "index_beyond.mtx": B + "pattern general\n3 3 1\n4 1\n",
    "too_few.mtx": B + "real general\n3 3 2\n2 1 1\n",
    "too_many.mtx": B + "real general\n3 3 1\n2 1 1\n3 1 1\n",
    "bad_value.mtx": B + "integer general\n3 3 1\n2 1 1.5\n",
    "huge_size.mtx": B + "real general\n4 4 1099511627776\n2 1 1\n",
    "huge_rows.mtx": B + "pattern general\n18446744073709551615 18446744073709551615 1\n18446744073709551615 1\n",
}
for name, text in mtx.items():
    put("matrix_market", name, text)


# --- plan_barriers: flags, u16 wave count, then u16 id pairs -------------------
def plan(flags, waves, deps):
    """Encodes a seed; the wave count must be representable (see the harness)."""
    low, high = waves, 0
    if waves > 255:
        flags |= 32  # byte 2 raises the wave count: x 256 (16-bit, bit 7) or x 16
        shift = 8 if flags & 3 == 2 else 4
        if shift == 8:
            flags |= 128
        high = (waves - (waves & 255 if shift == 8 else waves & 15)) >> shift
        low = waves - (high << shift)
        assert 0 <= low < 256 and high < 256, waves
    return struct.pack("<BBB", flags, low, high) + b"".join(struct.pack("<HH", b, a) for b, a in deps)


put("plan_barriers", "diamond", plan(0, 4, [(0, 1), (0, 2), (1, 3), (2, 3)]))
put("plan_barriers", "empty", plan(0, 0, []))
put("plan_barriers", "zero_waves_dep", plan(0, 0, [(0, 1)]))
put("plan_barriers", "chain64", plan(1, 8, [(i, i + 1) for i in range(7)]))
put("plan_barriers", "chain16_reuse", plan(2 | 4, 6, [(i, i + 1) for i in range(5)]))
put("plan_barriers", "cycle", plan(0, 5, [(0, 1), (1, 2), (2, 3), (3, 1), (0, 4)]))
put("plan_barriers", "self_edge", plan(4, 3, [(0, 1), (2, 2)]))
put("plan_barriers", "invalid_wave", plan(0, 3, [(0, 1), (1, 0xFFF0)]))
put("plan_barriers", "wide_id", plan(1, 3, [(0, 0xFFFF)]))
put("plan_barriers", "u16_wave_overflow", plan(2 | 8, 600, [(0, 1)]))
put("plan_barriers", "u16_dep_overflow", plan(2 | 16 | 64, 3, [(0, 1), (1, 2)]))
put("plan_barriers", "u16_dep_limit", plan(2 | 16, 4, [(0, 1), (0, 1), (1, 3), (2, 3)]))
put("plan_barriers", "wide_graph", plan(0, 3000, [(i, (i * 37 + 1000) % 3000) for i in range(0, 3000, 30)]))
put("plan_barriers", "layered", plan(4, 40, [(i, i + 10 + (i * 7) % 3) for i in range(28)]))
