/* explore.js: draws the page of `rakec --explore` from its data block.
 *
 * The data (element #rake-data, written by rake-explore) holds the source,
 * each stage's view and what happened.  Everything is drawn with DOM
 * calls and textContent, never by parsing HTML, so no text of the program
 * can become markup.  Every element drawn for a row of a stage that has a
 * source location gets data-loc="LINE:COL" and goes into two indexes, by
 * line and by exact location.  Selecting a source line highlights every
 * element of its line; selecting an element (a row of any stage, a tree
 * node, a source token) highlights every element with its exact location
 * and marks the source line and token.  Rows rake-explore marked `aux`
 * (copies, the calling convention's moves, benign selects: they serve an
 * operation rather than compute it) get a fainter highlight (hl-aux).
 * Each tab counts what it highlights.  The address may name a tab and a line: page.html#asm/11. */
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("rake-data").textContent);
  const byLine = new Map(), byLoc = new Map();
  const srcLines = [];
  let lit = [], current = null;

  /* ---- small helpers ------------------------------------------------------ */

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, ...kids) {
    for (const k of kids) if (k) parent.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
    return parent;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function lineOf(loc) { return parseInt(loc, 10) || 0; }
  function push(map, key, e) {
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(e);
  }
  /* e is derived from source location loc, shown in panel; aux: it serves
     that location's operation (a copy, a benign select) rather than
     computing it, and is highlighted more faintly */
  function tie(e, loc, panel, uncounted, aux) {
    if (!loc || !lineOf(loc)) return e;
    e.setAttribute("data-loc", loc);
    e.setAttribute("data-panel", panel);
    if (uncounted) e.setAttribute("data-uncounted", "1");
    if (aux) e.setAttribute("data-aux", "1");
    push(byLine, lineOf(loc), e);
    push(byLoc, loc, e);
    return e;
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  /* ---- what happened -------------------------------------------------------- */

  const failedAt = D.outcome.stage ? D.outcome.stage.replace(/-.*/, "") : null;
  const STEPS = [
    ["parse", "ast", () => D.ast], ["check", "checked", () => D.checked],
    ["lower", "nir", () => D.nir && D.nir.before], ["opt", "nir", () => D.nir && D.nir.after],
    ["isel", "mir", () => D.mir0], ["ra", "mir", () => D.mir], ["emit", "asm", () => D.asm],
    ["report", "report", () => D.report], ["verify", "verify", () => D.verify.object || D.verify.ir],
    ["interp", "interp", () => D.interp && D.interp.main && D.interp.status !== undefined],
  ];
  function stepState(name, has) {
    if (name === failedAt) return "failed";
    const v = has();
    if (!v) return "skipped";
    if (name === "verify") return [D.verify.ir, D.verify.object].some(x => x && x.status) ? "failed" : "ok";
    if (name === "interp") return D.interp.status ? "failed" : "ok";
    return "ok";
  }
  function whyMissing(tab) {
    if (tab === "interp" && D.interp && !D.interp.main)
      return "Nothing to run: " + D.file + " has no slow main, and the interpreter runs main.";
    if (D.outcome.kind === "rejected" || D.outcome.kind === "internal")
      return "Not run: rake-" + D.outcome.stage + " stopped the pipeline (see the diagnostic).";
    if (D.outcome.kind === "stopped") return "Not run on " + D.target + ": " + D.outcome.text.trim();
    return "Not run for this program.";
  }

  function header() {
    document.getElementById("title").textContent = D.file + " on " + D.target;
    const o = document.getElementById("outcome");
    o.classList.add(D.outcome.kind);
    o.textContent = {
      compiled: "compiled", stopped: "checked and lowered; no native backend",
      rejected: "rejected by rake-" + D.outcome.stage,
      internal: "internal error in rake-" + D.outcome.stage + " (status " + D.outcome.status + ")",
    }[D.outcome.kind];
    const p = document.getElementById("pipeline");
    STEPS.forEach(([name, tab, has], i) => {
      if (i) add(p, el("span", "arrow", "→"));
      const s = el("span", "step " + stepState(name, has), name);
      s.setAttribute("data-step", name);
      s.addEventListener("click", () => show(tab));
      add(p, s);
    });
    const b = document.getElementById("banner");
    if (D.diag) {
      b.hidden = false;
      b.textContent = D.diag.text.trim();
      if (D.diag.line) b.addEventListener("click", () => select({ line: D.diag.line }, "banner"));
    } else if (D.outcome.kind === "stopped") {
      b.hidden = false;
      b.classList.add("info");
      b.textContent = D.outcome.text.trim();
    }
  }

  /* ---- the source ----------------------------------------------------------- */

  const LAYOUT = new Set(["newline", "indent", "dedent", "eof"]);

  function tokensByLine() {
    const m = new Map();
    for (const [l, c, kind, text] of D.tokens || []) if (!LAYOUT.has(kind)) push(m, l, [c, kind, text]);
    return m;
  }
  function spelling(s, at, kind, text) {
    for (const t of [text, "#" + text, "<" + text + ">", '"' + text + '"'])
      if (t && s.startsWith(t, at)) return t;
    return null;
  }
  function codeLine(code, s, n, toks) {
    let pos = 0;
    for (const [c, kind, text] of toks || []) {
      const at = c - 1, t = spelling(s, at, kind, text);
      if (at < pos || t === null) continue;
      add(code, s.slice(pos, at));
      const span = el("span", "tk " + kind, t);
      span.setAttribute("data-at", n + ":" + c);
      add(code, span);
      pos = at + t.length;
    }
    const rest = s.slice(pos), k = rest.indexOf("~~");
    if (k < 0) return add(code, rest);
    add(code, rest.slice(0, k), el("span", "tk comment", rest.slice(k)));
  }
  function source() {
    const box = document.getElementById("source"), toks = tokensByLine();
    D.source.forEach((s, i) => {
      const n = i + 1, row = el("div", "srcline"), code = el("span", "code");
      row.setAttribute("data-line", n);
      codeLine(code, s, n, toks.get(n));
      add(row, el("span", "ln", n), code);
      srcLines[n] = row;
      add(box, row);
      if (D.diag && D.diag.line === n) {
        row.classList.add("diagline");
        add(box, el("div", "srcdiag", (D.diag.message || D.diag.text.split("\n")[0]).trim()));
      }
    });
    box.addEventListener("click", ev => {
      const tok = ev.target.closest(".tk[data-at]");
      if (tok && byLoc.has(tok.getAttribute("data-at"))) return select({ loc: tok.getAttribute("data-at") }, "source");
      const row = ev.target.closest(".srcline");
      if (row) select({ line: +row.getAttribute("data-line") }, "source");
    });
  }

  /* ---- selection ------------------------------------------------------------- */

  function clear() {
    for (const e of lit) e.classList.remove("hl", "hl-aux");
    lit = [];
    for (const e of document.querySelectorAll(".srcline.sel, .tk.at")) e.classList.remove("sel", "at");
  }
  function select(sel, from) {
    clear();
    lit = (sel.line ? byLine.get(sel.line) : byLoc.get(sel.loc)) || [];
    for (const e of lit) {
      e.classList.add("hl");
      if (e.getAttribute("data-aux")) e.classList.add("hl-aux");
      for (let d = e.parentElement.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    }
    const line = sel.line || lineOf(sel.loc), row = srcLines[line];
    if (row) {
      row.classList.add("sel");
      if (from !== "source") row.scrollIntoView({ block: "nearest" });
    }
    if (sel.loc) for (const t of document.querySelectorAll('.tk[data-at="' + sel.loc + '"]')) t.classList.add("at");
    badges();
    const first = lit.find(e => e.getAttribute("data-panel") === current && !e.getAttribute("data-uncounted"));
    if (first && from === "source") first.scrollIntoView({ block: "center" });
  }
  function badges() {
    const n = {};
    for (const e of lit) if (!e.getAttribute("data-uncounted")) n[e.getAttribute("data-panel")] = (n[e.getAttribute("data-panel")] || 0) + 1;
    for (const b of document.querySelectorAll("#tabs button"))
      b.querySelector(".badge").textContent = n[b.getAttribute("data-tab")] || "";
  }

  /* ---- tabs ------------------------------------------------------------------- */

  const TABS = [
    ["tokens", "Tokens", "parse", () => D.tokens, tokensPanel],
    ["ast", "AST", "parse", () => D.ast, p => treePanel(p, D.ast, "ast", false)],
    ["checked", "Checked", "check", () => D.checked, checkedPanel],
    ["nir", "Native IR", "opt", () => D.nir, nirPanel],
    ["mir", "Machine IR", "ra", () => D.mir0 || D.mir, mirPanel],
    ["asm", "Assembly", "emit", () => D.asm, asmPanel],
    ["verify", "Verifier", "verify", () => D.verify.ir || D.verify.object, verifyPanel],
    ["report", "Report", "report", () => D.report, reportPanel],
    ["interp", "Interpreter", "interp", () => D.interp && D.interp.main && D.interp.status !== undefined, interpPanel],
    ["diag", "Diagnostic", null, () => D.diag, diagPanel],
  ];
  function tabs() {
    const nav = document.getElementById("tabs"), panels = document.getElementById("panels");
    for (const [id, title, step, has, draw] of TABS) {
      if (id === "diag" && !D.diag) continue;
      const b = el("button", null, title), p = el("div", "panel");
      b.setAttribute("data-tab", id);
      p.id = "panel-" + id;
      add(b, el("span", "badge"));
      const st = STEPS.find(s => s[0] === step);
      if (!has()) {
        b.classList.add("skipped");
        add(p, el("p", "missing", whyMissing(id)));
      } else {
        draw(p);
      }
      if (st && stepState(st[0], st[2]) === "failed") b.classList.add("failed");
      b.addEventListener("click", () => show(id));
      add(nav, b);
      add(panels, p);
    }
    panels.addEventListener("click", ev => {
      const e = ev.target.closest("[data-loc]");
      if (e) select({ loc: e.getAttribute("data-loc") }, "panel");
    });
  }
  function show(id) {
    if (!document.getElementById("panel-" + id)) return;
    current = id;
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.getAttribute("data-tab") === id);
    for (const p of document.querySelectorAll(".panel")) p.classList.toggle("active", p.id === "panel-" + id);
  }

  /* ---- tokens ------------------------------------------------------------------ */

  function tokensPanel(p) {
    const t = el("table", "tokens");
    for (const [l, c, kind, text] of D.tokens) {
      const tr = el("tr", LAYOUT.has(kind) ? "layout" : null);
      add(tr, el("td", null, l + ":" + c), el("td", null, kind), el("td", null, text));
      add(t, tie(tr, l + ":" + c, "tokens"));
    }
    add(p, el("p", "legend", plural(D.tokens.length, "token") + " from rake-parse --tokens, layout (newline, indent, dedent) included"), t);
  }

  /* ---- trees: the AST and the checked program ------------------------------ */

  const SHOWN = new Set(["k", "loc", "name", "op", "text", "ty", "lanes", "tier", "words", "into", "slot"]);
  function isNode(v) { return v && typeof v === "object" && !Array.isArray(v) && typeof v.k === "string"; }
  function kids(node) {
    const out = [];
    for (const [k, v] of Object.entries(node)) {
      if (isNode(v)) out.push([k, v]);
      else if (Array.isArray(v)) v.forEach((x, i) => { if (isNode(x)) out.push([k + "[" + i + "]", x]); });
    }
    return out;
  }
  function label(key, n, checked) {
    const s = el("span");
    if (key) add(s, el("span", "key", key + ": "));
    add(s, el("span", "kind", n.k));
    const name = n.name !== undefined ? n.name : n.op !== undefined ? n.op : n.text;
    if (name !== undefined) add(s, " ", el("span", "name", (n.k === "tine" || n.k === "tine_ref" ? "#" : "") + name));
    if (n.into) add(s, el("span", "attr", " into " + n.into));
    if (checked && n.ty) add(s, el("span", "ty", " : " + n.ty));
    if (checked && n.lanes) add(s, el("span", "attr", " · " + n.lanes + " lanes"));
    if (checked && n.tier) add(s, " ", el("span", "tier " + n.tier, n.tier));
    for (const [k, v] of Object.entries(n))
      if (!SHOWN.has(k) && (typeof v !== "object" || v === null)) add(s, el("span", "attr", " " + k + "=" + v));
    if (n.loc) add(s, el("span", "loc", "  @" + n.loc));
    return s;
  }
  function tree(key, n, panel, checked) {
    const ch = kids(n), lab = label(key, n, checked);
    let box, head;
    if (ch.length) {
      box = el("details");
      box.open = true;
      head = add(el("summary"), lab);
      add(box, head);
    } else {
      box = head = add(el("div", "leaf"), lab);
    }
    tie(head, n.loc, panel);
    if (checked && n.words) add(ch.length ? box : head, el("div", "words", n.words));
    for (const [k, c] of ch) add(box, tree(k, c, panel, checked));
    return box;
  }
  function treePanel(p, decls, panel, checked) {
    const c = el("div", "controls"), t = el("div", "tree");
    const all = open => () => { for (const d of t.querySelectorAll("details")) d.open = open; };
    const ex = el("button", null, "expand all"), co = el("button", null, "collapse all");
    ex.addEventListener("click", all(true));
    co.addEventListener("click", all(false));
    add(c, ex, co, el("span", "legend", plural(decls.length, "declaration") + "; click a node to find its source and every stage derived from it"));
    for (const d of decls) add(t, tree(null, d, panel, checked));
    add(p, c, t);
  }
  function checkedPanel(p) {
    const C = D.checked, m = el("div", "masks");
    add(m, el("h3", null, "Masks and sweeps"),
        el("p", "legend", C.target + ": " + C.f32_lanes + " f32 lanes per rack; each node below shows its type, its lanes and its tier (vector: a value per lane; uniform: one value for every lane; slow: slow code; module: constants and state)"));
    if (!C.summary.length) add(m, el("p", "missing", "No tines, through blocks, sweeps or run selections."));
    for (const s of C.summary) {
      const r = tie(el("div", "row"), s.loc, "checked");
      add(r, el("span", "what", s.what), s.words);
      if (s.arms) {
        const ol = el("ol");
        for (const a of s.arms) add(ol, tie(el("li", "row", a.words), a.loc, "checked"));
        add(r, ol);
      }
      add(m, r);
    }
    add(p, m);
    treePanel(p, C.decls, "checked", true);
  }

  /* ---- native IR: rake-lower, rake-opt and the diff ----------------------------- */

  function counted(obj) {
    return Object.entries(obj).map(([op, n]) => n + " " + op).join(", ");
  }
  const CHANGE = {
    contraction: "multiply-add contraction", substitution: "copies and equal constants merged",
    cse: "common subexpressions", conversion: "signed conversion", renamed: "operands renamed",
    dce: "dead code removed", folded: "folded to constants", unreached: "unreached blocks removed", sunk: "sunk to their readers",
    rewritten: "rewritten", added: "added",
  };
  function changes(f) {
    const c = Object.entries(f.changes || {});
    if (!c.length) return "rake-opt left this function as rake-lower wrote it";
    return "rake-opt: " + c.map(([k, n]) => (CHANGE[k] || k) + " ×" + n).join(", ") +
      " — removed " + (counted(f.removed) || "nothing") + "; added " + (counted(f.added) || "nothing");
  }
  function nirPanel(p) {
    const c = el("div", "controls"), body = el("div");
    const modes = [["diff", "diff"], ["before", "before (rake-lower)"], ["after", "after (rake-opt)"]];
    for (const [m, title] of modes) {
      const b = el("button", null, title);
      b.setAttribute("data-mode", m);
      b.addEventListener("click", () => {
        body.className = "mode-" + m;
        for (const x of c.querySelectorAll("button")) x.classList.toggle("on", x === b);
      });
      if (m === "diff") b.classList.add("on");
      add(c, b);
    }
    add(c, el("span", "legend", "− a line only rake-lower wrote, + one only rake-opt wrote; ids are kept, so a value rewritten in place shows as − and + with the same %id"));
    body.className = "mode-diff";
    for (const f of D.nir.functions) {
      const box = el("div", "fn");
      add(box, tie(el("h3", null, f.kind + " " + f.name), f.loc, "nir"), el("div", "summary", changes(f)));
      for (const r of f.rows) {
        const cls = r.d === "-" ? "d-minus" : r.d === "+" ? "d-plus" : "d-same";
        const row = el("div", "row nir k-" + r.k + " " + cls);
        row.setAttribute("data-d", r.d);
        if (r.op) row.setAttribute("data-op", r.op);
        if (r.rewritten) row.title = "%" + r.id + " is rewritten by rake-opt";
        add(row, el("span", "side", r.d === "=" ? " " : r.d === "-" ? "−" : "+"), r.t);
        if (r.why) add(row, el("span", "note", "    ; " + r.why));
        add(box, tie(row, r.loc, "nir", false, r.aux));
      }
      add(body, box);
    }
    add(p, c, body);
  }

  /* ---- machine IR: before and after rake-ra, with live registers ---------------- */

  const CLASS_LETTER = { vec: "v", gpr: "g", mask: "k" };
  function classes() { return (D.limits || []).map((l, i) => Object.assign({ i }, l)).filter(l => l.registers > 0); }
  function chart(f, panel) {
    const rows = f.rows.filter(r => r.live), cls = classes(), W = Math.max(rows.length, 1);
    const top = Math.max(1, ...cls.map(c => c.registers), ...rows.map(r => Math.max(...r.live)));
    const H = 100, y = v => H - (v / top) * H;
    const s = svg("svg", { class: "chart", viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", role: "img" });
    rows.forEach((r, i) => {
      const bar = svg("rect", { class: "bar", x: i, y: 0, width: 1, height: H });
      add(bar, svg("title", {})).lastChild.textContent = r.t + "\n" + cls.map(c => c.class + " " + r.live[c.i]).join(", ");
      add(s, tie(bar, r.loc, panel, true, r.aux));
    });
    for (const c of cls) {
      const color = "var(--" + c.class + ")";
      add(s, svg("line", { class: "limit", x1: 0, x2: W, y1: y(c.allocatable), y2: y(c.allocatable), stroke: color, "vector-effect": "non-scaling-stroke" }));
      let d = "";
      rows.forEach((r, i) => { d += (i ? "L" : "M") + i + " " + y(r.live[c.i]) + "H" + (i + 1); });
      add(s, svg("path", { d, fill: "none", stroke: color, "stroke-width": 1.5, "vector-effect": "non-scaling-stroke" }));
    }
    const legend = el("div", "legend");
    for (const c of cls) {
      const peak = Math.max(0, ...rows.map(r => r.live[c.i]));
      const b = el("b", null, c.class);
      b.style.color = "var(--" + c.class + ")";
      add(legend, b, ": peak " + peak + " of " + c.allocatable + " allocatable (dashed)   ");
    }
    return [s, legend];
  }
  function listing(f, panel) {
    const box = el("div");
    for (const r of f.rows) {
      const row = el("div", "row k-" + r.k);
      const live = r.live ? classes().map(c => CLASS_LETTER[c.class] + r.live[c.i]).join(" ") : "";
      add(row, el("span", "live", live), r.t);
      if (r.origin) add(row, el("span", "note", "    ; " + r.origin + (r.nir !== undefined ? " %" + r.nir : "")));
      add(box, tie(row, r.loc, panel, false, r.aux));
    }
    return box;
  }
  function mirColumn(f, title) {
    const col = el("div");
    add(col, el("h4", null, title));
    if (!f) return add(col, el("p", "missing", "not written"));
    add(col, ...chart(f, "mir"), listing(f, "mir"));
    return col;
  }
  function mirPanel(p) {
    const names = [];
    for (const m of [D.mir0, D.mir]) for (const f of (m ? m.functions : [])) if (!names.includes(f.name)) names.push(f.name);
    const find = (m, n) => m && m.functions.find(f => f.name === n);
    add(p, el("p", "legend", "Registers live at each instruction (what it needs at once: the larger of those live entering it and those live leaving it with any it writes), per class, against the registers " + D.target + " lets the allocator use (lib/target tables). Columns: v vector, g general, k mask."));
    for (const n of names) {
      const a = find(D.mir0, n), b = find(D.mir, n), box = el("div", "fn"), cols = el("div", "cols");
      add(box, el("h3", null, (a || b).kind + " " + n + ((b || a).fmas ? "  (" + plural((b || a).fmas, "fused multiply-add") + ")" : "")));
      add(cols, mirColumn(a, "before rake-ra: rake-isel-x86's selection, virtual registers"), mirColumn(b, "after rake-ra: physical registers"));
      add(p, add(box, cols));
    }
  }

  /* ---- assembly, verdicts, report, interpreter, diagnostic ------------------------ */

  function asmPanel(p) {
    if (D.asm.unlinked.length) add(p, el("p", "missing", "Lines of " + D.asm.unlinked.join(", ") + " are not linked: they differ from the machine IR's instruction list."));
    add(p, el("p", "legend", "rake-emit's assembly (AT&T syntax); each instruction line is tied to the machine instruction it prints, and so to its source"));
    for (const l of D.asm.lines) {
      const dir = !l.t.startsWith("\t") || l.t.startsWith("\t.");
      const row = el("div", "row asm" + (dir ? " dir" : ""), l.t);
      if (l.origin) add(row, el("span", "note", "    ; " + l.origin + (l.nir !== undefined ? " %" + l.nir : "") + (l.loc ? " @" + l.loc : "")));
      add(p, tie(row, l.loc, "asm", false, l.aux));
    }
  }
  function verdict(title, v, pass, missing) {
    const c = el("div", "card");
    add(c, el("h3", null, title));
    if (!v) return add(c, el("p", "missing", missing));
    add(c, el("div", "verdict " + (v.status ? "fail" : "pass"), v.status ? "failed (status " + v.status + ")" : "passed"));
    add(c, v.status ? el("pre", null, v.text) : el("p", null, pass));
    if (!v.status && v.text) add(c, el("pre", null, v.text));
    return c;
  }
  function verifyPanel(p) {
    add(p, verdict("Native IR (rake-verify --ir)", D.verify.ir,
                   "The optimised native IR keeps every rule of docs/nir.md: types, dominance, masks, benign operands.",
                   whyMissing("verify")));
    add(p, verdict("Object (rake-verify --object)", D.verify.object,
                   "The object was disassembled with Capstone: every kernel and run is exactly its selection, uses only " + D.target + "'s instructions and registers, and has no spill, call or hidden loop.",
                   D.outcome.kind === "stopped" ? whyMissing("verify") : "Not run: the object was never built."));
  }
  function reportPanel(p) { add(p, el("pre", null, D.report)); }
  function interpPanel(p) {
    const I = D.interp, m = /:(\d+):(\d+): trap:/.exec(I.text);
    add(p, el("p", "legend", "rake-interp ran main with Rake's executable semantics on " + D.target + " (rakec --interpret --target " + D.target + ")"));
    if (!I.status) return add(p, el("div", null, "main returned"), el("div", "result", I.text.trim()));
    add(p, el("div", "verdict fail", "stopped with status " + I.status), tie(el("pre", "row", I.text), m ? m[1] + ":" + m[2] : null, "interp"));
  }
  function diagPanel(p) {
    const d = D.diag;
    add(p, el("p", "legend", "What rake-" + d.stage + " printed on standard error" + (d.line ? "; click to select line " + d.line : "")));
    add(p, tie(el("pre", "row diagtext", d.text), d.line ? d.line + ":" + d.col : null, "diag"));
  }

  /* ---- start ------------------------------------------------------------------------- */

  header();
  source();
  tabs();
  const hash = /^#([a-z]+)(?:\/(\d+))?$/.exec(location.hash);
  show(hash && document.getElementById("panel-" + hash[1]) ? hash[1]
       : D.diag ? "diag" : D.nir ? "nir" : D.checked ? "checked" : "ast");
  if (hash && hash[2]) select({ line: +hash[2] }, "source");
  document.addEventListener("keydown", ev => { if (ev.key === "Escape") { clear(); badges(); } });
  document.body.setAttribute("data-ready", "1");
})();
