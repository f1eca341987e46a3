#!/usr/bin/env node
// The one executable. It only checks the runtime and hands argv to the CLI: no logic lives here.
// Node strips TypeScript types natively from 22.18/23.6 on; older 22.x and installs under
// node_modules (where Node refuses to strip) load through tsx instead.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  // An older Node (20 on many machines) hands over to the Node 24 that npm installed beside till;
  // 22.15 is the first with module.registerHooks, which db/postgres-js-fix.ts needs.
  await runOnBundledNode();
} else {
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
}

async function runOnBundledNode() {
  const { createRequire } = await import("node:module");
  const { spawn } = await import("node:child_process");
  const { dirname, join } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const os = process.platform === "win32" ? "win" : process.platform;
  let bundled;
  try {
    const pkg = createRequire(import.meta.url).resolve(`node-${os}-${process.arch}/package.json`);
    bundled = join(dirname(pkg), "bin", process.platform === "win32" ? "node.exe" : "node");
  } catch {
    process.stderr.write(
      `till needs Node.js 22.15 or newer; this is ${process.version}, and npm installed no ` +
        `Node for ${process.platform}-${process.arch} beside till.\n`,
    );
    process.exit(1);
  }
  const script = fileURLToPath(import.meta.url);
  const child = spawn(bundled, [script, ...process.argv.slice(2)], { stdio: "inherit" });
  // Ctrl-C reaches the child from the terminal already; a second one would force its shutdown.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
