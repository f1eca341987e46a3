// The hosted checkout page on a slow link: till serving it as built (Brotli/gzip) beside the same
// page sent uncompressed (Accept-Encoding: identity, what every response was before compression),
// in Chromium with CDP network emulation (1.6 Mbps down, 750 kbps up, 150 ms RTT) and a cold cache.
// "Ready" is when the Pay button is enabled. Prints the median of the rounds, the bytes
// transferred, the ratios, and the size of Polar's checkout package from npm for reference.
//
//   npm run build:web && node bench/page-load.ts [--rounds 5]
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const ROUNDS = Number(values.rounds);
/** What the issue measured before: 242 KB transferred, ready at 2.0 s on this link. */
const BEFORE = { bytes: 242 * 1024, readyMs: 2000 };
const LINK = { latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };

const { loadConfig } = await import("../server/config.ts");
const { start } = await import("../server/main.ts");
const { openDb } = await import("../db/client.ts");
const { api, createSeller } = await import("../test/helpers/auth.ts");

const port = await new Promise<number>((resolve) => {
  const probe = http.createServer().listen(0, "127.0.0.1", () => {
    const { port: p } = probe.address() as { port: number };
    probe.close(() => resolve(p));
  });
});
const config = loadConfig({
  command: "serve",
  env: {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    HOST: "127.0.0.1",
    AUTH_SECRET: "b".repeat(40),
    TILL_MODE: "sandbox",
    LOG_LEVEL: "error",
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    AUTH_RATE_LIMIT: "false",
    DATABASE_URL: undefined,
  },
  cwd: mkdtempSync(path.join(os.tmpdir(), "till-bench-")),
});
const server = await start(config, {
  database: await openDb({ kind: "pglite", dataDir: null }),
  worker: false,
});
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
});

try {
  const { token } = await createSeller(server.url, ["products:write", "checkouts:write"]);
  const product = await api(server.url, "/v1/products/", {
    token,
    body: {
      name: "Pro plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }],
    },
  });

  async function load(compressed: boolean): Promise<{ readyMs: number; bytes: number }> {
    const checkout = await api(server.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, ...LINK });
    if (!compressed)
      await cdp.send("Network.setExtraHTTPHeaders", { headers: { "accept-encoding": "identity" } });
    let bytes = 0;
    cdp.on("Network.loadingFinished", (e: { encodedDataLength: number }) => {
      bytes += e.encodedDataLength;
    });
    await page.goto(checkout.body.url as string, { waitUntil: "commit" });
    const readyMs = await page.waitForFunction(
      () => {
        const pay = document.querySelector<HTMLButtonElement>("button.pay");
        return pay && !pay.disabled && pay.getAttribute("aria-disabled") !== "true"
          ? performance.now()
          : false;
      },
      undefined,
      { polling: "raf", timeout: 30_000 },
    );
    const ready = (await readyMs.jsonValue()) as number;
    // Let the requests that finished with the page's readiness report their sizes.
    await page.waitForTimeout(300);
    await context.close();
    return { readyMs: ready, bytes };
  }

  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const runs = {
    compressed: [] as { readyMs: number; bytes: number }[],
    identity: [] as { readyMs: number; bytes: number }[],
  };
  await load(true); // warm the server (first page read from disk, compressed in memory)
  for (let i = 0; i < ROUNDS; i++) {
    runs.compressed.push(await load(true));
    runs.identity.push(await load(false));
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const row = (label: string, r: { readyMs: number; bytes: number }[]) => {
    const ready = median(r.map((x) => x.readyMs));
    const bytes = median(r.map((x) => x.bytes));
    console.log(
      `${label.padEnd(34)} ready ${(ready / 1000).toFixed(2)} s   transferred ${kb(bytes)}`,
    );
    return { ready, bytes };
  };
  console.log(
    `checkout page, cold cache, 1.6 Mbps / 150 ms RTT (Chromium CDP emulation), median of ${ROUNDS}`,
  );
  const now = row("till (Brotli/gzip)", runs.compressed);
  const plain = row("till, sent uncompressed", runs.identity);
  console.log(
    `${"before (issue 19's measurement)".padEnd(34)} ready ${(BEFORE.readyMs / 1000).toFixed(2)} s   transferred ${kb(BEFORE.bytes)}`,
  );
  console.log(
    `ratio bytes: ${(now.bytes / BEFORE.bytes).toFixed(3)} of before (target ≤ 0.5), ${(now.bytes / plain.bytes).toFixed(3)} of uncompressed`,
  );
  console.log(
    `ready: ${(now.ready / 1000).toFixed(2)} s (target ≤ 1.00 s), ${(now.ready / BEFORE.readyMs).toFixed(3)} of before, ${(now.ready / plain.ready).toFixed(3)} of uncompressed`,
  );
  // Polar's hosted checkout is not published; its npm package (@polar-sh/checkout) ships the embed
  // and React components. Its ESM files, gzipped one by one, without its dependencies:
  const require = createRequire(import.meta.url);
  const polarDir = path.resolve(path.dirname(require.resolve("@polar-sh/checkout/embed")), "..");
  const version = (
    JSON.parse(readFileSync(path.join(polarDir, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) =>
      statSync(path.join(dir, n)).isDirectory() ? walk(path.join(dir, n)) : [path.join(dir, n)],
    );
  const files = walk(path.join(polarDir, "dist")).filter(
    (f) => f.endsWith(".js") && !f.endsWith(".global.js"),
  );
  const polarGzip = files.reduce(
    (sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length,
    0,
  );
  console.log(
    `@polar-sh/checkout@${version} dist ESM (gzip, no dependencies): ${kb(polarGzip)}; till's checkout transfers ${(now.bytes / polarGzip).toFixed(2)}× that`,
  );
} finally {
  await browser.close();
  await server.stop?.();
  process.exit(0);
}
