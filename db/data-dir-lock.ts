// An embedded database belongs to one process: PGlite keeps its pages in memory and writes the data
// dir's files as if alone, so a second `till dev` (or `till migrate`, `till worker`) on the same dir
// would overwrite the first one's writes. A lock file naming the owner's pid keeps the second out.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
}

/** Takes the data dir for this process; the answer gives it back. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, "till.lock");
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = readOwner(file);
    if (owner === null) continue; // given back just now
    if (owner > 0 && owner !== process.pid && isAlive(owner))
      throw new DataDirInUseError(
        `The embedded database at ${dataDir} is in use by another till process (pid ${owner}). Stop it, or set TILL_DATA_DIR to another directory.`,
      );
    // Left by a process that was killed (or by this pid in an earlier life, in a container).
    rmSync(file, { force: true });
  }
}

function readOwner(file: string): number | null {
  try {
    return Number(readFileSync(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
