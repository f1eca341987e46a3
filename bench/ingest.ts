// Events/s through POST /v1/events/ingest (till's full chain: token auth, zod validation, customer
// resolution, one INSERT … ON CONFLICT DO NOTHING per batch) beside a reference server — bare
// node:http parsing the same JSON and running one multi-row INSERT … ON CONFLICT DO NOTHING into the
// same events table with the same indexes. Each server runs in its own process; rounds interleave.
// Run on PostgreSQL (a fresh database created and dropped here) and on PGlite (each server its own
// data dir: PGlite is in-process and cannot be shared).
// Rollups on vs off in the same run: the organization has meters, and in the "till+rollups" rounds the
// till process also runs a meter rollup tick every --tick-ms (what the worker's job does, more
// often), consuming that round's events; goal: till+rollups >= 0.80x till without them.
//
//   node bench/ingest.ts [--rounds 3] [--seconds 10] [--connections 50] [--batch 100]
//                        [--pg postgres://postgres@127.0.0.1:5432/postgres] [--only postgres|pglite]
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    serve: { type: "string" },
    db: { type: "string" },
    org: { type: "string" },
    port: { type: "string", default: "0" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    batch: { type: "string", default: "100" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    only: { type: "string" },
    "tick-ms": { type: "string", default: "1000" },
  },
});

interface IngestEvent {
  name: string;
  external_customer_id: string;
  external_id?: string;
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

// ---- servers (child processes) ----

async function serveTill(db: string, port: string): Promise<void> {
  const { loadConfig } = await import("../server/config.ts");
  const { start } = await import("../server/main.ts");
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-ingest-"));
  // BASE_URL matches the address the seller is created through, so better-auth trusts its Origin.
  const env: Record<string, string> = {
    PORT: port,
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: "b".repeat(40),
    TILL_PAYMENTS: "none",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    TILL_DATA_DIR: dir,
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
  };
  if (db !== "pglite") env.DATABASE_URL = db;
  const server = await start(loadConfig({ command: "serve", env, cwd: dir }), { worker: false });
  // The driver turns the rollup ticker on and off (POST /on, /off, /catch-up) on a control port.
  const { refreshRollups } = await import("../server/modules/meters/rollups.ts");
  // On PostgreSQL the ticker has its own connection, as the worker process would; PGlite is one
  // in-process connection shared with the API, as in `till dev`.
  const { openDb } = await import("../db/client.ts");
  const tickDb =
    db === "pglite"
      ? server.database.db
      : (await openDb({ kind: "postgres", url: db, poolSize: 1 })).db;
  const http = await import("node:http");
  const tickMs = Number(values["tick-ms"]);
  let ticking = false;
  let ticks = 0;
  let tickMsTotal = 0;
  const loop = async () => {
    while (ticking) {
      const t0 = performance.now();
      await refreshRollups(tickDb);
      ticks++;
      tickMsTotal += performance.now() - t0;
      await new Promise((r) => setTimeout(r, Math.max(0, tickMs - (performance.now() - t0))));
    }
  };
  let running: Promise<void> = Promise.resolve();
  const control = http.createServer(async (req, res) => {
    if (req.url === "/on" && !ticking) {
      ticking = true;
      ticks = 0;
      tickMsTotal = 0;
      running = loop();
    } else if (req.url === "/off") {
      ticking = false;
      await running;
    } else if (req.url === "/catch-up") {
      await refreshRollups(tickDb);
    }
    res.end(JSON.stringify({ ticks, tickMs: ticks ? tickMsTotal / ticks : 0 }));
  });
  control.listen(0, "127.0.0.1", () => {
    process.stderr.write(`CONTROL ${(control.address() as { port: number }).port}\n`);
    process.stderr.write(`PORT ${port}\n`);
  });
}

async function freePort(): Promise<string> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(String(port)));
    });
  });
}

/** The reference: no framework, no auth, no validation beyond JSON.parse; one INSERT per batch. */
/**
 * One batch as COPY's binary format: the PGCOPY header, per row a field count and each field as a
 * length and its binary value (uuid 16 bytes, text UTF-8, timestamptz microseconds since 2000, jsonb
 * a version byte and the JSON text), then the trailer.
 */
