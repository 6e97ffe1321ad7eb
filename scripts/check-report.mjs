// check-report.mjs: the browser half of scripts/check-report.sh (run that,
// not this). It opens a run folder's report.html in headless Chromium through
// playwright-core and exits non-zero, naming every problem, if the page
//
//   - is missing, or blank (no body text, or a screenshot of a single colour);
//   - has an <img>, <object> or inline-SVG <image> that did not load (a missing
//     file, a broken data: URI, an undecodable picture);
//   - refers (src, href, data, xlink:href) to a local file that does not exist;
//   - asks for anything over the network (the report must be self-contained);
//   - logs an error or a warning to the console, or throws a page error;
//   - is wider than a 1400 px window (horizontal overflow);
//   - has a figure (an SVG, inline or an <img> data: URI) whose tick labels
//     of one axis are not distinct and monotone, or do not read as the
//     positions they are drawn at (a linear or logarithmic axis: "4, 2, 2"
//     for ticks at 3.5, 2.5, 1.5 fails), or whose legend names a series
//     twice (its texts other than tick labels, the smallest font, repeat).
//
// The page is loaded twice: once with JavaScript on, which catches console
// messages and script errors, and once with JavaScript off, as the report is
// meant to be read, for the blank check and the full-page screenshot.
// Checker code still runs in both (page.evaluate works without page scripts).
//
//   node check-report.mjs REPORT.html SCREENSHOT.png
//
// Environment: LOGZ_PLAYWRIGHT_DIR, the folder whose node_modules holds
// playwright-core (the shell script installs it there); LOGZ_CHROMIUM, the
// browser binary.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

const [reportArg, shotArg] = process.argv.slice(2);
if (!reportArg || !shotArg) {
  console.error('usage: node check-report.mjs REPORT.html SCREENSHOT.png');
  process.exit(2);
}
const pwDir = process.env.LOGZ_PLAYWRIGHT_DIR;
const chromiumPath = process.env.LOGZ_CHROMIUM || '/usr/bin/chromium';
if (!pwDir) {
  console.error('check-report.mjs: LOGZ_PLAYWRIGHT_DIR is not set (run scripts/check-report.sh)');
  process.exit(2);
}
const { chromium } = createRequire(path.join(pwDir, 'noop.js'))('playwright-core');

const report = path.resolve(reportArg);
const shot = path.resolve(shotArg);
const problems = [];
const fail = (msg) => { if (!problems.includes(msg)) problems.push(msg); };

if (!fs.existsSync(report)) {
  console.error(`FAIL ${report}: no such file`);
  process.exit(1);
}
const url = pathToFileURL(report).href;

// Resources a page element refers to: [what, absolute URL]. Anchors are
// listed too (a link to samples.npy must point at a file that exists), but
// only loaded resources must avoid the network.
function collectRefs() {
  const out = [];
  const add = (el, attr, value) => {
    if (value == null || value === '') return;
    let abs;
    try { abs = new URL(value, document.baseURI).href; } catch { abs = value; }
    const tag = el.tagName.toLowerCase();
    const loads = !(tag === 'a' || (tag === 'link' && !/stylesheet|icon|preload/i.test(el.rel || '')));
    out.push({ what: `<${tag} ${attr}="${value.length > 60 ? value.slice(0, 57) + '...' : value}">`, url: abs, loads });
  };
  for (const el of document.querySelectorAll('*')) {
    for (const attr of ['src', 'href', 'data', 'poster', 'xlink:href']) {
      if (el.hasAttribute(attr)) add(el, attr, el.getAttribute(attr));
    }
    if (el.hasAttribute('srcset')) {
      for (const part of el.getAttribute('srcset').split(',')) add(el, 'srcset', part.trim().split(/\s+/)[0]);
    }
  }
  return out;
}

// Whether each picture loaded. <img> reports it itself; <object> and SVG
// <image> do not, so their source is loaded again into a fresh Image.
async function checkImages() {
  const probe = (src) => new Promise((resolve) => {
    const im = new Image();
    im.onload = () => resolve(im.naturalWidth > 0 && im.naturalHeight > 0);
    im.onerror = () => resolve(false);
    im.src = src;
  });
  const short = (s) => (s.length > 60 ? s.slice(0, 57) + '...' : s);
  const bad = [];
  let loaded = 0;
  for (const im of document.images) {
    if (!im.complete) { try { await im.decode(); } catch {} }
    if (im.complete && im.naturalWidth > 0 && im.naturalHeight > 0) loaded++;
    else bad.push(`<img src="${short(im.getAttribute('src') || '')}"> did not load (naturalWidth ${im.naturalWidth})`);
  }
  const others = [
    ...[...document.querySelectorAll('object[data]')].map((el) => ['object', el.getAttribute('data'), el.data]),
    ...[...document.querySelectorAll('svg image')].map((el) => {
      const v = el.getAttribute('href') ?? el.getAttributeNS('http://www.w3.org/1999/xlink', 'href') ?? '';
      return ['image', v, v === '' ? '' : new URL(v, document.baseURI).href];
    }),
  ];
  for (const [tag, raw, abs] of others) {
    if (abs && await probe(abs)) loaded++;
    else bad.push(`<${tag}> "${short(raw || '')}" did not load`);
  }
  const svgs = [...document.querySelectorAll('svg')].filter((s) => !s.parentElement.closest('svg')).length;
  return { loaded, bad, svgs };
}

