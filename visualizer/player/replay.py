"""An independent replay of a scanlab trace: what the player (player.js) must show after event k.

The tests (tests/player/) step the player in a browser and compare its DOM with this: every drawn
value is an element with data-key and data-value, and data-mark where the view marks it. This
module is written from the trace format (book/docs/traces.md) and the chapters' algorithms, not
from player.js, so that a mistake in one of them shows as a difference.

  expected(trace_text, k) -> (values {key: text}, marks {key: mark})
  steps(trace_text)       -> the events the player steps through, in order
"""
from __future__ import annotations

import json

FLAGS = "XAP"


def _text(v):
    if v is None:
        return "-"
    if isinstance(v, list):
        return "(" + ",".join(_text(x) for x in v) + ")"
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def parse(trace_text):
    lines = [json.loads(line) for line in trace_text.splitlines() if line.strip()]
    meta = lines[0]
    records = sorted((x for x in lines[1:] if x.get("type") in ("array", "event")), key=lambda x: x["seq"])
    other = [x for x in lines[1:] if x.get("type") not in ("array", "event", "end")]
    return meta, records, other


def _scan(values, exclusive):
    out, total = [], 0
    for v in values:
        out.append(total if exclusive else total + v)
        total += v
    return out


def steps(trace_text):
    meta, records, other = parse(trace_text)
    chapter = meta.get("chapter")
    result = [dict(o, label="result") for o in other if o.get("type") == "result"]
    if chapter in ("01_hillis_steele", "02_blelloch"):
        return [r for r in records if r["type"] == "array" and r.get("block", 0) == 0] + result
    if chapter == "03_bank_conflicts":
        return [o for o in other if o.get("type") == "bank_map"]
    if chapter == "05_multi_block":
        return [r for r in records if r["type"] == "array"] + result
    if chapter == "07_decoupled_lookback":
        return [r for r in records if r["type"] == "event"]
    if chapter == "08_stream_compaction":
        return [r for r in records if r["type"] == "event" and r["label"] == "scatter"]
    raise ValueError(f"no replay for chapter {chapter!r}")


def _sweep(meta, events, k):
    values, marks = {}, {}
    result = events[-1] if events and events[-1]["label"] == "result" else None
    oracle = _scan(result["input"], meta.get("kind") != "inclusive") if result and "input" in result else None
    m = len(events[0]["values"])
    for row in range(k + 1):
        e = events[row]
        for i, v in enumerate(e["values"]):
            key = f"row/{row}/{i}"
            values[key] = _text(v)
            if e["label"] == "result":
                if oracle is not None and v != oracle[i]:
                    marks[key] = "wrong"
                continue
            if row != k or row == 0:
                continue
            level = e["step"]
            if e["label"] == "step":
                written = i >= 2 ** (level - 1)
            elif e["label"] == "up":
                written = (i + 1) % (2 ** level) == 0
            elif e["label"] == "down":
                written = (i + 1) % (m >> level) == 0 if (m >> level) else False
            else:
                written = False
            if written:
                marks[key] = "current"
    return values, marks


def _banks(events, k):
    values, marks = {}, {}
    level = events[k]
    for layout in ("unpadded", "padded"):
        for side in ("left", "right"):
            lanes = level.get(layout, [])
            for lane in lanes:
                bank = lane[f"{side}_bank"]
                words = {x[f"{side}_slot"] for x in lanes if x[f"{side}_bank"] == bank}
                key = f"bank/{layout}/{side}/{lane['lane']}"
                values[key] = str(bank)
                if len(words) > 1:
                    marks[key] = "conflict"
    return values, marks


