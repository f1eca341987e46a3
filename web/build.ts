// Builds the pages (web/dist) and the embed script with Vite, only when their sources changed:
// a hash of every source, both Vite configs and the lock file is kept in web/dist/.build-stamp,
// so `npm start` (prestart) costs a hash, not a 13 s build. `--force` builds regardless.
//
//   node web/build.ts [--force]
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const root = path.resolve(import.meta.dirname, "..");
const dist = path.join(root, "web", "dist");
const stampFile = path.join(dist, ".build-stamp");
// What the server serves; a build that left any of them out is not trusted.
const OUTPUTS = ["index.html", "checkout.html", "portal.html", "demo.html", "embed/embed.js"];

function sources(): string[] {
  const files = ["vite.config.ts", "vite.embed.config.ts", "package-lock.json"];
  for (const dir of ["web/src", "embed"]) {
    for (const entry of readdirSync(path.join(root, dir), {
      recursive: true,
      withFileTypes: true,
    })) {
      if (!entry.isFile() || /\.test\.tsx?$/.test(entry.name)) continue;
      files.push(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  for (const name of readdirSync(path.join(root, "web"))) {
    if (name.endsWith(".html")) files.push(path.join("web", name));
  }
  return files.sort();
}

/** One hash over every source's path and bytes. */
function sourceHash(): string {
  const hash = createHash("sha256");
  for (const file of sources()) {
    hash.update(`${file.split(path.sep).join("/")}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

function upToDate(hash: string): boolean {
  if (!existsSync(stampFile)) return false;
  if (readFileSync(stampFile, "utf8").trim() !== hash) return false;
  return OUTPUTS.every((file) => existsSync(path.join(dist, file)));
}

async function build(): Promise<void> {
  const { build: viteBuild } = await import("vite");
  await viteBuild({ configFile: path.join(root, "vite.config.ts"), logLevel: "warn" });
  const embed = path.join(root, "vite.embed.config.ts");
  await viteBuild({ configFile: embed, logLevel: "warn" });
  await viteBuild({ configFile: embed, logLevel: "warn", mode: "es" });
}

const { values } = parseArgs({ options: { force: { type: "boolean", default: false } } });
const hash = sourceHash();
if (!values.force && upToDate(hash)) {
  process.stdout.write("pages up to date (web/dist)\n");
} else {
  const t0 = performance.now();
  await build();
  writeFileSync(stampFile, `${hash}\n`);
  process.stdout.write(`pages built in ${Math.round(performance.now() - t0)} ms (web/dist)\n`);
}
