#!/usr/bin/env node
/* tests/explore/browse.js: opens a page of `rakec --explore` in headless
 * Chromium and reports what a reader would see, as one JSON object.
 *
 *   node tests/explore/browse.js PAGE.html [ACTION...]
 *     --click SELECTOR    a real mouse click (Input.dispatchMouseEvent) at
 *                         the centre of the first element matching SELECTOR
 *     --tab ID            clicks the tab button of panel ID
 *     --screenshot F.png  writes a screenshot and measures its pixels
 *     --snap              records the facts as they are now (in `snaps`)
 *     --size WxH          the viewport (default 1400x900)
 *
 * Chromium is driven over the DevTools protocol on a pipe
 * (--remote-debugging-pipe: commands on fd 3, replies and events on fd 4,
 * each a JSON message ended by a NUL byte); Node's standard library only.
 * Every request the page makes is intercepted (Fetch domain, all URL
 * patterns) or seen (Network domain) and listed once, and every one but
 * the page itself is failed, so a page that needs the network shows up in
 * `requests` and breaks.
 * The PNG is decoded with zlib (filters undone per scanline) to count its
 * distinct colours and the share of pixels that are not the background.
 * Exit status 0 with the facts on stdout; 2 if Chromium can't be driven. */
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");

function chromium() {
  for (const c of [process.env.RAKE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"])
    if (c && fs.existsSync(c)) return c;
  throw new Error("chromium is not installed (tools/install-deps installs it)");
}

/* ---- the protocol ---------------------------------------------------------- */

function connect() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "rake-browse-"));
  const args = ["--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
    "--no-first-run", "--no-default-browser-check", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--allow-file-access-from-files",
    "--user-data-dir=" + profile, "about:blank"];
  const proc = spawn(chromium(), args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", d => { stderr += d; });
  const out = proc.stdio[3], inp = proc.stdio[4];
  let id = 0, buf = Buffer.alloc(0);
  const waiting = new Map(), listeners = [];
  inp.on("data", chunk => {
    buf = Buffer.concat([buf, chunk]);
    for (let k; (k = buf.indexOf(0)) >= 0; buf = buf.subarray(k + 1)) {
      const msg = JSON.parse(buf.subarray(0, k).toString("utf8"));
      if (msg.id !== undefined && waiting.has(msg.id)) {
        const [ok, fail] = waiting.get(msg.id);
        waiting.delete(msg.id);
        msg.error ? fail(new Error(msg.error.message)) : ok(msg.result);
      } else if (msg.method) {
        for (const l of listeners) l(msg);
      }
    }
  });
  const dead = new Promise((_, fail) => proc.on("exit", c => fail(new Error("chromium exited " + c + ": " + stderr))));
  dead.catch(() => {});
  function send(method, params, sessionId) {
    const m = { id: ++id, method, params: params || {} };
    if (sessionId) m.sessionId = sessionId;
    out.write(JSON.stringify(m) + "\0");
    return Promise.race([new Promise((ok, fail) => waiting.set(m.id, [ok, fail])), dead]);
  }
  function close() {
    try { out.write(JSON.stringify({ id: ++id, method: "Browser.close", params: {} }) + "\0"); } catch (e) { /* gone */ }
    setTimeout(() => { proc.kill("SIGKILL"); }, 3000).unref();
    proc.on("exit", () => fs.rmSync(profile, { recursive: true, force: true }));
  }
  return { send, on: f => listeners.push(f), close };
}

/* ---- PNG pixels ------------------------------------------------------------- */

function pngStats(png) {
  let pos = 8, w = 0, h = 0, depth = 0, type = 0;
  const idat = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos), kind = png.toString("ascii", pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (kind === "IHDR") { w = data.readUInt32BE(0); h = data.readUInt32BE(4); depth = data[8]; type = data[9]; }
    if (kind === "IDAT") idat.push(data);
    pos += 12 + len;
  }
  const bpp = { 2: 3, 6: 4 }[type];
  if (depth !== 8 || !bpp) throw new Error("unexpected PNG colour type " + type + " depth " + depth);
  const raw = zlib.inflateSync(Buffer.concat(idat)), stride = w * bpp;
  const prev = Buffer.alloc(stride), cur = Buffer.alloc(stride), colours = new Map();
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      cur[i] = (line[i] + pred) & 255;
    }
    for (let x = 0; x < w; x++) {
      const k = cur.readUIntBE(x * bpp, 3);
      colours.set(k, (colours.get(k) || 0) + 1);
    }
    cur.copy(prev);
  }
  const top = Math.max(...colours.values());
  return { width: w, height: h, colours: colours.size, notBackground: 1 - top / (w * h) };
}

/* ---- the page ---------------------------------------------------------------- */