function copyBinary(rows: unknown[][]): Buffer {
  const parts: Buffer[] = [
    Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"),
    Buffer.alloc(8), // flags and header extension length: 0
  ];
  const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
  const field = (b: Buffer | null) => {
    const len = Buffer.alloc(4);
    len.writeInt32BE(b ? b.length : -1);
    parts.push(len);
    if (b) parts.push(b);
  };
  for (const r of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(r.length);
    parts.push(count);
    const [org, name, source, timestamp, ingestedAt, customer, externalId, metadata] =
      r as string[];
    field(Buffer.from(org!.replace(/-/g, ""), "hex"));
    field(Buffer.from(name!, "utf8"));
    field(Buffer.from(source!, "utf8"));
    for (const ts of [timestamp!, ingestedAt!]) {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(Date.parse(ts) - PG_EPOCH_MS) * 1000n);
      field(b);
    }
    field(customer ? Buffer.from(customer, "utf8") : null);
    field(externalId ? Buffer.from(externalId, "utf8") : null);
    field(Buffer.concat([Buffer.from([1]), Buffer.from(metadata!, "utf8")]));
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  return Buffer.concat(parts);
}

async function serveReference(db: string, organizationId: string, copy = false): Promise<void> {
  const http = await import("node:http");
  let insert: (rows: unknown[][]) => Promise<number>;
  const COLS = [
    "organization_id",
    "name",
    "source",
    "timestamp",
    "ingested_at",
    "external_customer_id",
    "external_id",
    "metadata",
  ];
  if (db === "pglite") {
    const { openDb, migrate } = await import("../db/client.ts");
    const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-ref-"));
    const database = await openDb({ kind: "pglite", dataDir: dir });
    await migrate(database);
    const pg = database.pglite!;
    await pg.query(
      "insert into organization (id, name, slug, created_at) values ($1, 'ref', $2, now())",
      [organizationId, `ref-${organizationId}`],
    );
    insert = async (rows) => {
      const params: unknown[] = [];
      const tuples = rows.map((r) => `(${r.map((v) => `$${params.push(v)}`).join(", ")})`);
      const res = await pg.query(
        `insert into events (${COLS.join(", ")}) values ${tuples.join(", ")} on conflict do nothing returning id`,
        params,
      );
      return res.rows.length;
    };
  } else {
    const { default: postgres } = await import("postgres");
    const sql = postgres(db, { max: 10, onnotice: () => {} });
    const { pipeline } = await import("node:stream/promises");
    const { Readable } = await import("node:stream");
    // COPY … FROM STDIN (FORMAT binary) into the same table and indexes (no ON CONFLICT: the
    // bench's external ids never repeat).
    // At most `max` COPYs at once: postgres.js leaves a COPY waiting for a busy pool hanging.
    let active = 0;
    const waiting: (() => void)[] = [];
    const slot = async () => {
      while (active >= 10) await new Promise<void>((r) => waiting.push(r));
      active++;
    };
    const free = () => {
      active--;
      waiting.shift()?.();
    };
    insert = copy
      ? async (rows) => {
          await slot();
          try {
            const writable = await sql
              .unsafe(`copy events (${COLS.join(", ")}) from stdin (format binary)`)
              .writable();
            await pipeline(Readable.from([copyBinary(rows)]), writable);
          } finally {
            free();
          }
          return rows.length;
        }
      : async (rows) => {
          const res =
            await sql`insert into events ${sql(rows.map((r) => Object.fromEntries(COLS.map((c, i) => [c, r[i]]))) as never, ...COLS)} on conflict do nothing returning id`;
          return res.length;
        };
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const { events } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          events: IngestEvent[];
        };
        const now = new Date().toISOString();
        const rows = events.map((e) => [
          organizationId,
          e.name,
          "user",
          e.timestamp ?? now,
          now,
          e.external_customer_id,
          e.external_id ?? null,
          JSON.stringify(e.metadata ?? {}),
        ]);
        const inserted = await insert(rows);
        const body = JSON.stringify({ inserted, duplicates: rows.length - inserted });
        res
          .writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          })
          .end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
  });
  server.listen(0, "127.0.0.1", () =>
    process.stderr.write(`PORT ${(server.address() as { port: number }).port}\n`),
  );
}

