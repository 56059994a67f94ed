// npm run screenshot: regenerates docs/inspector-charts.png, the picture of the inspector's
// chart view — the parallel-batch fixture travelled to seq 12, where both lookups run side by side.
// Needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium).
import { loadRecording, RecordedSource } from '../src/inspector/recorded-source.ts';
import { serveInspector } from '../src/inspector/server.ts';
import { launchChromium } from '../test/browser/browser.ts';

const out = 'docs/inspector-charts.png';
const { sessions } = await loadRecording('test/fixtures/replay/parallel-retry-unknown.jsonl');
const server = await serveInspector(
  new RecordedSource(sessions, 'agentchart — parallel-retry-unknown.jsonl (recorded)'),
);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1500 } });
  await page.goto(`${server.url}#charts`);
  await page.locator('#seq').waitFor();
  await page.locator('#seq').fill('12');
  await page
    .locator('.chart[data-machine="agent/turn/step/batch"] .state.active[data-state="running"]')
    .waitFor();
  // Scroll the step and batch charts into view: they are the ones lit inside the parallel batch.
  await page.locator('.chart[data-machine="agent/turn/step"]').evaluate((node) => node.scrollIntoView());
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
