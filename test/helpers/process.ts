// Runs the real `till` executable as a child process, the way a user or CI would.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const tillBin = path.join(repoRoot, "bin", "till.js");

export function tempDir(prefix = "till-"): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs `till ...args` to completion with a clean environment plus `env`. */
export function runTill(args: string[], env: Record<string, string> = {}, cwd = tempDir()) {
  return execa(process.execPath, [tillBin, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd, ...env },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
}

export interface SpawnedServer {
  url: string;
  child: ResultPromise;
  output(): string;
}

/**
 * Starts `till ...args` and resolves with the first match of `ready` in its output (within 60 s).
 * Wrapped in an object: an async function returning the child itself would wait for it to exit.
 */
async function startTill(
  what: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  ready: RegExp,
): Promise<{ child: ResultPromise; match: RegExpExecArray; output(): string }> {
  const child = execa(process.execPath, [tillBin, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? cwd,
      LOG_FORMAT: "json",
      ...env,
    },
    extendEnv: false,
    reject: false,
    buffer: true,
    all: true,
  });
  let output = "";
  child.all?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 60_000);
    const onData = () => {
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        child.all?.off("data", onData);
        resolve(found);
      }
    };
    child.all?.on("data", onData);
    void child.then(() => reject(new Error(`${what} exited before it was ready:\n${output}`)));
  });
  return { child, match, output: () => output };
}

/** Starts `till <command>` and resolves once its banner names the URL it serves. */
export async function spawnTillServer(
  command: "dev" | "serve",
  env: Record<string, string>,
  cwd = tempDir(),
  args: string[] = [],
): Promise<SpawnedServer> {
  const { child, match, output } = await startTill(
    "server",
    [command, ...args],
    { PORT: "0", ...env },
    cwd,
    /Ready\s+(http:\/\/\S+)\/readyz/,
  );
  return { url: match[1]!, child, output };
}

/** `till worker` started and ready (its banner printed). */
export async function spawnTillWorker(
  env: Record<string, string>,
  cwd: string,
): Promise<{ child: ResultPromise }> {
  const { child } = await startTill("worker", ["worker"], env, cwd, /till worker is running/);
  return { child };
}