// ---- driver ----

interface Target {
  name: string;
  child: ChildProcess;
  base: string;
  control: string | null;
}

async function launch(name: string, args: string[]): Promise<Target> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr = { text: "" };
  const port = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr.text += d.toString();
      const m = /PORT (\d+)/.exec(stderr.text);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${stderr.text}`)));
  });
  const control = /CONTROL (\d+)/.exec(stderr.text)?.[1];
  return {
    name,
    child,
    base: `http://127.0.0.1:${port}`,
    control: control ? `http://127.0.0.1:${control}` : null,
  };
}

/** One body per request: autocannon replaces [<id>] with a fresh id, so external_ids never repeat. */
function batchBody(size: number): string {
  const events: IngestEvent[] = Array.from({ length: size }, (_, i) => ({
    name: i % 5 === 0 ? "login" : "api_call",
    external_customer_id: `usr_${i % 37}`,
    external_id: `[<id>]-${i}`,
    metadata: { tokens: (i * 7) % 100, model: i % 2 ? "small" : "large", region: "eu" },
  }));
  return JSON.stringify({ events });
}

interface Sample {
  eventsPerSecond: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  token: string | null,
  seconds: number,
  connections: number,
  batch: number,
): Promise<Sample> {
  const result = await autocannon({
    url,
    method: "POST",
    connections,
    duration: seconds,
    idReplacement: true,
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: batchBody(batch),
  });
  return {
    eventsPerSecond: result.requests.average * batch,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function seller(base: string): Promise<{ token: string; organizationId: string }> {
  const { createSeller } = await import("../test/helpers/auth.ts");
  const s = await createSeller(base, ["events:write", "customers:write", "meters:write"]);
  // Meters for the rollup rounds: a count, a sum and a max behind a metadata filter.
  const names = (extra: object[] = []) => ({
    conjunction: "and",
    clauses: [{ property: "name", operator: "eq", value: "api_call" }, ...extra],
  });
  for (const meter of [
    { name: "calls", filter: names(), aggregation: { func: "count" } },
    { name: "tokens", filter: names(), aggregation: { func: "sum", property: "tokens" } },
    {
      name: "largest eu",
      filter: names([{ property: "region", operator: "eq", value: "eu" }]),
      aggregation: { func: "max", property: "tokens" },
    },
  ]) {
    const res = await fetch(`${base}/v1/meters/`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.token}` },
      body: JSON.stringify(meter),
    });
    if (res.status !== 201) throw new Error(`meter: ${res.status} ${await res.text()}`);
  }
  return { token: s.token, organizationId: s.organization.id };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function runOn(
  kind: "postgres" | "pglite",
  rounds: number,
  seconds: number,
  connections: number,
  batch: number,
): Promise<string> {
  let dbArg = "pglite";
  let drop: (() => Promise<void>) | null = null;
  if (kind === "postgres") {
    const { createDatabase, dropDatabase } = await import("../test/helpers/db.ts");
    const { databaseUrl } = await import("../test/helpers/template.ts");
    const name = `till_bench_ingest_${randomBytes(4).toString("hex")}`;
    await createDatabase(values.pg!, name);
    dbArg = databaseUrl(values.pg!, name);
    drop = () => dropDatabase(values.pg!, name);
  }
  const targets: Target[] = [];
  try {
    const till = await launch("till", [
      "--serve",
      "till",
      "--db",
      dbArg,
      "--port",
      await freePort(),
    ]);
    targets.push(till);
    const { token, organizationId } = await seller(till.base);
    targets.push(
      await launch("reference", ["--serve", "ref", "--db", dbArg, "--org", organizationId]),
    );
    if (kind === "postgres")
      targets.push(
        await launch("copy", ["--serve", "copy", "--db", dbArg, "--org", organizationId]),
      );
    const urls: Record<string, string> = {
      till: `${till.base}/v1/events/ingest`,
      "till+rollups": `${till.base}/v1/events/ingest`,
      reference: `${targets[1]!.base}/ingest`,
      copy: `${targets[2]?.base}/ingest`,
    };
    const samples: Record<string, Sample[]> = {
      till: [],
      "till+rollups": [],
      reference: [],
      copy: [],
    };
    const control = (what: string) => fetch(`${till.control}/${what}`, { method: "POST" });
    for (const t of targets) await load(urls[t.name]!, token, 1, connections, batch); // warm-up
    await control("catch-up");
    for (let r = 1; r <= rounds; r++) {
      for (const name of ["till", "till+rollups", "reference", ...(targets[2] ? ["copy"] : [])]) {
        // Each rollups round starts caught up, so it consumes its own events only.
        if (name === "till+rollups") {
          await control("catch-up");
          await control("on");
        }
        const s = await load(
          urls[name]!,
          name === "reference" || name === "copy" ? null : token,
          seconds,
          connections,
          batch,
        );
        let note = "";
        if (name === "till+rollups") {
          const { ticks, tickMs } = (await (await control("off")).json()) as {
            ticks: number;
            tickMs: number;
          };
          note = `  (${ticks} rollup ticks, ${tickMs.toFixed(0)} ms each)`;
        }
        samples[name]!.push(s);
        process.stdout.write(
          `${kind} round ${r} ${name.padEnd(13)} ${s.eventsPerSecond.toFixed(0).padStart(8)} events/s  p99 ${s.p99} ms  errors ${s.errors}${note}\n`,
        );
      }
    }
    const withRollups = samples["till+rollups"]!.map(
      (s, i) => s.eventsPerSecond / samples.till![i]!.eventsPerSecond,
    );
    const ratios = samples.till!.map(
      (s, i) => s.eventsPerSecond / samples.reference![i]!.eventsPerSecond,
    );
    return (
      `${kind.padEnd(9)} till ${median(samples.till!.map((s) => s.eventsPerSecond))
        .toFixed(0)
        .padStart(7)} ev/s` +
      `  reference ${median(samples.reference!.map((s) => s.eventsPerSecond))
        .toFixed(0)
        .padStart(7)} ev/s` +
      `  ratio min ${Math.min(...ratios).toFixed(2)} median ${median(ratios).toFixed(2)} max ${Math.max(...ratios).toFixed(2)}` +
      `  p99 till ${median(samples.till!.map((s) => s.p99))} ms / ref ${median(samples.reference!.map((s) => s.p99))} ms\n` +
      `${"".padEnd(9)} till+rollups ${median(samples["till+rollups"]!.map((s) => s.eventsPerSecond))
        .toFixed(0)
        .padStart(
          7,
        )} ev/s  rollups on / off min ${Math.min(...withRollups).toFixed(2)} median ${median(withRollups).toFixed(2)} max ${Math.max(...withRollups).toFixed(2)} (goal >= 0.80)` +
      (samples.copy!.length > 0
        ? `\n${"".padEnd(9)} COPY binary reference ${median(
            samples.copy!.map((s) => s.eventsPerSecond),
          )
            .toFixed(0)
            .padStart(
              7,
            )} ev/s  till / COPY median ${median(samples.till!.map((s, i) => s.eventsPerSecond / samples.copy![i]!.eventsPerSecond)).toFixed(2)}`
        : "")
    );
  } finally {
    for (const t of targets) t.child.kill("SIGTERM");
    await Promise.all(
      targets.map(
        (t) => new Promise((r) => (t.child.exitCode !== null ? r(null) : t.child.once("exit", r))),
      ),
    );
    await drop?.();
  }
}

async function main(): Promise<void> {
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const batch = Number(values.batch);
  const kinds = (values.only ? [values.only] : ["postgres", "pglite"]) as ("postgres" | "pglite")[];
  const lines: string[] = [];
  for (const kind of kinds) lines.push(await runOn(kind, rounds, seconds, connections, batch));
  process.stdout.write(
    `\nPOST /v1/events/ingest, ${batch}-event batches, ${connections} connections, ${seconds} s x ${rounds} rounds (interleaved)\n`,
  );
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write("goal: till >= 0.50x the reference on each database\n");
}

if (values.serve === "till") await serveTill(values.db!, values.port!);
else if (values.serve === "ref") await serveReference(values.db!, values.org!);
else if (values.serve === "copy") await serveReference(values.db!, values.org!, true);
else await main();
