// scanlab's trace player: steps through a recorded run (a scanlab-trace, JSON lines) one event at a
// time and draws, in SVG, the state replayed up to that event (design.md §13, book/docs/traces.md).
// Plain JavaScript, no library, nothing fetched: the trace is inside the page, in
//   <div class="scanlab-player">
//     <script type="application/x-scanlab-trace">...JSON lines...</script>
//     <script type="application/json" class="scanlab-player-sources">{label: [source lines]}</script>
//   </div>
// (visualizer/player/make_player.py writes both, for `./lab viz NN --html` and for the book).
//
// The DOM is the contract with the tests (tests/player/): every drawn value is an element with
// data-key (e.g. "flag/3", "row/2/5") and data-value, and data-mark when the view marks it
// ("current", "wrong": differs from the oracle, "stuck": a tile that never publishes P). The
// container's data-position is the index of the event shown; tests/player/replay.py computes the
// same keys independently.
(function () {
  "use strict";

  const FORMAT_VERSION = 1;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const FLAG_NAMES = ["X", "A", "P"];

  // ---- reading a trace ---------------------------------------------------------------------

  // {meta, records, other, end, warnings} or throws an Error whose message is for the reader.
  function parseTrace(text) {
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) {
      throw new Error("This trace is empty: the run wrote nothing (did it stop before recording?).");
    }
    let meta;
    try {
      meta = JSON.parse(lines[0]);
    } catch (e) {
      throw new Error("The first line of this trace is not JSON: it is not a scanlab trace.");
    }
    if (!meta || meta.type !== "meta" || meta.format !== "scanlab-trace") {
      throw new Error("The first line of this trace is not a scanlab-trace meta line.");
    }
    if (meta.version !== FORMAT_VERSION) {
      throw new Error("This trace is of format version " + JSON.stringify(meta.version) +
        "; this player reads version " + FORMAT_VERSION + ". Record it again with this lab.");
    }
    const trace = { meta: meta, records: [], other: [], end: null, warnings: [] };
    for (let i = 1; i < lines.length; ++i) {
      let line;
      try {
        line = JSON.parse(lines[i]);
      } catch (e) {
        if (i === lines.length - 1) {
          trace.warnings.push("The trace is cut short: its last line (line " + (i + 1) +
            ") is incomplete. The run stopped while writing it; showing the " + trace.records.length +
            " events before it.");
          break;
        }
        throw new Error("Line " + (i + 1) + " of this trace is not JSON.");
      }
      if (line.type === "array" || line.type === "event") trace.records.push(line);
      else if (line.type === "end") trace.end = line;
      else trace.other.push(line);
    }
    if (trace.end === null && trace.warnings.length === 0) {
      trace.warnings.push("The trace is cut short: it has no end line. The run stopped before it " +
        "finished writing; showing the " + trace.records.length + " events it recorded.");
    }
    if (meta.verified === false) {
      trace.warnings.push("This run computed a wrong result" + (meta.message ? ": " + meta.message : "") +
        ". Step through it to see where it went wrong.");
    }
    if (trace.end && trace.end.dropped > 0) {
      trace.warnings.push(trace.end.dropped + " records did not fit the trace buffer and are missing.");
    }
    trace.records.sort((a, b) => a.seq - b.seq);
    return trace;
  }

  // ---- small helpers ------------------------------------------------------------------------

  function text(v) {
    if (v === null || v === undefined) return "-";
    if (Array.isArray(v)) return "(" + v.map(text).join(",") + ")";
    return String(v);
  }

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG_NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // A value cell: a rect and its text in a group that carries the data-key contract.
  function cell(svg, x, y, w, h, key, value, cls, mark) {
    const g = el("g", { class: "sp-cell " + (cls || ""), "data-key": key, "data-value": text(value) }, svg);
    if (mark) g.setAttribute("data-mark", mark);
    el("rect", { x: x, y: y, width: w, height: h, rx: 3 }, g);
    const t = el("text", { x: x + w / 2, y: y + h / 2 + 4, "text-anchor": "middle" }, g);
    t.textContent = text(value);
    return g;
  }

  function label(svg, x, y, s, anchor, cls) {
    const t = el("text", { x: x, y: y, "text-anchor": anchor || "start", class: cls || "sp-label" }, svg);
    t.textContent = s;
    return t;
  }

  function arrow(svg, x1, y1, x2, y2, cls, bend) {
    const mx = (x1 + x2) / 2;
    const my = Math.max(y1, y2) + (bend || 0);
    return el("path", { d: "M" + x1 + "," + y1 + " Q" + mx + "," + my + " " + x2 + "," + y2,
      class: "sp-arrow " + (cls || ""), "marker-end": "url(#sp-head)" }, svg);
  }

  function scanOf(values, exclusive) {
    const out = [];
    let acc = 0;
    for (const v of values) {
      if (exclusive) { out.push(acc); acc += v; } else { acc += v; out.push(acc); }
    }
    return out;
  }

  // ---- chapters 01 and 02: the array after each level ---------------------------------------

  // The pairs a level combines: [from, to] index pairs, from the array's length and the level.
  function sweepPairs(rec, m) {
    const pairs = [];
    if (rec.label === "step") {  // Hillis-Steele: element i adds element i - 2^(k-1)
      const offset = 1 << (rec.step - 1);
      for (let i = offset; i < m && rec.step > 0; ++i) pairs.push([i - offset, i]);
    } else if (rec.label === "up") {
      const stride = 1 << (rec.step - 1);
      for (let t = 0; stride * (2 * t + 2) - 1 < m; ++t) {
        pairs.push([stride * (2 * t + 1) - 1, stride * (2 * t + 2) - 1]);
      }
    } else if (rec.label === "down") {
      const stride = m >> rec.step;
      for (let t = 0; stride > 0 && stride * (2 * t + 2) - 1 < m; ++t) {
        const left = stride * (2 * t + 1) - 1;
        const right = stride * (2 * t + 2) - 1;
        pairs.push([left, right], [right, left]);
      }
    }
    return pairs;
  }

  function sweepModel(trace) {
    const steps = trace.records.filter((r) => r.type === "array" && (r.block || 0) === 0);
    const result = trace.other.find((o) => o.type === "result");
    const exclusive = trace.meta.kind !== "inclusive";
    const oracle = result && result.input ? scanOf(result.input, exclusive) : null;
    if (result) steps.push({ type: "result", label: "result", values: result.values, seq: null });
    return {
      steps: steps,
      describe(k) {
        const r = steps[k];
        if (r.label === "result") {
          const bad = oracle ? r.values.filter((v, i) => v !== oracle[i]).length : 0;
          return "The kernel stored its result" + (oracle ? (bad ? ": " + bad +
            " values differ from the scan of the input (marked)" : ", equal to the scan of the input") : "") + ".";
        }
        if (r.label === "step") {
          return r.step === 0 ? "The input, loaded into shared memory." :
            "Step " + r.step + ": every element i >= " + (1 << (r.step - 1)) + " adds the element " +
            (1 << (r.step - 1)) + " to its left.";
        }
        if (r.label === "input") return "The tile loaded into shared memory (padding holds the identity).";
        if (r.label === "up") return "Up-sweep level " + r.step + ": each right child adds its left sibling (" +
          (1 << (r.step - 1)) + " apart); the right one now holds the subtree's total.";
        if (r.label === "clear") return "The root is set to the identity: nothing comes before the whole tile.";
        if (r.label === "down") return "Down-sweep level " + r.step + ": each left child takes its parent's " +
          "prefix, each right child the prefix plus the left subtree.";
        return r.label + " " + r.step;
      },
      render(svg, k) {
        const m = steps[0].values.length;
        const w = 34, h = 24, gap = 14, left = 110;
        svg.setAttribute("viewBox", "0 0 " + (left + m * w + 10) + " " + ((k + 1) * (h + gap) + 20));
        for (let row = 0; row <= k; ++row) {
          const r = steps[row];
          const y = 10 + row * (h + gap);
          label(svg, 4, y + h / 2 + 4, r.label === "result" ? "result" : r.label + " " + r.step);
          const changed = row > 0 ? sweepPairs(r, m).map((p) => p[1]) : [];
          r.values.forEach((v, i) => {
            let mark = null;
            if (r.label === "result" && oracle && v !== oracle[i]) mark = "wrong";
            else if (row === k && changed.indexOf(i) >= 0) mark = "current";
            const c = cell(svg, left + i * w, y, w - 4, h, "row/" + row + "/" + i, v,
              row === k ? "sp-now" : "sp-past", mark);
            if (mark === "wrong") c.appendChild(document.createElementNS(SVG_NS, "title")).textContent =
              "the scan of the input has " + oracle[i] + " here";
          });
          if (row === k && row > 0) {
            for (const [from, to] of sweepPairs(r, m)) {
              arrow(svg, left + from * w + w / 2 - 2, y - gap, left + to * w + w / 2 - 2, y - 1, "sp-pair", -4);
            }
          }
        }
      },
    };
  }

  // ---- chapter 03: warp 0's lanes and their banks, level after level --------------------------

  function bankModel(trace) {
    const maps = trace.other.filter((o) => o.type === "bank_map");
    const levels = trace.other.filter((o) => o.type === "banks");
    const banks = trace.meta.banks || 32;
    const steps = maps.map((m) => ({ type: "level", label: m.level, source: "bank_map", map: m,
      counts: levels.find((l) => l.level === m.level) || {} }));
    // Lanes whose access in this layout shares a bank with another lane's access to another word.
    function conflicting(lanes, side) {
      const slots = {};
      for (const l of lanes) (slots[l[side + "_bank"]] = slots[l[side + "_bank"]] || new Set()).add(l[side + "_slot"]);
      return lanes.filter((l) => slots[l[side + "_bank"]].size > 1).map((l) => l.lane);
    }
    return {
      steps: steps,
      describe(k) {
        const s = steps[k];
        const parts = ["unpadded", "padded"].map((layout) => {
          const c = s.counts[layout] || {};
          return layout + ": worst " + (c.worst || 0) + "-way, " + (c.extra_wavefronts || 0) + " extra wavefronts";
        });
        return "Level " + s.label + (s.map.stride ? " (stride " + s.map.stride + ")" : "") + ": " + parts.join("; ") + ".";
      },
      render(svg, k) {
        const s = steps[k];
        const w = 22, left = 90, rowH = 70;
        const accesses = [];
        for (const layout of ["unpadded", "padded"]) {
          for (const side of ["left", "right"]) accesses.push([layout, side]);
        }
        svg.setAttribute("viewBox", "0 0 " + (left + banks * w + 10) + " " + (accesses.length * (rowH + 26) + 10));
        accesses.forEach(([layout, side], a) => {
          const lanes = s.map[layout] || [];
          const bad = conflicting(lanes, side);
          const y = 10 + a * (rowH + 26);
          label(svg, 4, y + 12, layout);
          label(svg, 4, y + 26, side + " element");
          label(svg, left - 6, y + 12, "lane", "end", "sp-small");
          label(svg, left - 6, y + rowH - 4, "bank", "end", "sp-small");
          for (let b = 0; b < banks; ++b) {
            const used = lanes.some((l) => l[side + "_bank"] === b);
            el("rect", { x: left + b * w, y: y + rowH - 18, width: w - 3, height: 16, rx: 2,
              class: "sp-bank" + (used ? " sp-used" : "") }, svg);
            label(svg, left + b * w + (w - 3) / 2, y + rowH - 6, String(b), "middle", "sp-small");
          }
          for (const l of lanes) {
            const x = left + l.lane * w + (w - 3) / 2;
            const mark = bad.indexOf(l.lane) >= 0 ? "conflict" : null;
            const g = el("g", { class: "sp-lane", "data-key": "bank/" + layout + "/" + side + "/" + l.lane,
              "data-value": String(l[side + "_bank"]) }, svg);
            if (mark) g.setAttribute("data-mark", mark);
            el("circle", { cx: x, cy: y + 8, r: 7 }, g);
            const t = el("text", { x: x, y: y + 11, "text-anchor": "middle", class: "sp-small" }, g);
            t.textContent = String(l.lane);
            el("line", { x1: x, y1: y + 15, x2: left + l[side + "_bank"] * w + (w - 3) / 2, y2: y + rowH - 18,
              class: "sp-bankline" }, g);
            el("title", {}, g).textContent = "lane " + l.lane + ": element " + l[side] + ", word " +
              l[side + "_slot"] + ", bank " + l[side + "_bank"];
          }
        });
      },
    };
  }

  // ---- chapter 05: tiles, block sums, their scan, the uniform add -----------------------------

  function multiBlockModel(trace) {
    const tileSize = trace.meta.tile || 32;
    const n = trace.meta.n || 0;
    const tiles = Math.max(1, Math.ceil(n / tileSize));
    const steps = trace.records.filter((r) => r.type === "array");
    const result = trace.other.find((o) => o.type === "result");
    const exclusive = trace.meta.kind === "exclusive";
    // Wide enough for the longest value of the run (7 px a character).
    let longest = 2;
    for (const r of steps.concat(result ? [result] : [])) {
      for (const v of r.values || []) longest = Math.max(longest, text(v).length);
    }
    const cellWidth = 12 + 7 * longest;
    const oracle = result && result.input ? scanOf(result.input, exclusive) : null;
    if (result) steps.push({ type: "result", label: "result", values: result.values, seq: null });
    // Which tile an array is about, and which row of the picture it fills.
    function place(r) {
      if (r.label === "range_scan") return { row: "tile", tile: r.step };
      if (r.label === "tile_in" || r.label === "tile_scan") {
        return r.step === 0 ? { row: "tile", tile: r.block } : { row: r.label === "tile_in" ? "sums" : "scanned" };
      }
      if (r.label === "uniform_add") return { row: "tile", tile: r.block + 1 };
      if (r.label === "tile_sum") return r.step === 0 ? { row: "sums", index: r.block } : { row: "none" };
      if (r.label === "range_sum") return { row: "sums", index: r.block };
      if (r.label === "spine") return { row: "scanned" };
      if (r.label === "add_prefix") return { row: "none", tile: r.block + 1 };
      if (r.label === "result") return { row: "result" };
      return { row: "none" };
    }
    function state(k) {
      const s = { tiles: [], phase: [], sums: [], scanned: [], result: null };
      for (let i = 0; i <= k; ++i) {
        const r = steps[i];
        const p = place(r);
        if (p.row === "tile") { s.tiles[p.tile] = r.values; s.phase[p.tile] = r.label; }
        else if (p.row === "sums" && p.index !== undefined) s.sums[p.index] = r.values[0];
        else if (p.row === "sums") s.sums = r.values.slice();
        else if (p.row === "scanned") s.scanned = r.values.slice();
        else if (p.row === "result") s.result = r.values;
      }
      return s;
    }
    return {
      steps: steps,
      describe(k) {
        const r = steps[k];
        const p = place(r);
        const words = {
          tile_in: "reads its tile",
          tile_scan: "has scanned its tile on its own",
          tile_sum: "has its tile's total: " + text(r.values && r.values[0]),
          add_prefix: "adds the scanned block sum " + text(r.values && r.values[0]) + " to tile " + p.tile,
          uniform_add: "has added its prefix to tile " + p.tile,
          range_sum: "has reduced its range of tiles to " + text(r.values && r.values[0]),
          spine: "the range sums after the spine's exclusive scan",
          range_scan: "has scanned tile " + r.step + ", seeded with its range's prefix",
        };
        if (r.label === "result") {
          const bad = oracle ? r.values.filter((v, i) => v !== oracle[i]).length : 0;
          return "The result stored" + (oracle ? (bad ? ": " + bad + " values differ from the scan of the input (marked)"
            : ", equal to the scan of the input") : "") + ".";
        }
        const who = r.step > 0 && (r.label === "tile_in" || r.label === "tile_scan")
          ? "Level " + r.step + " (the block sums): block " + r.block + " " : "Block " + r.block + " ";
        return who + (words[r.label] || r.label) + ".";
      },
      render(svg, k) {
        const s = state(k);
        const cur = place(steps[k]);
        const h = 22, left = 70, perRow = Math.min(tileSize, 16), w = cellWidth;  // 16 a row: a book column
        const tileRows = Math.ceil(tileSize / perRow);
        let y = 10;
        const width = left + perRow * w + 10;
        for (let t = 0; t < tiles; ++t) {
          label(svg, 4, y + h / 2 + 4, "tile " + t);
          const values = s.tiles[t] || [];
          const base = t * tileSize;
          const mine = cur.tile === t && cur.row !== "sums";
          if (mine) el("rect", { x: left - 4, y: y - 3, width: perRow * w + 4, height: tileRows * (h + 3) + 3,
            class: "sp-focus" }, svg);
          for (let i = 0; i < Math.min(tileSize, n - base); ++i) {
            const v = values[i] === undefined ? null : values[i];
            const x = left + (i % perRow) * w;
            const yy = y + Math.floor(i / perRow) * (h + 3);
            cell(svg, x, yy, w - 3, h, "tile/" + t + "/" + i, v, "sp-phase-" + (s.phase[t] || "none"), null);
          }
          label(svg, left + perRow * w + 2, y + h / 2 + 4, s.phase[t] ? s.phase[t].replace("_", " ") : "", "start", "sp-small");
          y += tileRows * (h + 3) + 8;
        }
        y += 6;
        const rows = [["sums", "block sums", s.sums], ["scanned", "scanned", s.scanned]];
        for (const [name, title, values] of rows) {
          label(svg, 4, y + h / 2 + 4, title);
          for (let i = 0; i < Math.max(values.length, name === "sums" ? 0 : 0); ++i) {
            const mark = cur.row === name && (cur.index === undefined || cur.index === i) ? "current" : null;
            cell(svg, left + i * w * 1.5, y, w * 1.5 - 3, h, name + "/" + i, values[i] === undefined ? null : values[i],
              "sp-sum", mark);
          }
          y += h + 8;
        }
        if (s.result) {
          y += 6;
          label(svg, 4, y + h / 2 + 4, "result");
          const bad = [];
          s.result.forEach((v, i) => {
            const x = left + (i % perRow) * w;
            const yy = y + Math.floor(i / perRow) * (h + 3);
            const wrong = oracle && v !== oracle[i];
            if (wrong) bad.push(i);
            const c = cell(svg, x, yy, w - 3, h, "result/" + i, v, "sp-result", wrong ? "wrong" : null);
            if (wrong) el("title", {}, c).textContent = "the scan of the input has " + oracle[i] + " here";
          });
          y += Math.ceil(s.result.length / perRow) * (h + 3) + 8;
        }
        svg.setAttribute("viewBox", "0 0 " + (width + 90) + " " + (y + 4));
      },
    };
  }

  // ---- chapter 07: the descriptors of the look-back (Merrill and Garland, Fig. 6) --------------

  function lookbackModel(trace) {
    const steps = trace.records.filter((r) => r.type === "event");
    let tiles = trace.meta.tiles || 0;
    for (const e of steps) tiles = Math.max(tiles, e.step + 1);
    const f = (e, i) => e.fields[i];
    function apply(d, e) {
      const t = d[e.step];
      if (!t) return;
      if (e.label === "word") {
        t.flag = f(e, 0);
        if (t.flag === 2) { t.inclusive = f(e, 1); if (e.step === 0) t.aggregate = f(e, 1); } else t.aggregate = f(e, 1);
      } else if (e.label === "value") {
        if (f(e, 0) === 2) t.inclusive = f(e, 1); else t.aggregate = f(e, 1);
      } else if (e.label === "flag") {
        t.flag = f(e, 0);
      } else if (e.label === "read") {
        t.reads.push({ pred: f(e, 0), status: f(e, 1), value: f(e, 2), seq: e.seq });
      }
    }
    function state(k) {
      const d = [];
      for (let t = 0; t < tiles; ++t) d.push({ flag: 0, aggregate: null, inclusive: null, reads: [] });
      for (let i = 0; i <= k && i < steps.length; ++i) apply(d, steps[i]);
      return d;
    }
    const final = state(steps.length - 1);
    // The oracle's inclusive prefix of each tile: the sum of the aggregates the tiles published
    // (each tile computes its aggregate on its own, before the look-back).
    const oracle = [];
    let acc = 0, known = true;
    for (const t of final) {
      known = known && t.aggregate !== null;
      acc += t.aggregate || 0;
      oracle.push(known ? acc : null);
    }
    const stuck = final.map((t, i) => t.flag === 1 && i < tiles);  // published A, never P
    const protocol = steps.some((e) => e.label !== "ticket");
    return {
      steps: steps,
      warning: protocol ? null : "No tile published or read a descriptor in this run: only the tickets " +
        "were recorded (the descriptors' publish and read report each step through the probe).",
      describe(k) {
        const e = steps[k];
        const s = state(k);
        const t = e.step;
        if (e.label === "ticket") return "Block " + f(e, 0) + " takes tile " + t + " from the ticket.";
        if (e.label === "value") {
          return "Tile " + t + " stores its " + (f(e, 0) === 2 ? "inclusive prefix " : "aggregate ") + f(e, 1) +
            (f(e, 0) === 2 && oracle[t] !== null && f(e, 1) !== oracle[t] ? " (the oracle says " + oracle[t] + ")" : "") +
            " (its flag is not set yet).";
        }
        if (e.label === "flag" || e.label === "word") {
          const st = f(e, 0);
          return "Tile " + t + " publishes " + FLAG_NAMES[st] + (e.label === "word" ? " with " + f(e, 1) : "") +
            (st === 1 ? ": its aggregate is there for later tiles." : ": its inclusive prefix is there; look-backs stop here.");
        }
        if (e.label === "read") {
          const st = f(e, 1);
          const pred = f(e, 0);
          const walked = s[t].reads.filter((r) => r.status === 1).reduce((a, r) => a + r.value, 0);
          if (st === 0) return "Tile " + t + " reads tile " + pred + ": X, nothing published yet; it waits.";
          if (st === 1) return "Tile " + t + " reads tile " + pred + ": A, adds " + f(e, 2) + ", goes on to tile " +
            (pred - 1) + ".";
          return "Tile " + t + " reads tile " + pred + ": P, adds " + f(e, 2) + " and stops: its exclusive prefix is " +
            (walked + f(e, 2)) + ".";
        }
        return e.label + " " + t;
      },
      render(svg, k) {
        const s = state(k);
        const e = steps[k];
        const w = 52, h = 28, left = 120, top = 24;
        const rows = ["flag", "aggregate", "inclusive"];
        const titles = ["Flag", "Aggregate", "Inclusive prefix"];
        label(svg, 4, top - 8, "Partition ID");
        for (let t = 0; t < tiles; ++t) label(svg, left + t * w + (w - 6) / 2, top - 8, String(t), "middle");
        if (e) el("rect", { x: left + e.step * w - 4, y: top - 22, width: w + 2, height: 3 * (h + 6) + 24,
          class: "sp-focus" }, svg);
        rows.forEach((row, r) => {
          const y = top + r * (h + 6);
          label(svg, 4, y + h / 2 + 4, titles[r]);
          for (let t = 0; t < tiles; ++t) {
            const d = s[t];
            const v = row === "flag" ? FLAG_NAMES[d.flag] : d[row];
            let mark = null;
            if (row === "flag" && stuck[t] && d.flag === 1) mark = "stuck";
            if (row === "inclusive" && v !== null && oracle[t] !== null && v !== oracle[t]) mark = "wrong";
            const c = cell(svg, left + t * w, y, w - 6, h, row + "/" + t, v,
              row === "flag" ? "sp-flag sp-flag-" + FLAG_NAMES[d.flag] : "sp-num", mark);
            if (mark === "stuck") el("title", {}, c).textContent = "tile " + t + " never publishes P in this run";
            if (mark === "wrong") el("title", {}, c).textContent = "the oracle's inclusive prefix is " + oracle[t];
          }
        });
        // The look-backs so far, as arrows under the table from each reader to what it read: the
        // event's tile in front and bold, the others faint.
        const base = top + 3 * (h + 6);
        let y = base + 40;
        const order = [];
        for (let t = 0; t < tiles; ++t) if (!e || t !== e.step) order.push(t);
        if (e && s[e.step]) order.push(e.step);
        for (const t of order) {
          const reads = s[t].reads;
          const mine = e && t === e.step;
          reads.forEach((r, i) => {
            const x1 = left + t * w + (w - 6) / 2, x2 = left + r.pred * w + (w - 6) / 2;
            const cls = "sp-read sp-read-" + FLAG_NAMES[r.status] + (mine ? "" : " sp-other") +
              (mine && i === reads.length - 1 && e.label === "read" ? " sp-latest" : "");
            const a = arrow(svg, x1, base - 2, x2, base - 2, cls, 24 + 6 * (t - r.pred));
            a.setAttribute("data-key", "read/" + t + "/" + i);
            a.setAttribute("data-value", r.pred + ":" + FLAG_NAMES[r.status]);
          });
          if (reads.length) y = Math.max(y, base + 40 + 6 * Math.max(...reads.map((r) => t - r.pred)));
        }
        const stuckTiles = stuck.map((b, t) => (b ? t : -1)).filter((t) => t >= 0);
        if (stuckTiles.length) {
          label(svg, 4, y, "Tile" + (stuckTiles.length > 1 ? "s " : " ") + stuckTiles.join(", ") +
            " never publish" + (stuckTiles.length > 1 ? "" : "es") + " P in this run: every later look-back walks past.",
          "start", "sp-warning-text");
          y += 16;
        }
        svg.setAttribute("viewBox", "0 0 " + (left + tiles * w + 10) + " " + (y + 6));
      },
    };
  }

  // ---- chapter 08: the tiles' counts and their exclusive prefix (where each tile writes) --------

  // One "scatter" event a tile (stream_compaction_dispatch.cuh): fields offset (phase 2's exclusive
  // prefix of the counts: the tile's first output position), count (phase 1's count, the difference
  // of two neighbouring offsets) and kept (what the tile's rounds wrote). The driver's tile_counts
  // line holds what each tile should keep, counted sequentially: the oracle.
  function compactionModel(trace) {
    const steps = trace.records.filter((r) => r.type === "event" && r.label === "scatter");
    let tiles = trace.meta.tiles || 0;
    for (const e of steps) tiles = Math.max(tiles, e.step + 1);
    const line = trace.other.find((o) => o.type === "tile_counts");
    const oracle = line && Array.isArray(line.counts) ? line.counts : null;
    const oracleOffsets = oracle ? scanOf(oracle, true) : null;
    const oracleTotal = oracle ? oracle.reduce((a, b) => a + b, 0) : null;
    function state(k) {
      const s = [];
      for (let t = 0; t < tiles; ++t) s.push(null);
      for (let i = 0; i <= k && i < steps.length; ++i) {
        const e = steps[i];
        s[e.step] = { offset: e.fields[0], count: e.fields[1], kept: e.fields[2] };
      }
      return s;
    }
    // What differs from the oracle: {count, offset, kept} -> true.
    function wrong(t, d) {
      if (!oracle || !d || t >= oracle.length) return {};
      return { count: d.count !== oracle[t], offset: d.offset !== oracleOffsets[t], kept: d.kept !== oracle[t] };
    }
    return {
      steps: steps,
      describe(k) {
        const e = steps[k];
        const t = e.step;
        const d = { offset: e.fields[0], count: e.fields[1], kept: e.fields[2] };
        const bad = wrong(t, d);
        let s = "Tile " + t + " scatters: phase 1 counted " + d.count + " kept element" + (d.count === 1 ? "" : "s") +
          (bad.count ? " (the input has " + oracle[t] + ")" : "") + "; the exclusive scan of the counts puts its first at " +
          "position " + d.offset +
          (t === 0 ? "" : t === 1 ? " (the count of tile 0)" : " (the counts of tiles 0 to " + (t - 1) + " added up)") +
          (bad.offset ? ", but the tiles before it keep " + oracleOffsets[t] : "") + ". Its rounds wrote " + d.kept;
        s += d.kept > 0 ? ", at positions " + d.offset + " to " + (d.offset + d.kept - 1) + "." : ": nothing.";
        if (bad.kept && !bad.count) s += " The input has " + oracle[t] + " to keep here.";
        return s;
      },
      render(svg, k) {
        const s = state(k);
        const e = steps[k];
        // Cells wide enough for the run's longest number (7 px a character: a count left unwritten
        // reads as a ten-digit poison value); the gaps between tiles hold the scan's arrows.
        let longest = 5;
        for (const x of steps) for (const v of x.fields.slice(0, 3)) longest = Math.max(longest, String(v).length);
        const cw = 17 + 7 * longest, w = cw + 22, h = 26, left = 160, top = 24;
        const rows = [["count", "Count (phase 1)"], ["offset", "Offset = exclusive prefix"], ["kept", "Written (phase 3)"]];
        label(svg, 4, top - 8, "Tile");
        for (let t = 0; t < tiles; ++t) label(svg, left + t * w + cw / 2, top - 8, String(t), "middle");
        el("rect", { x: left + e.step * w - 5, y: top - 22, width: cw + 10, height: rows.length * (h + 10) + 20,
          class: "sp-focus" }, svg);
        rows.forEach(([row, title], r) => {
          const y = top + r * (h + 10);
          label(svg, 4, y + h / 2 + 4, title);
          for (let t = 0; t < tiles; ++t) {
            const d = s[t];
            const bad = wrong(t, d)[row];
            const mark = bad ? "wrong" : (d && t === e.step ? "current" : null);
            const c = cell(svg, left + t * w, y, cw, h, row + "/" + t, d ? d[row] : null,
              d ? "sp-num" : "sp-past", mark);
            if (bad) {
              el("title", {}, c).textContent = row === "offset" ? "the tiles before it keep " + oracleOffsets[t]
                : "the input has " + oracle[t] + " to keep in this tile";
            }
          }
        });
        // The exclusive scan: each offset is the offset before it plus the count before it (two arrows).
        const yCount = top, yOffset = top + (h + 10), yKept = top + 2 * (h + 10);
        for (let t = 1; t < tiles; ++t) {
          if (!s[t]) continue;
          const cls = "sp-scan" + (t === e.step ? " sp-latest" : " sp-other");
          const x0 = left + (t - 1) * w + cw + 2, x1 = left + t * w - 2;
          arrow(svg, x0, yCount + h - 4, x1, yOffset + 6, cls, 0);
          arrow(svg, x0, yOffset + h / 2, x1, yOffset + h / 2, cls, 0);
        }
        // The output: the positions each tile wrote, on one line from 0 to the total.
        const yOut = top + rows.length * (h + 10) + 34;
        const ends = s.filter((d) => d).map((d) => d.offset + d.kept);
        // No compaction writes past n: positions beyond it (offsets gone wrong) sit at the right end.
        const total = Math.max(1, Math.min(trace.meta.n || Infinity, Math.max(oracleTotal || 0, ...ends)));
        const width = (tiles - 1) * w + cw;
        label(svg, 4, yOut + h / 2 + 4, "Output positions");
        el("rect", { x: left, y: yOut, width: width, height: h, class: "sp-outline" }, svg);
        label(svg, left, yOut + h + 13, "0", "start", "sp-small");
        label(svg, left + width, yOut + h + 13, String(total), "end", "sp-small");
        for (let t = 0; t < tiles; ++t) {
          const d = s[t];
          if (!d) continue;
          const bad = wrong(t, d);
          const x = left + width * Math.min(d.offset, total) / total;
          const end = left + width * Math.min(d.offset + d.kept, total) / total;
          const g = el("g", { class: "sp-range sp-range-" + (t % 2), "data-key": "out/" + t,
            "data-value": d.offset + "-" + (d.offset + d.kept) }, svg);
          const mark = bad.offset || bad.kept ? "wrong" : (t === e.step ? "current" : null);
          if (mark) g.setAttribute("data-mark", mark);
          el("rect", { x: x, y: yOut, width: Math.max(1, end - x), height: h }, g);
          const tx = el("text", { x: (x + end) / 2, y: yOut + h / 2 + 4, "text-anchor": "middle", class: "sp-small" }, g);
          tx.textContent = String(t);
          el("title", {}, g).textContent = "tile " + t + " wrote positions " + d.offset + " to " + (d.offset + d.kept - 1);
          if (t === e.step) arrow(svg, left + t * w + cw / 2, yKept + h, x, yOut - 1, "sp-pair", 0);
        }
        svg.setAttribute("viewBox", "0 0 " + (left + tiles * w + 10) + " " + (yOut + h + 22));
      },
    };
  }

  // ---- the player ---------------------------------------------------------------------------

  const MODELS = {
    "01_hillis_steele": sweepModel,
    "02_blelloch": sweepModel,
    "03_bank_conflicts": bankModel,
    "05_multi_block": multiBlockModel,
    "07_decoupled_lookback": lookbackModel,
    "08_stream_compaction": compactionModel,
  };

  // The source line(s) that recorded an event: sources[label] is a list of {file, line, text,
  // tile0, variant}; tile0 and variant (set for chapter 07's probe calls) narrow the list down.
  function sourcesOf(sources, step, meta) {
    const all = (sources && sources[step.source || step.label]) || [];
    const variant = String(meta.variant || "");
    let found = all.filter((s) => !s.variant || variant.indexOf(s.variant) >= 0);
    if (found.some((s) => s.tile0 !== undefined)) found = found.filter((s) => s.tile0 === undefined || s.tile0 === (step.step === 0));
    return found;
  }

  function button(bar, title, textContent, cls) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.title = title;
    b.textContent = textContent;
    bar.appendChild(b);
    return b;
  }

  function showError(root, message) {
    root.setAttribute("data-state", "error");
    const box = document.createElement("div");
    box.className = "sp-message sp-error";
    box.textContent = message;
    root.appendChild(box);
  }

  function setup(root) {
    if (root.getAttribute("data-state")) return;  // already set up
    const source = root.querySelector("script[type='application/x-scanlab-trace']");
    const sourcesScript = root.querySelector("script.scanlab-player-sources");
    let trace;
    try {
      if (!source) throw new Error("This player has no trace in it.");
      trace = parseTrace(source.textContent);
    } catch (e) {
      showError(root, e.message);
      return;
    }
    let sources = {};
    try {
      sources = sourcesScript ? JSON.parse(sourcesScript.textContent) : {};
    } catch (e) {
      sources = {};
    }
    const makeModel = MODELS[trace.meta.chapter];
    if (!makeModel) {
      showError(root, "This player has no view for chapter " + JSON.stringify(trace.meta.chapter) +
        " (it draws chapters 01, 02, 03, 05, 07 and 08).");
      return;
    }
    const model = makeModel(trace);
    for (const w of trace.warnings.concat(model.warning ? [model.warning] : [])) {
      const box = document.createElement("div");
      box.className = "sp-message sp-warning";
      box.textContent = w;
      root.appendChild(box);
    }
    if (model.steps.length === 0) {
      showError(root, "This trace holds no events to step through: the run recorded nothing " +
        "(a traced build records only where the code has its SCANLAB_TRACE lines).");
      return;
    }
    const last = model.steps.length - 1;
    root.setAttribute("tabindex", "0");

    const bar = document.createElement("div");
    bar.className = "sp-controls";
    root.appendChild(bar);
    const first = button(bar, "first event (Home)", "first", "sp-first");
    const back = button(bar, "back one event (\u2190)", "\u25c0 back", "sp-back");
    const play = button(bar, "play / pause (space)", "play", "sp-play");
    const fwd = button(bar, "forward one event (\u2192)", "forward \u25b6", "sp-forward");
    const end = button(bar, "last event (End)", "last", "sp-last");
    const slider = document.createElement("input");
    slider.type = "range";
    slider.className = "sp-slider";
    slider.min = "0";
    slider.max = String(last);
    slider.setAttribute("aria-label", "event");
    bar.appendChild(slider);
    const counter = document.createElement("span");
    counter.className = "sp-counter";
    bar.appendChild(counter);

    const jumps = document.createElement("div");
    jumps.className = "sp-jumps";
    root.appendChild(jumps);
    const labelSelect = document.createElement("select");
    labelSelect.className = "sp-label-select";
    for (const l of Array.from(new Set(model.steps.map((s) => s.label)))) {
      const o = document.createElement("option");
      o.value = l;
      o.textContent = l;
      labelSelect.appendChild(o);
    }
    const nextLabel = button(jumps, "next event with this label (n)", "next", "sp-next-label");
    jumps.insertBefore(document.createTextNode("jump to the next "), nextLabel);
    jumps.insertBefore(labelSelect, nextLabel);
    const tileInput = document.createElement("input");
    tileInput.type = "number";
    tileInput.min = "0";
    tileInput.value = "0";
    tileInput.className = "sp-tile-input";
    const nextTile = button(jumps, "next event of this tile or block (t)", "next", "sp-next-tile");
    jumps.insertBefore(document.createTextNode(" \u00b7 of tile/block "), nextTile);
    jumps.insertBefore(tileInput, nextTile);

    const figure = document.createElementNS(SVG_NS, "svg");
    figure.setAttribute("class", "sp-view");
    figure.setAttribute("role", "img");
    root.appendChild(figure);
    const words = document.createElement("p");
    words.className = "sp-text";
    root.appendChild(words);
    const where = document.createElement("div");
    where.className = "sp-source";
    root.appendChild(where);

    let position = 0;
    let timer = null;
    const startAt = parseInt(root.getAttribute("data-start") || "0", 10);

    function tileOf(step) {
      if (trace.meta.chapter === "07_decoupled_lookback" || trace.meta.chapter === "08_stream_compaction") return step.step;
      if (step.label === "range_scan") return step.step;
      return step.block;
    }

    function show(k) {
      position = Math.max(0, Math.min(last, k));
      const step = model.steps[position];
      while (figure.firstChild) figure.removeChild(figure.firstChild);
      const defs = el("defs", {}, figure);
      const marker = el("marker", { id: "sp-head", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5,
        markerHeight: 5, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: "sp-head" }, marker);
      model.render(figure, position);
      const box = (figure.getAttribute("viewBox") || "0 0 600 200").split(" ");
      figure.setAttribute("width", box[2]);  // natural size, shrunk by the CSS where it is too wide
      figure.setAttribute("height", box[3]);
      words.textContent = model.describe(position);
      const found = sourcesOf(sources, step, trace.meta);
      where.textContent = "";
      if (found.length) {
        const lead = document.createElement("span");
        lead.textContent = "recorded by ";
        where.appendChild(lead);
        found.forEach((s, i) => {
          if (i) where.appendChild(document.createTextNode(" or "));
          const loc = document.createElement("code");
          loc.className = "sp-where";
          loc.textContent = s.file + (s.line ? ":" + s.line : "");
          where.appendChild(loc);
          if (s.note) where.appendChild(document.createTextNode(" (" + s.note + ")"));
          if (s.text) {
            const line = document.createElement("code");
            line.className = "sp-line";
            line.textContent = s.text;
            where.appendChild(document.createTextNode(" "));
            where.appendChild(line);
          }
        });
      }
      slider.value = String(position);
      counter.textContent = "event " + (position + 1) + " of " + model.steps.length +
        (step.seq !== null && step.seq !== undefined ? " (seq " + step.seq + ")" : "");
      root.setAttribute("data-position", String(position));
      back.disabled = position === 0;
      first.disabled = position === 0;
      fwd.disabled = position === last;
      end.disabled = position === last;
    }

    function pause() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      play.textContent = "play";
      root.setAttribute("data-playing", "false");
    }
    function start() {
      if (position === last) show(0);
      play.textContent = "pause";
      root.setAttribute("data-playing", "true");
      timer = setInterval(() => {
        if (position >= last) pause();
        else show(position + 1);
      }, parseInt(root.getAttribute("data-interval") || "600", 10));
    }
    function toggle() {
      if (timer === null) start();
      else pause();
    }
    function jump(test) {
      for (let i = position + 1; i <= last; ++i) {
        if (test(model.steps[i])) { show(i); return; }
      }
      for (let i = 0; i <= position; ++i) {  // wraps around to the first one
        if (test(model.steps[i])) { show(i); return; }
      }
    }
    const jumpLabel = () => jump((s) => s.label === labelSelect.value);
    const jumpTile = () => jump((s) => tileOf(s) === parseInt(tileInput.value, 10));

    first.addEventListener("click", () => { pause(); show(0); });
    back.addEventListener("click", () => { pause(); show(position - 1); });
    fwd.addEventListener("click", () => { pause(); show(position + 1); });
    end.addEventListener("click", () => { pause(); show(last); });
    play.addEventListener("click", toggle);
    slider.addEventListener("input", () => { pause(); show(parseInt(slider.value, 10)); });
    nextLabel.addEventListener("click", () => { pause(); jumpLabel(); });
    nextTile.addEventListener("click", () => { pause(); jumpTile(); });
    root.addEventListener("keydown", (ev) => {
      if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") && ev.target !== slider) return;
      const keys = {
        ArrowRight: () => { pause(); show(position + 1); },
        ArrowLeft: () => { pause(); show(position - 1); },
        Home: () => { pause(); show(0); },
        End: () => { pause(); show(last); },
        " ": toggle,
        n: () => { pause(); jumpLabel(); },
        t: () => { pause(); jumpTile(); },
      };
      const action = keys[ev.key];
      if (action) {
        ev.preventDefault();
        action();
      }
    });
    root.setAttribute("data-state", "ready");
    root.setAttribute("data-steps", String(model.steps.length));
    show(isNaN(startAt) ? 0 : startAt);
  }

  function setupAll() {
    for (const root of document.querySelectorAll(".scanlab-player")) setup(root);
  }

  // Material for MkDocs swaps pages without reloading (document$); a plain page has DOMContentLoaded.
  if (typeof document$ !== "undefined") document$.subscribe(setupAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setupAll);
  else setupAll();
})();
