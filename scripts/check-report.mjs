// check-report.mjs: the browser half of scripts/check-report.sh (run that,
// not this). It opens a run folder's report.html in headless Chromium through
// playwright-core and exits non-zero, naming every problem, if the page
//
//   - is missing, or blank (no body text, or a screenshot of a single colour);
//   - has an <img>, <object> or inline-SVG <image> that did not load (a missing
//     file, a broken data: URI, an undecodable picture);
//   - refers (src, href, data, xlink:href) to a local file that does not exist;
//   - asks for anything over the network (the report must be self-contained);
//   - logs an error or a warning to the console, or throws a page error.
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
  await ctx.close();

  // Pass 2: JavaScript off, as the report is meant to be read.
  const ctx2 = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  await ctx2.route(/^https?:/, (route) => route.abort());
  const page2 = await ctx2.newPage();
  await page2.goto(url, { waitUntil: 'load', timeout: 60000 });
  const text = await page2.evaluate(() => (document.body ? document.body.innerText : '').trim());
  if (text === '') fail('blank page: the body has no text (with JavaScript off)');
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