def _multi_block(meta, events, k):
    values, marks = {}, {}
    tile, n = meta.get("tile", 32), meta.get("n", 0)
    tiles = max(1, -(-n // tile))
    content = {t: [None] * min(tile, n - t * tile) for t in range(tiles)}
    sums, scanned, result = [], [], None
    current = None
    for i, e in enumerate(events[: k + 1]):
        label, step, block = e["label"], e.get("step"), e.get("block", 0)
        here = None
        if label in ("tile_in", "tile_scan") and step == 0:
            content[block] = list(e["values"])
        elif label in ("tile_in", "tile_scan"):
            (sums if label == "tile_in" else scanned)[:] = e["values"]
            here = "sums" if label == "tile_in" else "scanned"
        elif label == "uniform_add":
            content[block + 1] = list(e["values"])
        elif label == "range_scan":
            content[step] = list(e["values"])
        elif label in ("tile_sum", "range_sum") and (label == "range_sum" or step == 0):
            sums.extend([None] * (block + 1 - len(sums)))
            sums[block] = e["values"][0]
            here = ("sums", block)
        elif label == "spine":
            scanned[:] = e["values"]
            here = "scanned"
        elif label == "result":
            result = e
        if i == k:
            current = here
    for t, vals in content.items():
        for i, v in enumerate(vals):
            values[f"tile/{t}/{i}"] = _text(v)
    for name, row in (("sums", sums), ("scanned", scanned)):
        for i, v in enumerate(row):
            values[f"{name}/{i}"] = _text(v)
            if current == name or current == (name, i):
                marks[f"{name}/{i}"] = "current"
    if result is not None:
        oracle = _scan(result["input"], meta.get("kind") == "exclusive") if "input" in result else None
        for i, v in enumerate(result["values"]):
            values[f"result/{i}"] = _text(v)
            if oracle is not None and v != oracle[i]:
                marks[f"result/{i}"] = "wrong"
    return values, marks


def lookback_state(meta, events, k):
    """Per tile: [flag, aggregate, inclusive, reads] after events[0..k]."""
    tiles = max([meta.get("tiles", 0)] + [e["step"] + 1 for e in events])
    state = [[0, None, None, []] for _ in range(tiles)]
    for e in events[: k + 1]:
        d, f = state[e["step"]], e["fields"]
        if e["label"] == "word":
            d[0] = f[0]
            if f[0] == 2:
                d[2] = f[1]
                if e["step"] == 0:
                    d[1] = f[1]
            else:
                d[1] = f[1]
        elif e["label"] == "value":
            d[2 if f[0] == 2 else 1] = f[1]
        elif e["label"] == "flag":
            d[0] = f[0]
        elif e["label"] == "read":
            d[3].append((f[0], f[1]))
    return state


def _lookback(meta, events, k):
    values, marks = {}, {}
    state = lookback_state(meta, events, k)
    final = lookback_state(meta, events, len(events) - 1)
    oracle, total = [], 0
    for d in final:
        total = None if total is None or d[1] is None else total + d[1]
        oracle.append(total)
    for t, (flag, aggregate, inclusive, _) in enumerate(state):
        values[f"flag/{t}"] = FLAGS[flag]
        values[f"aggregate/{t}"] = _text(aggregate)
        values[f"inclusive/{t}"] = _text(inclusive)
        if flag == 1 and final[t][0] == 1:
            marks[f"flag/{t}"] = "stuck"
        if inclusive is not None and oracle[t] is not None and inclusive != oracle[t]:
            marks[f"inclusive/{t}"] = "wrong"
    for reader, d in enumerate(state):
        for i, (pred, status) in enumerate(d[3]):
            values[f"read/{reader}/{i}"] = f"{pred}:{FLAGS[status]}"
    return values, marks


def _compaction(meta, other, events, k):
    """Chapter 08: per tile, after events[0..k], its count, its offset and how many it wrote (an
    event's fields), checked against the sequential count of each tile (the tile_counts line):
    the counts themselves, their exclusive prefix, and the positions the tile wrote."""
    values, marks = {}, {}
    line = next((o for o in other if o.get("type") == "tile_counts"), None)
    want = line["counts"] if line else None
    want_offsets = _scan(want, True) if want else None
    tiles = max([meta.get("tiles", 0)] + [e["step"] + 1 for e in events])
    seen = {}
    for e in events[: k + 1]:
        seen[e["step"]] = dict(zip(("offset", "count", "kept"), e["fields"][:3], strict=True))
    current = events[k]["step"]
    for t in range(tiles):
        d = seen.get(t)
        right = {"count": want[t], "offset": want_offsets[t], "kept": want[t]} if want and t < len(want) else None
        for row in ("count", "offset", "kept"):
            key = f"{row}/{t}"
            values[key] = _text(d[row] if d else None)
            if d and right and d[row] != right[row]:
                marks[key] = "wrong"
            elif d and t == current:
                marks[key] = "current"
        if d:
            key = f"out/{t}"
            values[key] = f"{d['offset']}-{d['offset'] + d['kept']}"
            if right and (d["offset"] != right["offset"] or d["kept"] != right["kept"]):
                marks[key] = "wrong"
            elif t == current:
                marks[key] = "current"
    return values, marks


def expected(trace_text, k):
    """({data-key: data-value}, {data-key: data-mark}) of the player after event k."""
    meta, _, other = parse(trace_text)
    events = steps(trace_text)
    chapter = meta["chapter"]
    if chapter in ("01_hillis_steele", "02_blelloch"):
        return _sweep(meta, events, k)
    if chapter == "03_bank_conflicts":
        return _banks(events, k)
    if chapter == "05_multi_block":
        return _multi_block(meta, events, k)
    if chapter == "08_stream_compaction":
        return _compaction(meta, other, events, k)
    return _lookback(meta, events, k)


def lookback_text(trace_text, k):
    """Chapter 07's state after event k as the book states it: "P A A P ... | 2 4 - 8 ..." (flags,
    then inclusive prefixes)."""
    meta, _, _ = parse(trace_text)
    state = lookback_state(meta, steps(trace_text), k)
    return " ".join(FLAGS[d[0]] for d in state) + " | " + " ".join(_text(d[2]) for d in state)
