import { readFileSync } from "node:fs";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { seedSales, type SeededSales } from "../../../test/helpers/sales.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { customerExportQuery, orderExportQuery, subscriptionExportQuery } from "./schemas.ts";
import {
  customersCsv,
  ordersCsv,
  subscriptionsCsv,
  writeCsv,
  type CsvExport,
  type ExportDeps,
} from "./service.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
let sales: SeededSales;
const SCOPES = ["customers:read", "orders:read", "subscriptions:read"];

beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, SCOPES);
  other = await createSeller(t.url, SCOPES);
  sales = await seedSales(t.server.database, seller.organization.id, {
    customers: 30,
    orders: 12_345,
    subscriptions: 7,
    until: new Date("2026-06-01T00:00:00Z"),
  });
  await seedSales(t.server.database, other.organization.id, { customers: 2, orders: 3 });
}, 60_000);
afterAll(() => t.stop());

const lines = (csv: string) => csv.split("\r\n").slice(0, -1);

async function csvOf(path: string, token = seller.token) {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get("content-type"), res, text: await res.text() };
}

describe("exports through @polar-sh/sdk", () => {
  it("exports customers, orders and subscriptions as Polar's CSV files", async () => {
    const polar = polarClient(t, seller.token);
    const customers = lines(String(await polar.customers.export({})));
    expect(customers[0]).toBe(
      "ID,External ID,Created At,Email,Name,Tax ID,Billing Address Line 1,Billing Address Line 2," +
        "Billing Address City,Billing Address State,Billing Address Zip,Billing Address Country,Metadata",
    );
    expect(customers).toHaveLength(31);
    // Newest first: buyer1 was created a minute before `until`.
    expect(customers[1]).toBe(
      `${sales.customerIds[0]},,2026-05-31T23:59:00.000000+00:00,buyer1@example.com,Buyer 1,,,,,,,,`,
    );

    const orders = lines(String(await polar.orders.export({})));
    expect(orders[0]).toBe("Email,Created At,Product,Net Amount,Currency,Status,Invoice number");
    expect(orders).toHaveLength(12_346);
    expect(orders[1]).toMatch(
      /^buyer\d+@example\.com,2026-05-31T23:59:00\.000000\+00:00,Pro plan,10\.01,usd,paid,SALES-\d{5}$/,
    );
    // Keyset batches neither skip nor repeat a row.
    expect(new Set(orders.slice(1).map((l) => l.split(",")[1])).size).toBe(12_345);

    const subs = lines(String(await polar.subscriptions.export({})));
    expect(subs[0]).toBe("Email,Started At,Product,Amount,Currency,Status,Billing Interval");
    expect(subs).toHaveLength(8);
    expect(subs[1]).toMatch(/,2026-05-31T00:00:00\.000000\+00:00,Pro plan,9\.0,usd,active,month$/);
  });
});

describe("exports over HTTP", () => {
  it("gzips the file for a client that takes gzip, and a client gone mid-file costs nothing", async () => {
    const get = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          `${t.url}/v1/orders/export`,
          { headers: { authorization: `Bearer ${seller.token}`, "accept-encoding": encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on("error", reject);
      });
    const plain = await get("identity");
    const zipped = await get("gzip, deflate, br");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(plain.body.toString("utf8").split("\r\n")).toHaveLength(12_347);

    // Read a little, then hang up: the server stops writing and keeps answering.
    await new Promise<void>((resolve) => {
      const req = http.get(
        `${t.url}/v1/orders/export`,
        { headers: { authorization: `Bearer ${seller.token}`, "accept-encoding": "gzip" } },
        (res) =>
          res.once("data", () => {
            req.destroy();
            resolve();
          }),
      );
    });
    expect((await csvOf("/v1/customers/export")).status).toBe(200);
  });

  it("answers text/csv as an attachment, with the list filters, columns and time zone", async () => {
    const r = await csvOf(
      `/v1/orders/export?status=refunded&created_after=2026-05-31T23:00:00Z&timezone=Asia/Kolkata` +
        `&columns=email&columns=created_at&columns=total_amount&columns=refunded_amount&columns=billing_reason`,
    );
    expect(r.status).toBe(200);
    expect(r.type).toBe("text/csv; charset=utf-8");
    expect(r.res.headers.get("content-disposition")).toBe(
      "attachment; filename=polar-orders-2026-06-01.csv",
    );
    const rows = lines(r.text);
    expect(rows[0]).toBe("Email,Created At,Total,Refunded Amount,Billing Reason");
    // Refunded: every tenth order, a minute apart; those less than an hour before June 1st.
    expect(rows.slice(1).map((l) => l.split(",")[1])).toEqual([
      "2026-06-01T05:20:00.000000+05:30",
      "2026-06-01T05:10:00.000000+05:30",
      "2026-06-01T05:00:00.000000+05:30",
      "2026-06-01T04:50:00.000000+05:30",
      "2026-06-01T04:40:00.000000+05:30",
    ]);
    expect(rows[1]).toMatch(/,12\.03,0\.0,purchase$/);
  });

  it("quotes text as Python's csv module does and renders metadata as JSON", async () => {
    const created = await api(t.url, "/v1/customers/", {
      token: (await createSeller(t.url, ["customers:write"])).token,
      body: { email: "quote@example.com", name: 'Ada "the first", Countess', metadata: { a: 1 } },
    });
    expect(created.status).toBe(201);
    await t.server.database.rows(sql`
      update customers set organization_id = ${seller.organization.id} where id = ${created.body.id}`);
    const r = await csvOf("/v1/customers/export");
    const row = lines(r.text).find((l) => l.includes("quote@example.com"));
    expect(row).toContain(`quote@example.com,"Ada ""the first"", Countess",`);
    expect(row).toMatch(/,"\{""a"": 1\}"$/);
    await t.server.database.rows(sql`delete from customers where id = ${created.body.id}`);
  });

  it("exports nothing of another organization, even when asked for it", async () => {
    const own = lines((await csvOf("/v1/orders/export", other.token)).text);
    expect(own).toHaveLength(4);
    const asked = await csvOf(
      `/v1/orders/export?organization_id=${seller.organization.id}`,
      other.token,
    );
    expect(asked.status).toBe(200);
    expect(lines(asked.text)).toEqual([
      "Email,Created At,Product,Net Amount,Currency,Status,Invoice number",
    ]);
    const product = await csvOf(
      `/v1/subscriptions/export?product_id=${sales.productId}`,
      other.token,
    );
    expect(lines(product.text)).toHaveLength(1);
  });

  it("rejects bad filters with 422 and a missing scope with 403", async () => {
    for (const [path, loc] of [
      ["/v1/orders/export?timezone=Mars/Olympus", ["query", "timezone"]],
      ["/v1/orders/export?timezone=-03:30", ["query", "timezone"]],
      ["/v1/orders/export?columns=password", ["query", "columns"]],
      ["/v1/subscriptions/export?status=paused", ["query", "status"]],
      ["/v1/subscriptions/export?started_after=yesterday", ["query", "started_after"]],
      ["/v1/customers/export?organization_id=acme", ["query", "organization_id"]],
    ] as const) {
      const res = await api(t.url, path, { token: seller.token });
      expect(res.status, path).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(loc);
    }
    const narrow = await createSeller(t.url, ["customers:read"]);
    expect((await api(t.url, "/v1/orders/export", { token: narrow.token })).status).toBe(403);
    expect((await api(t.url, "/v1/orders/export")).status).toBe(401);
  });
});