// Checks of the figures: every inline SVG and every <img> whose src is an
// SVG data: URI is parsed and laid out off screen, so that its texts have
// screen positions. Tick labels are the texts of the smallest font size of
// a figure; consecutive numeric ones (in document order) on one row, or
// right-aligned in one column, are one axis.
// Returns a list of problems.
async function checkFigures() {
  const problems = [];
  const docs = [];
  for (const im of document.images) {
    const src = im.getAttribute('src') || '';
    const m = /^data:image\/svg\+xml;base64,(.*)$/.exec(src);
    if (!m) continue;
    let text;
    try {
      const bin = atob(m[1]);
      text = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    } catch { continue; }
    const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
    if (!svg || svg.nodeName !== 'svg') continue;
    const fig = im.closest('figure');
    docs.push({ name: (fig && fig.id) || im.getAttribute('alt') || src.slice(0, 40), svg });
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement.closest('svg')) continue;
    const fig = svg.closest('figure');
    docs.push({ name: (fig && fig.id) || 'inline svg', svg: svg.cloneNode(true) });
  }
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute;left:0;top:0;visibility:hidden';
  document.body.appendChild(host);
  const num = (s) => {
    const t = s.trim().replace(/\u2212/g, '-');
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? Number(t) : null;
  };
  const decimals = (s) => { const i = s.indexOf('.'); return i < 0 ? 0 : s.trim().length - i - 1; };
  for (const { name, svg } of docs) {
    const node = document.importNode(svg, true);
    host.appendChild(node);
    try {
      const texts = [...node.querySelectorAll('text')].filter((t) => t.textContent.trim() !== '');
      if (texts.length === 0) continue;
      const size = (t) => parseFloat(getComputedStyle(t).fontSize) || 0;
      const tickSize = Math.min(...texts.map(size));
      // Axes: runs of consecutive numeric tick labels.
      const runs = [];
      let run = [];
      for (const t of texts) {
        const v = size(t) === tickSize ? num(t.textContent) : null;
        if (v === null) { if (run.length) runs.push(run); run = []; continue; }
        const r = t.getBoundingClientRect();
        const a = { label: t.textContent.trim(), v, x: r.left + r.width / 2, y: r.top + r.height / 2, right: r.right };
        // One axis: labels on one row, or right-aligned in one column.
        const prev = run[run.length - 1];
        if (prev && Math.abs(a.y - prev.y) >= 1 && Math.abs(a.right - prev.right) >= 1.5) { runs.push(run); run = []; }
        run.push(a);
      }
      if (run.length) runs.push(run);
      for (const ax of runs) {
        if (ax.length < 2) continue;
        const labels = ax.map((a) => a.label).join(', ');
        if (new Set(ax.map((a) => a.label)).size !== ax.length) {
          problems.push(`figure ${name}: tick labels ${labels} repeat (not enough decimals for the ticks' values)`);
          continue;
        }
        const up = ax.every((a, i) => i === 0 || a.v > ax[i - 1].v);
        const down = ax.every((a, i) => i === 0 || a.v < ax[i - 1].v);
        if (!up && !down) {
          problems.push(`figure ${name}: tick labels ${labels} are not monotone`);
          continue;
        }
        if (ax.length < 3) continue;
        const horizontal = ax.every((a) => Math.abs(a.y - ax[0].y) < 1);
        const pos = ax.map((a) => (horizontal ? a.x : a.y));
        // Do the values lie on a line of the positions (of their logs,
        // for a logarithmic axis), within half a unit of each label's last
        // digit and 2% of the axis?
        const fits = (f) => {
          const vs = ax.map((a) => f(a.v));
          if (vs.some((v) => !Number.isFinite(v))) return false;
          const n = vs.length - 1;
          if (pos[n] === pos[0]) return false;
          const slope = (vs[n] - vs[0]) / (pos[n] - pos[0]);
          const span = Math.abs(vs[n] - vs[0]);
          return ax.every((a, i) => {
            const tol = 0.5 * Math.pow(10, -decimals(a.label)) * (f === Math.log10 ? 1 / (Math.abs(a.v) * Math.LN10) : 1) + 0.02 * span;
            return Math.abs(vs[0] + slope * (pos[i] - pos[0]) - vs[i]) <= tol;
          });
        };
        if (!fits((v) => v) && !fits(Math.log10)) {
          problems.push(`figure ${name}: tick labels ${labels} do not match their positions on the axis (neither evenly nor logarithmically spaced: rounded labels?)`);
        }
      }
      // Legend: the texts that are not tick labels name each series once.
      const count = new Map();
      for (const t of texts) {
        if (size(t) === tickSize) continue;
        const k = t.textContent.trim();
        count.set(k, (count.get(k) || 0) + 1);
      }
      for (const [k, n] of count) {
        if (n > 1) problems.push(`figure ${name}: legend label "${k}" appears ${n} times (one legend entry per series)`);
      }
    } finally {
      node.remove();
    }
  }
  host.remove();
  return problems;
}

