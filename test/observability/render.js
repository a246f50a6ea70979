// Renders a Grafana dashboard in Debian's headless Chromium (puppeteer-core, which downloads no browser), saves a
// full-page screenshot, and fails when the page logs an error or any panel shows no data, an error, or (for a time
// series) no drawn canvas.   node render.js URL OUT.png
// VIEWPORT_HEIGHT: pixels (2200 by default), for a dashboard taller than that.
// SKIP_PANELS: titles, separated by '|', of panels the data cannot fill (a sweep's, after fixed-rate runs): said, not judged.
const puppeteer = require('puppeteer-core');

(async () => {
  const [url, out] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars'],
    // tall enough for a whole dashboard: Grafana renders only the panels in view
    defaultViewport: { width: 1600, height: Number(process.env.VIEWPORT_HEIGHT || 2200) },
  });
  const problems = [];
  try {
    const page = await browser.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error}`));
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(`console error: ${message.text()}`);
      }
    });
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 90000 });
    await page.waitForSelector('.react-grid-item', { timeout: 60000 });
    await new Promise((resolve) => setTimeout(resolve, 4000)); // the last queries' answers painted
    const panels = await page.evaluate(() => [...document.querySelectorAll('.react-grid-item')].map((item) => {
      const header = item.querySelector('[data-testid^="data-testid Panel header"]');
      return {
        title: header ? header.getAttribute('data-testid').replace('data-testid Panel header ', '') : '(untitled)',
        noData: /No data/.test(item.innerText),
        error: !!item.querySelector('[data-testid="data-testid Panel status error"], .panel-info-corner--error'),
        timeSeries: !!item.querySelector('[data-testid*="TimeSeries" i], .u-over, .uplot'),
        canvases: item.querySelectorAll('canvas').length,
      };
    }));
    const skipped = (process.env.SKIP_PANELS || '').split('|').filter((title) => title);
    for (const panel of panels) {
      if (skipped.includes(panel.title)) {
        console.log(`skip panel "${panel.title}"`);
        continue;
      }
      const bad = panel.noData ? 'shows "No data"' : panel.error ? 'shows an error' : panel.timeSeries && panel.canvases === 0 ? 'drew no lines' : null;
      console.log(`${bad ? 'FAIL' : 'ok  '} panel "${panel.title}"${bad ? ` ${bad}` : ''}`);
      if (bad) {
        problems.push(`panel "${panel.title}" ${bad}`);
      }
    }
    if (panels.length === 0) {
      problems.push('no panel rendered');
    }
    await page.screenshot({ path: out, fullPage: true });
  } finally {
    await browser.close();
  }
  for (const problem of problems) {
    console.log(`FAIL ${problem}`);
  }
  process.exit(problems.length ? 1 : 0);
})().catch((error) => {
  console.log(`FAIL ${error}`);
  process.exit(1);
});