describe("literal path segments", () => {
  it("win over the /{id} route beside them for every GET of the contract", async () => {
    const contract = JSON.parse(
      readFileSync(
        new URL("../../../test/contract/polar-openapi-2026-10.json", import.meta.url),
        "utf8",
      ),
    ) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.keys(contract.paths);
    const literal = paths.filter((p) => {
      if (!contract.paths[p]!.get || p.includes("{")) return false;
      const parent = p.split("/").slice(0, -1).join("/");
      return paths.some((o) => o === `${parent}/{id}` && contract.paths[o]!.get);
    });
    expect(literal).toEqual(
      expect.arrayContaining(["/v1/customers/export", "/v1/orders/export", "/v1/events/names"]),
    );
    for (const p of literal) {
      const res = await api(t.url, p, { token: seller.token });
      const locs = Array.isArray(res.body?.detail)
        ? res.body.detail.map((d: { loc: string[] }) => d.loc.join("."))
        : [];
      expect(locs, p).not.toContain("path.id");
    }
  });
});

describe("batches", () => {
  // Each batch is one value of lines joined by the database: the bytes must not depend on where
  // the batches split, whatever the text holds.
  it("give the same bytes for any text, wherever the batches split", async () => {
    const database = t.server.database;
    const writer = await createSeller(t.url, [...SCOPES, "customers:write"]);
    const odd = [
      "back\\slash \\N",
      "tab\there",
      "line\nbreak\r\nand CRLF",
      'q"uote, comma',
      "ünï 𝄞",
    ];
    for (const [i, name] of odd.entries()) {
      const r = await api(t.url, "/v1/customers/", {
        token: writer.token,
        body: { email: `odd${i}@example.com`, name, metadata: { note: name } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const ctxOf = (organizationId: string): AuthContext => ({
      kind: "organization",
      userId: null,
      organizationIds: [organizationId],
      scopes: new Set(SCOPES),
      tokenId: null,
    });
    const ctx = ctxOf(seller.organization.id);
    const render = async (make: (deps: ExportDeps) => CsvExport, deps: ExportDeps) => {
      const chunks: string[] = [];
      const out = new Writable({
        write(chunk: Buffer, _enc, done) {
          chunks.push(chunk.toString("utf8"));
          done();
        },
      });
      await writeCsv(out, make(deps));
      return chunks.join("");
    };
    // Batch sizes that split each export's rows (30 customers, 12,345 orders, 7 subscriptions).
    const exports: [(deps: ExportDeps) => CsvExport, number[]][] = [
      [(deps) => customersCsv(deps, ctx, customerExportQuery.parse({})), [1, 7, 30, 1000]],
      [
        (deps) => customersCsv(deps, ctxOf(writer.organization.id), customerExportQuery.parse({})),
        [1, 2, 5],
      ],
      [
        (deps) =>
          ordersCsv(
            deps,
            ctx,
            orderExportQuery.parse({
              columns: ["email", "created_at", "product", "net_amount", "status", "invoice_number"],
              timezone: "Europe/Paris",
            }),
          ),
        [2000, 12_345, 20_000],
      ],
      [(deps) => subscriptionsCsv(deps, ctx, subscriptionExportQuery.parse({})), [2, 7]],
    ];
    for (const [make, sizes] of exports) {
      const whole = await render(make, { db: database.db, batchSize: 100_000 });
      for (const batchSize of sizes)
        expect(await render(make, { db: database.db, batchSize })).toBe(whole);
    }
    const customers = await render(exports[1]![0], { db: database.db, batchSize: 3 });
    expect(customers).toContain(',"line\nbreak\r\nand CRLF",');
    expect(customers).toContain(",back\\slash \\N,");
    expect(customers).toContain(",tab\there,");
  });
});