const FACTS = `(() => {
  const text = e => e.textContent;
  const tabs = [...document.querySelectorAll("#tabs button")].map(b => {
    const id = b.getAttribute("data-tab"), p = document.getElementById("panel-" + id);
    const miss = p.querySelector(":scope > .missing");
    return { id, cls: b.className, badge: b.querySelector(".badge").textContent,
             missing: miss ? miss.textContent : null, items: p.querySelectorAll("[data-loc]").length,
             text: p.textContent.slice(0, 400),
             elements: p.querySelectorAll("*").length };
  });
  const lit = {};
  for (const e of document.querySelectorAll(".hl[data-panel]:not([data-uncounted])")) {
    const p = e.getAttribute("data-panel");
    (lit[p] = lit[p] || []).push({ text: e.textContent, op: e.getAttribute("data-op"), d: e.getAttribute("data-d"),
                                   loc: e.getAttribute("data-loc"), aux: e.classList.contains("hl-aux") });
  }
  const diag = document.querySelector(".srcline.diagline");
  return { ready: document.body.getAttribute("data-ready") === "1", title: document.title,
           heading: text(document.getElementById("title")), outcome: text(document.getElementById("outcome")),
           active: (document.querySelector("#tabs button.active") || {}).textContent || null,
           steps: [...document.querySelectorAll("#pipeline .step")].map(s => [s.textContent, s.className]),
           tabs, lit, selLines: [...document.querySelectorAll(".srcline.sel")].map(e => +e.getAttribute("data-line")),
           banner: document.getElementById("banner").hidden ? null : text(document.getElementById("banner")),
           diagLine: diag ? +diag.getAttribute("data-line") : null,
           srcdiag: [...document.querySelectorAll(".srcdiag")].map(text),
           sourceLines: document.querySelectorAll(".srcline").length,
           sourceText: [...document.querySelectorAll(".srcline .code")].map(text).join("\\n") };
})()`;

async function evaluate(cdp, s, expr) {
  const r = await cdp.send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true }, s);
  if (r.exceptionDetails) throw new Error("page: " + JSON.stringify(r.exceptionDetails));
  return r.result.value;
}

async function click(cdp, s, selector) {
  const box = await evaluate(cdp, s, `(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    if (!e) return null;
    e.scrollIntoView({ block: "center" });
    const r = e.getBoundingClientRect();
    return { x: r.left + Math.min(r.width / 2, 20), y: r.top + r.height / 2 };
  })()`);
  if (!box) throw new Error("nothing matches " + selector);
  for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
    await cdp.send("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 }, s);
}

async function main(argv) {
  const page = path.resolve(argv[0]);
  const url = "file://" + page;
  let size = [1400, 900];
  const cdp = connect(), requests = [], errors = [];
  try {
    const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
    const { sessionId: s } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    let loaded;
    const load = new Promise(ok => { loaded = ok; });
    cdp.on(m => {
      if (m.sessionId !== s) return;
      if (m.method === "Fetch.requestPaused") {
        if (!requests.includes(m.params.request.url)) requests.push(m.params.request.url);
        const ok = m.params.request.url === url;
        cdp.send(ok ? "Fetch.continueRequest" : "Fetch.failRequest",
                 ok ? { requestId: m.params.requestId } : { requestId: m.params.requestId, errorReason: "BlockedByClient" }, s);
      }
      if (m.method === "Network.requestWillBeSent" && !requests.includes(m.params.request.url)) requests.push(m.params.request.url);
      if (m.method === "Runtime.exceptionThrown") errors.push(m.params.exceptionDetails.exception ? m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text);
      if (m.method === "Runtime.consoleAPICalled" && m.params.type === "error") errors.push(m.params.args.map(a => a.value).join(" "));
      if (m.method === "Log.entryAdded" && m.params.entry.level === "error") errors.push(m.params.entry.text);
      if (m.method === "Page.loadEventFired") loaded();
    });
    for (const d of ["Page", "Runtime", "Network", "Log"]) await cdp.send(d + ".enable", {}, s);
    await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] }, s);
    const sz = argv.indexOf("--size");
    if (sz >= 0) size = argv[sz + 1].split("x").map(Number);
    await cdp.send("Emulation.setDeviceMetricsOverride", { width: size[0], height: size[1], deviceScaleFactor: 1, mobile: false }, s);
    await cdp.send("Page.navigate", { url }, s);
    await load;
    for (let i = 0; i < 100 && !(await evaluate(cdp, s, 'document.body.getAttribute("data-ready") === "1"')); i++)
      await new Promise(ok => setTimeout(ok, 50));
    let shot = null;
    const snaps = [];
    for (let i = 1; i < argv.length; i++) {
      if (argv[i] === "--click") await click(cdp, s, argv[++i]);
      else if (argv[i] === "--tab") await click(cdp, s, '#tabs button[data-tab="' + argv[++i] + '"]');
      else if (argv[i] === "--size") i++;
      else if (argv[i] === "--snap") snaps.push(await evaluate(cdp, s, FACTS));
      else if (argv[i] === "--screenshot") {
        const file = argv[++i], { data } = await cdp.send("Page.captureScreenshot", { format: "png" }, s);
        fs.writeFileSync(file, Buffer.from(data, "base64"));
        shot = Object.assign({ file }, pngStats(Buffer.from(data, "base64")));
      } else throw new Error("unknown action " + argv[i]);
    }
    const facts = await evaluate(cdp, s, FACTS);
    Object.assign(facts, { url, requests, errors, screenshot: shot, snaps });
    process.stdout.write(JSON.stringify(facts, null, 1) + "\n");
  } finally {
    cdp.close();
  }
}

if (process.argv.length < 3) {
  process.stderr.write("usage: browse.js PAGE.html [--click SEL] [--tab ID] [--screenshot F.png] [--size WxH]\n");
  process.exit(2);
}
main(process.argv.slice(2)).catch(e => { process.stderr.write("browse.js: " + e.message + "\n"); process.exit(2); });
