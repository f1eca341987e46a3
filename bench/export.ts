// The orders CSV export over HTTP beside PostgreSQL's own `COPY (SELECT …) TO STDOUT (FORMAT csv)`
// of the same columns, on the same database in the same run. Goal: till's rate ≥ 0.5× COPY's, with
// the server's memory flat (peak RSS during the export printed beside the RSS before it). The file
// is fetched by a separate client process, plain as COPY's output is, then gzipped as a second
// figure; COPY's output is read in this process, counted the same way.
//
//   node bench/export.ts [--orders 1000000] [--runs 2] [--pg postgres://postgres@127.0.0.1:5432/postgres]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { loadConfig } from "../server/config.ts";
import { start } from "../server/main.ts";
import { createSeller } from "../test/helpers/auth.ts";
import { createDatabase, dropDatabase } from "../test/helpers/db.ts";
import { seedSales } from "../test/helpers/sales.ts";
import { databaseUrl } from "../test/helpers/template.ts";

const { values } = parseArgs({
  options: {
    orders: { type: "string", default: "1000000" },
    runs: { type: "string", default: "2" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});
const count = Number(values.orders);
const runs = Number(values.runs);
const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;

interface Fetched {
  rows: number;
  bytes: number;
  wireBytes: number;
  ms: number;
}
/** The client process: fetches the export, counts its rows and bytes, prints them with its time. */
const CLIENT = `
import http from "node:http";
import { createGunzip } from "node:zlib";
const t0 = performance.now();
http.get(process.env.URL, { headers: { authorization: "Bearer " + process.env.TOKEN,
  "accept-encoding": process.env.ENCODING } }, async (res) => {
  if (res.statusCode !== 200) { console.error("export answered " + res.statusCode); process.exit(1); }
  let wireBytes = 0;
  res.on("data", (c) => { wireBytes += c.length; });
  const body = res.headers["content-encoding"] === "gzip" ? res.pipe(createGunzip()) : res;
  let bytes = 0, rows = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++;
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ rows: rows - 1, bytes, wireBytes, ms }));
});
`;

const name = `till_bench_export_${randomBytes(4).toString("hex")}`;
await createDatabase(values.pg!, name);
const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-export-"));
const port = String(40000 + Math.floor(Math.random() * 20000));
const config = loadConfig({
  command: "serve",
  env: {
    DATABASE_URL: databaseUrl(values.pg!, name),
    PORT: port,
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: "b".repeat(40),
    LOG_LEVEL: "silent",
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    TILL_PAYMENTS: "none",
    // Seeding a million orders is one statement, longer than the default 30 s on a busy machine.
    DATABASE_STATEMENT_TIMEOUT_MS: "600000",
  },
  cwd: dir,
});
const server = await start(config, { worker: false });
try {
  const seller = await createSeller(server.url, ["orders:read"]);
  const organizationId = seller.organization.id;
  let t0 = performance.now();
  await seedSales(server.database, organizationId, { customers: 10_000, orders: count });
  // Vacuumed as autovacuum leaves a table whose rows have settled: the keyset index alone then
  // answers where each batch ends, without visiting the rows.
  await server.database.rows(sql`vacuum analyze`);
  process.stdout.write(
    `seeded ${count} orders in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  const client = server.database.client!;
  const copy = `copy (
      select c.email, o.created_at, p.name, o.net_amount, o.currency, o.status, o.id
      from orders o join customers c on c.id = o.customer_id left join products p on p.id = o.product_id
      where o.organization_id = '${organizationId}'
      order by o.created_at desc, o.id desc
    ) to stdout (format csv, header)`;

  async function viaCopy(): Promise<{ bytes: number; rows: number }> {
    const stream = await client.unsafe(copy).readable();
    let bytes = 0;
    let rows = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++;
    }
    return { bytes, rows: rows - 1 };
  }

  let peak = 0;
  /**
   * The export fetched by a separate process, as a real client is: its reading is not charged to
   * the server's event loop. Timed by the client from the request to the last byte.
   */
  async function viaHttp(encoding: "identity" | "gzip"): Promise<Fetched> {
    const child = spawn(process.execPath, ["--input-type=module", "-e", CLIENT], {
      env: { URL: `${server.url}/v1/orders/export`, TOKEN: seller.token, ENCODING: encoding },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const [code] = (await once(child, "exit")) as [number];
    if (code !== 0) throw new Error(`the export client exited with ${code}`);
    return JSON.parse(out) as Fetched;
  }

  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const best = { copy: Infinity, till: Infinity, gzip: Infinity };
  let rssBefore = 0;
  let gzipBytes = 0;
  for (let run = 1; run <= runs; run++) {
    t0 = performance.now();
    const c = await viaCopy();
    const copyMs = performance.now() - t0;
    global.gc?.();
    rssBefore = process.memoryUsage.rss();
    peak = rssBefore;
    const h = await viaHttp("identity");
    const z = await viaHttp("gzip");
    best.copy = Math.min(best.copy, copyMs);
    best.till = Math.min(best.till, h.ms);
    best.gzip = Math.min(best.gzip, z.ms);
    gzipBytes = z.wireBytes;
    process.stdout.write(
      `run ${run}: COPY ${c.rows} rows ${mb(c.bytes)} in ${copyMs.toFixed(0)} ms; ` +
        `till ${h.rows} rows ${mb(h.bytes)} in ${h.ms.toFixed(0)} ms, ` +
        `gzipped ${mb(z.wireBytes)} in ${z.ms.toFixed(0)} ms; ` +
        `RSS ${mb(rssBefore)} before, peak ${mb(peak)} during\n`,
    );
    if (h.rows !== count || z.rows !== count || c.rows !== count)
      throw new Error("row counts differ");
  }
  clearInterval(sampler);
  const rate = (ms: number) => `${((count / ms) * 1000).toFixed(0)} rows/s`;
  process.stdout.write(
    `\norders export, ${count} rows (best of ${runs}):\n` +
      `  PostgreSQL COPY TO STDOUT: ${rate(best.copy)}\n` +
      `  till GET /v1/orders/export: ${rate(best.till)}\n` +
      `  ratio till/COPY: ${(best.copy / best.till).toFixed(2)}× (goal ≥ 0.5×)\n` +
      `  gzipped (Accept-Encoding: gzip, ${mb(gzipBytes)} on the wire): ${rate(best.gzip)}, ` +
      `${(best.copy / best.gzip).toFixed(2)}× COPY\n` +
      `  server process RSS: ${mb(rssBefore)} before the last export, peak ${mb(peak)} during\n`,
  );
} finally {
  await server.stop();
  await dropDatabase(values.pg!, name);
}
