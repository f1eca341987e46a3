// GET /healthz through till's full production chain (request id, access log, bearer parsing, JSON
// parser, error handler) beside a bare four-line Express 5 app and a bare node:http server, each in
// its own process, interleaved over several rounds. Prints req/s and p99 with ratios to baseline.
//
//   node bench/http.ts [--rounds 3] [--seconds 10] [--connections 50]
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    serve: { type: "string" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
  },
});

const BODY = JSON.stringify({ status: "ok" });

async function serve(kind: string): Promise<void> {
  if (kind === "node") {
    const http = await import("node:http");
    const server = http.createServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(BODY),
      });
      res.end(BODY);
    });
    server.listen(0, "127.0.0.1", () => announce(server.address()));
  } else if (kind === "express") {
    const { default: express } = await import("express");
    const app = express();
    app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
    const server = app.listen(0, "127.0.0.1", () => announce(server.address()));
  } else {
    const { loadConfig } = await import("../server/config.ts");
    const { start } = await import("../server/main.ts");
    const config = loadConfig({
      command: "serve",
      env: {
        PORT: "0",
        HOST: "127.0.0.1",
        AUTH_SECRET: "b".repeat(40),
        TILL_PAYMENTS: "none",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
      },
      cwd: mkdtempSync(path.join(os.tmpdir(), "till-bench-")),
    });
    const server = await start(config, { worker: false });
    process.stderr.write(`PORT ${new URL(server.url).port}\n`);
  }
}

function announce(address: unknown): void {
  process.stderr.write(`PORT ${(address as { port: number }).port}\n`);
}

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
}

async function launch(name: string): Promise<Target> {
  const self = fileURLToPath(import.meta.url);
  // The till server's access log goes to stdout like in production; it is discarded here.
  const child = spawn(process.execPath, [self, "--serve", name], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /PORT (\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${err}`)));
  });
  return { name, child, url: `http://127.0.0.1:${port}/healthz` };
}

interface Sample {
  rps: number;
  p99: number;
  errors: number;
}

async function load(url: string, seconds: number, connections: number): Promise<Sample> {
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 0) => n.toFixed(d).padStart(9);

async function main(): Promise<void> {
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const targets = [await launch("till"), await launch("express"), await launch("node")];
  const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
  try {
    for (const t of targets) await load(t.url, 1, connections); // warm-up
    for (let r = 1; r <= rounds; r++) {
      for (const t of targets) {
        const s = await load(t.url, seconds, connections);
        samples.get(t.name)!.push(s);
        process.stdout.write(
          `round ${r} ${t.name.padEnd(8)} ${fmt(s.rps)} req/s  p99 ${s.p99} ms  errors ${s.errors}\n`,
        );
      }
    }
  } finally {
    for (const t of targets) t.child.kill("SIGTERM");
  }

  const till = samples.get("till")!;
  process.stdout.write(
    `\nGET /healthz, ${connections} connections, ${seconds} s x ${rounds} rounds (interleaved)\n`,
  );
  process.stdout.write(
    `${"server".padEnd(10)}${"median rps".padStart(12)}${"median p99".padStart(12)}\n`,
  );
  for (const [name, s] of samples) {
    process.stdout.write(
      `${name.padEnd(10)}${fmt(median(s.map((x) => x.rps)), 0).padStart(12)}${`${median(s.map((x) => x.p99))} ms`.padStart(12)}\n`,
    );
  }
  for (const base of ["express", "node"]) {
    const b = samples.get(base)!;
    const rps = till.map((s, i) => s.rps / b[i]!.rps);
    const p99 = till.map((s, i) => s.p99 / Math.max(b[i]!.p99, 1));
    process.stdout.write(
      `till / ${base.padEnd(8)} rps ratio min ${Math.min(...rps).toFixed(2)} median ${median(rps).toFixed(2)} max ${Math.max(...rps).toFixed(2)}` +
        `   p99 ratio min ${Math.min(...p99).toFixed(2)} median ${median(p99).toFixed(2)} max ${Math.max(...p99).toFixed(2)}\n`,
    );
  }
  process.stdout.write("goal: rps >= 0.80x bare Express, p99 <= 1.5x bare Express\n");
}

if (values.serve) await serve(values.serve);
else await main();
