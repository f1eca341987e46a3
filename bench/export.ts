// The orders CSV export over HTTP beside PostgreSQL's own `COPY (SELECT …) TO STDOUT (FORMAT csv)`
// of the same columns, on the same database in the same run. Goal: till's rate ≥ 0.5× COPY's, with
// the server's memory flat (peak RSS during the export printed beside the RSS before it).
//
//   node bench/export.ts [--orders 1000000] [--runs 2] [--pg postgres://postgres@127.0.0.1:5432/postgres]
import { randomBytes } from "node:crypto";
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
  await server.database.rows(sql`analyze`);
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
      for (const b of chunk) if (b === 10) rows++;
    }
    return { bytes, rows: rows - 1 };
  }

  let peak = 0;
  async function viaHttp(): Promise<{ bytes: number; rows: number }> {
    const res = await fetch(`${server.url}/v1/orders/export`, {
      headers: { authorization: `Bearer ${seller.token}` },
    });
    if (res.status !== 200) throw new Error(`export answered ${res.status}`);
    let bytes = 0;
    let rows = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) rows++;
    }
    return { bytes, rows: rows - 1 };
  }

  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const best = { copy: Infinity, till: Infinity };
  let rssBefore = 0;
  for (let run = 1; run <= runs; run++) {
    t0 = performance.now();
    const c = await viaCopy();
    const copyMs = performance.now() - t0;
    global.gc?.();
    rssBefore = process.memoryUsage.rss();
    peak = rssBefore;
    t0 = performance.now();
    const h = await viaHttp();
    const tillMs = performance.now() - t0;
    best.copy = Math.min(best.copy, copyMs);
    best.till = Math.min(best.till, tillMs);
    process.stdout.write(
      `run ${run}: COPY ${c.rows} rows ${mb(c.bytes)} in ${copyMs.toFixed(0)} ms; ` +
        `till ${h.rows} rows ${mb(h.bytes)} in ${tillMs.toFixed(0)} ms; ` +
        `RSS ${mb(rssBefore)} before, peak ${mb(peak)} during\n`,
    );
    if (h.rows !== count || c.rows !== count) throw new Error("row counts differ");
  }
  clearInterval(sampler);
  const rate = (ms: number) => `${((count / ms) * 1000).toFixed(0)} rows/s`;
  process.stdout.write(
    `\norders export, ${count} rows (best of ${runs}):\n` +
      `  PostgreSQL COPY TO STDOUT: ${rate(best.copy)}\n` +
      `  till GET /v1/orders/export: ${rate(best.till)}\n` +
      `  ratio till/COPY: ${(best.copy / best.till).toFixed(2)}× (goal ≥ 0.5×)\n` +
      `  server process RSS: ${mb(rssBefore)} before the last export, peak ${mb(peak)} during\n`,
  );
} finally {
  await server.stop();
  await dropDatabase(values.pg!, name);
}
