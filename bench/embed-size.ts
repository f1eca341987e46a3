// Size of the overlay script a seller's page loads: till's classic embed script (web/dist/embed/
// embed.js, built by `npm run build:web`) beside @polar-sh/checkout's embed.global.js, raw and
// gzipped (level 9, what a CDN or `express.static` with compression would send), with the ratio.
//
//   npm run build:web && node bench/embed-size.ts
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tillFile = path.join(root, "web", "dist", "embed", "embed.js");
if (!existsSync(tillFile)) {
  console.error("web/dist/embed/embed.js is missing: run npm run build:web first.");
  process.exit(1);
}
// The package's exports map lists neither package.json nor the global build: resolve its embed
// entry (dist/embed.*) and step up to the package folder.
const require = createRequire(import.meta.url);
const polarDir = path.resolve(path.dirname(require.resolve("@polar-sh/checkout/embed")), "..");
const polarVersion = (
  JSON.parse(readFileSync(path.join(polarDir, "package.json"), "utf8")) as { version: string }
).version;
const polarFile = path.join(polarDir, "dist", "embed.global.js");

function sizes(file: string) {
  const bytes = readFileSync(file);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

const tillSize = sizes(tillFile);
const polarSize = sizes(polarFile);
const kb = (n: number) => `${(n / 1024).toFixed(2)} KiB`;
const rows: [string, { raw: number; gzip: number }][] = [
  ["till embed.js", tillSize],
  [`@polar-sh/checkout@${polarVersion} embed.global.js`, polarSize],
];
const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, s] of rows)
  console.log(
    `${label.padEnd(width)}  raw ${kb(s.raw).padStart(10)}  gzip ${kb(s.gzip).padStart(10)} (${s.gzip} B)`,
  );
console.log(
  `ratio till / polar (gzip): ${(tillSize.gzip / polarSize.gzip).toFixed(3)}  (raw ${(tillSize.raw / polarSize.raw).toFixed(3)})`,
);
