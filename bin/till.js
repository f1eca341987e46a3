#!/usr/bin/env node
// The one executable. It only checks the runtime and hands argv to the CLI: no logic lives here.
// Node strips TypeScript types natively from 22.18/23.6 on; older 22.x and installs under
// node_modules (where Node refuses to strip) load through tsx instead.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`till needs Node.js 22.12 or newer; this is ${process.version}.\n`);
  process.exit(1);
}
const entry = new URL("../cli/main.ts", import.meta.url);
const native = process.features.typescript && !entry.pathname.includes("/node_modules/");
if (native) {
  const { enableCompileCache } = await import("node:module");
  enableCompileCache?.();
  await import(entry.href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport(entry.href, import.meta.url);
}
