// What the demo store costs `till dev` at start: wall time from spawning `till dev` to its ready
// banner with the demo on (the default) beside TILL_DEMO=false, on the same migrated data dir,
// interleaved, median of several runs each. Also the first request to /demo, which loads the store,
// and `npm start` itself (its prestart check of the built pages, npm, then till dev) to ready.
//
//   node bench/dev-start.ts [--runs 7]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const runs = Number(values.runs);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const till = path.join(root, "bin", "till.js");
const cwd = mkdtempSync(path.join(os.tmpdir(), "till-bench-dev-"));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns `till dev`, resolves with the ms until its banner and a stop function. */
async function startDev(
  demo: boolean,
  viaNpm = false,
): Promise<{ ms: number; url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: cwd,
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: "warn",
    TILL_DEMO: String(demo),
    TILL_DATA_DIR: path.join(cwd, ".till"),
  };
  const t0 = performance.now();
  // npm start runs in the project; its own process group, so stopping reaches npm's children too.
  const child = viaNpm
    ? spawn("npm", ["start", "--silent"], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      })
    : spawn(process.execPath, [till, "dev"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (/Ready\s+http/.test(out)) resolve(performance.now() - t0);
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
    });
    void exited.then(() => reject(new Error(`till dev exited:\n${out}`)));
  });
  return {
    ms,
    url: `http://localhost:${port}`,
    stop: async () => {
      if (viaNpm && child.pid) process.kill(-child.pid, "SIGTERM");
      else child.kill("SIGTERM");
      await exited;
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The first start creates the database and seeds the demo; not counted.
const first = await startDev(true);
const t0 = performance.now();
const firstDemo = await fetch(`${first.url}/demo/api/auth/get-session`);
const loadMs = performance.now() - t0;
if (firstDemo.status !== 200)
  throw new Error(`GET /demo/api/auth/get-session answered ${firstDemo.status}`);
const t1 = performance.now();
await fetch(`${first.url}/demo/api/auth/get-session`);
const warmMs = performance.now() - t1;
await first.stop();

const samples = { on: [] as number[], off: [] as number[], npm: [] as number[] };
for (let i = 0; i < runs; i++) {
  for (const demo of i % 2 ? [true, false] : [false, true]) {
    const s = await startDev(demo);
    samples[demo ? "on" : "off"].push(s.ms);
    await s.stop();
  }
  const s = await startDev(true, true);
  samples.npm.push(s.ms);
  await s.stop();
}
rmSync(cwd, { recursive: true, force: true });

const on = median(samples.on);
const off = median(samples.off);
console.log(`till dev to ready, migrated data dir (median of ${runs}):`);
console.log(`  samples on  ${samples.on.map((x) => x.toFixed(0)).join(" ")}`);
console.log(`  samples off ${samples.off.map((x) => x.toFixed(0)).join(" ")}`);
console.log(`  demo on (default)   ${on.toFixed(0)} ms`);
console.log(`  TILL_DEMO=false     ${off.toFixed(0)} ms   (baseline)`);
console.log(`  ratio               ${(on / off).toFixed(3)}`);
const npm = median(samples.npm);
console.log(`npm start to ready, same data dir (median of ${runs}):`);
console.log(`  samples     ${samples.npm.map((x) => x.toFixed(0)).join(" ")}`);
console.log(
  `  npm start           ${npm.toFixed(0)} ms   (target < 3000 ms; till dev alone ${on.toFixed(0)} ms)`,
);
console.log(`  ratio to till dev   ${(npm / on).toFixed(3)}`);
console.log(
  `first request to /demo (loads the store): ${loadMs.toFixed(0)} ms; the next one: ${warmMs.toFixed(0)} ms`,
);
