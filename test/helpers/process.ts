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

/** Starts `till <command>` and resolves once its banner names the URL it serves. */
export async function spawnTillServer(
  command: "dev" | "serve",
  env: Record<string, string>,
  cwd = tempDir(),
  args: string[] = [],
): Promise<SpawnedServer> {
  const child = execa(process.execPath, [tillBin, command, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? cwd,
      PORT: "0",
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
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = () => {
      const match = /Ready\s+(http:\/\/\S+)\/readyz/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.all?.off("data", onData);
        resolve(match[1]!);
      }
    };
    child.all?.on("data", onData);
    void child.then(() => reject(new Error(`server exited before it was ready:\n${output}`)));
  });
  return { url, child, output: () => output };
}