const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
try {
  // Pass 1: JavaScript on; console, page errors, failed and network requests.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') {
      const loc = m.location();
      fail(`console ${m.type()}: ${m.text()}${loc && loc.url ? ` (${loc.url.startsWith('data:') ? 'data: URI' : loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (e) => fail(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (!/^https?:/.test(r.url())) fail(`request failed: ${r.url().slice(0, 100)}: ${r.failure()?.errorText}`);
  });
  await ctx.route(/^https?:/, (route) => {
    fail(`network request (the report must be self-contained): ${route.request().url()}`);
    return route.abort();
  });
  await page.goto(url, { waitUntil: 'load', timeout: 60000 });
  const title = await page.title();
  const refs = await page.evaluate(collectRefs);
  const seen = new Set();
  for (const r of refs) {
    if (r.url.startsWith('file:')) {
      const p = fileURLToPath(r.url.replace(/[?#].*$/, ''));
      if (p !== report && !seen.has(p) && !fs.existsSync(p)) { seen.add(p); fail(`${r.what} refers to a missing file: ${p}`); }
    } else if (r.loads && /^(https?:)?\/\//.test(r.url)) {
      fail(`${r.what} loads from the network (the report must be self-contained)`);
    }
  }
  const imgs = await page.evaluate(checkImages);
  imgs.bad.forEach(fail);
  (await page.evaluate(checkFigures)).forEach(fail);
  await ctx.close();

  // Pass 2: JavaScript off, as the report is meant to be read.
  const ctx2 = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1400, height: 900 } });
  await ctx2.route(/^https?:/, (route) => route.abort());
  const page2 = await ctx2.newPage();
  await page2.goto(url, { waitUntil: 'load', timeout: 60000 });
  const text = await page2.evaluate(() => (document.body ? document.body.innerText : '').trim());
  if (text === '') fail('blank page: the body has no text (with JavaScript off)');
  // Nothing wider than a 1400 px window: tables scroll in their own box.
  const overflow = await page2.evaluate(() => {
    const doc = document.documentElement;
    if (doc.scrollWidth <= doc.clientWidth) return null;
    let widest = null;
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.right > doc.clientWidth && (!widest || r.right > widest.right)) {
        widest = { right: r.right, what: `<${el.tagName.toLowerCase()}${el.id ? ' id="' + el.id + '"' : ''}${el.className && typeof el.className === 'string' ? ' class="' + el.className + '"' : ''}>` };
      }
    }
    return { width: doc.scrollWidth, what: widest ? widest.what : '?' };
  });
  if (overflow) fail(`horizontal overflow at 1400 px: the page is ${overflow.width} px wide (widest: ${overflow.what})`);
  fs.mkdirSync(path.dirname(shot), { recursive: true });
  const png = await page2.screenshot({ path: shot, fullPage: true });
  await ctx2.close();

  // Whether the screenshot holds more than one colour: decode it in a blank
  // page and compare every pixel (strided on tall pages) with the first.
  const ctx3 = await browser.newContext();
  const page3 = await ctx3.newPage();
  const colours = await page3.evaluate(async (b64) => {
    const im = new Image();
    im.src = 'data:image/png;base64,' + b64;
    await im.decode();
    const c = document.createElement('canvas');
    c.width = im.naturalWidth; c.height = im.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(im, 0, 0);
    const step = Math.max(1, Math.floor(c.height / 4000));
    const first = g.getImageData(0, 0, 1, 1).data.join();
    for (let y = 0; y < c.height; y += step) {
      const row = g.getImageData(0, y, c.width, 1).data;
      for (let i = 0; i < row.length; i += 4) {
        if (`${row[i]},${row[i + 1]},${row[i + 2]},${row[i + 3]}` !== first) return 2;
      }
    }
    return 1;
  }, png.toString('base64'));
  await ctx3.close();
  if (colours === 1) fail('blank page: the screenshot is a single colour');

  const w = png.readUInt32BE(16), h = png.readUInt32BE(20);
  if (problems.length > 0) {
    console.error(`FAIL ${report}: ${problems.length} problem(s)`);
    for (const p of problems) console.error(`  - ${p}`);
    console.error(`  screenshot: ${shot} (${w}×${h} px)`);
    process.exitCode = 1;
  } else {
    console.log(`ok ${report}`);
    console.log(`  title: ${title || '(none)'}`);
    console.log(`  images loaded: ${imgs.loaded}; inline SVG figures: ${imgs.svgs}`);
    console.log(`  screenshot: ${shot} (${w}×${h} px, ${(png.length / 1024).toFixed(1)} KiB)`);
  }
} finally {
  await browser.close();
}
